"""The play screen's controllers for a person in the episode: playing the agent (one
action per turn through the action bar, under a task clock) or the user (replies in the
reply box). See play_controls.py for what a controller is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.binding import Binding
from textual.widgets import Input

from clarify_tui.models import Action, ActionKind
from clarify_tui.protocols import registry
from clarify_tui.tui.screens.play_controls import Controls

if TYPE_CHECKING:  # imported when used: the help screen reads the bindings without the widgets
    from clarify_tui.tui.screens.play import PlayScreen
    from clarify_tui.tui.widgets.action_bar import ActionBar
    from clarify_tui.tui.widgets.clock import TaskClock
    from clarify_tui.tui.widgets.reply_box import ReplyBox


class HumanAgentControls(Controls):
    """A person plays the agent: one action per turn through the action bar."""

    TITLE = "Playing the agent (--as agent)"
    # priority: a form opens before the next key is read, so the keys typed right after
    # it (a burst) go into it (the action bar holds them until it is mounted); while a
    # person types in a field they are letters, not actions (`check` says False then)
    BINDINGS = [
        Binding("s", "compose('search')", "Search", id="agent-search", tooltip="search", priority=True),
        Binding("k", "compose('ask')", "Ask", id="agent-ask", tooltip="ask the user", priority=True),
        Binding(
            "v",
            "compose('visit')",
            "Visit",
            id="agent-visit",
            priority=True,
            tooltip="visit a url, or a result number of the last search (CTS)",
        ),
        Binding(
            "c",
            "compose('clarify')",
            "Clarify",
            id="agent-clarify",
            priority=True,
            tooltip="clarify: type k questions (CTS)",
        ),
        Binding(
            "enter",
            "compose('answer')",
            "Answer",
            id="agent-answer",
            priority=True,
            tooltip="answer (with confidence in InteractComp)",
        ),
    ]

    def __init__(self, screen: PlayScreen) -> None:
        super().__init__(screen)
        self.turn = False
        """Whether the agent waits for the person's action."""

    @property
    def bar(self) -> ActionBar:
        return self.screen.query_one("#action-bar")  # type: ignore[return-value]

    @property
    def typing(self) -> bool:
        """The focus is in a text field (a form, the note), or a form is opening."""
        return isinstance(self.screen.focused, Input) or self.bar.typeahead is not None

    def check(self, action: str, params: tuple) -> bool | None:
        if self.driver.done or self.typing:
            return False
        kind = ActionKind(params[0])
        if kind not in self.bar.allowed and kind != ActionKind.answer:
            return False
        if self.driver.clock.paused:
            return None
        return True if self.turn and kind in self.bar.allowed else None

    def refusal(self, action: str, params: tuple) -> str | None:
        if self.typing:
            return None
        if self.driver.done:
            return "The task has ended." + (" n goes to the next one." if self.screen.setup.queue else "")
        kind = ActionKind(params[0])
        view = self.driver.episode.view()
        if kind not in view.allowed:
            if words := registry.get(self.screen.task_.protocol).refusal(kind, view.phase):
                return words
            allowed = ", ".join(k.value for k in view.allowed) or "nothing"
            return f"{kind.value} is not allowed now (allowed: {allowed})."
        if self.driver.clock.paused:
            return "Paused: p resumes the clock first."
        if not self.turn:
            return "Wait: your last action is still running."
        return None

    def hint(self) -> str | None:
        if self.driver.done:
            return None
        return "Your turn: pick an action below." if self.turn else ""

    def holds_work(self) -> bool:
        """An action played, or one being typed."""
        return any(s.actor == "agent" for s in self.driver.steps) or self.bar.typed

    def on_mount(self) -> None:
        self.bar.display = True
        self.run()

    def run(self) -> None:
        self.screen.run_engine(self._run())

    async def _run(self) -> None:
        while not self.driver.done:
            await self.driver.apply(await self.driver.propose())

    def action_compose(self, kind: str) -> None:
        self.bar.open(ActionKind(kind))

    def turn_started(self, view) -> None:
        self.turn = True
        self.bar.set_allowed(view.allowed, k=view.k, confidence=registry.get(view.protocol).answer_confidence)
        if view.allowed == [ActionKind.clarify] and not self.driver.clock.paused:
            self.bar.open(ActionKind.clarify, by_itself=True)

    def chosen(self, action: Action) -> None:
        """The person's action from the action bar: the agent's turn is over."""
        if not self.turn:
            return
        if self.driver.clock.paused:
            self.screen.controls_of(TaskClockControls).set_paused(False)
        self.turn = False
        self.bar.set_allowed([], waiting=False)
        self.driver.submit_action(action)

    def cancelled(self) -> None:
        """Escape stopped a running action: the session is as before; the turn starts again."""
        if not self.driver.done:
            self.screen.notify("Cancelled; the session is unchanged.")
            self.run()

    def ended(self) -> None:
        self.turn = False
        self.bar.display = False


