"""The busy folders each have a README.md naming every module in them, one line each
(issue 32, "a house a newcomer can read"): a module added without its line fails here,
so the map a newcomer reads first stays the real one."""

from __future__ import annotations

from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "clarify_tui"

# (folder, the README holding its lines, the heading of the section that lists it)
FOLDERS = [
    ("engine", "engine", ""),
    ("metrics", "metrics", ""),
    ("tui", "tui", "This folder"),
    ("tui/screens", "tui", "`screens/`"),
    ("tui/widgets", "tui", "`widgets/`"),
    ("tui/speed", "tui", "`speed/`"),
]


def section(readme: Path, heading: str) -> str:
    text = readme.read_text(encoding="utf-8")
    if not heading:
        return text.split("\n## ", 1)[0]  # the table before the first section
    found = [part for part in text.split("\n## ") if part.splitlines()[0].startswith(heading)]
    assert found, f"{readme} has no section '## {heading}'"
    return found[0]


def table_rows(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("| `")]


@pytest.mark.parametrize(("folder", "readme", "heading"), FOLDERS, ids=[f[0] for f in FOLDERS])
def test_every_module_of_a_busy_folder_has_its_line(folder, readme, heading):
    listed = section(PACKAGE / readme / "README.md", heading)
    names = sorted(p.name for p in (PACKAGE / folder).iterdir() if p.suffix in (".py", ".tcss"))
    missing = [name for name in names if not any(f"`{name}`" in row for row in table_rows(listed))]
    assert missing == [], f"clarify_tui/{readme}/README.md: give each a line saying what lives there: {missing}"


def test_each_readme_says_where_a_change_goes():
    for readme in {r for _, r, _ in FOLDERS}:
        text = (PACKAGE / readme / "README.md").read_text(encoding="utf-8")
        assert "\n## Where a change goes\n" in text, readme
