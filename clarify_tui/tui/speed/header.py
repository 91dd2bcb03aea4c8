"""Textual's Header, whose title line is only redrawn when the title changes.

Header watches the app's and the screen's title and sub-title and sets its title line
each time any of them is assigned, or the watch starts: four times as a screen opens,
some after the screen's first frame, each a layout of the whole screen and one more frame
(benchmarks/bench_tui.py). Setting the same title again now changes nothing.

Textual's Header also sets its title line from a callback that can run after the line is
gone: a widget taken down (the app closing, a screen built ahead dropped) removes its
children first, then runs the callbacks still queued, and `query_one(HeaderTitle)` raised
NoMatches into the app (CI, the lowest-versions smoke, once under load). Here a header
without its title line has nothing to title.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.content import Content
from textual.css.query import NoMatches
from textual.dom import NoScreen
from textual.events import Mount
from textual.widget import Widget
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

    def _on_mount(self, event: Mount) -> None:
        """Textual's Header._on_mount, with a title line that may be gone (see the docstring)."""
        event.prevent_default()  # in place of Textual's Header._on_mount, not beside it
        Widget._on_mount(self, event)

        def set_title() -> None:  # at once, not queued: a queued one may never run (the header taken down first)
            try:
                self.query_one(HeaderTitle).update(self.format_title())
            except (NoScreen, NoMatches):  # being taken down: no screen, or no title line any more
                pass

        for node in (self.app, self.screen):
            self.watch(node, "title", set_title)
            self.watch(node, "sub_title", set_title)
