"""A DataTable whose one-line text cells are drawn without Rich's layout machinery.

DataTable draws each cell through `Styled(Padding(cell))` and `Console.render_lines`:
three nested renders, wrapping and cropping, for every cell the first time it is shown.
For the sessions table that was most of the first frame of F2 (benchmarks/bench_tui.py).
A one-line `Text` cell in a one-line row needs none of it: this draws the same segments
directly (tests/test_fast_table.py checks them against DataTable's own, cell by cell).
Anything else (multi-line rows, justified or wrapped text, other renderables, row labels)
goes through DataTable's path unchanged.
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.widgets import DataTable

_PLAIN_JUSTIFY = (None, "default", "left")


class FastTable(DataTable):
    """DataTable with a direct path for one-line text cells (same output)."""

    def _render_cell(
        self,
        row_index: int,
        column_index: int,
        base_style: Style,
        width: int,
        cursor: bool = False,
        hover: bool = False,
    ):
        lines = self._fast_cell(row_index, column_index, base_style, width, cursor, hover)
        if lines is None:
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        return lines

    def _fast_cell(self, row_index: int, column_index: int, base_style: Style, width: int, cursor: bool, hover: bool):
        """The cell's lines drawn directly, cached like DataTable's, or None when this
        cell needs DataTable's general path."""
        header = row_index == -1
        if column_index == -1 or width <= 2 * self.cell_padding:
            return None
        row_key = self._header_row_key if header else self._row_locations.get_key(row_index)
        column_key = self._column_locations.get_key(column_index)
        if row_key is None or column_key is None:  # not a cell of this table (DataTable's path says so)
            return None
        cache_key = (
            row_key,
            column_key,
            base_style,
            cursor,
            hover,
            self._show_hover_cursor,
            self._update_count,
            self._pseudo_class_state,
        )
        cached = self._cell_render_cache.get(cache_key)
        if cached is not None:
            return cached
        height = self.header_height if header else self.rows[row_key].height
        if height != 1:
            return None
        cell = self._get_row_renderables(row_index).cells[column_index]
        if not isinstance(cell, Text) or cell.justify not in _PLAIN_JUSTIFY or "\n" in cell.plain or "\t" in cell.plain:
            return None
        fixed = not header and (row_index < self.fixed_rows or column_index < self.fixed_columns)
        component_style, post_style = self._get_styles_to_render_cell(
            header,
            False,
            fixed,
            hover,
            cursor,
            self.show_cursor,
            self._show_hover_cursor,
            self.cursor_foreground_priority == "css",
            self.cursor_background_priority == "css",
        )
        pre_style = base_style + Style.from_meta({"row": row_index, "column": column_index}) + component_style
        pad = self.cell_padding
        inner = width - 2 * pad
        text = cell.copy()
        text.end = ""
        if text.style:  # as Rich's wrap-and-join does: the base style becomes the lowest span
            text.stylize_before(text.style)
            text.style = ""
        text.rstrip_end(inner)
        text.truncate(inner, overflow=cell.overflow or "fold")
        padding = Segment(" " * pad, Style()) if pad else None
        segments = list(text.render(self.app.console))
        segments = Segment.adjust_line_length(segments, inner, style=None, pad=True)
        if padding is not None:
            segments = [padding, *segments, padding]
        line = list(Segment.apply_style(segments, style=pre_style, post_style=post_style))
        lines = [line]
        self._cell_render_cache[cache_key] = lines
        return lines
