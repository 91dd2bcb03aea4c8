"""No module over 400 lines (STYLE: small clear modules, no god modules; tests/ excluded).

Counted on the formatted tree (`ruff format`, line length 120), as CI formats it. A module
that grows past the limit is split along a real seam (what changes for one reason), not
cut at line 400: see how tui/browsing_keys.py, tui/play_setup.py and
importers/cts_candidate_fields.py left their modules.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "clarify_tui"
MOST = 400


def too_long(root: Path = ROOT) -> list[str]:
    out = []
    for path in sorted(root.rglob("*.py")):
        n = len(path.read_text(encoding="utf-8").splitlines())
        if n > MOST:
            out.append(f"{path.relative_to(root.parent)}: {n} lines")
    return out


def test_no_module_is_over_400_lines():
    found = too_long()
    assert not found, f"split along a real seam (at most {MOST} lines a module):\n" + "\n".join(found)


def test_the_count_sees_a_long_module(tmp_path):
    (tmp_path / "clarify_tui" / "pkg").mkdir(parents=True)
    (tmp_path / "clarify_tui" / "pkg" / "big.py").write_text("x = 1\n" * 401)
    (tmp_path / "clarify_tui" / "fits.py").write_text("x = 1\n" * 400)
    assert too_long(tmp_path / "clarify_tui") == ["clarify_tui/pkg/big.py: 401 lines"]
