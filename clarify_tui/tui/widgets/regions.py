"""Question | trajectory | state: the three regions of the play and replay screens.

Left: the question (as the agent sees it) over the hidden panel; centre: the trajectory
and what the screen puts under it (play's pending bar, replay's action bar for a fork);
right: the score card (once the session has ended) over the protocol state. One CSS block
lays it out (browse.tcss, "question | trajectory | state"), in one column below 120
columns with the side panels one key away (tui/layout.py). The trajectory is composed as
a black box: screens talk to it through `Trajectory.sync(steps, reveal)`.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from clarify_tui.agent_view import AgentView
from clarify_tui.models import Task
from clarify_tui.results import EpisodeState
from clarify_tui.tui.widgets.hidden import HiddenPanel
from clarify_tui.tui.widgets.question import QuestionPanel
from clarify_tui.tui.widgets.state import StatePanel
from clarify_tui.tui.widgets.trajectory import Trajectory


class Regions(Horizontal):
    """The three regions; `under_trajectory` are mounted below the trajectory."""

    def __init__(self, *under_trajectory: Widget, state_title: str = "State", id: str = "regions") -> None:
        super().__init__(id=id, classes="regions")
        self.under_trajectory = under_trajectory
        self.state_title = state_title

    def compose(self) -> ComposeResult:
        with Vertical(id="left", classes="col-left"):
            yield QuestionPanel(id="question")
            yield HiddenPanel(id="hidden", classes="panel-hidden")
        with Vertical(id="centre", classes="col-centre"):
            yield Trajectory(id="trajectory")
            yield from self.under_trajectory
        with VerticalScroll(id="right", classes="col-right"):
            yield Static(id="score")
            yield StatePanel(id="state")

    def on_mount(self) -> None:
        self.query_one(Trajectory).border_title = "Trajectory"
        self.query_one("#right").border_title = self.state_title
        self.query_one("#score").display = False

    def show(
        self,
        task: Task,
        view: AgentView,
        state: EpisodeState,
        *,
        reveal: bool,
        spoilers: bool,
        hidden: bool,
        locked: bool,
    ) -> None:
        """The question as `view` has it, the protocol `state` (`reveal`: judge verdicts and
        checkpoint details; `spoilers`: hidden parts of the state), and the hidden panel
        (`locked` for a person playing the agent, else shown when `hidden`)."""
        self.query_one(QuestionPanel).show(task, view)
        self.query_one(StatePanel).show(task, state, reveal=reveal, spoilers=spoilers)
        self.show_hidden(task, shown=hidden, locked=locked)

    def show_hidden(self, task: Task, *, shown: bool, locked: bool) -> None:
        self.query_one(HiddenPanel).show_state(task, locked=locked, shown=shown and not locked)

    def show_score(self, card: Text | None) -> None:
        """The score card (widgets/state.score_card), or None to hide it."""
        score = self.query_one("#score", Static)
        score.display = card is not None
        if card is not None:
            score.update(card)
