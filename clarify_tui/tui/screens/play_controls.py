"""Per-role behaviour of the play screen: small controllers that own their keys.

The play screen (screens/play.py) holds what every role shares: the episode on screen,
the run mode, pace, busy and spoilers reactives, the side panels. Each part of a role is
a controller: the agent is a program (observer, human user) -> `StepControls` and
`WatchControls` (here); the human-baseline queue -> `QueueControls` (here); a person plays
the agent -> `HumanAgentControls` and `TaskClockControls`, a person replies ->
`HumanUserControls` (play_human.py). PlayScreen picks them by role (play.py).

A controller lists its BINDINGS (the screen's footer, the command palette and the help
screen are built from them), says whether each of its actions can run now (`check`:
True, None greyed out, False hidden) and why not (`refusal`), holds the actions, and
offers the pending bar a hint. The screen hides the actions of controllers it does not
have, so an observer pressing `s` is not told about the human agent's search.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, ClassVar

from textual.binding import Binding

from clarify_tui.models import Action
from clarify_tui.protocols import registry
from clarify_tui.tui.screens.play_keys import parse_action

if TYPE_CHECKING:
    from clarify_tui.tui.screens.play import PlayScreen

PACES = (0.0, 0.1, 0.25, 0.5, 1.0, 2.0)
"""Seconds between two steps of an auto-running agent (`+` / `-` move along them)."""

DEFAULT_PACE = 0.5


def paces_with(seconds: float) -> tuple[float, ...]:
    """PACES with `seconds` (`play --pace`) among them, in order, so `+` / `-` go on from it."""
    return tuple(sorted({*PACES, seconds}))


class Controls:
    """One part of a role on the play screen."""

    TITLE: ClassVar[str] = ""
    """The help screen's section."""
    BINDINGS: ClassVar[list[Binding]] = []

    def __init__(self, screen: PlayScreen) -> None:
        self.screen = screen
        self.driver = screen.driver

    @classmethod
    def action_names(cls) -> set[str]:
        return {parse_action(b.action)[0] for b in cls.BINDINGS}

    def check(self, action: str, params: tuple) -> bool | None:
        return True

    def refusal(self, action: str, params: tuple) -> str | None:
        return None

    def hint(self) -> str | None:
        """What the pending bar says now, if this controller has something to say."""
        return None

    def on_mount(self) -> None:
        """The screen is up: show this role's widgets, start what runs by itself."""

    def holds_work(self) -> bool:
        """Whether a person has done something here that leaving would lose or end (the
        screen asks before `q` leaves an unfinished session)."""
        return False

    @classmethod
    def help_bindings(cls) -> list[Binding]:
        """The keys the help screen lists for this controller."""
        return cls.BINDINGS


class StepControls(Controls):
    """Step mode: nothing runs until asked; a person may edit or replace the action."""

    TITLE = "Step mode"
    BINDINGS = [
        Binding("space", "propose", "Propose", id="propose", tooltip="ask the agent for its next action"),
        Binding("enter", "apply", "Apply", id="apply", tooltip="execute the pending action"),
        Binding("e", "edit", "Edit", id="edit", tooltip="edit the pending action before applying it"),
        Binding("r", "replace", "Replace", id="replace", tooltip="type an action instead of the agent's"),
    ]

    def check(self, action: str, params: tuple) -> bool | None:
        if self.screen.run_mode != "step":
            return False
        if self.driver.done or self.screen.busy:
            return None
        pending = self.driver.pending is not None
        if action == "propose":
            return None if pending else True
        return True if action == "replace" or pending else None

    def refusal(self, action: str, params: tuple) -> str | None:
        if self.screen.run_mode != "step":
            return "Watch mode: m switches to step mode first."
        if self.driver.done:
            return "The session is over."
        if self.screen.busy:
            return "Busy: wait, or escape cancels."
        if action == "propose" and self.driver.pending is not None:
            return "An action is pending: enter applies it, escape drops it."
        if action in ("apply", "edit") and self.driver.pending is None:
            return "Nothing pending: space asks the agent for its next action."
        return None

    def hint(self) -> str | None:
        if self.driver.done or self.screen.run_mode != "step":
            return None
        return "step mode: space asks the agent for its next action; r types one yourself."

    def holds_work(self) -> bool:
        """A person has applied a step (the session is `stepped`) or edited the pending one."""
        return self.driver.session.mode == "stepped" or (self.driver.pending is not None and self.driver.pending_edited)

    def action_propose(self) -> None:
        self.screen.run_engine(self.driver.propose())

    def action_apply(self) -> None:
        self.screen.run_engine(self._apply())

    async def _apply(self) -> None:
        self.driver.mark_stepped()
        await self.driver.apply()

    def action_edit(self) -> None:
        self._open_editor(self.driver.pending)

    def action_replace(self) -> None:
        self._open_editor(None)

    def _open_editor(self, prefill: Action | None) -> None:
        from clarify_tui.tui.screens.compose import ComposeScreen
        from clarify_tui.tui.widgets.action_form import resolve_visit

        screen, driver = self.screen, self.driver
        view = driver.episode.view()

        def done(action: Action | None) -> None:
            if action is not None:
                try:
                    action = resolve_visit(action, driver.steps)
                except ValueError as exc:
                    screen.notify(str(exc), severity="warning")
                    return
                driver.pending, driver.pending_edited = action, True
                screen.update_status()

        screen.app.push_screen(
            ComposeScreen(
                view.allowed,
                k=view.k,
                confidence=registry.get(screen.task_.protocol).answer_confidence,
                prefill=prefill,
            ),
            done,
        )

    def cancelled(self) -> None:
        """Escape stopped a backend call: step mode, so that the keys the pending bar
        lists (enter apply, …) work."""
        self.screen.run_mode = "step"
        self.screen.notify(
            "Cancelled; the session is unchanged. Step mode: enter applies the pending "
            "action again, escape drops it, m goes back to watching."
        )


