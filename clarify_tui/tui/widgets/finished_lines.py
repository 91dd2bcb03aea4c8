"""A Line-API widget's finished lines, kept across scrolls.

Textual finishes every line a widget draws (border, padding, colour filters) in its
styles cache, which is keyed by the row on screen: a scroll moves every line to another
row, so all of them are finished again, and the compositor cuts each new line again.
That was most of a trajectory key. A content line finishes the same on any row, so
`FinishedLines` keeps the finished line under the content strip it was made from (the
trajectory hands out the same `Strip` object for the same line while the card is
unchanged): a scroll by one line finishes one line, paging back finishes none, and the
compositor's cut of a kept line is cached on the line itself.
"""

from __future__ import annotations

from textual.cache import LRUCache
from textual.geometry import Region
from textual.strip import Strip

KEPT_LINES = 150  # about ten pages of a tall terminal


class FinishedLines:
    """Mixin for a `ScrollView` with `render_line`: `render_lines` reuses finished lines.

    Call `restyled()` when the widget's look changes without its content strips
    changing (a style update); size, background and colour filters are checked here."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._finished: LRUCache[int, tuple[Strip, Strip]] = LRUCache(KEPT_LINES)
        self._finished_for: tuple = ()
        self._drawn: dict[int, Strip] = {}  # content lines drawn in this `render_lines`

    def content_line(self, y: int) -> Strip:
        """Content line `y` (what `render_line` is in a plain Line-API widget)."""
        raise NotImplementedError

    def render_line(self, y: int) -> Strip:
        """Textual finishing a missing line asks for its content again: it was drawn a
        moment ago in the same `render_lines`."""
        line = self._drawn.get(y)
        return self.content_line(y) if line is None else line

    def restyled(self) -> None:
        self._finished.clear()

    def render_lines(self, crop: Region) -> list[Strip]:
        widget = self
        width, height = widget.region.size  # type: ignore[attr-defined]  # `size` is the content's
        hover = widget.hover_style  # type: ignore[attr-defined]
        if widget.auto_links and hover._link_id:  # type: ignore[attr-defined]
            return super().render_lines(crop)  # type: ignore[misc]  # links drawn hovered: not kept
        look = (widget.region.size, widget.background_colors,  # type: ignore[attr-defined]
                tuple(id(f) for f in widget.get_line_filters()))  # type: ignore[attr-defined]
        if look != self._finished_for:
            self._finished.clear()
            self._finished_for = look
        gutter = widget.styles.gutter  # type: ignore[attr-defined]
        top, bottom = gutter.top, height - gutter.bottom
        full = Region(0, crop.y, width, crop.height)
        rows: list[Strip | None] = []
        contents: dict[int, Strip] = {}
        for y in full.line_range:
            line = None
            if top <= y < bottom:
                content = contents[y] = self._drawn[y - top] = self.content_line(y - top)
                kept = self._finished.get(id(content))
                if kept is not None and kept[0] is content:
                    line = kept[1]
            rows.append(line)
        try:
            self._finish_missing(rows, contents, full, width)
        finally:
            self._drawn.clear()
        lines: list[Strip] = rows  # type: ignore[assignment]
        if crop.column_span != (0, width):
            x1, x2 = crop.column_span
            lines = [line.crop(x1, x2) for line in lines]
        return lines

    def _finish_missing(self, rows: list[Strip | None], contents: dict[int, Strip], full: Region, width: int) -> None:
        y = 0
        while y < len(rows):  # finish each run of missing lines through Textual
            if rows[y] is not None:
                y += 1
                continue
            end = y
            while end < len(rows) and rows[end] is None:
                end += 1
            finished = super().render_lines(Region(0, full.y + y, width, end - y))  # type: ignore[misc]
            for row, line in zip(range(y, end), finished):
                rows[row] = line
                content = contents.get(full.y + row)
                if content is not None:
                    self._finished[id(content)] = (content, line)
            y = end
