"""Typing one agent action: a text field (two for an InteractComp answer with
confidence, k for a CTS clarify). Used by the human agent's action bar and by the
step-mode editor. It only builds an `Action`; the engine decides if it is allowed.

Nothing typed is dropped or mixed up, however fast it comes (issue 30). Keys go to the
focused field, and Textual moves the focus later than it reads the next key: in a burst
(fast typing, keys sent without a pause) `Deep Impact<Tab>150` used to land as
"Deep Impact150", and Tab in a one-field form took the focus out of the form, where the
next key threw the answer away. So the form moves the focus itself, at once, with
priority keys (tab, shift+tab, enter): the key after them already reaches the next field.
Tab never leaves the form. Each of them first lets every field take the keys (and paste)
it was sent before. A paste fills the fields from the focused one, a tab or line break moving on.
A refused value (a confidence outside 0-100) is said on a line of the form, the fields
kept as typed."""

from __future__ import annotations

import asyncio
import re

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, Label, Static

from clarify_tui.errors import UsageError
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
        raise UsageError(
            f"No result {n}: the last search has {len(hits)} result(s)."
            if searches
            else "No search yet: type a url, or search first and visit a result by number."
        )
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
        raise UsageError(
            f"Confidence must be a number from 0 to 100, not '{typed.strip()}'; "
            "type it again (or leave it empty for none)."
        )
    return value


