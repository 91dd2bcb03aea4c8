"""ClarifyApp: the task picker first, then play screens on top of it.

`run_app` is the entry point of `clarify-tui` (no arguments) and `clarify-tui play`.
Nothing happens at import time: the database is opened when the first session starts.

With a `QueueSpec` the app serves the human-baseline queue instead of the picker: one
task after another (`sessions_ops.next_in_queue`), resuming a task left in the middle.
F2 and F3 open the sessions and scores screens (not while a person plays the agent on
an unfinished task: they would show other sessions' answers; tui/browsing_keys.py).
"""

from __future__ import annotations

import gc
from pathlib import Path
from typing import TYPE_CHECKING

from textual import events, work
from textual.app import App
from textual.binding import Binding
from textual.message import Message

from clarify_tui.plural import plural
from clarify_tui.tui.browsing_keys import BrowsingKeys
from clarify_tui.tui.commands import ScreenCommands
from clarify_tui.tui.layout import HORIZONTAL_BREAKPOINTS, VERTICAL_BREAKPOINTS, PresetBreakpoints
from clarify_tui.tui.roles import DEFAULT_AGENT, Role
from clarify_tui.tui.screens.picker import PickerScreen
from clarify_tui.tui.screens.play_queue import QueueScreen, QueueSpec, progress
from clarify_tui.tui.speed import screens_ahead
from clarify_tui.tui.terminal import NeedsTerminal
from clarify_tui.tui.typeahead import TypeaheadApp
from clarify_tui.tui.workers import NotifiesWorkerErrors

if TYPE_CHECKING:  # the first paint builds no models (task_rows.py): pydantic loads after it
    from clarify_tui.config import Config
    from clarify_tui.models import EpisodeConfig, Task
    from clarify_tui.tui.screens.play import RunMode


def freeze_startup_heap() -> None:
    """Once the tasks are loaded, everything imported and built so far (Textual, Rich,
    pydantic, the models, the picker) lives as long as the process: `gc.freeze` moves it
    out of the collector's view. Otherwise each full collection walks all of it, ~60-120
    ms of CPU on this machine, and one lands in a play or replay opening or a page key
    now and then (benchmarks/bench_tui.py, issue 24: the worst of 30 page keys 85 -> 21
    ms of CPU; with the freeze after the warm-up, speed/ahead.py, play 190 -> 49 ms and
    replay 174 -> 39). The standard library's remedy for a long-lived heap, no patch."""
    gc.freeze()


class TasksLoaded(Message):
    def __init__(self, tasks: list[Task], problems: list[str]) -> None:
        super().__init__()
        self.tasks = tasks
        self.problems = problems


