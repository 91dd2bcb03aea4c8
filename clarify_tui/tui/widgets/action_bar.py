"""The human agent's action bar: which actions the engine allows now, and a form for the
one being typed. `open(kind)` starts typing; the chosen Action is posted upwards. A form
closed unsent keeps what it held as a draft that comes back when it opens again."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static

from clarify_tui.models import Action, ActionKind
from clarify_tui.tui.widgets.action_form import ActionForm

KEYS = {
    ActionKind.search: "s",
    ActionKind.ask: "k",
    ActionKind.visit: "v",
    ActionKind.answer: "enter",
    ActionKind.clarify: "c",
}


TYPING_KEYS = ("tab", "shift+tab", "enter", "backspace", "escape")
"""Keys a form opening takes besides printable ones (ActionForm.feed knows them)."""


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
        self.drafts: dict[ActionKind, list[str]] = {}
        """What each kind's form held when it was closed unsent: typing is never thrown away."""
        self.typeahead: list[events.Key] | None = None
        """Keys typed while a form opens (it has no field to take them yet): the form
        gets them once mounted (tui/typeahead.py). None: no form is opening."""

    def compose(self) -> ComposeResult:
        yield Static(id="action-hints")
        if self.first_form is not None:
            yield self.first_form

    def set_allowed(
        self, allowed: list[ActionKind], *, k: int = 1, confidence: bool = False, waiting: bool = True
    ) -> None:
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

    @property
    def typed(self) -> bool:
        """Whether the open form holds anything typed (leaving would lose it)."""
        return any(form.typed for form in self.query(ActionForm))

    def open(self, kind: ActionKind, prefill: Action | None = None, *, by_itself: bool = False) -> bool:
        """Start typing an action of `kind`; False if the engine does not allow it now.
        The form of `kind` already open keeps what it holds (it gets the focus back); a
        form closed unsent (escape, another action's key, the clock paused) comes back
        as it was left. `by_itself`: no key opened it (CTS clarify), so its key pressed
        first is not typed."""
        if kind not in self.allowed:
            self.notify(f"{kind.value} is not allowed now", severity="warning")
            return False
        for form in self.query(ActionForm):
            if form.kind == kind and prefill is None:
                form.focus_field()
                return True
        self.close()
        self.mount(
            ActionForm(
                kind,
                k=self.k,
                confidence=self.confidence,
                prefill=prefill,
                draft=self.drafts.get(kind) if prefill is None else None,
                opening_key=KEYS.get(kind) if by_itself else None,
            )
        )
        if hasattr(self.app, "key_sink"):  # until the form can take keys, keep them for it (tui/typeahead.py)
            self.typeahead = []
            self.app.key_sink = self._keep
        return True

    def _keep(self, event: events.Key) -> bool:
        """A key typed while the form opens is the form's when it is typing (`p` is a
        letter of the answer then, not the pause); commands (ctrl+q, ctrl+t, F2) are not."""
        if self.typeahead is None or not (event.is_printable or event.key in TYPING_KEYS):
            return False
        self.typeahead.append(event)
        return True

    def take_typeahead(self) -> list[events.Key]:
        """The keys typed while the form opened; from now on they go where the focus is."""
        keys, self.typeahead = self.typeahead or [], None
        if getattr(self.app, "key_sink", None) == self._keep:
            self.app.key_sink = None  # type: ignore[attr-defined]
        return keys

    def close(self) -> None:
        """Close the form; what it holds is kept as the draft of its kind."""
        self.take_typeahead()
        for form in self.query(ActionForm):
            if form.typed:
                self.drafts[form.kind] = form.values
            else:
                self.drafts.pop(form.kind, None)
        self.query(ActionForm).remove()

    def on_unmount(self) -> None:
        self.take_typeahead()

    def on_action_form_submitted(self, event: ActionForm.Submitted) -> None:
        event.stop()
        self.close()
        self.drafts.pop(event.action.kind, None)  # sent: its form starts blank next time (the others keep theirs)
        self.post_message(self.ActionChosen(event.action))

    def on_action_form_cancelled(self, event: ActionForm.Cancelled) -> None:
        event.stop()
        self.close()
