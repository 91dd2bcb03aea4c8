"""The whole sweep's progress: cells done, sessions, errored, spend and ETA, as a bar on a
terminal and as a plain line every few seconds otherwise (a job array's log file), as
`run`'s progress does (commands/progress.py)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from clarify_tui.commands.progress import PLAIN_EVERY_S

if TYPE_CHECKING:
    from clarify_tui.models import Session


class SweepProgress:
    """`advance(session)` per finished session; `spend()` says the dollars so far."""

    def __init__(self, label: str, console: Console, cells: dict[str, int], spend: Callable[[], float]) -> None:
        self.label, self.console, self.spend = label, console, spend
        self.left = dict(cells)  # cell name -> sessions still to play
        self.cells_total = len(cells)
        self.total = sum(cells.values())
        self.done = self.errored = 0
        self.plain = not console.is_terminal
        self.every = float(os.environ.get("CLARIFY_PROGRESS_EVERY") or PLAIN_EVERY_S)
        self.t0 = self.last = time.monotonic()
        self.bar: Progress | None = None
        self.task: TaskID | None = None

    def __enter__(self) -> SweepProgress:
        self.t0 = self.last = time.monotonic()
        if not self.plain:
            self.bar = Progress(
                TextColumn(f"[bold]{self.label}[/bold]"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[status]}"),
                TimeElapsedColumn(),
                console=self.console,
            )
            self.bar.start()
            self.task = self.bar.add_task("sweep", total=self.total, status=self.status())
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()

    @property
    def cells_done(self) -> int:
        return sum(1 for n in self.left.values() if n <= 0)

    def eta(self) -> str:
        elapsed = time.monotonic() - self.t0
        if self.done >= self.total:
            return "0 s"
        if not self.done or elapsed <= 0:
            return "?"
        return f"{(self.total - self.done) / (self.done / elapsed):.0f} s"

    def status(self) -> str:
        errored = f", {self.errored} errored" if self.errored else ""
        return (
            f"sessions; {self.cells_done}/{self.cells_total} cells{errored}; ${self.spend():.4f} spent; "
            f"ETA {self.eta()}"
        )

    def line(self) -> str:
        return f"{self.label}: {self.done}/{self.total} {self.status()}"

    def advance(self, session: Session) -> None:
        self.done += 1
        self.errored += session.status == "errored"
        if session.run in self.left:
            self.left[session.run] -= 1
        if self.bar is not None and self.task is not None:
            self.bar.update(self.task, advance=1, status=self.status())
            return
        now = time.monotonic()
        if now - self.last >= self.every or self.done == self.total:
            self.last = now
            self.console.print(self.line(), markup=False, highlight=False)
