"""Textual's Header, whose title line is only redrawn when the title changes.

Header watches the app's and the screen's title and sub-title and sets its title line
each time any of them is assigned, or the watch starts: four times as a screen opens,
some after the screen's first frame, each a layout of the whole screen and one more frame
(benchmarks/bench_tui.py). Setting the same title again now changes nothing.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.content import Content
from textual.widgets import Header as TextualHeader
from textual.widgets._header import HeaderClock, HeaderClockSpace, HeaderIcon, HeaderTitle


class QuietHeaderTitle(HeaderTitle):
    """The title line; an update with the text and styles it shows already is skipped."""

    _shown: object = None

    def update(self, content="", *, layout: bool = True) -> None:
        key = (content.plain, tuple(content.spans)) if isinstance(content, Content) else content
        if key == self._shown:
            return
        self._shown = key
        super().update(content, layout=layout)


class Header(TextualHeader):
    def compose(self) -> ComposeResult:
        yield HeaderIcon().data_bind(TextualHeader.icon)
        yield QuietHeaderTitle()
        yield HeaderClock().data_bind(TextualHeader.time_format) if self._show_clock else HeaderClockSpace()
