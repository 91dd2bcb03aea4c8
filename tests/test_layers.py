"""The layers of docs/architecture.md hold: the import-linter contracts in pyproject.toml.

`.ci/run` runs `lint-imports` too; this test makes a broken layer fail the test suite that
every change runs, with import-linter's report (which import, from where) as the message.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parents[1]


def _lint(config: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = lint_imports(config_filename=str(config), no_cache=True, no_logo=True)
    return code, capsys.readouterr().out


def test_the_import_contracts_hold(capsys):
    code, report = _lint(ROOT / "pyproject.toml", capsys)
    assert code == 0, report
    assert "9 kept, 0 broken" in report


def test_a_core_module_importing_textual_breaks_the_contract(tmp_path, capsys):
    """The checker sees imports of third-party packages: the TUI itself imports Textual,
    so a contract forbidding that must be reported broken."""
    config = tmp_path / "bad.toml"
    config.write_text(
        '[tool.importlinter]\nroot_package = "clarify_tui"\ninclude_external_packages = true\n\n'
        '[[tool.importlinter.contracts]]\nname = "the TUI without Textual"\ntype = "forbidden"\n'
        'source_modules = ["clarify_tui.tui"]\nforbidden_modules = ["textual"]\n'
    )
    code, report = _lint(config, capsys)
    assert code == 1
    assert "clarify_tui.tui" in report and "textual" in report and "BROKEN" in report


def test_the_layers_are_a_few_contracts_each_named_for_an_intention_with_its_why():
    """Issue 32: not one long list but a few contracts a reader can take in one at a time;
    each says what it keeps apart (its name) and why (a `# why:` line above it)."""
    import tomllib

    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    contracts = tomllib.loads(text)["tool"]["importlinter"]["contracts"]
    layered = [c for c in contracts if c["type"] == "layers"]
    assert 2 <= len(layered) <= 5
    assert all(len(c["name"]) < 100 and not c["name"].startswith("Layers:") for c in layered)
    for c in layered:
        block = text[text.index(f'id = "{c["id"]}"') : text.index(f'name = "{c["name"]}"')]
        assert "# why: " in block, c["id"]