class TaskClockControls(Controls):
    """The task clock of a person playing the agent: pausing hides the task and stops it."""

    TITLE = HumanAgentControls.TITLE
    BINDINGS = [
        Binding(
            "p,ctrl+t",
            "pause_clock",
            "Pause",
            id="clock-pause",
            tooltip="pause or resume the task clock (ctrl+t also while typing); the task is hidden meanwhile",
        ),
    ]

    def check(self, action: str, params: tuple) -> bool | None:
        return None if self.driver.done else True

    def refusal(self, action: str, params: tuple) -> str | None:
        return "The task has ended; the clock has stopped." if self.driver.done else None

    def hint(self) -> str | None:
        return "Paused. p resumes." if self.driver.clock.paused and not self.driver.done else None

    def on_mount(self) -> None:
        self.clock_widget.display = True

    @property
    def clock_widget(self) -> TaskClock:
        return self.screen.query_one("#clock")  # type: ignore[return-value]

    def action_pause_clock(self) -> None:
        self.set_paused(not self.driver.clock.paused)

    def set_paused(self, paused: bool) -> None:
        clock, bar = self.driver.clock, self.screen.controls_of(HumanAgentControls).bar
        if paused:
            clock.pause()
            bar.close()
        else:
            clock.resume()
            agent = self.screen.controls_of(HumanAgentControls)
            if agent.turn and bar.allowed == [ActionKind.clarify] and not bar.composing:
                bar.open(ActionKind.clarify, by_itself=True)
        self.screen.set_class(clock.paused, "paused")
        self.clock_widget.tick()
        self.screen.refresh_all()


class HumanUserControls(Controls):
    """A person replies to the agent's asks in the reply box (whose keys these are)."""

    TITLE = "Playing the user (--as user)"

    @classmethod
    def help_bindings(cls) -> list[Binding]:
        from clarify_tui.tui.widgets.reply_box import ReplyBox

        return ReplyBox.BINDINGS  # type: ignore[return-value]

    @property
    def box(self) -> ReplyBox:
        return self.screen.query_one("#reply-box")  # type: ignore[return-value]

    def holds_work(self) -> bool:
        """A reply sent, or one being typed."""
        return any(s.actor == "user" for s in self.driver.steps) or bool(self.box.typed_text)

    def request(self, request) -> None:
        self.box.ask(request, known=request.known or self._known_for(request.kind))
        self.screen.busy = "waiting for your reply"

    def _known_for(self, kind: str) -> str | None:
        task = self.screen.task_
        if kind == "yes_no" and task.interactcomp:
            return f"{task.answer.text if task.answer else ''} — {task.interactcomp.context}"
        if kind == "clarification" and task.cts:
            return task.cts.fused_query
        return None

    def replied(self, text: str) -> None:
        try:
            self.driver.submit_reply(text)
        except ValueError as exc:
            self.screen.notify(str(exc), severity="error")
            return
        self.box.done()
