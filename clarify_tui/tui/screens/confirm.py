"""A question in a modal, for what cannot be undone: yes/no (skipping a queue task,
resuming a session left running), or a few named choices (leaving a person's unfinished
session: keep it for later, give it up, or go on). One dialog for all of them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from clarify_tui.tui.speed import OpenedDialog


@dataclass(frozen=True)
class Choice:
    """One answer: the keys that pick it (the first is the one shown first) and what the
    dialog dismisses with."""

    keys: tuple[str, ...]
    label: str
    value: Any


YES_NO = (Choice(("y", "enter"), "yes", True), Choice(("n", "escape"), "no", False))


class ConfirmScreen(OpenedDialog[Any]):
    """Dismisses with the value of the choice whose key is pressed (one press each):
    by default True on y / enter, False on n / escape. Keys no choice has do nothing."""

    def __init__(self, question: str, detail: str = "", choices: tuple[Choice, ...] = YES_NO) -> None:
        super().__init__()
        self.question, self.detail, self.choices = question, detail, choices

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-dialog"):
            yield Static(self.question, classes="dialog-title")
            if self.detail:
                yield Static(self.detail)
            if self.choices == YES_NO:
                yield Static("y / enter: yes · n / escape: no", classes="hint")
            else:
                for choice in self.choices:  # one line each: a person reads what each key does
                    yield Static(f"{' / '.join(choice.keys)}: {choice.label}", classes="hint")

    def on_key(self, event: events.Key) -> None:
        """Before any binding (the screen's or the app's): a choice's key answers."""
        for choice in self.choices:
            if event.key in choice.keys:
                event.stop()
                event.prevent_default()
                self.dismiss(choice.value)
                return

    def action_answer(self, value: Any) -> None:
        self.dismiss(value)