class FormField(Input):
    """One field of an ActionForm: a paste with tabs or line breaks fills the next fields
    too instead of being cut at its first line. `opening_key`: the key that opens a form
    which opened by itself (CTS clarify, "c"): a person reading "c clarify" presses it and
    the form is open already, so that first key is taken as meant, not typed as a stray letter."""

    def __init__(self, *args, opening_key: str | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.opening_key = opening_key

    def on_key(self, event: events.Key) -> None:
        # runs before Input's own key handler (a subclass's handler first); prevent_default stops it
        key, self.opening_key = self.opening_key, None  # only the very first key
        if key is not None and event.key == key and not self.value:
            event.stop()
            event.prevent_default()
            self.notify("The form is open: type here (enter moves on, escape closes it).", timeout=4)

    def on_paste(self, event: events.Paste) -> None:
        event.stop()
        event.prevent_default()  # not Input's own paste handler, which keeps the first line only
        form = self.parent
        if isinstance(form, ActionForm):
            form.paste(self, event.text)
        elif event.text:
            self.insert_text_at_cursor(" ".join(event.text.split()))


class ActionForm(Vertical):
    """Fields for one action of `kind`; enter on the last field submits, escape cancels,
    tab and shift+tab move between the fields (never out of the form)."""

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", show=False),
        Binding("tab", "move(1)", "Next field", show=False, priority=True),
        Binding("shift+tab", "move(-1)", "Previous field", show=False, priority=True),
        Binding("enter", "enter", "Next field or send", show=False, priority=True),
    ]

    class Submitted(Message):
        def __init__(self, action: Action) -> None:
            super().__init__()
            self.action = action

    class Cancelled(Message):
        pass

    def __init__(
        self,
        kind: ActionKind,
        *,
        k: int = 1,
        confidence: bool = False,
        prefill: Action | None = None,
        draft: list[str] | None = None,
        opening_key: str | None = None,
        **kwargs,
    ) -> None:
        super().__init__(classes="action-form", **kwargs)
        self.kind = kind
        self.k = k
        self.confidence = confidence and kind == ActionKind.answer
        self.prefill = prefill if prefill is not None and prefill.kind == kind else None
        self.draft = draft
        """The fields' values as a person left them in a form of this kind closed unsent."""
        self.opening_key = opening_key  # the form opened by itself: see FormField

    def compose(self) -> ComposeResult:
        pre = self.prefill
        if self.kind == ActionKind.clarify:
            yield Label(f"clarify: up to {self.k} question(s); leave all empty for no clarification (orig)")
            for i in range(self.k):
                value = pre.items[i] if pre and i < len(pre.items) else ""
                yield FormField(
                    value,
                    placeholder=f"question {i + 1}",
                    classes="field",
                    select_on_focus=not value,
                    opening_key=self.opening_key if i == 0 else None,
                )
        else:
            yield Label(f"{self.kind.value}:")
            # a proposal being edited is not selected: typing adds to it instead of wiping it
            yield FormField(
                pre.text if pre else "",
                placeholder=PLACEHOLDER.get(self.kind, ""),
                classes="field",
                select_on_focus=pre is None,
                opening_key=self.opening_key,
            )
            if self.confidence:
                conf = pre.confidence if pre and pre.confidence is not None else None
                # a text field, checked on enter: a number field drops what it rejects without a word
                yield FormField(
                    "" if conf is None else f"{conf:g}",
                    placeholder="confidence 0-100",
                    classes="field confidence",
                    select_on_focus=conf is None,
                )
        error = Static(classes="form-error")  # why the form was not sent, when it was not
        error.display = False
        yield error

    @property
    def fields(self) -> list[FormField]:
        return list(self.query(FormField))

    @property
    def values(self) -> list[str]:
        return [field.value for field in self.fields]

    @property
    def typed(self) -> bool:
        """Whether any field holds something typed."""
        return any(field.value.strip() for field in self.fields)

    def on_mount(self) -> None:
        narrow = self.screen.has_class("-narrow")  # one-line fields on a small terminal
        fields = self.fields
        for field in fields:
            field.compact = narrow
        for field, value in zip(fields, self.draft or []):
            field.value, field.select_on_focus = value, False  # not selected: a key adds to it
        if not fields:
            return  # removed before it was mounted (the clock paused)
        self.screen.set_focus(fields[0])  # now: the next key reaches it
        bar = self.parent
        take = getattr(bar, "take_typeahead", None)
        if take is not None:
            self.feed(take())

    def focus_field(self) -> None:
        self.fields[0].focus()

    def feed(self, keys: list[events.Key]) -> None:
        """Keys typed before the form could take them, as the fields would have."""
        for key in keys:
            field = self.screen.focused
            if key.key in ("tab", "shift+tab"):
                self._focus(self._current() + (1 if key.key == "tab" else -1))
            elif key.key == "enter":
                if self._current() < len(self.fields) - 1:
                    self._focus(self._current() + 1)
                else:  # sent, or refused: the rest is not typed blind into the selected field
                    self.submit()
                    return
            elif key.key == "escape":
                self.action_cancel()
                return
            elif isinstance(field, FormField):
                if key.key == "backspace":
                    field.action_delete_left()
                elif key.is_printable and key.character:
                    field.insert_text_at_cursor(key.character)

    def _current(self) -> int:
        fields = self.fields
        focused = self.screen.focused
        return fields.index(focused) if focused in fields else 0

    def _focus(self, index: int) -> None:
        """Now, not after the keys already read: the next key reaches this field."""
        fields = self.fields
        self.screen.set_focus(fields[index % len(fields)])

    async def action_move(self, delta: int) -> None:
        await self._settled()
        self._focus(self._current() + delta)

    async def action_enter(self) -> None:
        await self._settled()
        i = self._current()
        if i < len(self.fields) - 1:
            self._focus(i + 1)
        else:
            self.submit()

    async def _settled(self) -> None:
        """Every field has handled the keys and pastes sent to it before this key (a
        burst may still be on its way to a field): the key acts where they left off."""
        handled = []
        for field in self.fields:
            event = asyncio.Event()
            if field.call_later(event.set):  # after the keys already in the field's queue
                handled.append(event.wait())
        await asyncio.gather(*handled)

    def submit(self) -> bool:
        """Send the action, or say on the form's line why not (False)."""
        try:
            action = self.build()
        except ValueError as exc:  # asked again: the form stays, the bad field selected
            self.refuse(str(exc), self.query_one(".confidence", Input))
            return False
        if action is None:
            self.refuse("Type something first.", self.fields[0])
            return False
        self.show_error("")
        self.post_message(self.Submitted(action))
        return True

    def refuse(self, why: str, field: Input) -> None:
        """Nothing is sent: the form says why on its own line and selects the field to fix."""
        self.app.bell()
        self.show_error(why)
        self.screen.set_focus(field)
        field.select_all()

    def show_error(self, text: str) -> None:
        line = self.query_one(".form-error", Static)
        line.update(text)
        line.display = bool(text)

    def paste(self, field: FormField, text: str) -> None:
        """Fill from `field` on: each tab or line break of the paste moves to the next
        field; what the last field gets beyond its line is kept there, spaced."""
        parts = re.split(r"\t|\r\n|\r|\n", text)
        while len(parts) > 1 and not parts[-1].strip():
            parts.pop()  # a paste ending in a line break
        fields = self.fields
        start = fields.index(field)
        head, rest = parts[: len(fields) - start], parts[len(fields) - start :]
        if rest:  # more parts than fields: the last field keeps them all
            head[-1] = " ".join([head[-1], *rest])
        if field.selection.is_empty:
            field.insert_text_at_cursor(head[0])
        else:
            field.replace(head[0], *field.selection)
        for target, part in zip(fields[start + 1 :], head[1:]):
            target.value = part
        self._focus(start + len(head) - 1)

    def build(self) -> Action | None:
        values = [f.value.strip() for f in self.fields]
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