class WatchControls(Controls):
    """Watch mode: the agent runs by itself while `auto` is on, `pace` apart."""

    TITLE = "Watch mode"
    BINDINGS = [
        Binding("a", "toggle_auto", "Auto-run", id="auto", tooltip="start or pause the agent"),
        Binding("plus", "pace(-1)", "Faster", id="faster", key_display="+", tooltip="less time between steps"),
        Binding("minus", "pace(1)", "Slower", id="slower", key_display="-", tooltip="more time between steps"),
        Binding("m", "toggle_mode", "Watch/Step", id="mode", tooltip="switch between watch and step mode"),
    ]

    def check(self, action: str, params: tuple) -> bool | None:
        if action == "toggle_mode":
            return None if self.driver.done else True
        return False if self.screen.run_mode != "watch" else (None if self.driver.done else True)

    def refusal(self, action: str, params: tuple) -> str | None:
        if action == "toggle_mode":
            return "The session is over: nothing is left to watch or step." if self.driver.done else None
        if self.screen.run_mode != "watch":
            return "Step mode: m switches to watch mode first."
        return "The session is over." if self.driver.done else None

    def hint(self) -> str | None:
        if self.driver.done or self.screen.run_mode != "watch":
            return None
        return "watch mode: a pauses/resumes, + / - change the pace, m switches to step mode."

    def on_mount(self) -> None:
        if self.screen.auto:
            self.screen.call_after_refresh(self._start)

    def _start(self) -> None:
        """The agent starts once the screen has been painted: its first step (a backend
        call, a database write, a repaint) no longer holds the screen's first frame back."""
        if self.screen.auto and self.screen.run_mode == "watch" and not self.screen.busy:
            self.run()

    def action_toggle_auto(self) -> None:
        self.screen.auto = not self.screen.auto

    def action_pace(self, delta: int) -> None:
        paces = self.screen.paces
        pace = max(0, min(len(paces) - 1, self.screen.pace + delta))
        if pace == self.screen.pace:
            which = "fastest" if delta < 0 else "slowest"
            self.screen.notify(f"Already the {which} pace ({paces[pace]:g} s/step).", timeout=4)
        self.screen.pace = pace

    def action_toggle_mode(self) -> None:
        self.screen.run_mode = "step" if self.screen.run_mode == "watch" else "watch"

    def run(self) -> None:
        """Run the agent until the session ends or `auto` goes off (PlayScreen.watch_auto)."""
        if not self.driver.done:
            self.screen.run_engine(self._run())

    async def _run(self) -> None:
        screen, driver = self.screen, self.driver
        while screen.auto and screen.run_mode == "watch" and not driver.done:
            if driver.pending is None:
                await driver.propose()
                if not (screen.auto and screen.run_mode == "watch"):
                    break  # switched to step mode: the proposal stays pending
            await driver.apply()
            await self.between_steps(screen.pace_seconds)

    async def between_steps(self, seconds: float) -> None:
        """The pause between two steps, so a person can follow."""
        await asyncio.sleep(seconds)


class QueueControls(Controls):
    """The human-baseline queue: next task once this one has ended, skip, quit."""

    TITLE = "Human-baseline queue (--queue RUN)"
    BINDINGS = [
        Binding(
            "n",
            "next_task",
            "Next task",
            id="queue-next",
            tooltip="the next task of the queue, once this one has ended",
        ),
        Binding(
            "ctrl+o",
            "skip_task",
            "Skip task",
            id="queue-skip",
            tooltip="give up on this task (asks first; saved as abandoned, never scored) and go to the next",
        ),
        Binding("q", "quit_queue", "Quit", id="queue-quit", tooltip="quit; the same command resumes where you stopped"),
    ]

    def check(self, action: str, params: tuple) -> bool | None:
        done = self.driver.done
        if action == "next_task":
            return True if done else None
        if action == "skip_task":
            return None if done else True
        return True

    def refusal(self, action: str, params: tuple) -> str | None:
        done = self.driver.done
        if action == "next_task" and not done:
            return "n moves on once this task has ended: answer it, or ctrl+o gives it up for good."
        if action == "skip_task" and done:
            return "The task has ended: n goes to the next one."
        return None

    def hint(self) -> str | None:
        return "Task over. n next task · ctrl+n note · q quit." if self.driver.done else None

    def action_next_task(self) -> None:
        self.screen.post_message(self.screen.NextTaskRequested())

    def action_quit_queue(self) -> None:
        self.screen.app.exit()  # an unfinished session stays `running`: the same command resumes it

    def action_skip_task(self) -> None:
        from clarify_tui.tui.screens.confirm import ConfirmScreen

        screen = self.screen

        def answered(yes: bool | None) -> None:
            if yes and not self.driver.done:
                self.driver.skip()
                screen.post_message(screen.NextTaskRequested())

        screen.app.push_screen(
            ConfirmScreen(
                f"Skip task {screen.task_.id} for good?",
                "It is saved as abandoned (never scored) and the queue never serves it again.",
            ),
            answered,
        )
