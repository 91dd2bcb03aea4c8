"""Ask versus guess, live: two agents on the same task at once, one column each.

One worker plays both episodes concurrently, pausing `pace` seconds after each step so a
viewer can follow; every recorded step reaches the screen as a `ColumnStepped` message
(merged per column) and both sessions are written through to the store like any other
run (run name `ask-vs-guess`). When both end, each column shows its verdict.
"""

from __future__ import annotations

import asyncio

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Header, Static
from textual.worker import Worker, WorkerState

from clarify_tui.models import Session, Step, Task
from clarify_tui.tui.screens.compare import verdict_text
from clarify_tui.tui.widgets.trajectory import Trajectory
from clarify_tui.tui.widgets.footer import Footer

DEFAULT_A = "scripted:direct-guess"
DEFAULT_B = "scripted:search-then-ask"
RUN_NAME = "ask-vs-guess"
COLUMNS = ("a", "b")


class ColumnSink:
    """The episode's StepSink: writes through to the store, then tells the screen."""

    def __init__(self, store, post, column: str) -> None:
        self.store, self.post, self.column = store, post, column

    def start_session(self, session: Session, task: Task) -> None:
        self.store.start_session(session, task)

    def add_step(self, session: Session, step: Step) -> None:
        self.store.add_step(session, step)
        self.post(AskVsGuessScreen.ColumnStepped(self.column))

    def finish_session(self, session: Session) -> None:
        self.store.finish_session(session)
        self.post(AskVsGuessScreen.ColumnStepped(self.column))


class AskVsGuessScreen(Screen):
    """Agent A | agent B on one task."""

    BINDINGS = [
        Binding("c", "compare", "Compare", id="avg-compare", tooltip="the two sessions aligned step by step"),
        Binding("r", "restart", "Again", id="avg-restart", tooltip="play both again (two new sessions)"),
        Binding("q", "back", "Back", id="avg-back"),
    ]

    class ColumnStepped(Message):
        """Column `column` recorded a step (merged: only the latest per column matters)."""

        def __init__(self, column: str) -> None:
            super().__init__()
            self.column = column

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, AskVsGuessScreen.ColumnStepped) and message.column == self.column

    class RaceFinished(Message):
        """Both episodes ended."""

    def __init__(self, store, task: Task, spec_a: str = DEFAULT_A, spec_b: str = DEFAULT_B, *,
                 pace: float = 0.4, config=None) -> None:
        super().__init__()
        self.store = store
        self.task_ = task
        self.specs = {"a": spec_a, "b": spec_b}
        self.pace = pace
        self.config = config
        self.episodes: dict = {}
        self.finished = False

    @property
    def sessions(self) -> dict[str, Session]:
        return {c: ep.session for c, ep in self.episodes.items()}

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="avg-question")
        with Horizontal(id="avg-columns"):
            for column in COLUMNS:
                with Vertical(classes="avg-column", id=f"avg-column-{column}"):
                    yield Static(id=f"avg-title-{column}", classes="avg-title")
                    yield Static(id=f"avg-verdict-{column}", classes="verdict")
                    yield Trajectory(id=f"avg-trajectory-{column}")
        yield Static(id="avg-status")
        yield Footer()

    def on_mount(self) -> None:
        task = self.task_
        self.title = f"ask vs guess · {task.protocol.value} · {task.id}"
        question = Text("Question  ", style="bold")
        question.append(task.question if not task.cts else task.cts.blurred_query, style="")
        self.query_one("#avg-question", Static).update(question)
        self.start()

    def start(self) -> None:
        from clarify_tui.backends import make_agent, make_judge, make_search, make_user
        from clarify_tui.engine import build_episode
        from clarify_tui.models import EpisodeConfig

        self.finished = False
        self.episodes = {}
        for column in COLUMNS:
            spec = self.specs[column]
            episode = build_episode(
                self.task_, agent=make_agent(spec, self.config), user=make_user("rule"), search=make_search("local"),
                judge=make_judge("rule"), config=EpisodeConfig(k=2),
                sink=ColumnSink(self.store, self.post_message, column),
            )
            episode.session.run = RUN_NAME
            self.episodes[column] = episode
            self.query_one(f"#avg-title-{column}", Static).update(
                Text.assemble((f"{column.upper()}  ", "bold reverse"), (f" {spec}", "bold cyan"),
                              (f"  session {episode.session.id}", "dim"))
            )
            self.query_one(f"#avg-verdict-{column}", Static).update(Text("playing…", style="dim italic"))
            self.query_one(f"#avg-trajectory-{column}", Trajectory).rebuild([])
        self.update_status()
        self.run_race()

    def update_status(self) -> None:
        parts = []
        for column, episode in self.episodes.items():
            s = episode.session
            parts.append(f"{column.upper()}: {len(episode.steps)} steps, {s.status}")
        tail = "both saved to " + str(getattr(self.store, "path", "the database")) if self.finished else \
            f"pace {self.pace:g} s/step"
        self.query_one("#avg-status", Static).update(" · ".join(parts) + " · " + tail)

    @work(exclusive=True, group="ask-vs-guess", exit_on_error=False)
    async def run_race(self) -> None:
        try:
            await asyncio.gather(*(self._play(ep) for ep in self.episodes.values()))
        finally:
            self.post_message(self.RaceFinished())

    async def _play(self, episode) -> None:
        await episode.run(pace=self.pace)

    def on_ask_vs_guess_screen_column_stepped(self, message: ColumnStepped) -> None:
        episode = self.episodes.get(message.column)
        if episode is None:
            return
        self.query_one(f"#avg-trajectory-{message.column}", Trajectory).sync(episode.steps, True)
        if episode.done:
            self.query_one(f"#avg-verdict-{message.column}", Static).update(
                verdict_text(episode.session, episode.steps))
        self.update_status()

    def on_ask_vs_guess_screen_race_finished(self, message: RaceFinished) -> None:
        self.finished = True
        for column, episode in self.episodes.items():
            self.query_one(f"#avg-trajectory-{column}", Trajectory).sync(episode.steps, True)
            self.query_one(f"#avg-verdict-{column}", Static).update(verdict_text(episode.session, episode.steps))
        self.update_status()
        self.refresh_bindings()
        self.notify("Both sessions saved. c compares them step by step; r plays again.")

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR:
            error = event.worker.error
            self.notify(f"{type(error).__name__}: {error}", title="an agent failed", severity="error", timeout=8)

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action in ("compare", "restart"):
            return True if self.finished else None
        return True

    def action_compare(self) -> None:
        from clarify_tui.tui.screens.compare import CompareScreen

        ids = [ep.session.id for ep in self.episodes.values()]
        self.app.push_screen(CompareScreen(self.store, ids[0], ids[1]))

    def action_restart(self) -> None:
        self.start()

    def action_back(self) -> None:
        self.workers.cancel_group(self, "ask-vs-guess")
        if len(self.app.screen_stack) > 2:
            self.app.pop_screen()
        else:
            self.app.exit()
