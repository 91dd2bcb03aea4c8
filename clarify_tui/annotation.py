"""What a human's session keeps besides its steps: active time on the task, and notes.

`ActiveClock` is wall time since the task opened, minus the time it was paused, plus the
time carried over from an interrupted session. `paused_ms()` only grows, so whoever runs
the episode (the TUI's driver) can subtract the pause that fell inside one action's wait
from that action's latency. Plain Python so the core and its tests need no terminal;
`tui/widgets/clock.py` shows it.
"""

from __future__ import annotations

import time
from collections.abc import Callable


class ActiveClock:
    """Active time of one task. `now` returns seconds (time.perf_counter by default)."""

    def __init__(self, base_ms: float = 0.0, now: Callable[[], float] | None = None) -> None:
        self.now = now or time.perf_counter
        self.base_ms = base_ms
        self._started: float | None = None
        self._paused_since: float | None = None
        self._paused_ms = 0.0
        self._stopped_at: float | None = None

    def start(self) -> None:
        if self._started is None:
            self._started = self.now()

    @property
    def running(self) -> bool:
        return self._started is not None and self._paused_since is None and self._stopped_at is None

    @property
    def paused(self) -> bool:
        return self._paused_since is not None

    @property
    def stopped(self) -> bool:
        return self._stopped_at is not None

    def pause(self) -> None:
        if self.running:
            self._paused_since = self.now()

    def resume(self) -> None:
        if self._paused_since is not None:
            self._paused_ms += (self.now() - self._paused_since) * 1000
            self._paused_since = None

    def stop(self) -> None:
        """The task ended: the clock stands still from now on (a pause in progress ends)."""
        if self._started is not None and self._stopped_at is None:
            self.resume()
            self._stopped_at = self.now()

    def paused_ms(self) -> float:
        """All paused time so far, including a pause in progress."""
        extra = (self.now() - self._paused_since) * 1000 if self._paused_since is not None else 0.0
        return self._paused_ms + extra

    def active_ms(self) -> float:
        if self._started is None:
            return self.base_ms
        end = self._stopped_at if self._stopped_at is not None else self.now()
        return self.base_ms + max(0.0, (end - self._started) * 1000 - self.paused_ms())


def format_ms(ms: float) -> str:
    """`03:12`, or `1:03:12` from an hour on (whole seconds, rounded down)."""
    seconds = int(ms // 1000)
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60:02d}:{rest % 60:02d}"


def append_note(existing: str | None, text: str) -> str:
    """`text` on a new line after any existing note (Session.note keeps every note)."""
    return f"{existing}\n{text}" if existing else text
