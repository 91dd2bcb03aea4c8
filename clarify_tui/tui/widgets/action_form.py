"""Typing one agent action: a text field (two for an InteractComp answer with
confidence, k for a CTS clarify). Used by the human agent's action bar and by the
step-mode editor. It only builds an `Action`; the engine decides if it is allowed."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, Label

from clarify_tui.models import Action, ActionKind

PLACEHOLDER = {
    ActionKind.search: "search query",
    ActionKind.ask: "your question to the user",
    ActionKind.visit: "url to open, or the number of a result of your last search",
    ActionKind.answer: "your final answer",
}


def resolve_visit(action: Action, steps) -> Action:
    """`v 2` visits the 2nd result of the last search; anything else is left as typed.
    Raises ValueError (shown to the person) for a number no result has."""
    text = action.text.strip().lstrip("#")
    if action.kind != ActionKind.visit or not text.isdigit():
        return action
    searches = [s for s in steps if s.actor == "agent" and s.action.kind == ActionKind.search and not s.error]
    hits = searches[-1].observation.hits if searches else []
    n = int(text)
    if not 1 <= n <= len(hits):
        raise ValueError(f"No result {n}: the last search has {len(hits)} result(s)." if searches
                         else "No search yet: type a url, or search first and visit a result by number.")
    return action.model_copy(update={"text": hits[n - 1].url})


def parse_confidence(typed: str) -> float | None:
    """A person's confidence: empty is none; else a number from 0 to 100 (ValueError, with
    a message for the person, for anything else: "abc", "150", "nan")."""
    text = typed.strip().rstrip("%").strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 <= value <= 100:  # nan fails too
        raise ValueError(f"Confidence must be a number from 0 to 100, not '{typed.strip()}'; "
                         "type it again (or leave it empty for none).")
    return value


class Field(Input):
    """A form's text field. `opening_key`: the key that opens a form which opened by itself
    (CTS clarify, "c"): a person reading "c clarify" presses it and the form is open
    already, so that first key is taken as meant, not typed as a stray letter."""

    def __init__(self, *args, opening_key: str | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.opening_key = opening_key

    async def _on_key(self, event) -> None:
        key, self.opening_key = self.opening_key, None  # only the very first key
        if key is not None and event.key == key and not self.value:
            event.stop()
            event.prevent_default()  # Input._on_key would type it
            self.notify("The form is open: type here (enter moves on, escape closes it).", timeout=4)


class ActionForm(Vertical):
    """Fields for one action of `kind`; enter on the last field submits, escape cancels."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", show=False)]

    class Submitted(Message):
        def __init__(self, action: Action) -> None:
            super().__init__()
            self.action = action

    class Cancelled(Message):
        pass

    def __init__(self, kind: ActionKind, *, k: int = 1, confidence: bool = False,
                 prefill: Action | None = None, opening_key: str | None = None, **kwargs) -> None:
        super().__init__(classes="action-form", **kwargs)
        self.kind = kind
        self.k = k
        self.confidence = confidence and kind == ActionKind.answer
        self.prefill = prefill if prefill is not None and prefill.kind == kind else None
        self.opening_key = opening_key  # the form opened by itself: see Field

    def compose(self) -> ComposeResult:
        pre = self.prefill
        if self.kind == ActionKind.clarify:
            yield Label(f"clarify: up to {self.k} question(s); leave all empty for no clarification (orig)")
            for i in range(self.k):
                value = pre.items[i] if pre and i < len(pre.items) else ""
                yield Field(value, placeholder=f"question {i + 1}", classes="field", select_on_focus=not value,
                            opening_key=self.opening_key if i == 0 else None)
            return
        yield Label(f"{self.kind.value}:")
        # a proposal being edited is not selected: typing adds to it instead of wiping it
        yield Field(pre.text if pre else "", placeholder=PLACEHOLDER.get(self.kind, ""), classes="field",
                    select_on_focus=pre is None, opening_key=self.opening_key)
        if self.confidence:
            conf = pre.confidence if pre and pre.confidence is not None else None
            # a text field, checked on enter: a number field drops what it rejects without a word
            yield Input("" if conf is None else f"{conf:g}", placeholder="confidence 0-100",
                        classes="field confidence", select_on_focus=conf is None)

    def on_mount(self) -> None:
        narrow = self.screen.has_class("-narrow")  # one-line fields on a small terminal
        fields = self.query(Input)
        for field in fields:
            field.compact = narrow
        if fields:  # none: the form was closed as it opened (a key right after the one that opened it)
            fields.first().focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        fields = list(self.query(Input))
        i = fields.index(event.input)
        if i < len(fields) - 1:
            fields[i + 1].focus()
            return
        try:
            action = self.build()
        except ValueError as exc:  # asked again: the form stays, the bad field selected
            self.app.bell()
            self.notify(str(exc), severity="warning")
            bad = self.query_one(".confidence", Input)
            bad.focus()
            bad.select_all()
            return
        if action is None:
            self.app.bell()
            self.notify("Type something first.", severity="warning")
            return
        self.post_message(self.Submitted(action))

    def build(self) -> Action | None:
        values = [f.value.strip() for f in self.query(Input)]
        if self.kind == ActionKind.clarify:
            return Action.clarify([v for v in values if v])
        if not values[0]:
            return None
        if self.kind == ActionKind.answer:
            confidence = parse_confidence(values[1]) if self.confidence and len(values) > 1 else None
            return Action.answer(values[0], confidence)
        return Action(kind=self.kind, text=values[0])

    def action_cancel(self) -> None:
        self.post_message(self.Cancelled())
