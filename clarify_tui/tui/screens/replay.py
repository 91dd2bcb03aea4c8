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

A person's fork is their work: `q` or `escape` with something played asks first (keep it
for later, give it up, cancel: screens/leave.py). What each key does, and why it cannot
now, is replay_actions.py. Kept, it stays `running`; replaying it
(F2) offers `r` to resume it at its last step, the hidden panel shut until then.
"""

from __future__ import annotations

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.reactive import reactive
from textual.widgets import Static

from clarify_tui.backend_spec import BackendSpec
from clarify_tui.engine.view_at import view_at
from clarify_tui.models import ActionKind, Session
from clarify_tui.protocols import registry
from clarify_tui.results import EpisodeState
from clarify_tui.summary import outcome
from clarify_tui.trajectory import opening_step
from clarify_tui.tui.driver import EpisodeDriver
from clarify_tui.tui.layout import PANELS_BINDING, QUESTION_BINDINGS
from clarify_tui.tui.messages import AgentTurnStarted, SessionEnded, StepsChanged
from clarify_tui.tui.screens import replay_actions
from clarify_tui.tui.screens.base import RegionsScreen
from clarify_tui.tui.screens.fork_dialog import ForkDialog
from clarify_tui.tui.screens.play_keys import KeysThatSayWhy
from clarify_tui.tui.speed import Header
from clarify_tui.tui.widgets.action_bar import ActionBar
from clarify_tui.tui.widgets.action_form import resolve_visit
from clarify_tui.tui.widgets.footer import Footer
from clarify_tui.tui.widgets.regions import Regions
from clarify_tui.tui.widgets.state import score_card
from clarify_tui.tui.widgets.trajectory import Trajectory


class ReplayScreen(KeysThatSayWhy, RegionsScreen):
    """One stored session, one step at a time."""

    BINDINGS = [
        Binding("left", "move(-1)", "Prev", id="replay-prev", tooltip="one step back", priority=True),
        Binding("right", "move(1)", "Next", id="replay-next", tooltip="one step forward", priority=True),
        Binding("home", "jump('start')", "First", id="replay-first", priority=True),
        Binding("end", "jump('end')", "Last", id="replay-last", priority=True),
        Binding("f", "fork", "Fork", id="replay-fork", tooltip="fork after this step and continue live"),
        Binding("c", "compare_parent", "Compare parent", id="replay-compare", tooltip="compare a fork with its parent"),
        Binding(
            "i",
            "whatif",
            "What-if",
            id="replay-whatif",
            show=False,
            tooltip="this session's what-if forks (clarify-tui whatif); listed under ?",
        ),
        PANELS_BINDING,
        Binding("h", "toggle_hidden", "Hidden info", id="replay-hidden"),
        # priority, as on the play screen (play_human.py): the keys typed right after one
        # go into the form it opens; letters, not actions, while a field has the focus
        Binding("s", "compose('search')", "Search", id="fork-search", priority=True),
        Binding("k", "compose('ask')", "Ask", id="fork-ask", priority=True),
        Binding("v", "compose('visit')", "Visit", id="fork-visit", priority=True),
        Binding("c", "compose('clarify')", "Clarify", id="fork-clarify", priority=True),
        Binding("enter", "compose('answer')", "Answer", id="fork-answer", priority=True),
        Binding("escape", "stop_fork", "Stop fork", id="replay-stop", show=False),
        Binding(
            "r",
            "resume",
            "Resume",
            id="replay-resume",  # the head line says so too
            tooltip="continue your session left unfinished (kept for later) at its last step",
        ),
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
        self.live_from = 0  # the live session's steps before the person took over
        self.agent_turn = False
        self.guess: int | None = None
        self.shown_state = EpisodeState()
        self.informed_fork = False
        self.load(session_id)
        if self.resumable:  # a person's unfinished session: resuming it unseen is no informed play
            self.set_reactive(ReplayScreen.spoilers, False)
        self._seen_hidden = self.spoilers  # the hidden panel opens shown

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
        elif self.resumable:
            head += " · unfinished: r resumes it"
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
        regions.show(
            self.task_,
            view_at(self.task_, s, step.state, ended=last),
            step.state,
            reveal=True,
            spoilers=True,
            hidden=self.spoilers,
            locked=self.agent_is_human,
        )
        ended = step.state.done or last
        regions.show_score(score_card(self.task_, s.result, s.status) if ended and self.live is None else None)
        self.mark_cards()
        self.refresh_bindings()

    def mark_cards(self) -> None:
        """The current step stands out, later ones are dimmed, the guess is flagged."""
        self.query_one(Trajectory).mark(self.cursor, self.guess, dim_future=self.live is None)

    @property
    def resumable(self) -> bool:
        """A person's session left unfinished (a fork kept for later): `r` resumes it."""
        return self.live is None and self.session.status == "running" and self.session.mode == "human_agent"

    @property
    def agent_is_human(self) -> bool:
        return self.live is not None and self.live.role == "agent"

    # ---- keys (replay_actions.py) ----------------------------------------------------

    action_move = replay_actions.move
    action_jump = replay_actions.jump
    action_toggle_hidden = replay_actions.toggle_hidden
    check_action = replay_actions.check_action
    refusal = replay_actions.refusal
    holds_work = replay_actions.holds_work
    action_stop_fork = replay_actions.stop_fork
    action_compare_parent = replay_actions.compare_parent
    action_whatif = replay_actions.whatif
    action_back = replay_actions.back

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
            if BackendSpec.parse(user_spec).is_human:
                user_spec = "rule"
                self.notify("The parent's user was a person; the fork replies with the rule simulator.")
            driver = EpisodeDriver.for_fork(
                self.store, parent.id, step, self.post_message, agent_spec=spec, user_spec=user_spec, config=self.config
            )
        except (ForkError, ValueError, ImportError, RuntimeError) as exc:
            self.notify(str(exc), title="cannot fork here", severity="error", timeout=8)
            return
        self.go_live(driver)

    def action_resume(self) -> None:
        """Continue this person's session left unfinished, in place, at its last step."""
        from clarify_tui.sessions_ops import ForkError

        if not self.resumable:
            return
        try:
            driver = EpisodeDriver.for_resume(self.store, self.session.id, self.post_message, config=self.config)
        except (ForkError, ValueError, ImportError, RuntimeError) as exc:
            self.notify(str(exc), title="cannot resume", severity="error", timeout=8)
            return
        self.go_live(driver)

    def go_live(self, driver: EpisodeDriver) -> None:
        """Follow `driver`'s session live (a new fork, or one resumed)."""
        human = driver.role == "agent"
        self.informed_fork = human and self.seen_hidden
        if self.informed_fork:
            mark_informed(self.store, driver.session)
        self.live_from = len(driver.steps)  # what the person plays comes after these
        self.live = driver
        self.session = driver.session
        self.steps = driver.steps
        self.guess = None
        self.query_one(Trajectory).follow = True
        self.query_one(ActionBar).display = human
        self.set_reactive(ReplayScreen.cursor, len(self.steps) - 1)
        self.rebuild()
        self.run_fork()

    @work(exclusive=True, group="fork", exit_on_error=False)
    async def run_fork(self) -> None:
        driver = self.live
        assert driver is not None
        try:
            if driver.role == "agent":  # a person: stopping leaves it running (kept) unless given up
                await driver.play_to_the_end()
            else:
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
        if s.status == "running":
            self.notify(f"Session {s.id} kept for later: r resumes it (F2 finds it).")
            return
        self.notify(
            f"Fork {s.id} {s.status} ({outcome(s)}); saved with parent {s.parent_id} @ step {s.fork_step}.",
            severity="error" if s.status == "errored" else "information",
        )

    # ---- a person continuing the fork as the agent --------------------------------------

    def on_agent_turn_started(self, message: AgentTurnStarted) -> None:
        self.agent_turn = True
        view = message.view
        bar = self.query_one(ActionBar)
        bar.set_allowed(view.allowed, k=view.k, confidence=registry.get(view.protocol).answer_confidence)
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


def mark_informed(store, session: Session) -> None:
    """The person playing this fork had seen hidden information: `score` leaves the
    session out of every group unless --include-informed (docs/tui.md)."""
    session.result.informed = True
    store.update_session(session)
