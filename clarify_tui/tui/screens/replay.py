"""The replay screen: a stored session step by step, and forks that continue live.

`left` / `right` move one step, `home` / `end` jump; the state panel shows `Step.state`
of the step under the cursor (the protocol state the engine recorded right after it),
so nothing is recomputed; the question panel is what the agent saw then
(`engine.view_at`). A failed DiscoBench session opens at its first failed checkpoint
with the step where the agent guessed instead of asking highlighted
(`trajectory.opening_step`).

`f` forks after the current step (`sessions_ops.fork_session`): the dialog offers the
session's agent spec, or any other (scripted:…, openai:…, human). The fork is saved with
its parent and fork step and runs in a worker through an EpisodeDriver, whose messages
(StepsChanged, SessionEnded) the screen follows;
a human agent acts through the action bar. When it ends, the screen replays the fork.
"""

from __future__ import annotations

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.reactive import reactive
from textual.widgets import Input, Label, Static

from clarify_tui.engine.view_at import view_at
from clarify_tui.models import ActionKind, Protocol, Session
from clarify_tui.summary import outcome
from clarify_tui.trajectory import opening_step
from clarify_tui.tui.layout import PANELS_BINDING, QUESTION_BINDINGS
from clarify_tui.tui.driver import EpisodeDriver
from clarify_tui.tui.screens.base import RegionsScreen
from clarify_tui.tui.screens.play_keys import KeysThatSayWhy
from clarify_tui.tui.messages import AgentTurnStarted, SessionEnded, StepsChanged
from clarify_tui.tui.widgets.action_bar import ActionBar
from clarify_tui.tui.widgets.action_form import resolve_visit
from clarify_tui.results import EpisodeState
from clarify_tui.tui.widgets.regions import Regions
from clarify_tui.tui.widgets.state import score_card
from clarify_tui.tui.widgets.trajectory import Trajectory
from clarify_tui.tui.widgets.footer import Footer
from clarify_tui.tui.speed import Dialog, Header


NEVER_OFFERED = {Protocol.interactcomp: (ActionKind.clarify, ActionKind.visit),
                 Protocol.discobench: (ActionKind.clarify, ActionKind.visit)}
INFORMED_WARNING = ("If you play the agent yourself (human), the fork is marked informed and left out of "
                    "baselines (score --include-informed keeps it): you have seen this session's hidden "
                    "information or its end.")


