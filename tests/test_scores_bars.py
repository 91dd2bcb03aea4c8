"""F3's accuracy chart (issue 30): each group's bar is drawn on its own label's row, and a
0 % group's row has no bar, with 2 to 6 runs at 80×24 and 200×50. Read from the drawn
screen, inside the chart's region."""

from __future__ import annotations

import sqlite3

import pytest

from clarify_tui.cli import main as cli
from clarify_tui.store import Store
from clarify_tui.tui.browse import BrowseApp
from clarify_tui.tui.widgets.charts import BarChart
from tests.clitools import scripted_run

RUNS = [
    ("discobench", "direct-guess"),
    ("discobench", "search-then-ask"),
    ("interactcomp", "direct-guess"),
    ("interactcomp", "search-then-ask"),
    ("discobench", "ask-first"),
    ("interactcomp", "search-heavy-guess"),
]
BAR = set("█▉▊▋▌▍▎▏")  # a bar's cells, whole or in eighths


@pytest.fixture(scope="module")
def dbs(tmp_path_factory) -> dict[int, str]:
    """A database with the first n runs of RUNS, for n = 2..6 (0 % and 100 % runs mixed)."""
    folder = tmp_path_factory.mktemp("bars")
    path, copies = folder / "all.db", {}
    for n, (benchmark, agent) in enumerate(RUNS, 1):
        assert cli(scripted_run(path, benchmark, agent, f"{benchmark[:5]}-{agent}", 1)) == 0
        if n >= 2:
            copies[n] = str(folder / f"runs{n}.db")
            with sqlite3.connect(path) as src, sqlite3.connect(copies[n]) as dst:
                src.backup(dst)
    return copies


def chart_rows(app) -> list[tuple[str, str]]:
    """(label, bar cells) of each drawn row of the accuracy chart; label "" for a row
    without one."""
    chart = app.screen.query_one("#chart-accuracy", BarChart)
    region = chart.content_region.intersection(app.screen.region)
    lines = [strip.text for strip in app.screen._compositor.render_strips()]
    rows = []
    for line in lines[region.y : region.bottom]:
        cells = line[region.x : region.right]
        axis = cells.find("┤") if "┤" in cells else cells.find("│")
        if axis < 0:
            continue
        rows.append((cells[:axis].strip(), "".join(c for c in cells[axis + 1 :] if c in BAR)))
    return rows


def drawn_for(label: str, names: list[str]) -> str:
    """The group a drawn label names (a long name is cut with "…")."""
    found = [n for n in names if n == label or (label.endswith("…") and n.startswith(label[:-1]))]
    assert len(found) == 1, (label, names)
    return found[0]


@pytest.mark.parametrize("size", [(80, 24), (200, 50)])
@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
async def test_each_bar_is_drawn_on_its_own_labels_row(dbs, n, size):
    app = BrowseApp(Store(dbs[n]), start="scores")
    async with app.run_test(size=size) as pilot:
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("t")
        await pilot.pause()
        await pilot.pause()
        accuracy = dict(app.screen.data.accuracy)
        assert len(accuracy) == n and any(v == 0 for v in accuracy.values()) and any(v for v in accuracy.values())
        rows = chart_rows(app)
        assert [label for label, cells in rows if cells and not label] == [], rows  # no bar beside no label
        labelled = {drawn_for(label, list(accuracy)): cells for label, cells in rows if label}
        assert set(labelled) == set(accuracy), rows  # every group drawn once
        for name, cells in labelled.items():
            assert bool(cells) == (accuracy[name] > 0), (name, accuracy[name], rows)


def test_a_bar_is_as_long_as_its_value():
    from clarify_tui.tui.widgets.charts import bar

    assert bar(1.0, 1.0, 10) == "█" * 10 and bar(0.0, 1.0, 10) == " " * 10
    assert bar(0.5, 1.0, 10) == "█" * 5 + " " * 5 and bar(0.55, 1.0, 10) == "█" * 5 + "▌" + " " * 4
    assert bar(2.0, 1.0, 4) == "████"  # capped at the top
