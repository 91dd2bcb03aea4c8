"""The play screen: question | trajectory | state, driven through an EpisodeDriver.

Roles: observer (watch or step the agent), user (a person replies to the agent's asks),
agent (a person acts; hidden information and judge verdicts stay locked until the end).
What each role adds (keys, actions, workers) is a controller (play_controls.py,
play_human.py); which controller a key goes to, and the screen's own keys (escape, q),
are play_actions.py; this screen keeps what they share: the episode on screen and the
run mode, pace, busy and spoilers reactives, whose watchers redraw what depends on them.
Every engine call runs in a worker in the `engine` group; `escape` cancels it and the
driver puts the episode back as it was (or abandons it if steps were already written).

A human agent sees a task clock: `p` (or `ctrl+t` while typing) pauses it (the task is
hidden meanwhile) and the paused time is taken off the latency of the action it fell in.
`ctrl+n` adds a note to the session. In the queue, `n` moves on once the task has ended
and `q` quits, leaving an unfinished session `running` so the same command resumes it.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any, Literal, TypeVar

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Static

from clarify_tui.plural import plural
from clarify_tui.tui.driver import EpisodeDriver, PlaySetup
from clarify_tui.tui.layout import PANELS_BINDING, QUESTION_BINDINGS
from clarify_tui.tui.messages import (
    ActionProposed,
    AgentTurnStarted,
    BusyChanged,
    ReplyRequested,
    SessionEnded,
    StepsChanged,
    WorkerFailed,
)
from clarify_tui.tui.screens import play_actions
from clarify_tui.tui.screens.base import RegionsScreen
from clarify_tui.tui.screens.play_actions import OWNER, controls_for
from clarify_tui.tui.screens.play_controls import (
    DEFAULT_PACE,
    Controls,
    QueueControls,
    StepControls,
    WatchControls,
    paces_with,
)
from clarify_tui.tui.screens.play_human import HumanAgentControls, HumanUserControls, TaskClockControls
from clarify_tui.tui.screens.play_keys import BACK, CANCEL, FOLD, HIDDEN, NOTE, KeysThatSayWhy
from clarify_tui.tui.speed import Header
from clarify_tui.tui.widgets.action_bar import ActionBar
from clarify_tui.tui.widgets.action_form import resolve_visit
from clarify_tui.tui.widgets.clock import TaskClock
from clarify_tui.tui.widgets.footer import Footer
from clarify_tui.tui.widgets.note import NoteBox
from clarify_tui.tui.widgets.pending import PendingBar
from clarify_tui.tui.widgets.regions import Regions
from clarify_tui.tui.widgets.reply_box import ReplyBox
from clarify_tui.tui.widgets.state import score_card
from clarify_tui.tui.widgets.trajectory import Trajectory

RunMode = Literal["watch", "step"]
C = TypeVar("C", bound=Controls)

PAUSED = "Paused: the task is hidden and the clock stands still. p resumes; ctrl+n adds a note."


def fit_parts(parts: list[str], width: int, sep: str = " · ") -> str:
    """The leading parts that fit `width` on one line, joined; at least the first."""
    out = parts[:1]
    for part in parts[1:]:
        if len(sep.join(out + [part])) > width:
            break
        out.append(part)
    return sep.join(out)


class PlayScreen(KeysThatSayWhy, RegionsScreen):
    """One live session of one task."""

    BINDINGS = [  # the controllers' keys and the screen's own, in the footer's order
        *StepControls.BINDINGS,
        *WatchControls.BINDINGS,
        *HumanAgentControls.BINDINGS,
        PANELS_BINDING,
        HIDDEN,
        FOLD,
        *TaskClockControls.BINDINGS,
        NOTE,
        *QueueControls.BINDINGS,
        CANCEL,
        BACK,
        *QUESTION_BINDINGS,
    ]

    class NextTaskRequested(Message):
        """The queue's task has ended and the annotator asked for the next one."""

    run_mode: reactive[RunMode] = reactive("watch", init=False)
    """watch: the agent runs by itself while `auto` is on; step: nothing runs until asked."""

    auto: reactive[bool] = reactive(True, init=False)
    """Whether watch mode is running the agent."""

    pace: reactive[int] = reactive(3, init=False)
    """Index into `paces`: seconds between two auto-run steps (`pace_seconds`)."""

    spoilers: reactive[bool] = reactive(True, init=False)
    """Whether the hidden panel is open (never before the end for a human agent)."""

    busy: reactive[str | None] = reactive(None, init=False)
    """The backend call in flight, if any."""

    def __init__(
        self,
        setup: PlaySetup,
        store,
        *,
        search=None,
        run_mode: RunMode = "watch",
        auto: bool = True,
        pace: float = DEFAULT_PACE,
    ) -> None:
        super().__init__()
        self.paces = paces_with(pace)
        self.set_reactive(PlayScreen.pace, self.paces.index(pace))
        self.setup = setup
        self.task_ = setup.task
        self.driver = EpisodeDriver.for_play(setup, store, self.post_message, search=search)
        self.set_reactive(PlayScreen.run_mode, run_mode)
        self.set_reactive(PlayScreen.auto, auto and run_mode == "watch")
        self.set_reactive(PlayScreen.spoilers, setup.role != "agent")
        self._controls: dict[type[Controls], Controls] = {
            c: c(self) for c in controls_for(setup.role, bool(setup.queue))
        }

    def controls_of(self, kind: type[C]) -> C:
        return self._controls[kind]  # type: ignore[return-value]

    def has_controls(self, kind: type[Controls]) -> bool:
        return kind in self._controls

    def controller(self, kind: type[Controls] | None) -> Controls | None:
        """This screen's controller of `kind`, or None (another role's, or no kind)."""
        return self._controls.get(kind) if kind is not None else None

    def controllers(self) -> list[Controls]:
        return list(self._controls.values())

    @property
    def controls(self) -> list[type[Controls]]:
        """This screen's controllers (its role's), in ALL_CONTROLS order."""
        return list(self._controls)

    # ---- layout ------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        """Only the widgets this role's controllers use: an observer's screen has no action
        bar, reply box, task clock or pause banner (each widget costs its share of every
        opening), and the note box builds its field when ctrl+n first opens it."""
        yield Header()
        yield Regions(PendingBar(id="pending"))
        with Vertical(id="prompt"):
            if self.has_controls(HumanAgentControls):
                yield ActionBar(id="action-bar")
            if self.has_controls(HumanUserControls):
                yield ReplyBox(id="reply-box")
        if self.has_controls(TaskClockControls):
            yield Static(PAUSED, id="paused-banner")
        yield NoteBox(id="note-box")
        with Horizontal(id="status-bar"):
            if self.has_controls(TaskClockControls):
                yield TaskClock(self.driver.clock, id="clock")
            yield Static(id="status")
        yield Footer()

    def on_mount(self) -> None:
        self.title = f"{self.task_.protocol.value} · {self.task_.id}"
        for hidden in self.query("ActionBar, ReplyBox, TaskClock"):
            hidden.display = False  # the controllers that use them show them
        for controls in self._controls.values():
            controls.on_mount()
        self.refresh_all()
        if self.driver.informed_because:
            self.notify(
                f"This session is marked informed and left out of baselines: {self.driver.informed_because}.",
                title="informed",
                severity="warning",
                timeout=12,
            )

    @property
    def pace_seconds(self) -> float:
        """Seconds between two steps of the watched agent."""
        return self.paces[self.pace]

    @property
    def role(self) -> str:
        return self.setup.role

    @property
    def reveal(self) -> bool:
        """Judge verdicts and checkpoint details: hidden from a human agent until the end."""
        return self.role != "agent" or self.driver.done

    @property
    def locked(self) -> bool:
        """The hidden panel stays shut: a person plays the agent and the task goes on."""
        return not self.reveal

    def refresh_all(self) -> None:
        """The episode as it is now: trajectory, panels, status line, keys."""
        self.query_one(Trajectory).sync(self.driver.steps, self.reveal)
        self.show_panels()
        self.update_status()
        self.refresh_bindings()

    def show_panels(self) -> None:
        ep = self.driver.episode
        view = ep.view(history=False)  # the panels show no past turns: the trajectory does
        shown = (view, ep.state(), self.reveal, self.spoilers, self.locked)
        if shown == getattr(self, "_panels_shown", None):
            return  # unchanged (a step that moved no counter): no new text, no new layout of the screen
        self._panels_shown = shown
        self.query_one(Regions).show(
            self.task_,
            view,
            shown[1],
            reveal=self.reveal,
            spoilers=self.spoilers,
            hidden=self.spoilers,
            locked=self.locked,
        )

    def update_status(self) -> None:
        s = self.driver.session
        mode: str = self.run_mode if self.role != "agent" else "play"
        if self.driver.done:
            mode += " (finished)"
        elif self.role != "agent" and self.run_mode == "watch":
            mode += f" ({'running' if self.auto else 'paused'}, {self.pace_seconds:g} s/step)"
        parts = []  # most needed first: what does not fit the line is left out, never cut mid-word
        if self.setup.queue:
            position, total = self.setup.queue
            parts += [f"task {position}/{total}", s.annotator or ""]
        parts += [
            plural(len(self.driver.steps), "step"),
            s.status,
            mode,
        ]  # the mode and pace `a` + - change: at 80 columns too
        if self.role != "agent":
            parts.append(f"agent {s.agent}")
        if self.role != "user":
            parts.append(f"user {s.user}")
        parts += [f"as {self.role}", f"recorded as {s.mode}"]
        if self.setup.queue:
            parts.append(f"queue {s.run}")
        parts.append(f"session {s.id}")
        status = self.query_one("#status", Static)
        text = fit_parts([p for p in parts if p], status.size.width or self.app.size.width)
        status.update(text, layout=False)  # one line, 1fr wide: its size never changes
        pending = self.query_one(PendingBar)
        pending.busy = self.busy
        pending.action = self.driver.pending if self.role != "agent" else None
        pending.stepping = self.run_mode == "step"
        pending.hint = self._hint()

    def _hint(self) -> str:
        for controls in self._controls.values():  # in ALL_CONTROLS order: the first that has one
            hint = controls.hint()
            if hint is not None:
                return hint
        return "Session over. q back to the task picker." if self.driver.done else ""

    # ---- reactives ---------------------------------------------------------------------

    def watch_run_mode(self, mode: RunMode) -> None:
        self.auto = mode == "watch"  # step mode never runs by itself; watch mode starts running
        self.refresh_all()

    def watch_auto(self, auto: bool) -> None:
        if auto and self.has_controls(WatchControls):
            self.controls_of(WatchControls).run()
        self.update_status()
        self.refresh_bindings()

    def watch_pace(self) -> None:
        self.update_status()

    def watch_busy(self) -> None:
        self.update_status()
        self.refresh_bindings()

    def watch_spoilers(self) -> None:
        self.show_panels()

    # ---- engine events -----------------------------------------------------------------

    def run_engine(self, work: Coroutine[Any, Any, Any]) -> None:
        """Every engine call runs here: one at a time (group `engine`), cancelled by escape."""
        self.run_worker(work, group="engine", exclusive=True, exit_on_error=False)

    def on_steps_changed(self, message: StepsChanged) -> None:
        self.refresh_all()

    def on_busy_changed(self, message: BusyChanged) -> None:
        self.busy = message.what

    def on_action_proposed(self, message: ActionProposed) -> None:
        self.update_status()
        self.refresh_bindings()

    def on_session_ended(self, message: SessionEnded) -> None:
        if self.has_controls(HumanAgentControls):
            self.controls_of(HumanAgentControls).ended()
            self.spoilers = True
        for box in self.query(ReplyBox):
            box.done()
        s = self.driver.session
        verdict = score_card(self.task_, s.result, s.status)
        if self.setup.queue:
            position, total = self.setup.queue
            verdict.append(
                f"\ntask {position} of {total} · press n for the "
                + ("next task" if position < total else "end of the queue"),
                style="bold",
            )
        self.query_one(Regions).show_score(verdict)
        self.query_one(Trajectory).rebuild(self.driver.steps)
        self.refresh_all()
        where = self.app.saved_where()  # type: ignore[attr-defined]  # the workbench app (tui/app.py) pushes play
        self.notify(f"Session {s.status}: saved to {where}")

    def on_agent_turn_started(self, message: AgentTurnStarted) -> None:
        self.controls_of(HumanAgentControls).turn_started(message.view)
        self.refresh_all()

    def on_reply_requested(self, message: ReplyRequested) -> None:
        self.controls_of(HumanUserControls).request(message.request)

    def on_reply_box_replied(self, message: ReplyBox.Replied) -> None:
        self.controls_of(HumanUserControls).replied(message.text)

    def on_action_bar_action_chosen(self, message: ActionBar.ActionChosen) -> None:
        try:
            message.action = resolve_visit(message.action, self.driver.steps)
        except ValueError as exc:
            self.notify(str(exc), severity="warning")
            return
        if self.has_controls(HumanAgentControls):
            self.controls_of(HumanAgentControls).chosen(message.action)
            self.refresh_all()

    def on_worker_failed(self, message: WorkerFailed) -> None:
        """A backend call failed (the app says so): stop running the agent by itself."""
        self.auto = False
        self.refresh_all()

    def on_unmount(self) -> None:
        self.driver.save_clock()  # ctrl+q, q in the queue: the resumed task's clock goes on from here

    # ---- keys --------------------------------------------------------------------------

    def __getattr__(self, name: str):
        """`action_*` of this screen's controllers: their bindings are the screen's, so
        Textual looks their actions up here (only asked for names the class lacks)."""
        if name.startswith("action_"):
            owner = OWNER.get(name.removeprefix("action_"))
            controls = self.__dict__.get("_controls", {}).get(owner)
            if controls is not None:
                return getattr(controls, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    check_action = play_actions.check_action
    refusal = play_actions.refusal
    action_toggle_hidden = play_actions.toggle_hidden
    action_toggle_fold = play_actions.toggle_fold
    action_cancel = play_actions.cancel
    holds_work = play_actions.holds_work
    action_back = play_actions.back
    leave = play_actions.leave

    async def action_note(self) -> None:
        await self.query_one(NoteBox).open()

    def on_note_box_saved(self, message: NoteBox.Saved) -> None:
        self.driver.add_note(message.text)
        self.notify("Note saved with the session.")
