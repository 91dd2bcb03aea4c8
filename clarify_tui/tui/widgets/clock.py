"""The task clock a human agent sees; it shows whole seconds.

It redraws when the shown text changes, from a timer set for the next whole second of
active time (none while paused or stopped: `set_paused` ticks it). Until issue 30 it
redrew twice a second with a full relayout each time: an idle browser visitor's app cost
~1.4 % of a core, 30 of them almost half a core (benchmarks/bench_visitors.py).

The timekeeping itself (`ActiveClock`, `format_ms`) is core: `clarify_tui/annotation.py`.
"""

from __future__ import annotations

from rich.text import Text
from textual.timer import Timer
from textual.widgets import Static

from clarify_tui.annotation import ActiveClock, format_ms

MARGIN_S = 0.01  # the timer fires just after the second turns, never just before it


class TaskClock(Static):
    """`⏱ 03:12` while running, `⏸ paused 03:12` while paused; `clock` is set by the screen."""

    def __init__(self, clock: ActiveClock | None = None, **kwargs) -> None:
        super().__init__(**kwargs)
        self.clock = clock
        self._shown: tuple | None = None
        self._next: Timer | None = None

    def on_mount(self) -> None:
        self.tick()

    def tick(self) -> None:
        """Show the clock now, and set the timer for the next change of second."""
        if self._next is not None:
            self._next.stop()
            self._next = None
        clock = self.clock
        if clock is None:
            self._show(("",), Text(""))
            return
        ms = clock.active_ms()
        shown = format_ms(ms)
        if clock.paused:
            text = Text.assemble(("⏸ paused ", "bold yellow"), (shown, "bold"), ("  p resumes", "dim"))
        elif clock.stopped:
            text = Text.assemble(("⏱ ", ""), (shown, "bold"), (" active time", "dim"))
        else:
            text = Text.assemble(("⏱ ", ""), (shown, "bold"), ("  p pauses", "dim"))
        self.set_class(clock.paused, "paused")
        self._show((shown, clock.paused, clock.stopped), text)
        if not clock.paused and not clock.stopped:
            self._next = self.set_timer((1000 - ms % 1000) / 1000 + MARGIN_S, self.tick)

    def _show(self, key: tuple, text: Text) -> None:
        if key == self._shown:
            return
        width_changed = (
            self._shown is None or len(str(self._shown[0])) != len(str(key[0])) or key[1:] != self._shown[1:]
        )
        self._shown = key
        self.update(text, layout=width_changed)  # same width: only this widget repaints
