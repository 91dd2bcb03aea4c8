"""Ask versus guess, live: two agents on the same task at once, one column each.

One worker plays both episodes concurrently (an EpisodeDriver each), pausing `pace`
seconds after each step so a viewer can follow; every recorded step reaches the screen as
the driver's `StepsChanged` (merged per driver) and both sessions are written through to the store like any other
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

from clarify_tui.models import Session, Task
from clarify_tui.plural import plural
from clarify_tui.tui.driver import EpisodeDriver
from clarify_tui.tui.messages import StepsChanged
from clarify_tui.tui.screens.back import back_bindings, back_enabled, go_back
from clarify_tui.tui.screens.compare import verdict_text
from clarify_tui.tui.screens.play_keys import KeysThatSayWhy
from clarify_tui.tui.widgets.footer import Footer
from clarify_tui.tui.widgets.trajectory import Trajectory
from clarify_tui.tui.workers import ForwardsWorkerErrors

DEFAULT_A = "scripted:direct-guess"
DEFAULT_B = "scripted:search-then-ask"
RUN_NAME = "ask-vs-guess"
COLUMNS = ("a", "b")


class AskVsGuessScreen(KeysThatSayWhy, ForwardsWorkerErrors, Screen):
    """Agent A | agent B on one task."""

    BINDINGS = [
        Binding("c", "compare", "Compare", id="avg-compare", tooltip="the two sessions aligned step by step"),
        Binding("r", "restart", "Again", id="avg-restart", tooltip="play both again (two new sessions)"),
        *back_bindings("avg"),
    ]

    class RaceFinished(Message):
        """Both episodes ended."""

    def __init__(
        self, store, task: Task, spec_a: str = DEFAULT_A, spec_b: str = DEFAULT_B, *, pace: float = 0.4, config=None
    ) -> None:
        super().__init__()
        self.store = store
        self.task_ = task
        self.specs = {"a": spec_a, "b": spec_b}
        self.pace = pace
        self.config = config
        self.drivers: dict[str, EpisodeDriver] = {}
        self.finished = False

    @property
    def sessions(self) -> dict[str, Session]:
        return {c: d.session for c, d in self.drivers.items()}

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
        from clarify_tui.models import EpisodeConfig

        self.finished = False
        self.drivers = {}
        for column in COLUMNS:
            spec = self.specs[column]
            driver = EpisodeDriver.for_task(
                self.task_,
                spec,
                self.store,
                self.post_message,
                run=RUN_NAME,
                episode_config=EpisodeConfig(k=2),
                config=self.config,
            )
            self.drivers[column] = driver
            self.query_one(f"#avg-title-{column}", Static).update(
                Text.assemble(
                    (f"{column.upper()}  ", "bold reverse"),
                    (f" {spec}", "bold cyan"),
                    (f"  session {driver.session.id}", "dim"),
                )
            )
            self.query_one(f"#avg-verdict-{column}", Static).update(Text("playing…", style="dim italic"))
            self.query_one(f"#avg-trajectory-{column}", Trajectory).rebuild([])
        self.update_status()
        self.run_race()

    def update_status(self) -> None:
        parts = []
        for column, driver in self.drivers.items():
            parts.append(f"{column.upper()}: {plural(len(driver.steps), 'step')}, {driver.session.status}")
        tail = (
            "both saved to " + str(getattr(self.store, "path", "the database"))
            if self.finished
            else f"pace {self.pace:g} s/step"
        )
        self.query_one("#avg-status", Static).update(" · ".join(parts) + " · " + tail)

    @work(exclusive=True, group="ask-vs-guess", exit_on_error=False)
    async def run_race(self) -> None:
        try:
            await asyncio.gather(*(driver.run(self.pace) for driver in self.drivers.values()))
        finally:
            self.post_message(self.RaceFinished())

    def _column_of(self, driver: EpisodeDriver) -> str | None:
        return next((c for c, d in self.drivers.items() if d is driver), None)  # None: a previous race's

    def on_steps_changed(self, message: StepsChanged) -> None:
        column = self._column_of(message.driver)
        if column is None:
            return
        self.show_column(column)
        self.update_status()

    def show_column(self, column: str) -> None:
        driver = self.drivers[column]
        self.query_one(f"#avg-trajectory-{column}", Trajectory).sync(driver.steps, True)
        if driver.done:
            self.query_one(f"#avg-verdict-{column}", Static).update(verdict_text(driver.session, driver.steps))

    def on_ask_vs_guess_screen_race_finished(self, message: RaceFinished) -> None:
        self.finished = True
        for column, driver in self.drivers.items():
            self.query_one(f"#avg-trajectory-{column}", Trajectory).sync(driver.steps, True)
            self.query_one(f"#avg-verdict-{column}", Static).update(verdict_text(driver.session, driver.steps))
        self.update_status()
        self.refresh_bindings()
        self.notify("Both sessions saved. c compares them step by step; r plays again.")

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if (allowed := back_enabled(self, action)) is not None:
            return allowed
        if action in ("compare", "restart"):
            return True if self.finished else None
        return True

    def refusal(self, action: str, parameters: tuple) -> str | None:
        if action in ("compare", "restart") and not self.finished:
            what = "c compares them" if action == "compare" else "r plays again"
            return f"Both agents are still playing: {what} once both have ended."
        return None

    def action_compare(self) -> None:
        from clarify_tui.tui.screens.compare import CompareScreen

        ids = [d.session.id for d in self.drivers.values()]
        self.app.push_screen(CompareScreen(self.store, ids[0], ids[1]))

    def action_restart(self) -> None:
        self.start()

    def action_back(self) -> None:
        self.workers.cancel_group(self, "ask-vs-guess")
        go_back(self)

    def action_back_quits(self) -> None:
        self.action_back()
