"""The human agent's action bar: which actions the engine allows now, and a form for the
one being typed. `open(kind)` starts typing; the chosen Action is posted upwards."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static

from clarify_tui.models import Action, ActionKind
from clarify_tui.tui.widgets.action_form import ActionForm

KEYS = {
    ActionKind.search: "s", ActionKind.ask: "k", ActionKind.visit: "v",
    ActionKind.answer: "enter", ActionKind.clarify: "c",
}


class ActionBar(Vertical):
    """Allowed actions as key hints; at most one ActionForm below them."""

    class ActionChosen(Message):
        def __init__(self, action: Action) -> None:
            super().__init__()
            self.action = action

    def __init__(self, form: ActionForm | None = None, **kwargs) -> None:
        super().__init__(**kwargs)
        self.allowed: list[ActionKind] = []
        self.k = 1
        self.confidence = False
        self.first_form = form
        """A form open from the start (the step-mode editor's): composed with the bar, so the
        bar's first frame shows it (mounted later, it was one more layout and frame)."""

    def compose(self) -> ComposeResult:
        yield Static(id="action-hints")
        if self.first_form is not None:
            yield self.first_form

    def set_allowed(self, allowed: list[ActionKind], *, k: int = 1, confidence: bool = False,
                    waiting: bool = True) -> None:
        self.allowed, self.k, self.confidence = list(allowed), k, confidence
        hints = Text()
        if not waiting:
            hints.append("waiting for the session…", style="dim")
        for kind in allowed:
            hints.append(f" {KEYS.get(kind, '?')} ", style="bold reverse")
            hints.append(f" {kind.value}   ")
        self.query_one("#action-hints", Static).update(hints)

    @property
    def composing(self) -> bool:
        return bool(self.query(ActionForm))

    def open(self, kind: ActionKind, prefill: Action | None = None, *, by_itself: bool = False) -> bool:
        """Start typing an action of `kind`; False if the engine does not allow it now.
        `by_itself`: no key opened it (CTS clarify), so its key pressed first is not typed."""
        if kind not in self.allowed:
            self.notify(f"{kind.value} is not allowed now", severity="warning")
            return False
        self.close()
        self.mount(ActionForm(kind, k=self.k, confidence=self.confidence, prefill=prefill,
                              opening_key=KEYS.get(kind) if by_itself else None))
        return True

    def close(self) -> None:
        self.query(ActionForm).remove()

    def on_action_form_submitted(self, event: ActionForm.Submitted) -> None:
        event.stop()
        self.close()
        self.post_message(self.ActionChosen(event.action))

    def on_action_form_cancelled(self, event: ActionForm.Cancelled) -> None:
        event.stop()
        self.close()
