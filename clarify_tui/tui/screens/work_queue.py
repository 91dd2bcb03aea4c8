"""One work-queue item at a time (`play --queue NAME` / `serve --queue NAME` on an audit or
labels queue, store/work.py): the person replies to an agent's ask as the user would
(audit) or says whether the agent should have asked at a decision point (labels).

- audit: the reply buttons of the protocol (keys 1, 2, 3 ...) or a text box; labels: a
  (ask), c (act), u (unsure) and an optional note (n or tab goes to it). Enter sends.
- the answer is written at once, linked to the item, with the annotator; the next item
  follows. A person's first answer stays (store/work.py), so a second tab is told.
- what is picked or typed and not yet sent is kept as a draft (store/work_drafts.py)
  while it is typed: quitting, a closed tab or a crash loses nothing. `q` asks first.
- reopening continues at the annotator's next item; "all done" when nothing is left.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Button, Input, Static

from clarify_tui.plural import plural
from clarify_tui.store import work_drafts
from clarify_tui.tui.screens.confirm import Choice, ConfirmScreen
from clarify_tui.tui.speed import Header
from clarify_tui.tui.widgets.footer import Footer
from clarify_tui.tui.widgets.work_item import choices, context_text, focus_text, prompt_text

if TYPE_CHECKING:
    from clarify_tui.store import Store
    from clarify_tui.store.work import WorkItem, WorkQueue

LABELS = {"a": "ask", "c": "act", "u": "unsure"}
LABEL_WORDS = {"ask": "should have asked", "act": "acting was right", "unsure": "unsure"}
DRAFT_EVERY_S = 0.4  # a draft is written this long after the last key (and at once on leaving)


class WorkField(Input):
    """The reply or note box. Its keys are in the footer while it has the focus (an Input
    takes every letter, so the screen's own keys are not shown then)."""

    BINDINGS = [
        Binding("enter", "submit", "Send", tooltip="send this answer (written at once)"),
        Binding("escape", "screen.leave_field", "Done typing", tooltip="leave the box (the text stays)"),
        Binding("pageup", "screen.page(-1)", "Page up", show=False),
        Binding("pagedown", "screen.page(1)", "Page down", show=False),
    ]

    async def action_submit(self) -> None:
        """Sent here, in the box's own turn: after every key typed before enter, before any after."""
        screen = self.screen
        if isinstance(screen, WorkQueueScreen):
            screen.action_send()


class WorkQueueScreen(Screen):
    """The annotator's items of one work queue, one at a time."""

    # priority: read as each key comes, in order, so the keys typed right after `n` are the
    # note's (a fast typist, a paste); while the box has the focus they are its letters
    # (`check_action` says False then) and its own enter sends
    BINDINGS = [
        Binding("enter", "send", "Send", id="work-send", tooltip="send this answer (written at once)", priority=True),
        *(Binding(k, f"label('{v}')", v.capitalize(), show=False, priority=True) for k, v in LABELS.items()),
        *(Binding(str(n), f"pick({n})", f"reply {n}", show=False, priority=True) for n in range(1, 10)),
        Binding("n", "note", "Note", id="work-note", tooltip="type a note (optional)", priority=True),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding(
            "q",
            "leave",
            "Quit",
            id="work-quit",
            tooltip="stop for now (asks first; you carry on here later)",
            priority=True,
        ),
    ]
    TYPED_OVER = ("send", "label", "pick", "note", "leave")  # what the box's letters and enter win over
    DEFAULT_CSS = """
    WorkQueueScreen #work-progress { height: 1; padding: 0 1; background: $accent 30%; }
    WorkQueueScreen #work-body { height: 1fr; padding: 0 1; }
    WorkQueueScreen #work-focus { height: auto; max-height: 7; padding: 0 1; border-top: solid $warning; }
    WorkQueueScreen #work-prompt { height: auto; padding: 0 1; }
    WorkQueueScreen #work-buttons { height: auto; padding: 0 1; }
    WorkQueueScreen #work-buttons Button { margin-right: 1; width: auto; }
    WorkQueueScreen #work-buttons Button.-picked { text-style: bold reverse; }
    WorkQueueScreen #work-text { margin: 0 1; }
    WorkQueueScreen #work-hint { height: auto; padding: 0 1; display: none; color: $success; }
    WorkQueueScreen #work-hint.-warning { color: $warning; text-style: bold; }
    """

    def __init__(self, store: Store, queue: WorkQueue, annotator: str) -> None:
        super().__init__()
        self.store, self.queue, self.annotator = store, queue, annotator
        self.item: WorkItem | None = None
        self.picked: str | None = None  # the chosen reply (audit) or label (labels)
        self._draft_timer: Timer | None = None
        self._shown: dict[str, str] = {}  # each button's label, by the value it picks
        self.field = WorkField(id="work-text", compact=True)  # kept: read again while the screen unmounts

    # ---- layout ----------------------------------------------------------------------

    @property
    def labels(self) -> bool:
        return self.queue.kind == "labels"

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="work-progress")
        with VerticalScroll(id="work-body"):
            yield Static(id="work-context")
        with VerticalScroll(id="work-focus"):  # always in view; scrolls itself when long
            yield Static(id="work-focus-text")
        yield Static(id="work-prompt")
        yield Horizontal(id="work-buttons")
        yield self.field
        yield Static(id="work-hint")
        yield Footer()

    def on_mount(self) -> None:
        self.title = "clarify-tui"
        self.sub_title = f"{self.queue.kind} queue {self.queue.name} · {self.annotator}"
        self.show_next()

    def _body(self) -> VerticalScroll:
        return self.query_one("#work-body", VerticalScroll)

    # ---- items -----------------------------------------------------------------------

    def show_next(self) -> None:
        """The annotator's next item (its draft restored), or "all done"."""
        self.item = self.store.work.next_item(self.queue.name, self.annotator)
        self.picked = None
        if self.item is None:
            self._show_done()
            return
        payload = {**self.item.payload, "kind": self.queue.kind}
        # on screen now: what the user knows (audit) or said (labels) informs a later play of the task
        work_drafts.mark_shown(self.store, self.queue.name, self.item.item_id, self.annotator)
        self.query_one("#work-context", Static).update(context_text(payload))
        self.query_one("#work-focus-text", Static).update(focus_text(payload))
        self.query_one("#work-prompt", Static).update(prompt_text(payload))
        self._make_buttons(payload)
        saved = work_drafts.draft(self.store, self.queue.name, self.item.item_id, self.annotator)
        self.picked = saved.get("picked")
        field = self.field
        field.value = str(saved.get("text") or "")
        field.placeholder = self._placeholder(payload)
        field.display = self.labels or not self.buttons  # a choice reply has its buttons only
        self._mark_picked()
        self._show_progress()
        self._body().scroll_home(animate=False)
        self.set_focus(self._body() if self.labels or self.buttons else field)  # now: the next key goes there

    @property
    def buttons(self) -> list[str]:
        """The values the buttons pick (labels, or an audit item's choices)."""
        if self.item is None:
            return []
        return list(LABELS.values()) if self.labels else choices({**self.item.payload, "kind": "audit"})

    def _make_buttons(self, payload: dict[str, Any]) -> None:
        box = self.query_one("#work-buttons", Horizontal)
        box.remove_children()
        keys = list(LABELS) if self.labels else [str(n) for n in range(1, 10)]
        made = []
        for key, value in zip(keys, self.buttons, strict=False):
            shown = f"{key} {value}" + (f" ({LABEL_WORDS[value]})" if self.labels and value != "unsure" else "")
            button = Button(Content(shown), compact=True, name=value)  # Content: a choice's [ is no markup
            self._shown[value] = shown
            button.can_focus = False  # keys stay the screen's: 1/2/3, a/c/u, enter
            made.append(button)
        box.mount_all(made)
        box.display = bool(made)

    def _placeholder(self, payload: dict[str, Any]) -> str:
        if self.labels:
            return "note (optional): n or tab to type, enter sends"
        return "type the user's reply; enter sends"

    def _mark_picked(self) -> None:
        for button in self.query("#work-buttons Button").results(Button):
            picked = button.name == self.picked
            button.set_class(picked, "-picked")
            shown = self._shown.get(button.name or "", "")
            button.label = Content(f"» {shown} «" if picked else shown)  # marked in words too, not only in colour
            button.refresh(layout=True)  # width: auto is measured again, else the longer label is cut

    def _show_progress(self) -> None:
        done = sum(1 for a in self.store.work.answers(self.queue.name) if a.annotator == self.annotator)
        total = self.store.work.progress(self.queue.name)["items"]
        line = Text()
        if self.item is not None:
            line.append(f"item {self.item.position + 1} of {total}", style="bold")
        else:
            line.append(f"{plural(total, 'item')}", style="bold")
        line.append(f" · {plural(self.queue.per_item, 'answer')} each · you answered {done}")
        self.query_one("#work-progress", Static).update(line)

    def _show_done(self) -> None:
        self.field.value = ""
        for part in ("#work-focus", "#work-prompt", "#work-buttons", "#work-text"):
            self.query_one(part).display = False
        self._show_progress()
        done = sum(1 for a in self.store.work.answers(self.queue.name) if a.annotator == self.annotator)
        text = Text()
        text.append("All done.", style="bold green")
        text.append(
            f"\n\nNothing is left for you in {self.queue.kind} queue '{self.queue.name}': you answered "
            f"{plural(done, 'item')}, each saved when you sent it. Thank you.\n\nq quits.",
        )
        self.query_one("#work-context", Static).update(text)
        self.set_focus(self._body())

    # ---- picking, typing, sending ----------------------------------------------------

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if self.focused is self.field and action in self.TYPED_OVER:
            return False
        if self.item is None and action in ("send", "label", "pick", "note"):
            return False
        if action == "label" and not self.labels:
            return False
        if action == "note" and not self.labels:
            return False
        if action == "pick" and (self.labels or parameters[0] > len(self.buttons)):
            return False
        return True

    def action_pick(self, n: int) -> None:
        self._pick(self.buttons[n - 1])

    def action_label(self, label: str) -> None:
        self._pick(label)

    def _pick(self, value: str) -> None:
        self.say("")
        self.picked = value
        self._mark_picked()
        self.save_draft()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        if event.button.name:
            self._pick(event.button.name)

    def action_note(self) -> None:
        self.set_focus(self.field)  # now, not after a refresh (`focus()`): the keys typed next are the note's

    def action_leave_field(self) -> None:
        if self.focused is self.field:
            self.set_focus(self._body())

    def action_page(self, direction: int) -> None:
        body = self._body()
        body.scroll_page_down(animate=False) if direction > 0 else body.scroll_page_up(animate=False)

    @on(Input.Changed, "#work-text")
    def _typed(self, event: Input.Changed) -> None:
        if self.item is None:
            return
        if self._draft_timer is not None:
            self._draft_timer.stop()
        self._draft_timer = self.set_timer(DRAFT_EVERY_S, self.save_draft)

    def draft(self) -> dict[str, Any]:
        return {"picked": self.picked, "text": self.field.value}

    def save_draft(self) -> None:
        if self._draft_timer is not None:
            self._draft_timer.stop()
            self._draft_timer = None
        if self.item is not None:
            work_drafts.save_draft(self.store, self.queue.name, self.item.item_id, self.annotator, self.draft())

    def answer(self) -> dict[str, Any] | str:
        """The answer to store, or what is missing (said to the person)."""
        text = self.field.value.strip()
        if self.labels:
            if self.picked is None:
                return "Pick a label first: a (ask), c (act) or u (unsure); the note is optional."
            return {"label": self.picked, "note": text or None}
        if self.buttons:  # the protocol's replies: one of them
            if self.picked is None:
                return f"Pick a reply first: {', '.join(f'{n} {c}' for n, c in enumerate(self.buttons, 1))}."
            return {"reply": self.picked, "class": self.picked}
        if not text:
            return "Type the user's reply first."
        return {"reply": text, "class": None}

    def action_send(self) -> None:
        if self.item is None:
            return
        answer = self.answer()
        if isinstance(answer, str):
            self.say(answer, warning=True)
            return
        item = self.item
        kept = self.store.work.record_answer(self.queue.name, item.item_id, self.annotator, answer)
        if self._draft_timer is not None:
            self._draft_timer.stop()
            self._draft_timer = None
        work_drafts.drop_draft(self.store, self.queue.name, item.item_id, self.annotator)
        self.show_next()
        if kept:
            self.say(f"Saved your answer to item {item.position + 1}.")
        else:
            self.say(
                f"Item {item.position + 1} was already answered by you (in another window): your first answer is kept.",
                warning=True,
            )

    def say(self, message: str, *, warning: bool = False) -> None:
        """A line under the answer box (drawn where the person looks, until the next one)."""
        hint = self.query_one("#work-hint", Static)
        hint.update(Text(message))
        hint.set_class(warning, "-warning")
        hint.display = bool(message)

    # ---- leaving ---------------------------------------------------------------------

    def action_leave(self) -> None:
        if self.item is None:
            self.app.exit()
            return
        self.save_draft()
        typed = any(self.draft().values())
        detail = "Every answer you sent is saved; next time you carry on at this item."
        if typed:
            detail += " What you picked or typed here is kept and comes back with it."

        def then(stop: bool | None) -> None:
            if stop:
                self.save_draft()
                self.app.exit()

        self.app.push_screen(
            ConfirmScreen(
                "Stop for now?",
                detail,
                (
                    Choice(("y", "enter"), "yes: stop here", True),
                    Choice(("escape", "n"), "no: go on", None),
                ),
            ),
            then,
        )

    def on_unmount(self) -> None:
        self.save_draft()  # ctrl+q, a closed tab: what was typed stays
