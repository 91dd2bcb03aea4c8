"""FastTable draws one-line text cells directly: the same segments as DataTable's own path,
cell by cell (header, zebra rows, the cursor row, cropped and styled text)."""

from __future__ import annotations

from rich.segment import Segment
from rich.text import Text
from textual.app import App, ComposeResult
from textual.widgets import DataTable

from clarify_tui.tui.speed.fast_table import FastTable

ROWS = [
    ["s-1", Text("correct", style="green"), "a [b]markup[/b] cell", "", Text("● └ fork", style="bold")],
    ["s-2", Text("wrong", style="red"), "a cell far too long for its column width " * 3, "x", Text("dim", style="dim")],
    ["s-3", Text("running", style="cyan"), "ünïcode · 漢字 wide", "  spaced  ", Text("")],
]


class TableApp(App):
    def compose(self) -> ComposeResult:
        yield FastTable(zebra_stripes=True, cursor_type="row")

    def on_mount(self) -> None:
        table = self.query_one(FastTable)
        table.add_column("id", key="id")
        table.add_column("outcome", key="outcome")
        table.add_column("text", key="text", width=12)
        table.add_column("short", key="short")
        table.add_column(Text("styled header", style="italic"), key="styled")
        for i, row in enumerate(ROWS):
            table.add_row(*row, key=str(i))


async def test_fast_cells_match_datatables_own():
    app = TableApp()
    async with app.run_test(size=(100, 12)) as pilot:
        await pilot.pause()
        table = app.query_one(FastTable)
        base = table.rich_style
        compared = 0
        for row in range(-1, len(ROWS)):
            for column in range(5):
                for cursor, hover in ((False, False), (True, False), (False, True)):
                    width = table.ordered_columns[column].get_render_width(table)
                    fast = table._fast_cell(row, column, base, width, cursor, hover)
                    table._cell_render_cache.clear()
                    slow = DataTable._render_cell(table, row, column, base, width, cursor, hover)
                    table._cell_render_cache.clear()
                    assert fast is not None, (row, column)
                    assert [list(Segment.simplify(line)) for line in fast] == [
                        list(Segment.simplify(line)) for line in slow
                    ], (row, column, cursor, hover)
                    compared += 1
        assert compared == 4 * 5 * 3