class ClarifyApp(NeedsTerminal, NotifiesWorkerErrors, PresetBreakpoints, TypeaheadApp, BrowsingKeys, App):
    """The workbench. Backends are specs; tests may pass tasks, a store and a search backend."""

    CSS_PATH = ["app.tcss", "browse.tcss"]
    TITLE = "clarify-tui"
    COMMANDS = App.COMMANDS | {ScreenCommands}
    HORIZONTAL_BREAKPOINTS = HORIZONTAL_BREAKPOINTS
    VERTICAL_BREAKPOINTS = VERTICAL_BREAKPOINTS
    BINDINGS = [
        Binding("question_mark", "help", "Help", id="help", tooltip="all keys (this help)"),
        Binding(
            "f2",
            "sessions",
            "Sessions",
            id="sessions",
            tooltip="every stored session: replay, compare, fork (shut while you play the agent)",
        ),
        Binding("f3", "scores", "Scores", id="scores", tooltip="scores and charts of this database"),
        Binding(
            "ctrl+q",
            "quit",
            "Quit",
            id="app-quit",
            show=False,
            tooltip="quit (play --task offers to resume a task left running)",
        ),
    ]

    def __init__(
        self,
        db: Path | None = None,
        task_id: str | None = None,
        as_: Role = "observer",
        agent_spec: str = DEFAULT_AGENT,
        user_spec: str = "rule",
        search_spec: str = "local",
        judge_spec: str = "rule",
        *,
        dataset: str | Path = "demo",
        benchmark: str | None = None,
        tasks: list[Task] | None = None,
        store=None,
        search=None,
        config: EpisodeConfig | None = None,
        run_mode: RunMode = "watch",
        auto: bool = True,
        pace: float | None = None,
        annotator: str | None = None,
        queue: QueueSpec | None = None,
        services: Config | None = None,
    ) -> None:
        super().__init__()
        self.services = services  # the model settings (--config, --set); None: clarify.toml when a role needs it
        self.db = db
        self.task_id = task_id
        self.role = as_
        self.specs = {
            "agent_spec": agent_spec,
            "user_spec": user_spec,
            "search_spec": search_spec,
            "judge_spec": judge_spec,
        }
        self.dataset, self.benchmark = dataset, benchmark
        self.preloaded = tasks
        self._store = store
        self.search_backend = search
        self.episode_config = config  # None: EpisodeConfig() (built when a task opens: no pydantic before)
        self.run_mode, self.auto = run_mode, auto
        self.pace = pace  # seconds between a watched agent's steps (None: the play screen's default)
        self.annotator = queue.annotator if queue else annotator
        self.queue = queue
        self.queue_tasks: list[Task] | None = None
        self.picker = PickerScreen(tasks, role=as_)
        self.queue_screen = QueueScreen(queue) if queue else None
        self.ahead = screens_ahead(
            self,
            {  # F2, F3 and ? built while idle (not in the queue: F2/F3 stay shut)
                "sessions": (
                    "clarify_tui.tui.screens.sessions",
                    lambda module: module.SessionsScreen(self.store) if self._has_store() else None,
                ),
                "scores": (
                    "clarify_tui.tui.screens.scores",
                    lambda module: module.ScoresScreen(self.store) if self._has_store() else None,
                ),
                "help": ("clarify_tui.tui.screens.help", lambda module: module.HelpScreen()),
            },
        )

    @property
    def store(self):
        if self._store is None:
            from clarify_tui.paths import default_db_path
            from clarify_tui.store import Store

            self._store = Store(self.db or default_db_path())
        return self._store

    def _has_store(self) -> bool:
        """Whether the database is open or its file exists: building a screen ahead never
        creates one (that waits for the first session, or F2)."""
        from clarify_tui.paths import default_db_path

        return self._store is not None or Path(self.db or default_db_path()).exists()

    def on_mount(self) -> None:
        self.push_screen(self.queue_screen or self.picker)
        if self.queue is None:
            self.call_after_refresh(self.ahead.clear_to_start, "first paint")
        if self.preloaded is not None:
            self._tasks_ready(self.preloaded)
            return
        rows = None
        if self.queue_screen is None:
            from clarify_tui.task_rows import quick_rows

            rows = quick_rows(self.dataset, self.benchmark)  # ~1 ms for the demo: no pydantic
        if rows is None:
            self.load_tasks()
        else:
            self.picker.preview(rows)  # the picker says when they are painted: then load_tasks

    def on_unmount(self) -> None:
        self.ahead.stop()

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.InputEvent):
            self.ahead.note_input()  # building ahead waits for a quiet moment
        await super().on_event(event)

    def on_picker_screen_rows_painted(self, message: PickerScreen.RowsPainted) -> None:
        self.load_tasks()

    @work(thread=True, exclusive=True, group="load")
    def load_tasks(self) -> None:
        from clarify_tui.tasks.collection import load_all  # not at import: first paint needs no loaders

        tasks, problems = load_all(self.dataset, self.benchmark)
        self.post_message(TasksLoaded(tasks, problems))

    def on_tasks_loaded(self, message: TasksLoaded) -> None:
        if self.queue_screen is None:
            self.picker.set_tasks(message.tasks, message.problems)
        elif message.problems:
            self.notify("\n".join(message.problems[:5]), title="some datasets did not load", severity="warning")
        self.call_after_refresh(freeze_startup_heap)
        self._tasks_ready(message.tasks)

    def _tasks_ready(self, tasks: list[Task]) -> None:
        if self.queue is None:
            self.ahead.clear_to_start("tasks")
            self._maybe_open_task(tasks)
            return
        spec, screen = self.served
        self.queue_tasks = spec.tasks(tasks)
        if not self.queue_tasks:
            screen.show_problem(f"No tasks in {self.dataset}: the queue is empty.")
            return
        self.serve_next()

    # ---- the human-baseline queue ---------------------------------------------------------

    @property
    def served(self) -> tuple[QueueSpec, QueueScreen]:
        """The queue this app serves and its screen (made with a QueueSpec)."""
        if self.queue is None or self.queue_screen is None:
            raise RuntimeError("this app serves no queue")
        return self.queue, self.queue_screen

    def serve_next(self) -> None:
        """Open the annotator's next unfinished task (resuming it if it was interrupted),
        or say that the queue is finished."""
        from clarify_tui.sessions_ops import ForkError, next_in_queue, queue_order

        (spec, screen), tasks = self.served, self.queue_tasks or []
        found = next_in_queue(self.store, spec.run, spec.annotator, tasks, spec.seed)
        if found is None:
            counts = progress(self.store, spec, tasks)
            screen.show_finished(counts, len(tasks))
            self.notify(f"Queue finished: {sum(counts.values())} of {plural(len(tasks), 'task')} done.")
            return
        task, interrupted = found
        position = [t.id for t in queue_order(tasks, spec.seed)].index(task.id) + 1
        try:
            self.open_task(
                task,
                "agent",
                run=spec.run,
                queue=(position, len(tasks)),
                resume_id=interrupted.id if interrupted else None,
                strict=True,
            )
        except ForkError as exc:  # the interrupted session cannot go on: start the task afresh
            self.notify(str(exc), title="cannot resume", severity="warning")
            self.open_task(task, "agent", run=spec.run, queue=(position, len(tasks)))
        if interrupted:
            self.notify(f"Resuming task {task.id} (session {interrupted.id}) at its last step.")

    def on_play_screen_next_task_requested(self, message) -> None:
        from clarify_tui.tui.screens.play import PlayScreen

        if isinstance(self.screen, PlayScreen):
            self.pop_screen()
        self.serve_next()

    def _maybe_open_task(self, tasks: list[Task]) -> None:
        if not self.task_id:
            return
        from clarify_tui.tasks.collection import find_task

        task = find_task(tasks, self.task_id)
        if task is None:
            self.notify(f"no task '{self.task_id}' in {self.dataset}", severity="error")
        else:
            self.open_or_resume(task, self.role)
        self.task_id = None

    def open_or_resume(self, task: Task, role: Role) -> None:
        """`play --task` or the picker, as agent or user (or stepping the agent, `--step`):
        a session of this person on this task left `running` (kept for later at `q`,
        ctrl+q, a closed terminal) is offered for resuming; `n` marks it abandoned (never
        scored) before a new one starts, escape leaves it as it was."""
        from clarify_tui.sessions_ops import abandon, left_running
        from clarify_tui.tui.play_setup import default_annotator, initial_mode
        from clarify_tui.tui.screens.confirm import Choice, ConfirmScreen

        stepping = role == "observer" and self.run_mode == "step"  # a person steps the agent
        if role not in ("agent", "user") and not stepping:
            self.open_task(task, role)
            return
        who = None if stepping else self.annotator or default_annotator()
        left = left_running(self.store, task, "stepped" if stepping else initial_mode(role), who)
        if not left:
            self.open_task(task, role)
            return
        session = left[-1]

        def answered(resume: bool | None) -> None:
            if resume is None:
                return  # neither: it stays as it was (escape never gives a person's work up)
            if resume:
                self.open_task(task, role, resume_id=session.id)
                return
            abandon(self.store, left, "abandoned: left running, not resumed")  # none of them will ever finish
            self.open_task(task, role)

        by = who or "a person stepping the agent"
        self.push_screen(
            ConfirmScreen(
                f"Resume session {session.id} on {task.id}?",
                f"It was left unfinished (kept for later, ctrl+q or a closed terminal) by {by}.",
                (
                    Choice(("y", "enter"), "yes: resume it at its last step", True),
                    Choice(("n",), "no: mark it abandoned (never scored) and start afresh", False),
                    Choice(("escape",), "cancel: neither, it stays unfinished", None),
                ),
            ),
            answered,
        )

    def on_picker_screen_task_chosen(self, message: PickerScreen.TaskChosen) -> None:
        self.open_or_resume(message.task, message.role)  # a session kept for later is offered

    def saved_where(self) -> str:
        """Where sessions are saved, as a toast says it (the campaign app hides the path)."""
        from clarify_tui.paths import default_db_path

        return str(self._store.path if self._store is not None else (self.db or default_db_path()))

    def open_task(
        self,
        task: Task,
        role: Role = "observer",
        *,
        run: str = "tui",
        queue: tuple[int, int] | None = None,
        resume_id: str | None = None,
        strict: bool = False,
    ) -> None:
        """Push a play screen on `task`. `strict`: let a ForkError (cannot resume) through."""
        from clarify_tui.models import EpisodeConfig
        from clarify_tui.sessions_ops import ForkError
        from clarify_tui.tui.play_setup import PlaySetup
        from clarify_tui.tui.screens.play import PlayScreen

        config = self.episode_config.model_copy() if self.episode_config else EpisodeConfig()
        setup = PlaySetup(
            task=task,
            role=role,
            config=config,
            run=run,
            annotator=self.annotator,
            resume_id=resume_id,
            queue=queue,
            services=self.services,
            **self.specs,
        )
        try:
            paced = {} if self.pace is None else {"pace": self.pace}
            screen = PlayScreen(
                setup, self.store, search=self.search_backend, run_mode=self.run_mode, auto=self.auto, **paced
            )
        except ForkError:
            if strict:
                raise
            self.notify(f"cannot resume session {resume_id}", severity="error")
            return
        except (ValueError, ImportError, RuntimeError) as exc:  # bad spec, missing key, backend not built
            self.notify(str(exc), title="cannot start the session", severity="error", timeout=10)
            return
        self.push_screen(screen)


def run_app(
    db: Path | None = None,
    task_id: str | None = None,
    as_: Role = "observer",
    agent_spec: str = DEFAULT_AGENT,
    user_spec: str = "rule",
    search_spec: str = "local",
    judge_spec: str = "rule",
    **kwargs,
) -> int:
    """Run the workbench until the user quits; returns the exit code."""
    app = ClarifyApp(db, task_id, as_, agent_spec, user_spec, search_spec, judge_spec, **kwargs)
    app.run()
    return app.return_code or 0
