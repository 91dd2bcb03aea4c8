"""Which card is at which line of the trajectory: the shown steps in order, each card's
height (drawn, or guessed until it comes near the view) and the first line of each.

Kept apart from the widget because it is plain bookkeeping over numbers: the widget
decides what to draw and when; this answers "what is at line y" and "how tall is all
of it" in O(log n), for sessions of thousands of steps.
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate

from clarify_tui.models import Step


class CardIndex:
    def __init__(self) -> None:
        self.clear()

    def clear(self) -> None:
        self.steps: list[Step] = []  # what is shown, in order
        self.position: dict[int, int] = {}  # step index -> place in `steps`
        self.heights: list[int] = []  # lines per card, gap included
        self.keys: list[tuple | None] = []  # what each height was drawn for; None = a guess
        self.offsets: list[int] = [0]  # first line of each card; the last item is the total

    def __len__(self) -> int:
        return len(self.steps)

    @property
    def total(self) -> int:
        return self.offsets[-1]

    def append(self, step: Step, guess: int) -> None:
        """Show `step` last, `guess` lines tall until it is drawn (call `reoffset` after)."""
        self.position[step.index] = len(self.steps)
        self.steps.append(step)
        self.heights.append(guess)
        self.keys.append(None)

    def replace_last(self, step: Step) -> None:
        """The engine re-recorded the last step: its height is a guess again."""
        self.steps[-1] = step
        self.keys[-1] = None

    def guess_all(self, guesses: list[int]) -> None:
        self.heights, self.keys = guesses, [None] * len(self.steps)

    def drawn(self, pos: int, height: int, key: tuple) -> None:
        self.heights[pos], self.keys[pos] = height, key

    def reoffset(self) -> None:
        self.offsets = list(accumulate(self.heights, initial=0))

    def card_at(self, y: int) -> int:
        """The place of the card holding line `y` (clamped to the first and last card)."""
        return max(0, min(len(self.steps) - 1, bisect_right(self.offsets, y) - 1))
