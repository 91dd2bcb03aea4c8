"""The play screen: question | trajectory | state, driven through an EpisodeDriver.

Roles: observer (watch or step the agent), user (a person replies to the agent's asks),
agent (a person acts; hidden information and judge verdicts stay locked until the end).
Every engine call runs in a worker in the `engine` group; `escape` cancels it and the
driver puts the episode back as it was (or abandons it if steps were already written).

A human agent sees a task clock: `p` (or `ctrl+t` while typing) pauses it (the task is
hidden meanwhile) and the paused time is taken off the latency of the action it fell in.
`ctrl+n` adds a note to the session. In the queue, `n` moves on once the task has ended
and `q` quits, leaving an unfinished session `running` so the same command resumes it.
"""

from __future__ import annotations

import asyncio
from typing import Literal

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Header, Static

from clarify_tui.models import Action, ActionKind, Protocol
from clarify_tui.tui.driver import EpisodeDriver, PlaySetup
from clarify_tui.tui.screens.play_keys import key_refusal, parse_action, refusal
from clarify_tui.tui.layout import PANELS_BINDING, QUESTION_BINDINGS, PanelsMixin
from clarify_tui.tui.messages import (
    ActionProposed,
    AgentTurnStarted,
    BusyChanged,
    ReplyRequested,
    SessionEnded,
    StepsChanged,
    WorkerFailed,
)
from clarify_tui.tui.widgets.action_bar import ActionBar
from clarify_tui.tui.widgets.action_form import resolve_visit
from clarify_tui.tui.widgets.clock import TaskClock
from clarify_tui.tui.widgets.note import NoteBox
from clarify_tui.tui.widgets.pending import PendingBar
from clarify_tui.tui.widgets.reply_box import ReplyBox
from clarify_tui.tui.widgets.regions import Regions
from clarify_tui.tui.widgets.state import score_card
from clarify_tui.tui.widgets.trajectory import Trajectory
from clarify_tui.tui.widgets.footer import Footer
from clarify_tui.tui.workers import ForwardsWorkerErrors

RunMode = Literal["watch", "step"]
PACES = (0.0, 0.1, 0.25, 0.5, 1.0, 2.0)