class ForkDialog(Dialog[str | None]):
    """Which agent continues the fork: the same spec by default, or another one."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, default_spec: str, step: int, *, chosen: int | None = None, informed: bool = False) -> None:
        super().__init__()
        self.default_spec = default_spec
        self.step = step  # the fork keeps steps 0..step (an action's replies stay with it)
        self.chosen = step if chosen is None else chosen  # the step the cursor was on
        self.informed = informed  # this person has seen the session's hidden information

    def compose(self) -> ComposeResult:
        with Vertical(id="fork-dialog"):
            keeps = "" if self.chosen == self.step else f" (step {self.chosen}'s action keeps its replies)"
            yield Label(f"Fork after step {self.step}{keeps}: who continues as the agent?")
            yield Input(self.default_spec, id="fork-spec")
            if self.informed:
                yield Static(INFORMED_WARNING, classes="warning", id="fork-informed")
            yield Static("scripted:direct-guess · scripted:search-heavy-guess · scripted:ask-first · "
                         "scripted:search-then-ask · openai:MODEL · human\nenter fork · escape cancel",
                         classes="hint")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or self.default_spec)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ReplayScreen(KeysThatSayWhy, RegionsScreen):
    """One stored session, one step at a time."""

    BINDINGS = [
        Binding("left", "move(-1)", "Prev", id="replay-prev", tooltip="one step back", priority=True),
        Binding("right", "move(1)", "Next", id="replay-next", tooltip="one step forward", priority=True),
        Binding("home", "jump('start')", "First", id="replay-first", priority=True),
        Binding("end", "jump('end')", "Last", id="replay-last", priority=True),
        Binding("f", "fork", "Fork", id="replay-fork", tooltip="fork after this step and continue live"),
        Binding("c", "compare_parent", "Compare parent", id="replay-compare", tooltip="compare a fork with its parent"),
        Binding("i", "whatif", "What-if", id="replay-whatif", show=False,
                tooltip="this session's what-if forks (clarify-tui whatif); listed under ?"),
        PANELS_BINDING,
        Binding("h", "toggle_hidden", "Hidden info", id="replay-hidden"),
        Binding("s", "compose('search')", "Search", id="fork-search"),
        Binding("k", "compose('ask')", "Ask", id="fork-ask"),
        Binding("v", "compose('visit')", "Visit", id="fork-visit"),
        Binding("c", "compose('clarify')", "Clarify", id="fork-clarify"),
        Binding("enter", "compose('answer')", "Answer", id="fork-answer"),
        Binding("escape", "stop_fork", "Stop fork", id="replay-stop", show=False),
        Binding("q", "back", "Back", id="replay-back"),
        *QUESTION_BINDINGS,
    ]

    cursor: reactive[int] = reactive(0, init=False)
    """Index of the step shown in the state panel."""

    spoilers: reactive[bool] = reactive(True, init=False)
    """Whether the hidden panel shows the hidden information."""

    def __init__(self, store, session_id: str, *, pace: float = 0.3, config=None) -> None:
        super().__init__()
        self.store = store
        self.pace = pace
        self.config = config
        self.live: EpisodeDriver | None = None  # the fork's driver while it runs
        self.agent_turn = False
        self.guess: int | None = None
        self.shown_state = EpisodeState()
        self._seen_hidden = self.spoilers  # the hidden panel opens shown
        self.informed_fork = False
        self.load(session_id)

    def load(self, session_id: str) -> None:
        self.session = self.store.session(session_id)
        self.task_ = self.store.task_for(self.session.id)
        self.steps = self.store.steps(self.session.id)
        start, self.guess = opening_step(self.session, self.steps)
        self.set_reactive(ReplayScreen.cursor, start)

    # ---- layout ------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="replay-head")
        yield Regions(ActionBar(id="replay-action-bar"), state_title="State at this step")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(ActionBar).display = False
        self.query_one(Trajectory).follow = False
        self.rebuild()

    def rebuild(self) -> None:
        trajectory = self.query_one(Trajectory)
        trajectory.rebuild(self.steps)
        self.show_step()
        self.call_after_refresh(self.mark_cards)

    # ---- showing one step --------------------------------------------------------------

    def watch_cursor(self) -> None:
        self.show_step()

    @property
    def seen_hidden(self) -> bool:
        """Whether this screen has shown hidden information: the hidden panel, or the
        parent's verdicts (judge steps, the score card)."""
        return self._seen_hidden or any(s.actor == "judge" for s in self.steps)

    def watch_spoilers(self) -> None:
        self._seen_hidden = self._seen_hidden or self.spoilers
        self.query_one(Regions).show_hidden(self.task_, locked=self.agent_is_human, shown=self.spoilers)

    def show_step(self) -> None:
        steps = self.steps
        s = self.session
        self.title = f"replay · {s.protocol.value} · {s.task_id}"
        head = f"session {s.id} · run {s.run} · agent {s.agent} · user {s.user} · {s.mode} · {s.status}"
        if s.parent_id:
            head += f" · fork of {s.parent_id} after step {s.fork_step}"
        if s.result.informed:
            head += " · informed: left out of baselines (its player had seen hidden information)"
        if s.note:
            head += f"\nnote: {' '.join(s.note.split())}"
        if self.live is not None:
            head += " · LIVE"
        if not steps:
            self.query_one("#replay-head", Static).update(head + " · no steps")
            self.query_one(Regions).show_hidden(self.task_, locked=False, shown=self.spoilers)
            return
        i = max(0, min(self.cursor, len(steps) - 1))
        step = steps[i]
        head += f"\nstep {i} / {len(steps) - 1} · {step.actor} {step.action.kind.value}"
        if self.guess is not None:
            head += f" · guessed at step {self.guess} instead of asking"
        self.query_one("#replay-head", Static).update(head)
        self.shown_state = step.state
        last = i == len(steps) - 1 and s.status != "running"
        regions = self.query_one(Regions)
        regions.show(self.task_, view_at(self.task_, s, step.state, ended=last), step.state, reveal=True,
                     spoilers=True, hidden=self.spoilers, locked=self.agent_is_human)
        ended = step.state.done or last
        regions.show_score(score_card(self.task_, s.result, s.status) if ended and self.live is None else None)
        self.mark_cards()
        self.refresh_bindings()

    def mark_cards(self) -> None:
        """The current step stands out, later ones are dimmed, the guess is flagged."""
        self.query_one(Trajectory).mark(self.cursor, self.guess, dim_future=self.live is None)

    @property
    def agent_is_human(self) -> bool:
        return self.live is not None and self.live.role == "agent"

    # ---- navigation --------------------------------------------------------------------

    def action_move(self, delta: int) -> None:
        if self.steps:
            self._go(max(0, min(len(self.steps) - 1, self.cursor + delta)))

    def action_jump(self, where: str) -> None:
        if self.steps:
            self._go(0 if where == "start" else len(self.steps) - 1)

    def _go(self, step: int) -> None:
        """Put the cursor on `step`; at either end already, say so (the key did nothing)."""
        if step == self.cursor:
            self.notify(f"Already at the {'first' if step == 0 else 'last'} step (step {step}).", timeout=3)
        self.cursor = step

    def action_toggle_hidden(self) -> None:
        self.spoilers = not self.spoilers
        self.say_hidden_toggled(self.spoilers)

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        live = self.live is not None
        if action == "compose":
            if not (live and self.agent_is_human):
                return False
            kind = ActionKind(parameters[0])
            if kind in NEVER_OFFERED.get(self.session.protocol, ()):
                return False  # InteractComp and DiscoBench have no clarify or visit
            return True if self.agent_turn and kind in self.query_one(ActionBar).allowed else None
        if action in ("move", "jump", "fork", "compare_parent", "whatif"):
            return not live
        if action == "stop_fork":
            return live
        if action == "toggle_panels":
            return self.panels_check()
        if action == "toggle_hidden":
            return None if self.agent_is_human else True
        return True

    def refusal(self, action: str, parameters: tuple) -> str | None:
        """Why a key of this screen does nothing now (KeysThatSayWhy tells the person)."""
        live = self.live is not None
        if action in ("move", "jump", "fork", "compare_parent", "whatif") and live:
            return "A fork is running: escape stops it first (what it played so far is kept)."
        if action == "stop_fork" and not live:
            return "No fork is running: q goes back."
        if action == "toggle_hidden" and self.agent_is_human:
            return "The hidden panel stays locked while you play the fork's agent."
        if action == "toggle_panels":
            return self.panels_refusal()
        if action == "compose":
            kind = ActionKind(parameters[0])
            if not (live and self.agent_is_human):
                return f"{kind.value} is for playing a fork's agent yourself: f forks here (agent: human)."
            if kind in NEVER_OFFERED.get(self.session.protocol, ()):
                return f"{self.session.protocol.value} has no {kind.value}."
            if not self.agent_turn:
                return "Wait: your last action is still running."
            if kind not in self.query_one(ActionBar).allowed:
                allowed = ", ".join(k.value for k in self.query_one(ActionBar).allowed) or "nothing"
                return f"{kind.value} is not allowed now (allowed: {allowed})."
        return None

    # ---- fork --------------------------------------------------------------------------

    def action_fork(self) -> None:
        if not self.steps:
            self.notify("Nothing to fork: the session has no steps.", severity="warning")
            return
        from clarify_tui.sessions_ops import ForkError, action_group_end

        step = self.cursor
        try:
            end = action_group_end(self.steps, step)
        except ForkError as exc:
            self.notify(str(exc), title="cannot fork here", severity="error")
            return

        def chosen(spec: str | None) -> None:
            if spec:
                self.start_fork(step, spec)

        self.app.push_screen(ForkDialog(self.session.agent, end, chosen=step, informed=self.seen_hidden), chosen)

    def start_fork(self, step: int, spec: str) -> None:
        """Fork after `step` with agent `spec` and run it live (also called by tests)."""
        from clarify_tui.sessions_ops import ForkError

        parent = self.session
        try:
            user_spec = parent.user
            if user_spec == "human":
                user_spec = "rule"
                self.notify("The parent's user was a person; the fork replies with the rule simulator.")
            driver = EpisodeDriver.for_fork(self.store, parent.id, step, self.post_message, agent_spec=spec,
                                            user_spec=user_spec, config=self.config)
        except (ForkError, ValueError, ImportError, RuntimeError) as exc:
            self.notify(str(exc), title="cannot fork here", severity="error", timeout=8)
            return
        self.informed_fork = spec == "human" and self.seen_hidden
        if self.informed_fork:
            mark_informed(self.store, driver.session)
        self.live = driver
        self.session = driver.session
        self.steps = driver.steps
        self.guess = None
        self.query_one(Trajectory).follow = True
        self.query_one(ActionBar).display = spec == "human"
        self.set_reactive(ReplayScreen.cursor, len(self.steps) - 1)
        self.rebuild()
        self.run_fork()

    @work(exclusive=True, group="fork", exit_on_error=False)
    async def run_fork(self) -> None:
        driver = self.live
        assert driver is not None
        try:
            await driver.run(self.pace)
        finally:
            if not driver.done:  # the database failed: the fork stops without ending
                self.post_message(SessionEnded(driver))

    def on_steps_changed(self, message: StepsChanged) -> None:
        if self.live is None or message.driver is not self.live:
            return
        self.steps = self.live.steps
        self.query_one(Trajectory).sync(self.steps, True)
        self.cursor = len(self.steps) - 1
        self.show_step()

    def on_session_ended(self, message: SessionEnded) -> None:
        if self.live is None or message.driver is not self.live:
            return
        if self.live.session.result.informed is None and self.informed_fork:
            mark_informed(self.store, self.live.session)  # the engine's final result replaced it
        session_id = self.live.session.id
        self.live = None
        self.agent_turn = False
        self.query_one(ActionBar).display = False
        self.query_one(Trajectory).follow = False
        self.load(session_id)
        self.set_reactive(ReplayScreen.cursor, len(self.steps) - 1)
        self.rebuild()
        s = self.session
        self.notify(f"Fork {s.id} {s.status} ({outcome(s)}); saved with parent {s.parent_id} @ step {s.fork_step}.",
                    severity="error" if s.status == "errored" else "information")

    # ---- a person continuing the fork as the agent --------------------------------------

    def on_agent_turn_started(self, message: AgentTurnStarted) -> None:
        self.agent_turn = True
        view = message.view
        bar = self.query_one(ActionBar)
        bar.set_allowed(view.allowed, k=view.k, confidence=view.protocol == Protocol.interactcomp)
        if view.allowed == [ActionKind.clarify]:
            bar.open(ActionKind.clarify, by_itself=True)
        self.refresh_bindings()

    def action_compose(self, kind: str) -> None:
        self.query_one(ActionBar).open(ActionKind(kind))

    def on_action_bar_action_chosen(self, message: ActionBar.ActionChosen) -> None:
        if self.live is not None and self.agent_turn:
            try:
                action = resolve_visit(message.action, self.live.steps)
            except ValueError as exc:
                self.notify(str(exc), severity="warning")
                return
            self.agent_turn = False
            self.query_one(ActionBar).set_allowed([], waiting=False)
            self.live.submit_action(action)
            self.refresh_bindings()

    def action_stop_fork(self) -> None:
        self.workers.cancel_group(self, "fork")

    # ---- elsewhere ---------------------------------------------------------------------

    def action_compare_parent(self) -> None:
        from clarify_tui.tui.screens.compare import CompareScreen

        if not self.session.parent_id:
            self.notify("Only a fork has a parent to compare with.", severity="warning")
            return
        self.app.push_screen(CompareScreen(self.store, self.session.parent_id, self.session.id))

    def action_whatif(self) -> None:
        from clarify_tui.tui.screens.whatif import WhatIfScreen

        self.app.push_screen(WhatIfScreen(self.store, self.session.id))

    def action_back(self) -> None:
        if self.live is not None:
            self.workers.cancel_group(self, "fork")
        if len(self.app.screen_stack) > 2:
            self.app.pop_screen()
        else:
            self.app.exit()


def mark_informed(store, session: Session) -> None:
    """The person playing this fork had seen hidden information: `score` leaves the
    session out of every group unless --include-informed (docs/tui.md)."""
    session.result.informed = True
    store.update_session(session)

