"""The trajectory's vertical scrollbar, each kind of row finished once.

Textual finishes every row of a scrollbar (styles, colour filters) each time it moves,
so every scroll of the trajectory finished ~40 rows again: ~1.5 ms of a 9 ms `down` in a
5,000-step session (benchmarks/bench_tui.py). A vertical bar has a handful of kinds of
row (the track above and below the thumb, the thumb, its two partial ends), so
`QuickScrollBar` hands out one strip per kind (the rows Textual draws, made equal ones
the same object) and `FinishedLines` keeps each finished row.
"""

from __future__ import annotations

from textual.scrollbar import ScrollBar
from textual.strip import Strip
from textual.widget import Widget

from clarify_tui.tui.widgets.finished_lines import FinishedLines

KINDS_KEPT = 64  # kinds of row remembered (a few per colour: hover and grab recolour the bar)


class QuickScrollBar(FinishedLines, ScrollBar):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._kinds: dict[tuple, Strip] = {}

    def content_line(self, y: int) -> Strip:
        line = Widget.render_line(self, y)  # Textual's row (the bar is drawn once per frame)
        key = tuple(line)  # its segments: text and style (the style's meta, not its link id)
        kept = self._kinds.get(key)
        if kept is None:
            if len(self._kinds) >= KINDS_KEPT:
                self._kinds.clear()
            kept = self._kinds[key] = line
        return kept


class QuickVerticalScrollbar:
    """For a scrolling widget: its vertical scrollbar is a `QuickScrollBar`."""

    @property
    def vertical_scrollbar(self) -> ScrollBar:
        """Overrides `Widget.vertical_scrollbar` (which makes a plain ScrollBar on first
        use) with the same set-up; tests/test_quick_scrollbar.py compares the two."""
        bar = self._vertical_scrollbar  # type: ignore[attr-defined]
        if bar is None:
            bar = self._vertical_scrollbar = QuickScrollBar(
                vertical=True, name="vertical", thickness=self.scrollbar_size_vertical)  # type: ignore[attr-defined]
            bar.display = False
            self.app._start_widget(self, bar)  # type: ignore[attr-defined]
        return bar
