"""The run's progress: a bar with rate, ETA and the errored count on a terminal, and a
plain line every few seconds when the output is not a terminal (nohup, slurm logs), where
a redrawn bar would print nothing useful until the end."""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from clarify_tui.plural import plural

if TYPE_CHECKING:
    from clarify_tui.models import Session

PLAIN_EVERY_S = 5.0  # seconds between plain lines; CLARIFY_PROGRESS_EVERY overrides


class RunProgress:
    """start(total) once, advance(session) per finished session, finish() at the end."""

    def __init__(self, label: str, console: Console) -> None:
        self.label, self.console = label, console
        self.plain = not console.is_terminal
        self.every = float(os.environ.get("CLARIFY_PROGRESS_EVERY") or PLAIN_EVERY_S)
        self.total = self.done = self.errored = 0
        self.t0 = self.last = time.monotonic()
        self.bar: Progress | None = None
        self.task: TaskID | None = None

    def __enter__(self) -> RunProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()

    def start(self, total: int) -> None:
        self.total, self.t0 = total, time.monotonic()
        self.last = self.t0
        if self.plain:
            return
        self.bar = Progress(
            TextColumn(f"[bold]{self.label}[/bold]"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}"),
            TextColumn("[red]{task.fields[errored]}[/red]"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=self.console,
            transient=False,
        )
        self.bar.start()
        self.task = self.bar.add_task("run", total=total, rate="", errored="")

    def rate(self) -> float:
        elapsed = time.monotonic() - self.t0
        return self.done / elapsed if elapsed > 0 else 0.0

    def eta(self) -> str:
        rate = self.rate()
        if not rate or self.done >= self.total:
            return "0 s" if self.done >= self.total else "?"
        return f"{(self.total - self.done) / rate:.0f} s"

    def line(self) -> str:
        return (
            f"{self.label}: {self.done}/{plural(self.total, 'session')}, {self.errored} errored, "
            f"{self.rate():.2f}/s, ETA {self.eta()}"
        )

    def advance(self, session: Session) -> None:
        self.done += 1
        self.errored += session.status == "errored"
        if self.bar is not None and self.task is not None:
            self.bar.update(
                self.task,
                advance=1,
                rate=f"{self.rate():.2f}/s",
                errored=f"{self.errored} errored" if self.errored else "",
            )
        elif self.plain and time.monotonic() - self.last >= self.every:
            self.last = time.monotonic()
            self.console.print(self.line(), markup=False, highlight=False)

    def finish(self) -> None:
        if self.bar is not None and self.task is not None:
            self.bar.update(self.task, completed=self.total)
        elif self.plain:
            self.console.print(self.line(), markup=False, highlight=False)


def run_progress(label: str) -> RunProgress:
    from clarify_tui.commands.run import console

    return RunProgress(label, console)
