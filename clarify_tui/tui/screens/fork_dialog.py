"""Replay's fork dialog: which agent continues a session after the current step."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, Label, Static

from clarify_tui.tui.speed import Dialog

INFORMED_WARNING = (
    "If you play the agent yourself (human), the fork is marked informed and left out of "
    "baselines (score --include-informed keeps it): you have seen this session's hidden "
    "information or its end."
)


class ForkDialog(Dialog[str | None]):
    """Which agent continues the fork: the same spec by default, or another one."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, default_spec: str, step: int, *, chosen: int | None = None, informed: bool = False) -> None:
        super().__init__()
        self.default_spec = default_spec
        self.step = step  # the fork keeps steps 0..step (an action's replies stay with it)
        self.chosen = step if chosen is None else chosen  # the step the cursor was on
        self.informed = informed  # this person has seen the session's hidden information

    def compose(self) -> ComposeResult:
        with Vertical(id="fork-dialog"):
            keeps = "" if self.chosen == self.step else f" (step {self.chosen}'s action keeps its replies)"
            yield Label(f"Fork after step {self.step}{keeps}: who continues as the agent?")
            yield Input(self.default_spec, id="fork-spec")
            if self.informed:
                yield Static(INFORMED_WARNING, classes="warning", id="fork-informed")
            yield Static(
                "scripted:direct-guess · scripted:search-heavy-guess · scripted:ask-first · "
                "scripted:search-then-ask · openai:MODEL · human\nenter fork · escape cancel",
                classes="hint",
            )

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or self.default_spec)

    def action_cancel(self) -> None:
        self.dismiss(None)
