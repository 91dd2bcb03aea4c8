"""The task clock a human agent sees; it ticks twice a second.

The timekeeping itself (`ActiveClock`, `format_ms`) is core: `clarify_tui/annotation.py`.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from clarify_tui.annotation import ActiveClock, format_ms


class TaskClock(Static):
    """`⏱ 03:12` while running, `⏸ paused 03:12` while paused; `clock` is set by the screen."""

    def __init__(self, clock: ActiveClock | None = None, **kwargs) -> None:
        super().__init__(**kwargs)
        self.clock = clock

    def on_mount(self) -> None:
        self.tick()
        self.set_interval(0.5, self.tick)

    def tick(self) -> None:
        clock = self.clock
        if clock is None:
            self.update("")
            return
        shown = format_ms(clock.active_ms())
        if clock.paused:
            text = Text.assemble(("⏸ paused ", "bold yellow"), (shown, "bold"), ("  p resumes", "dim"))
        elif clock.stopped:
            text = Text.assemble(("⏱ ", ""), (shown, "bold"), (" active time", "dim"))
        else:
            text = Text.assemble(("⏱ ", ""), (shown, "bold"), ("  p pauses", "dim"))
        self.set_class(clock.paused, "paused")
        self.update(text)
