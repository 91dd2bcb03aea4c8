"""What a key on the play screen does: which controller owns each action, the screen's
own keys (hidden panel, fold, escape, q) and why a key cannot run now.

Its own module because it is the screen's dispatch, apart from what the screen shows
(play.py): a controller's action goes to its controller (OWNER, play_controls.py,
play_human.py); the screen's own are here. `q` on a person's unfinished session asks
first (keep it for later, give it up, or cancel: screens/leave.py); nobody's session or
a finished one leaves at once. The screen binds these as its methods (`action_cancel =
play_actions.cancel`), so Textual finds them where it looks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from clarify_tui.tui.screens.play_controls import Controls, QueueControls, StepControls, WatchControls
from clarify_tui.tui.screens.play_human import HumanAgentControls, HumanUserControls, TaskClockControls
from clarify_tui.tui.widgets.reply_box import ReplyBox
from clarify_tui.tui.widgets.trajectory import Trajectory

if TYPE_CHECKING:
    from clarify_tui.tui.screens.play import PlayScreen

ALL_CONTROLS: tuple[type[Controls], ...] = (
    QueueControls,
    TaskClockControls,
    HumanAgentControls,
    StepControls,
    WatchControls,
    HumanUserControls,
)
"""In the order their hints win (the first with something to say)."""


def controls_for(role: str, queue: bool) -> list[type[Controls]]:
    """The controllers of a play screen for `role` (observer, user, agent)."""
    if role == "agent":
        chosen: list[type[Controls]] = [TaskClockControls, HumanAgentControls]
    else:
        chosen = [StepControls, WatchControls] + ([HumanUserControls] if role == "user" else [])
    if queue:
        chosen.append(QueueControls)
    return [c for c in ALL_CONTROLS if c in chosen]


OWNER: dict[str, type[Controls]] = {name: c for c in ALL_CONTROLS for name in c.action_names()}
"""Which controller each controller action belongs to."""


def check_action(screen: PlayScreen, action: str, parameters: tuple) -> bool | None:
    owner = OWNER.get(action)
    if owner is not None:  # another role's action is hidden
        controls = screen.controller(owner)
        return controls.check(action, parameters) if controls else False
    if action == "toggle_hidden":
        return None if screen.locked else True
    if action == "back":
        return not screen.setup.queue  # the queue quits instead
    if action == "toggle_panels":
        return screen.panels_check()
    if action == "cancel":
        return True if cancellable(screen) else None
    return True


def cancellable(screen: PlayScreen) -> bool:
    """Whether escape has something to cancel: a backend call, a pending action."""
    return bool(screen.busy) or (screen.driver.pending is not None and screen.role != "agent")


def refusal(screen: PlayScreen, action: str, parameters: tuple) -> str | None:
    """Why `action` cannot run now, or None (it can, or it is not for this role)."""
    owner = OWNER.get(action)
    if owner is not None:
        controls = screen.controller(owner)
        return controls.refusal(action, parameters) if controls else None
    if action == "toggle_hidden" and screen.locked:
        return "The hidden panel opens when the task ends."
    if action == "toggle_panels":
        return screen.panels_refusal()
    if action == "cancel" and not cancellable(screen):
        return "Nothing to cancel: no backend call is running" + (
            " and no action is pending." if screen.role != "agent" else "."
        )
    return None


def toggle_hidden(screen: PlayScreen) -> None:
    if screen.locked:
        screen.notify("The hidden panel opens when the session ends.", severity="warning")
        return
    screen.spoilers = not screen.spoilers
    screen.say_hidden_toggled(screen.spoilers)


def toggle_fold(screen: PlayScreen) -> None:
    trajectory = screen.query_one(Trajectory)
    trajectory.set_expanded(not trajectory.expanded)
    if not trajectory.folds_anything:
        screen.notify(
            "Nothing to fold or unfold: every card is shown whole."
            if screen.driver.steps
            else "No steps yet: nothing to fold.",
            timeout=4,
        )


def cancel(screen: PlayScreen) -> None:
    if screen.busy:
        screen.workers.cancel_group(screen, "engine")
        screen.busy = None
        for box in screen.query(ReplyBox):
            box.done()
        driving = screen.controller(HumanAgentControls) or screen.controller(StepControls)
        driving.cancelled()  # type: ignore[union-attr]
        screen.refresh_all()
    elif screen.driver.pending is not None and screen.role != "agent":
        screen.driver.pending = None
        screen.refresh_all()
    else:
        screen.notify(refusal(screen, "cancel", ()) or "", timeout=4)


def holds_work(screen: PlayScreen) -> bool:
    """An unfinished session in which a person has played or typed something: `q`
    asks before leaving it (screens/leave.py)."""
    return not screen.driver.done and any(c.holds_work() for c in screen.controllers())


def back(screen: PlayScreen) -> None:
    """Back to the picker. A person's unfinished session asks first: keep it for later
    (left `running`, resumed by `play --task` or the picker), give it up, or cancel.
    A session nobody played (a watched agent, nothing done yet) or a finished one
    leaves at once, abandoned if unfinished, as before."""
    if not screen.holds_work():
        screen.leave(keep=False)
        return
    from clarify_tui.tui.screens.leave import GIVE_UP, KEEP, ask_to_leave

    def answered(choice: str | None) -> None:
        if choice in (KEEP, GIVE_UP):
            screen.leave(keep=choice == KEEP, why="given up by the person (q)")

    ask_to_leave(
        screen,
        f"Leave session {screen.driver.session.id} on {screen.task_.id} unfinished?",
        f"Kept, it stays unfinished: {resumed_by(screen)} (or the task picker) offers to resume it at its last step.",
        answered,
    )


def resumed_by(screen: PlayScreen) -> str:
    """The command that offers this session again once kept for later."""
    role = {"agent": "--as agent", "user": "--as user"}.get(screen.role, "--step")
    return f"clarify-tui play --task {screen.task_.id} {role}"


def leave(screen: PlayScreen, *, keep: bool, why: str | None = None) -> None:
    """Stop the engine and go back. `keep`: the session stays `running` (resumable, its
    clock saved on unmount); else it is abandoned (never scored), `why` in its note."""
    screen.workers.cancel_group(screen, "engine")
    if screen.driver.done:
        pass  # it ended while the question was open: nothing to keep or give up
    elif keep:
        screen.notify(
            f"Session {screen.driver.session.id} kept for later: {resumed_by(screen)} or the picker resumes it."
        )
    elif why:
        screen.driver.give_up(why)
    else:
        screen.driver.abandon()
    screen.app.pop_screen()
