"""A one-line free-text note on the task (ctrl+n on the play screen).

`open()` shows and focuses the field; enter posts `NoteBox.Saved` with the text (empty
text saves nothing), escape closes it. The screen appends the note to Session.note
(`clarify_tui.annotation.append_note`).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, Label


class NoteBox(Vertical):
    """Hidden (and empty) until first opened: most sessions never take a note, and a
    label and an input field are a share of every play screen's opening."""

    DEFAULT_CSS = "NoteBox { display: none; }"

    BINDINGS = [Binding("escape", "close", "Close", show=False)]

    class Saved(Message):
        """The annotator typed a note and pressed enter."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def fields(self) -> ComposeResult:
        yield Label("note on this task (enter saves, escape closes):")
        yield Input(placeholder="anything worth knowing about this task or your answer", id="note-input")

    async def open(self) -> None:
        if not self.children:
            await self.mount_all(self.fields())
        self.display = True
        self.query_one(Input).focus()

    def action_close(self) -> None:
        self.query_one(Input).value = ""
        self.display = False

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        self.action_close()
        if text:
            self.post_message(self.Saved(text))
