"""Replay's cursor as the trajectory draws it: the current step stands out, the guessed
step is flagged, later steps fade. Plain state, so the widget only asks "how is step i
marked" and "which cards must be drawn again"."""

from __future__ import annotations


class ReplayMarks:
    def __init__(self) -> None:
        self.current: int | None = None
        self.guess: int | None = None
        self.dim_future = False

    def move(self, current: int | None, guess: int | None, dim_future: bool) -> tuple[set[int | None], bool]:
        """Set the cursor; returns the steps whose marks changed and whether the faded
        range moved (then every card may look different)."""
        touched = {self.current, self.guess, current, guess}
        future_changed = dim_future != self.dim_future or (dim_future and current != self.current)
        self.current, self.guess, self.dim_future = current, guess, dim_future
        return touched, future_changed

    def of(self, index: int) -> set[str]:
        """How step `index` is marked: {"current", "future", "guess"}, or empty."""
        out = set()
        if index == self.current:
            out.add("current")
        if index == self.guess:
            out.add("guess")
        if self.dim_future and self.current is not None and index > self.current:
            out.add("future")
        return out