class PlayScreen(ForwardsWorkerErrors, PanelsMixin, Screen):
    """One live session of one task."""

    BINDINGS = [
        Binding("space", "propose", "Propose", id="propose", tooltip="ask the agent for its next action"),
        Binding("enter", "apply", "Apply", id="apply", tooltip="execute the pending action"),
        Binding("e", "edit", "Edit", id="edit", tooltip="edit the pending action before applying it"),
        Binding("r", "replace", "Replace", id="replace", tooltip="type an action instead of the agent's"),
        Binding("a", "toggle_auto", "Auto-run", id="auto", tooltip="start or pause the agent"),
        Binding("plus", "pace(-1)", "Faster", id="faster", key_display="+"),
        Binding("minus", "pace(1)", "Slower", id="slower", key_display="-"),
        Binding("m", "toggle_mode", "Watch/Step", id="mode", tooltip="switch between watch and step mode"),
        Binding("s", "compose('search')", "Search", id="agent-search"),
        Binding("k", "compose('ask')", "Ask", id="agent-ask"),
        Binding("v", "compose('visit')", "Visit", id="agent-visit"),
        Binding("c", "compose('clarify')", "Clarify", id="agent-clarify"),
        Binding("enter", "compose('answer')", "Answer", id="agent-answer"),
        PANELS_BINDING,
        Binding("h", "toggle_hidden", "Hidden info", id="hidden", tooltip="show or hide the hidden panel"),
        Binding("f", "toggle_fold", "Fold", id="fold", tooltip="fold or unfold long content"),
        Binding("p,ctrl+t", "pause_clock", "Pause", id="clock-pause",
                tooltip="pause or resume the task clock (ctrl+t also while typing)"),
        Binding("ctrl+n", "note", "Note", id="note", tooltip="add a note to this session"),
        Binding("n", "next_task", "Next task", id="queue-next", tooltip="the next task of the queue"),
        Binding("ctrl+o", "skip_task", "Skip task", id="queue-skip",
                tooltip="give up on this task (saved as abandoned, never scored) and go to the next"),
        Binding("escape", "cancel", "Cancel", id="cancel", show=False),
        Binding("q", "back", "Back", id="back", tooltip="back to the task picker"),
        Binding("q", "quit_queue", "Quit", id="queue-quit", tooltip="quit; the same command resumes this task"),
        *QUESTION_BINDINGS,
    ]

    class NextTaskRequested(Message):
        """The queue's task has ended and the annotator asked for the next one."""

    run_mode: reactive[RunMode] = reactive("watch", init=False)
    """watch: the agent runs by itself while `auto` is on; step: nothing runs until asked."""

    auto: reactive[bool] = reactive(True, init=False)
    """Whether watch mode is running the agent."""

    pace: reactive[int] = reactive(3, init=False)
    """Index into PACES: seconds between two auto-run steps."""

    spoilers: reactive[bool] = reactive(True, init=False)
    """Whether the hidden panel is open (never before the end for a human agent)."""

    busy: reactive[str | None] = reactive(None, init=False)
    """The backend call in flight, if any."""

    def __init__(self, setup: PlaySetup, store, *, search=None, run_mode: RunMode = "watch",
                 auto: bool = True) -> None:
        super().__init__()
        self.setup = setup
        self.task_ = setup.task
        self.driver = EpisodeDriver.for_play(setup, store, self.post_message, search=search)
        self.set_reactive(PlayScreen.run_mode, run_mode)
        self.set_reactive(PlayScreen.auto, auto and run_mode == "watch")
        self.set_reactive(PlayScreen.spoilers, setup.role != "agent")
        self.pending_edited = False
        self.agent_turn = False

    # ---- layout ------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Header()
        yield Regions(PendingBar(id="pending"))
        with Vertical(id="prompt"):
            yield ActionBar(id="action-bar")
            yield ReplyBox(id="reply-box")
        yield Static(id="paused-banner")
        yield NoteBox(id="note-box")
        with Horizontal(id="status-bar"):
            yield TaskClock(self.driver.clock, id="clock")
            yield Static(id="status")
        yield Footer()

    def on_mount(self) -> None:
        self.title = f"{self.task_.protocol.value} · {self.task_.id}"
        self.query_one(ActionBar).display = self.role == "agent"
        self.query_one(ReplyBox).display = False
        self.query_one(TaskClock).display = self.role == "agent"
        self.query_one("#paused-banner", Static).update(
            "Paused: the task is hidden and the clock stands still. p resumes; ctrl+n adds a note.")
        self.refresh_all()
        if self.role == "agent":
            self.run_human_agent()
        elif self.run_mode == "watch" and self.auto:
            self.run_auto()

    @property
    def role(self) -> str:
        return self.setup.role

    @property
    def reveal(self) -> bool:
        """Judge verdicts and checkpoint details: hidden from a human agent until the end."""
        return self.role != "agent" or self.driver.done

    def refresh_all(self) -> None:
        ep = self.driver.episode
        self.query_one(Trajectory).sync(ep.steps, self.reveal)
        self.query_one(Regions).show(self.task_, ep.view(), ep.state(), reveal=self.reveal, spoilers=self.spoilers,
                                     hidden=self.spoilers, locked=self.role == "agent" and not self.driver.done)
        self.update_status()
        self.refresh_bindings()

    def update_status(self) -> None:
        s = self.driver.session
        mode = self.run_mode if self.role != "agent" else "play"
        if self.driver.done:
            mode += " (finished)"
        elif self.role != "agent" and self.run_mode == "watch":
            mode += f" ({'running' if self.auto else 'paused'}, {PACES[self.pace]:g} s/step)"
        text = (f"session {s.id} · as {self.role} · {mode} · recorded as {s.mode} · "
                f"{len(self.driver.steps)} steps · {s.status}")
        if self.setup.queue:
            position, total = self.setup.queue
            text = f"queue {s.run} · task {position}/{total} · {s.annotator} · " + text
        self.query_one("#status", Static).update(text)
        pending = self.query_one(PendingBar)
        pending.busy = self.busy
        pending.action = self.driver.pending if self.role != "agent" else None
        pending.stepping = self.run_mode == "step"
        pending.hint = self._hint()

    def _hint(self) -> str:
        if self.driver.done:
            if self.setup.queue:
                return "Task over. n next task · ctrl+n note · q quit."
            return "Session over. q back to the task picker."
        if self.role == "agent" and self.driver.clock.paused:
            return "Paused. p resumes."
        if self.role == "agent":
            return "Your turn: pick an action below." if self.agent_turn else ""
        if self.run_mode == "step":
            return "step mode: space asks the agent for its next action; r types one yourself."
        return "watch mode: a pauses/resumes, + / - change the pace, m switches to step mode."

    # ---- engine events -----------------------------------------------------------------

    def on_steps_changed(self, message: StepsChanged) -> None:
        self.refresh_all()

    def on_busy_changed(self, message: BusyChanged) -> None:
        self.busy = message.what
        self.update_status()
        self.refresh_bindings()

    def on_action_proposed(self, message: ActionProposed) -> None:
        self.pending_edited = False
        self.update_status()
        self.refresh_bindings()

    def on_session_ended(self, message: SessionEnded) -> None:
        self.agent_turn = False
        self.query_one(ActionBar).display = False
        self.query_one(ReplyBox).done()
        if self.role == "agent":
            self.spoilers = True
        s = self.driver.session
        verdict = score_card(self.task_, s.result, s.status)
        if self.setup.queue:
            position, total = self.setup.queue
            verdict.append(f"\ntask {position} of {total} · press n for the "
                           + ("next task" if position < total else "end of the queue"), style="bold")
        self.query_one(Regions).show_score(verdict)
        self.query_one(Trajectory).rebuild(self.driver.steps)
        self.refresh_all()
        self.notify(f"Session {s.status}: saved to {getattr(self.driver.store, 'path', 'the database')}")

    def on_agent_turn_started(self, message: AgentTurnStarted) -> None:
        self.agent_turn = True
        view = message.view
        bar = self.query_one(ActionBar)
        bar.set_allowed(view.allowed, k=view.k, confidence=view.protocol == Protocol.interactcomp)
        if view.allowed == [ActionKind.clarify] and not self.driver.clock.paused:
            bar.open(ActionKind.clarify)
        self.refresh_all()

    def on_reply_requested(self, message: ReplyRequested) -> None:
        self.query_one(ReplyBox).ask(message.request, known=self._known_for(message.request.kind))
        self.busy = "waiting for your reply"
        self.update_status()

    def _known_for(self, kind: str) -> str | None:
        task = self.task_
        if kind == "interactcomp" and task.interactcomp:
            return f"{task.answer.text if task.answer else ''} — {task.interactcomp.context}"
        if kind == "clarification" and task.cts:
            return task.cts.fused_query
        return None

    def on_reply_box_replied(self, message: ReplyBox.Replied) -> None:
        try:
            self.driver.submit_reply(message.text)
        except ValueError as exc:
            self.notify(str(exc), severity="error")
            return
        self.query_one(ReplyBox).done()

    def on_action_bar_action_chosen(self, message: ActionBar.ActionChosen) -> None:
        try:
            message.action = resolve_visit(message.action, self.driver.steps)
        except ValueError as exc:
            self.notify(str(exc), severity="warning")
            return
        if self.role == "agent" and self.agent_turn:
            if self.driver.clock.paused:
                self._set_paused(False)
            self.agent_turn = False
            self.query_one(ActionBar).set_allowed([], waiting=False)
            self.driver.submit_action(message.action)
            self.refresh_all()

    def on_worker_failed(self, message: WorkerFailed) -> None:
        """A backend call failed (the app says so): stop running the agent by itself."""
        self.auto = False
        self.refresh_all()

    # ---- workers -----------------------------------------------------------------------

    @work(exclusive=True, group="engine", exit_on_error=False)
    async def run_auto(self) -> None:
        driver = self.driver
        while self.auto and self.run_mode == "watch" and not driver.done:
            if driver.pending is None:
                await driver.propose()
                if not (self.auto and self.run_mode == "watch"):
                    break  # switched to step mode: the proposal stays pending
            await driver.apply(edited=self.pending_edited)
            self.pending_edited = False
            await asyncio.sleep(PACES[self.pace])

    @work(exclusive=True, group="engine", exit_on_error=False)
    async def run_propose(self) -> None:
        await self.driver.propose()

    @work(exclusive=True, group="engine", exit_on_error=False)
    async def run_apply(self, edited: bool) -> None:
        self.driver.mark_stepped()
        await self.driver.apply(edited=edited)
        self.pending_edited = False

    @work(exclusive=True, group="engine", exit_on_error=False)
    async def run_human_agent(self) -> None:
        driver = self.driver
        while not driver.done:
            action = await driver.propose()
            await driver.apply(action)

    # ---- actions -----------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        done = self.driver.done
        human_agent = self.role == "agent"
        pending = self.driver.pending is not None
        if action in ("propose", "apply", "edit", "replace"):
            if human_agent or self.run_mode != "step":
                return False
            if done or self.busy:
                return None
            if action == "propose":
                return None if pending else True
            if action == "replace":
                return True
            return True if pending else None
        if action in ("toggle_auto", "pace"):
            return False if human_agent or self.run_mode != "watch" else (None if done else True)
        if action == "toggle_mode":
            return False if human_agent else True
        if action == "compose":
            if not human_agent or done:
                return False
            kind = ActionKind(parameters[0])
            if kind not in self.query_one(ActionBar).allowed and kind != ActionKind.answer:
                return False
            if self.driver.clock.paused:
                return None
            return True if self.agent_turn and kind in self.query_one(ActionBar).allowed else None
        if action == "toggle_hidden":
            return None if human_agent and not done else True
        if action == "pause_clock":
            return False if not human_agent else (None if done else True)
        if action == "next_task":
            return False if not self.setup.queue else (True if done else None)
        if action == "skip_task":
            return False if not self.setup.queue else (None if done else True)
        if action in ("back", "quit_queue"):
            return (action == "back") != bool(self.setup.queue)
        if action == "toggle_panels":
            return self.panels_check()
        return True

    def action_propose(self) -> None:
        self.run_propose()

    def action_apply(self) -> None:
        self.run_apply(self.pending_edited)

    def action_edit(self) -> None:
        self._open_editor(self.driver.pending)

    def action_replace(self) -> None:
        self._open_editor(None)

    def _open_editor(self, prefill: Action | None) -> None:
        from clarify_tui.tui.screens.compose import ComposeScreen

        ep = self.driver.episode
        view = ep.view()

        def done(action: Action | None) -> None:
            if action is not None:
                try:
                    action = resolve_visit(action, ep.steps)
                except ValueError as exc:
                    self.notify(str(exc), severity="warning")
                    return
                self.driver.pending = action
                self.pending_edited = True
                self.update_status()
                self.refresh_bindings()

        self.app.push_screen(
            ComposeScreen(view.allowed, k=view.k, confidence=self.task_.protocol == Protocol.interactcomp,
                          prefill=prefill),
            done,
        )

    def action_toggle_auto(self) -> None:
        self.auto = not self.auto
        if self.auto:
            self.run_auto()
        self.refresh_all()

    def action_pace(self, delta: int) -> None:
        self.pace = max(0, min(len(PACES) - 1, self.pace + delta))
        self.update_status()

    def action_toggle_mode(self) -> None:
        if self.run_mode == "watch":
            self.run_mode, self.auto = "step", False
        else:
            self.run_mode, self.auto = "watch", True
            if not self.driver.done:
                self.run_auto()
        self.refresh_all()

    def action_compose(self, kind: str) -> None:
        self.query_one(ActionBar).open(ActionKind(kind))

    def action_toggle_hidden(self) -> None:
        if self.role == "agent" and not self.driver.done:
            self.notify("The hidden panel opens when the session ends.", severity="warning")
            return
        self.spoilers = not self.spoilers
        self.refresh_all()

    def action_toggle_fold(self) -> None:
        trajectory = self.query_one(Trajectory)
        trajectory.set_expanded(not trajectory.expanded)

    def action_cancel(self) -> None:
        if self.busy:
            self.workers.cancel_group(self, "engine")
            self.busy = None
            self.query_one(ReplyBox).done()
            if self.role == "agent" and not self.driver.done:
                self.notify("Cancelled; the session is unchanged.")
                self.run_human_agent()
            else:  # step mode, so that the keys the pending bar lists (enter apply, …) work
                self.run_mode, self.auto = "step", False
                self.notify("Cancelled; the session is unchanged. Step mode: enter applies the pending "
                            "action again, escape drops it, m goes back to watching.")
            self.refresh_all()
        elif self.driver.pending is not None and self.role != "agent":
            self.driver.pending = None
            self.refresh_all()

    def on_unmount(self) -> None:
        self.driver.save_clock()  # ctrl+q, q in the queue: the resumed task's clock goes on from here

    def action_back(self) -> None:
        self.workers.cancel_group(self, "engine")
        self.driver.abandon()
        self.app.pop_screen()

    def action_quit_queue(self) -> None:
        self.app.exit()  # an unfinished session stays `running`: the same command resumes it

    def action_pause_clock(self) -> None:
        self._set_paused(not self.driver.clock.paused)

    def _set_paused(self, paused: bool) -> None:
        clock = self.driver.clock
        if paused:
            clock.pause()
            self.query_one(ActionBar).close()
        else:
            clock.resume()
            bar = self.query_one(ActionBar)
            if self.agent_turn and bar.allowed == [ActionKind.clarify] and not bar.composing:
                bar.open(ActionKind.clarify)
        self.set_class(clock.paused, "paused")
        self.query_one(TaskClock).tick()
        self.refresh_all()

    def action_note(self) -> None:
        self.query_one(NoteBox).open()

    def on_note_box_saved(self, message: NoteBox.Saved) -> None:
        self.driver.add_note(message.text)
        self.notify("Note saved with the session.")

    def action_next_task(self) -> None:
        self.post_message(self.NextTaskRequested())

    def action_skip_task(self) -> None:
        from clarify_tui.tui.screens.confirm import ConfirmScreen

        def answered(yes: bool | None) -> None:
            if yes and not self.driver.done:
                self.driver.skip()
                self.post_message(self.NextTaskRequested())

        self.app.push_screen(ConfirmScreen(
            f"Skip task {self.task_.id} for good?",
            "It is saved as abandoned (never scored) and the queue never serves it again.",
        ), answered)

    # ---- for the command palette -------------------------------------------------------

    def palette_actions(self) -> list[tuple[str, str, str]]:
        """(name, help, action) for every binding that is usable now."""
        out = []
        for binding in self.BINDINGS:
            name, params = parse_action(binding.action)
            if self.check_action(name, params):
                out.append((binding.description, binding.tooltip or binding.description, binding.action))
        return out

    def palette_refusals(self) -> list[tuple[str, str]]:
        """(name, reason) for the bindings that cannot run now but would be asked for."""
        out = []
        for binding in self.BINDINGS:
            name, params = parse_action(binding.action)
            if not self.check_action(name, params):
                reason = refusal(self, name, params)
                if reason:
                    out.append((binding.description, reason))
        return out

    def on_key(self, event) -> None:
        """A key that does nothing now says why (the binding check comes after this)."""
        reason = key_refusal(self, event.key)
        if reason:
            event.stop()
            self.app.bell()
            self.notify(reason, title="not now", severity="warning", timeout=4)
