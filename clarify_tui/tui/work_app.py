"""The app of an audit or labels queue: `play --queue NAME` when NAME is a work queue of the
--db file, and each browser visitor of `serve --queue NAME` (`WorkVisitorApp`).

A small app of its own, not the workbench: it has no sessions or scores screens (F2 / F3
would show the simulator's replies and the sessions' outcomes the items are blind to),
no task picker, no engine. One screen, screens/work_queue.py.
"""

from __future__ import annotations

import traceback
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import App

from clarify_tui.tui import glyphs
from clarify_tui.tui.screens.work_queue import WorkQueueScreen
from clarify_tui.tui.speed.crash import ShortCrash
from clarify_tui.tui.terminal import NeedsTerminal

if TYPE_CHECKING:
    from clarify_tui.store import Store
    from clarify_tui.store.work import WorkQueue

HERE = Path(__file__).parent


class WorkApp(NeedsTerminal, App):
    """One annotator answering one work queue."""

    CSS_PATH = [HERE / "app.tcss", HERE / "browse.tcss"]  # the workbench's look and its dialogs
    TITLE = "clarify-tui"
    ENABLE_COMMAND_PALETTE = False  # nothing to command: the screen's keys are all there is

    def __init__(self, store: Store, queue: WorkQueue, annotator: str) -> None:
        super().__init__()
        self.store, self.queue, self.annotator = store, queue, annotator

    def on_mount(self) -> None:
        self.push_screen(WorkQueueScreen(self.store, self.queue, self.annotator))


class WorkVisitorApp(ShortCrash, WorkApp):
    """A browser visitor's app (campaign/visitor.py --work): text icons, and a crash shows
    a short message (the traceback, which may hold an item, goes to the server's log)."""

    def on_mount(self) -> None:
        glyphs.use_text_icons()  # a browser without an emoji font draws colour emoji blank

    def on_unmount(self) -> None:
        glyphs.use_text_icons(False)

    def crashed(self) -> Text:
        log = Path(f"{self.store.path}.campaign-errors.log")
        with log.open("a", encoding="utf-8") as out:
            out.write(f"--- {self.annotator} (queue {self.queue.name})\n{traceback.format_exc()}\n")
        return Text(
            f"The workbench stopped on an error (written to {log.name} on the server). "
            "Reload the page: you carry on at your next item, with what you had typed.",
            style="bold red",
        )


def run_work_queue(db: Path, name: str, annotator: str) -> int:
    """`play --queue NAME` on a work queue: until the annotator quits."""
    from clarify_tui.store import Store

    store = Store(db)
    queue = store.work.queue(name)
    if queue is None:
        raise ValueError(f"no work queue named '{name}' in {db}")
    app = WorkApp(store, queue, annotator)
    try:
        app.run()
    finally:
        store.close()
    return app.return_code or 0
