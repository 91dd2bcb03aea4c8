"""The human user's reply box: the agent's question, what the user knows that is
relevant, and the replies the protocol accepts (InteractComp: y / n / i only; another
protocol's choices, typed, or free text: its roles' reply form)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Input, Static

from clarify_tui.users.human import INTERACTCOMP_REPLIES, ReplyRequest

YES, NO, IDK = INTERACTCOMP_REPLIES


class ReplyBox(Vertical, can_focus=True):
    """Focused when the agent asks. Keys depend on the request kind; any other printable
    key that is not bound elsewhere (the footer's keys) starts a typed reply (where typing
    is allowed)."""

    BINDINGS = [
        Binding("y", "reply('yes')", "Yes", id="reply-yes", tooltip="InteractComp: yes"),
        Binding("n", "reply('no')", "No", id="reply-no", tooltip="InteractComp: no"),
        Binding(
            "i",
            "reply('idk')",
            "I don't know",
            id="reply-idk",
            tooltip="InteractComp: i don't know (nothing else is accepted)",
        ),
        Binding("c", "release_clue", "Release clue", id="reply-clue", tooltip="DiscoBench: release the clue"),
        Binding("u", "reply('unknown')", "Unknown", id="reply-unknown", tooltip="CTS: unknown"),
        Binding(
            "t",
            "type",
            "Type a reply",
            id="reply-type",
            tooltip="start typing a reply (so does a letter no key uses); enter sends",
        ),
        Binding(
            "pagedown",
            "scroll_known(1)",
            "More",
            id="reply-more",
            show=False,
            tooltip="reply box: scroll what you know down when it is cut (the border says so)",
        ),
        Binding(
            "pageup",
            "scroll_known(-1)",
            "Back up",
            id="reply-back-up",
            show=False,
            tooltip="reply box: scroll what you know up",
        ),
    ]

    class Replied(Message):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.request: ReplyRequest | None = None

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="reply-scroll", can_focus=False):  # what the user knows may not fit a small terminal
            yield Static(id="reply-question")
        yield Input(placeholder="type a reply, enter to send", id="reply-input", select_on_focus=False)

    def on_mount(self) -> None:
        scroll = self.query_one("#reply-scroll")
        for attribute in ("scroll_y", "virtual_size", "size"):  # what decides whether the text is cut
            self.watch(scroll, attribute, self._show_more_hint, init=False)

    @property
    def typed(self) -> bool:
        return self.request is not None and self.request.kind != "yes_no"

    @property
    def typed_text(self) -> str:
        """The reply typed and not sent yet."""
        return self.query_one("#reply-input", Input).value.strip() if self.request is not None else ""

    def ask(self, request: ReplyRequest, known: str | None = None) -> None:
        self.request = request
        text = Text("The agent asks: ", style="bold magenta")
        text.append(request.question, style="bold")
        if request.kind == "yes_no":
            text.append("\nreply with  y yes · n no · i i don't know  (nothing else is accepted)", style="yellow")
        elif request.kind == "clue":
            judged = "targets" if request.asked_right else "does not target"
            text.append(f"\nthe judge says this ask {judged} the current ambiguity", style="dim")
            text.append(
                f"\nclue: {request.clue}" if request.clue else "\n(no clue for this checkpoint)", style="magenta"
            )
            text.append("\nc release the clue · t type a reply", style="yellow")
        elif request.kind == "form" and request.choices:  # another protocol's choices (protocols/roles.py)
            text.append(f"\ntype one of: {' · '.join(request.choices)}  (nothing else is accepted)", style="yellow")
        elif request.kind == "form":
            text.append("\nt type a reply from what you know", style="yellow")
        else:
            text.append("\nu unknown · t type a short answer found in the intent", style="yellow")
        if known:  # last: the keys above stay in view when this is long (the box scrolls)
            text.append("\nyou know: ", style="dim")
            text.append(known)
        self.query_one("#reply-question", Static).update(text)
        self.query_one("#reply-scroll").scroll_home(animate=False, immediate=True)
        field = self.query_one("#reply-input", Input)
        field.value = ""
        field.display = self.typed
        self.display = True
        self.focus()
        self.refresh_bindings()
        if hasattr(self.app, "key_sink"):  # tui/typeahead.py
            self.app.key_sink = self._route

    def done(self) -> None:
        self.request = None
        self.display = False
        self._unroute()

    def on_unmount(self) -> None:
        self._unroute()

    def _unroute(self) -> None:
        if getattr(self.app, "key_sink", None) == self._route:
            self.app.key_sink = None  # type: ignore[attr-defined]

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        kind = self.request.kind if self.request else None
        if action == "reply":
            return (kind == "yes_no") if parameters[0] != "unknown" else kind == "clarification"
        if action == "release_clue":
            return kind == "clue" and bool(self.request and self.request.clue)
        if action == "type":
            return self.typed
        if action == "scroll_known":  # pgup/pgdn read the question and what the user knows: only while asked
            return self.request is not None
        return True

    def action_reply(self, which: str) -> None:
        self.post_message(self.Replied({"yes": YES, "no": NO, "idk": IDK}.get(which, which)))

    def action_release_clue(self) -> None:
        if self.request and self.request.clue:
            self.post_message(self.Replied(self.request.clue))

    def _show_more_hint(self, *_changed) -> None:
        """In a small terminal the question and what the user knows may not fit (the box
        has a maximum height): the border says how to read the rest. Read once the layout
        has settled: mid-layout the text looked cut at 200×50 and the hint stayed."""
        self.call_after_refresh(self._update_more_hint)

    def _update_more_hint(self) -> None:
        question = self.query_one("#reply-scroll")
        if question.max_scroll_y <= 0:
            self.border_subtitle = ""
        else:
            more = [
                name
                for name, cut in (
                    ("↑ pgup", question.scroll_y > 0),
                    ("↓ pgdn", question.scroll_y < question.max_scroll_y),
                )
                if cut
            ]
            self.border_subtitle = f"more {' '.join(more)}"

    def action_scroll_known(self, direction: int) -> None:
        question = self.query_one("#reply-scroll")
        if question.max_scroll_y <= 0 or question.scroll_y == (question.max_scroll_y if direction > 0 else 0):
            self.notify(
                "Nothing more to read here: it is all on screen."
                if question.max_scroll_y <= 0
                else ("At the end." if direction > 0 else "At the top."),
                timeout=4,
            )
            return
        question.scroll_relative(
            y=direction * max(1, question.scrollable_content_region.height - 1), animate=False, immediate=True
        )

    def action_type(self) -> None:
        self.screen.set_focus(self.query_one("#reply-input", Input))

    def _bound_keys(self) -> set[str]:
        kind = self.request.kind if self.request else ""
        return {"yes_no": {"y", "n", "i"}, "clue": {"c", "t"}, "clarification": {"u", "t"}, "form": {"t"}}.get(
            kind, set()
        )

    def _enabled(self, key: str) -> bool:
        active = self.screen.active_bindings.get(key)
        return active is not None and active.enabled

    def _say(self, why: str) -> bool:
        """A key that can do nothing now is said, not typed and not dropped silently."""
        self.notify(why, severity="warning", timeout=4)
        return True

    def _route(self, event) -> bool:
        """Where a key goes while the agent waits for a reply, decided as the app reads it
        (so the keys after it follow it, however fast they come): a letter no key uses
        starts the typed reply (the focus moves into the field at once, the letter with
        it), `t` too; tab and shift+tab keep the focus in the field; the reply keys and
        the footer's keys (q back, h hidden, …) do what they say; a listed key that can
        do nothing now (DiscoBench `c` with no clue) and InteractComp's other letters
        say why. True: taken here."""
        if self.request is None or not self.is_attached or self.app.screen is not self.screen:
            return False
        field = self.query_one("#reply-input", Input)
        focused = self.screen.focused
        if focused is field:
            return event.key in ("tab", "shift+tab")  # the reply has one field: tab stays in it
        if focused is not self:
            return False
        if self.typed and event.key == "t":
            self.screen.set_focus(field)
            return True
        if self._enabled(event.key):
            return False  # a reply key, or one the footer lists: the binding handles it
        if self.request.kind == "clue" and event.key == "c":
            return self._say("No clue for this checkpoint: type a reply (t).")  # `c` is listed
        if event.key in self._bound_keys() or event.key in self.screen.active_bindings:
            return False
        if not (event.is_printable and event.character):
            return False
        if self.typed:
            self.screen.set_focus(field)
            field.insert_text_at_cursor(event.character)
            return True
        if self.request.kind == "yes_no":
            return self._say("InteractComp: reply y, n or i (nothing else is accepted).")
        return False

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.value.strip():
            self.post_message(self.Replied(event.value.strip()))
