"""ClarifyApp: the task picker first, then play screens on top of it.

`run_app` is the entry point of `clarify-tui` (no arguments) and `clarify-tui play`.
Nothing happens at import time: the database is opened when the first session starts.
"""

from __future__ import annotations

from pathlib import Path

from textual import work
from textual.app import App
from textual.binding import Binding
from textual.message import Message

from clarify_tui.models import EpisodeConfig, Task
from clarify_tui.tui.commands import PlayCommands
from clarify_tui.tui.driver import DEFAULT_AGENT, PlaySetup
from clarify_tui.tui.screens.picker import PickerScreen


class TasksLoaded(Message):
    def __init__(self, tasks: list[Task], problems: list[str]) -> None:
        super().__init__()
        self.tasks = tasks
        self.problems = problems


def load_all(dataset: str | Path = "demo", benchmark: str | None = None) -> tuple[list[Task], list[str]]:
    """Tasks of every protocol in `dataset` (the demo: all three), and what failed to load."""
    from clarify_tui.models import Protocol
    from clarify_tui.tasks import DatasetError, load_tasks

    tasks: list[Task] = []
    problems: list[str] = []
    benchmarks = [benchmark] if benchmark else ([p.value for p in Protocol] if str(dataset) == "demo" else [None])
    for name in benchmarks:
        try:
            tasks += load_tasks(name, dataset)
        except DatasetError as exc:
            problems.append(f"{name or dataset}: {str(exc).splitlines()[0]}")
        except FileNotFoundError as exc:
            problems.append(f"{name or dataset}: {exc}")
    return tasks, problems


def find_task(tasks: list[Task], task_id: str) -> Task | None:
    """By id, or `protocol:id` when ids repeat across protocols."""
    for t in tasks:
        if task_id in (t.id, f"{t.protocol.value}:{t.id}"):
            return t
    return None


class ClarifyApp(App):
    """The workbench. Backends are specs; tests may pass tasks, a store and a search backend."""

    CSS_PATH = "app.tcss"
    TITLE = "clarify-tui"
    COMMANDS = App.COMMANDS | {PlayCommands}
    BINDINGS = [
        Binding("question_mark", "help", "Help", id="help", tooltip="all keys"),
        Binding("ctrl+q", "quit", "Quit", id="app-quit", show=False),
    ]

    def __init__(
        self,
        db: Path | None = None,
        task_id: str | None = None,
        as_: str = "observer",
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
        run_mode: str = "watch",
        auto: bool = True,
    ) -> None:
        super().__init__()
        self.db = db
        self.task_id = task_id
        self.role = as_
        self.specs = {"agent_spec": agent_spec, "user_spec": user_spec, "search_spec": search_spec,
                      "judge_spec": judge_spec}
        self.dataset, self.benchmark = dataset, benchmark
        self.preloaded = tasks
        self._store = store
        self.search_backend = search
        self.episode_config = config or EpisodeConfig()
        self.run_mode, self.auto = run_mode, auto
        self.picker = PickerScreen(tasks, role=as_)

    @property
    def store(self):
        if self._store is None:
            from clarify_tui.paths import default_db_path
            from clarify_tui.store import Store

            self._store = Store(self.db or default_db_path())
        return self._store

    def on_mount(self) -> None:
        self.push_screen(self.picker)
        if self.preloaded is not None:
            self._maybe_open_task(self.preloaded)
        else:
            self.load_tasks()

    @work(thread=True, exclusive=True, group="load")
    def load_tasks(self) -> None:
        tasks, problems = load_all(self.dataset, self.benchmark)
        self.post_message(TasksLoaded(tasks, problems))

    def on_tasks_loaded(self, message: TasksLoaded) -> None:
        self.picker.set_tasks(message.tasks, message.problems)
        self._maybe_open_task(message.tasks)

    def _maybe_open_task(self, tasks: list[Task]) -> None:
        if not self.task_id:
            return
        task = find_task(tasks, self.task_id)
        if task is None:
            self.notify(f"no task '{self.task_id}' in {self.dataset}", severity="error")
        else:
            self.open_task(task, self.role)
        self.task_id = None

    def on_picker_screen_task_chosen(self, message: PickerScreen.TaskChosen) -> None:
        self.open_task(message.task, message.role)

    def open_task(self, task: Task, role: str = "observer") -> None:
        from clarify_tui.tui.screens.play import PlayScreen

        setup = PlaySetup(task=task, role=role, config=self.episode_config.model_copy(), **self.specs)  # type: ignore[arg-type]
        try:
            screen = PlayScreen(setup, self.store, search=self.search_backend, run_mode=self.run_mode, auto=self.auto)
        except (ValueError, ImportError, RuntimeError) as exc:  # bad spec, missing key, backend not built
            self.notify(str(exc), title="cannot start the session", severity="error", timeout=10)
            return
        self.push_screen(screen)

    def action_help(self) -> None:
        from clarify_tui.tui.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())


def run_app(
    db: Path | None = None,
    task_id: str | None = None,
    as_: str = "observer",
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
