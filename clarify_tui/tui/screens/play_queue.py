"""The human-baseline queue (`clarify-tui play --as agent --annotator NAME --queue RUN`).

The queue is the tasks loaded for the command (the first `limit` of them), in the order
`sessions_ops.queue_order` gives for `seed`. `QueueScreen` sits under the play screens:
it shows the progress, and says so when every task is done. The app asks
`sessions_ops.next_in_queue` for the next task each time one ends, so quitting and
relaunching the same command carries on where the annotator stopped (a task left in the
middle resumes at its last step, in the same session).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Header, Static

from clarify_tui.argtypes import TaskLimit, take
from clarify_tui.plural import plural
from clarify_tui.tui.widgets.footer import Footer

if TYPE_CHECKING:
    from clarify_tui.models import Task


@dataclass
class QueueSpec:
    """Which queue to serve, and to whom."""

    run: str
    annotator: str
    seed: int | None = None
    limit: TaskLimit | None = None

    def tasks(self, tasks: list[Task]) -> list[Task]:
        """The queue's tasks (before ordering): the first `limit` loaded."""
        return take(tasks, self.limit)


def progress(store, spec: QueueSpec, tasks: list[Task]) -> Counter:
    """How the annotator's sessions of the queue's tasks ended (`sessions_ops.queue_progress`)."""
    from clarify_tui.sessions_ops import queue_progress

    return queue_progress(store, spec.run, spec.annotator, tasks)


class QueueScreen(Screen):
    """The queue's progress; play screens open on top of it."""

    BINDINGS = [Binding("q", "app.quit", "Quit", id="queue-quit")]

    def __init__(self, spec: QueueSpec) -> None:
        super().__init__()
        self.spec = spec
        self._body: Text = Text("Loading the queue's tasks…", style="dim")

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(self._body, id="queue-body")
        yield Footer()

    def on_mount(self) -> None:
        self.title = "clarify-tui"
        self.sub_title = f"queue {self.spec.run} · {self.spec.annotator}"

    def _show(self, body: Text) -> None:
        """Callers may speak before the screen is composed (tasks given up front)."""
        self._body = body
        for widget in self.query("#queue-body").results(Static):
            widget.update(body)

    def show_finished(self, counts: Counter, total: int) -> None:
        done = sum(counts.values())
        text = Text()
        text.append("The queue is finished.\n\n", style="bold green")
        text.append(f"{done} of {plural(total, 'task')} done in run '{self.spec.run}' by {self.spec.annotator}")
        parts = [f"{n} {status}" for status, n in sorted(counts.items())]
        if parts:
            text.append(f" ({', '.join(parts)})")
        text.append(".\n\nF2 sessions · F3 scores · q quit", style="dim")
        self._show(text)

    def show_problem(self, message: str) -> None:
        self._show(Text(message, style="bold red"))
