"""Step mode's editor: edit the pending action or type a replacement (a modal)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Static

from clarify_tui.models import Action, ActionKind
from clarify_tui.tui.speed import OpenedDialog
from clarify_tui.tui.widgets.action_bar import ActionBar
from clarify_tui.tui.widgets.action_form import ActionForm


class ComposeScreen(OpenedDialog[Action | None]):
    """Pick a kind the engine allows (s / k / v / c / enter), type it; dismisses with the Action."""

    BINDINGS = [
        Binding("s", "open('search')", "Search"),
        Binding("k", "open('ask')", "Ask"),
        Binding("v", "open('visit')", "Visit"),
        Binding("c", "open('clarify')", "Clarify"),
        Binding("enter", "open('answer')", "Answer"),
        Binding("escape", "dismiss_none", "Close", priority=True),  # one press, even while typing
    ]

    def __init__(
        self, allowed: list[ActionKind], *, k: int = 1, confidence: bool = False, prefill: Action | None = None
    ) -> None:
        super().__init__()
        self.allowed, self.k, self.confidence, self.prefill = allowed, k, confidence, prefill

    def compose(self) -> ComposeResult:
        with Vertical(id="compose-dialog"):
            title = "Edit the pending action" if self.prefill else "Replace: type the agent's next action"
            yield Static(title, classes="dialog-title")
            yield ActionBar(self._first_form(), id="compose-bar")

    def _first_form(self) -> ActionForm | None:
        """The form open from the start: the pending action's (when editing), or clarify's
        when it is the only action allowed."""
        if self.prefill is not None and self.prefill.kind in self.allowed:
            kind, prefill = self.prefill.kind, self.prefill
        elif self.allowed == [ActionKind.clarify]:
            kind, prefill = ActionKind.clarify, None
        else:
            return None
        return ActionForm(kind, k=self.k, confidence=self.confidence, prefill=prefill)

    def on_mount(self) -> None:
        self.query_one(ActionBar).set_allowed(self.allowed, k=self.k, confidence=self.confidence)

    def action_open(self, kind: str) -> None:
        self.query_one(ActionBar).open(ActionKind(kind))

    def action_dismiss_none(self) -> None:
        self.dismiss(None)

    def on_action_bar_action_chosen(self, message: ActionBar.ActionChosen) -> None:
        action = message.action
        prefill = self.prefill
        if prefill is None:
            action.human = "replaced"
        elif action.model_dump(exclude={"human"}) != prefill.model_dump(exclude={"human"}):
            action.human = "edited"
            action.usage = prefill.usage  # the proposal's call still happened
        else:
            action.human = prefill.human  # unchanged: still the agent's own
        self.dismiss(action)
