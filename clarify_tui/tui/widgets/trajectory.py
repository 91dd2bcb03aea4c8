"""The centre region: the live list of steps, newest in view.

`sync` is idempotent and cheap: it mounts cards only for steps it has not shown yet (all
at once, so a burst of steps is one layout pass) and re-renders the last card, which the
engine may have re-recorded. Judge steps are left out while spoilers are hidden.
"""

from __future__ import annotations

from textual.containers import VerticalScroll
from textual.widgets import Static

from clarify_tui.models import Step
from clarify_tui.tui.widgets.step_card import StepCard


def visible_steps(steps: list[Step], reveal: bool) -> list[Step]:
    """What the trajectory shows: everything, or everything but judge steps."""
    return steps if reveal else [s for s in steps if s.actor != "judge"]


class Trajectory(VerticalScroll):
    """Step cards, oldest first; follows the newest step while `follow` is on."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.reveal = True
        self.expanded = False
        self.follow = True
        self._shown: list[int] = []  # step indexes with a card, in order

    def compose(self):
        yield Static("No steps yet.", id="empty-trajectory", classes="hint")

    def sync(self, steps: list[Step], reveal: bool) -> None:
        if reveal != self.reveal:
            self.reveal = reveal
            self.rebuild(steps)
            return
        wanted = visible_steps(steps, reveal)
        cards = list(self.query(StepCard))
        by_index = {s.index: s for s in wanted}
        if cards:
            last = cards[-1]
            if last.step.index in by_index:
                last.update_step(by_index[last.step.index], reveal)
        shown = set(self._shown)
        new = [s for s in wanted if s.index not in shown]
        if new:
            self.query("#empty-trajectory").remove()
            self._shown += [s.index for s in new]
            self.mount_all([StepCard(s, reveal, self.expanded) for s in new])
            if self.follow:
                self.call_after_refresh(self.scroll_end, animate=False)

    def rebuild(self, steps: list[Step]) -> None:
        self.query(StepCard).remove()
        self._shown = []
        self.sync(steps, self.reveal)

    def set_expanded(self, expanded: bool) -> None:
        self.expanded = expanded
        for card in self.query(StepCard):
            card.expanded = expanded
