"""A yes/no question in a modal, for what cannot be undone (skipping a queue task)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Static

from clarify_tui.tui.speed import OpenedDialog


class ConfirmScreen(OpenedDialog[bool]):
    """Dismisses with True on y / enter, False on n / escape (one press each)."""

    BINDINGS = [
        Binding("y,enter", "answer(True)", "Yes", priority=True),
        Binding("n,escape", "answer(False)", "No", priority=True),
    ]

    def __init__(self, question: str, detail: str = "") -> None:
        super().__init__()
        self.question, self.detail = question, detail

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-dialog"):
            yield Static(self.question, classes="dialog-title")
            if self.detail:
                yield Static(self.detail)
            yield Static("y / enter: yes · n / escape: no", classes="hint")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
