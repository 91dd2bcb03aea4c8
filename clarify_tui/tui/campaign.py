"""The workbench one campaign visitor gets: the human-baseline queue, served by claims.

`CampaignApp` is the TUI's queue app (`ClarifyApp` with a `QueueSpec`) whose next task
comes from the shared `ClaimBook` instead of the annotator's own order, so annotators in
other processes never get the same task at once (unless the campaign wants K per task).
While the app runs it beats the claim's heartbeat; when the browser tab closes the
process ends, the beats stop and the claim lapses after the campaign's timeout.

The sessions and scores screens stay shut for the whole visit: the shared database holds
other annotators' answers to tasks this annotator has yet to play.
"""

from __future__ import annotations

import traceback
from collections.abc import Iterable
from pathlib import Path

from rich.text import Text
from textual.app import SystemCommand
from textual.screen import Screen

from clarify_tui.campaign.claims import ClaimBook, NoTask, OpenElsewhere
from clarify_tui.models import Task
from clarify_tui.plural import plural
from clarify_tui.tui import app as tui_app
from clarify_tui.tui import glyphs
from clarify_tui.tui.app import ClarifyApp
from clarify_tui.tui.screens.play_queue import QueueSpec, progress
from clarify_tui.tui.speed.crash import ShortCrash

SHUT = ("sessions", "scores")
RETRY_S = 15.0


class CampaignApp(ShortCrash, ClarifyApp):
    """One annotator's visit. `tasks` must be the campaign's tasks (any order)."""

    CSS_PATH = [Path(tui_app.__file__).parent / name for name in ClarifyApp.CSS_PATH]

    def __init__(
        self,
        book: ClaimBook,
        annotator: str,
        tasks: list[Task],
        *,
        heartbeat_s: float | None = None,
        retry_s: float = RETRY_S,
        **kwargs,
    ) -> None:
        by_id = {t.id: t for t in tasks}
        missing = [i for i in book.campaign.task_ids if i not in by_id]
        if missing:
            raise ValueError(f"the campaign's tasks {', '.join(missing[:5])} are not in the dataset")
        ordered = [by_id[i] for i in book.campaign.task_ids]
        super().__init__(
            as_="agent", tasks=ordered, queue=QueueSpec(run=book.campaign.run, annotator=annotator), **kwargs
        )
        self.book = book
        self.visitor = annotator
        self.error_log = Path(f"{book.path}.campaign-errors.log")
        self.heartbeat_s = heartbeat_s or min(30.0, book.timeout / 3)
        self.retry_s = retry_s

    def on_mount(self) -> None:
        glyphs.use_text_icons()  # a browser without an emoji font draws colour emoji blank (until unmounted)
        # Textual calls ClarifyApp.on_mount too (handlers run for each class of the MRO)
        self.set_interval(self.heartbeat_s, self._beat)

    def on_unmount(self) -> None:
        glyphs.use_text_icons(False)  # the setting is the process's: another app after this one draws emoji again

    def _beat(self) -> None:
        self.book.heartbeat(self.visitor)

    def serve_next(self) -> None:
        """Claim the next task (or the one this annotator holds) and open it."""
        from clarify_tui.sessions_ops import ForkError

        (spec, screen), tasks = self.served, self.queue_tasks or []
        claim = self.book.claim_next(self.visitor)
        if isinstance(claim, OpenElsewhere):
            screen.show_problem(
                f"You have task {claim.task_id} open in another tab or window. Go on there, or close it "
                f"and this page takes the task over (it checks again every {self.retry_s:.0f} s)."
            )
            self.set_timer(self.retry_s, self.serve_next)
            return
        if isinstance(claim, NoTask):
            if claim.waiting:
                screen.show_problem(
                    f"{plural(claim.waiting, 'task')} left {'is' if claim.waiting == 1 else 'are'} being played by other annotators right now. "
                    f"This page checks again every {self.retry_s:.0f} s (a task comes back if they leave)."
                )
                self.set_timer(self.retry_s, self.serve_next)
                return
            counts = progress(self.store, spec, tasks)
            screen.show_finished(counts, len(tasks))
            return
        task = next(t for t in tasks if t.id == claim.task_id)
        mine = self.own_progress()
        try:
            self.open_task(task, "agent", run=spec.run, queue=mine, resume_id=claim.resume_id, strict=True)
        except ForkError as exc:  # the left session cannot go on: start the task afresh
            self.notify(str(exc), title="cannot resume", severity="warning")
            self.open_task(task, "agent", run=spec.run, queue=mine)
        if claim.resume_id:
            self.notify(f"Resuming task {task.id} at its last step.")

    def own_progress(self) -> tuple[int, int]:
        """(this task's number for this annotator, the tasks they have or may still get):
        the campaign's order says nothing to a person who gets every other task."""
        from clarify_tui.campaign.status import annotator_progress

        c = self.book.campaign
        me = annotator_progress(Path(self.book.path), c.run, c.task_ids, c.per_task, self.visitor, self.book.timeout)
        finished = me.done + me.skipped
        return finished + 1, max(finished + 1, finished + me.in_progress + me.remaining)

    def saved_where(self) -> str:
        """Toasts never show annotators the server's file paths."""
        return "the campaign's database"

    # ---- other sessions stay shut ----------------------------------------------------------

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action in SHUT:
            return False
        return super().check_action(action, parameters)

    def action_sessions(self) -> None:
        self.notify("Not in a campaign: other annotators' sessions hold answers.", severity="warning")

    def action_scores(self) -> None:
        self.action_sessions()

    def on_key(self, event) -> None:
        """F2 / F3, hidden (`check_action`) and not listed under `?`, still say why when
        pressed: a visitor who knows them from the docs is not met with silence."""
        if event.key in ("f2", "f3"):
            self.action_sessions()

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        for command in super().get_system_commands(screen):
            if command.title.lower() not in SHUT:
                yield command

    # ---- a crash shows no data --------------------------------------------------------------

    def crashed(self) -> Text:
        """What the visitor sees when the app stops on an error (speed/crash.py): a short
        message; the traceback goes to the server's log, since its local variables may
        hold the task's hidden fields."""
        with self.error_log.open("a", encoding="utf-8") as log:
            log.write(f"--- {self.annotator}\n{traceback.format_exc()}\n")
        return Text(
            f"The workbench stopped on an error (written to {self.error_log.name} on the server). "
            "Reload the page: your task resumes where you were.",
            style="bold red",
        )
