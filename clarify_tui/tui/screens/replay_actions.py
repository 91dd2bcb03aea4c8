"""What a key on the replay screen does, and why it cannot now.

Its own module because it is the screen's dispatch, apart from what the screen shows and
how a fork runs live (replay.py): the cursor (left/right, home/end; at an end it says
so), the hidden panel (locked while a person plays the fork's agent), `q` and `escape`,
which ask before leaving a person's live fork (keep it for later, give it up, cancel:
screens/leave.py), and the way to the parent (compare) and the what-if forks. The screen
binds these as its methods (`action_back = replay_actions.back`), so Textual finds them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widgets import Input

from clarify_tui.models import ActionKind
from clarify_tui.protocols import registry
from clarify_tui.tui.widgets.action_bar import ActionBar

if TYPE_CHECKING:
    from clarify_tui.tui.screens.replay import ReplayScreen


def move(screen: ReplayScreen, delta: int) -> None:
    if screen.steps:
        go(screen, max(0, min(len(screen.steps) - 1, screen.cursor + delta)))


def jump(screen: ReplayScreen, where: str) -> None:
    if screen.steps:
        go(screen, 0 if where == "start" else len(screen.steps) - 1)


def go(screen: ReplayScreen, step: int) -> None:
    """Put the cursor on `step`; at either end already, say so (the key did nothing)."""
    if step == screen.cursor:
        screen.notify(f"Already at the {'first' if step == 0 else 'last'} step (step {step}).", timeout=3)
    screen.cursor = step


def toggle_hidden(screen: ReplayScreen) -> None:
    screen.spoilers = not screen.spoilers
    screen.say_hidden_toggled(screen.spoilers)


def check_action(screen: ReplayScreen, action: str, parameters: tuple) -> bool | None:
    live = screen.live is not None
    if action == "compose":
        bar = screen.query_one(ActionBar)
        if not (live and screen.agent_is_human) or isinstance(screen.focused, Input) or bar.typeahead is not None:
            return False
        kind = ActionKind(parameters[0])
        if kind in registry.get(screen.session.protocol).never_offers:
            return False  # InteractComp and DiscoBench have no clarify or visit
        return True if screen.agent_turn and kind in bar.allowed else None
    if action in ("move", "jump", "fork", "compare_parent", "whatif"):
        return not live
    if action == "resume":
        return screen.resumable
    if action == "stop_fork":
        return live
    if action == "toggle_panels":
        return screen.panels_check()
    if action == "toggle_hidden":
        return None if screen.agent_is_human else True
    return True


def refusal(screen: ReplayScreen, action: str, parameters: tuple) -> str | None:
    """Why a key of this screen does nothing now (KeysThatSayWhy tells the person)."""
    live = screen.live is not None
    if action in ("move", "jump", "fork", "compare_parent", "whatif") and live:
        return "A fork is running: escape stops it first (what it played so far is kept)."
    if action == "stop_fork" and not live:
        return "No fork is running: q goes back."
    if action == "resume" and not screen.resumable:
        return "Nothing to resume: r continues a fork of yours that you kept for later."
    if action == "toggle_hidden" and screen.agent_is_human:
        return "The hidden panel stays locked while you play the fork's agent."
    if action == "toggle_panels":
        return screen.panels_refusal()
    if action == "compose":
        kind = ActionKind(parameters[0])
        if not (live and screen.agent_is_human):
            return f"{kind.value} is for playing a fork's agent yourself: f forks here (agent: human)."
        if kind in registry.get(screen.session.protocol).never_offers:
            return f"{screen.session.protocol.value} has no {kind.value}."
        if not screen.agent_turn:
            return "Wait: your last action is still running."
        if kind not in screen.query_one(ActionBar).allowed:
            allowed = ", ".join(k.value for k in screen.query_one(ActionBar).allowed) or "nothing"
            return f"{kind.value} is not allowed now (allowed: {allowed})."
    return None


def holds_work(screen: ReplayScreen) -> bool:
    """A person plays this live session and has played or typed something in it."""
    live = screen.live
    return (
        live is not None
        and live.role == "agent"
        and not live.done
        and (len(live.steps) > screen.live_from or screen.query_one(ActionBar).typed)
    )


def ask_to_stop(screen: ReplayScreen, then_back: bool) -> None:
    """Keep it for later, give it up, or cancel; then stop following it (and go back)."""
    from clarify_tui.tui.screens.leave import GIVE_UP, KEEP, ask_to_leave
    from clarify_tui.tui.screens.replay import mark_informed

    live = screen.live
    assert live is not None

    def answered(choice: str | None) -> None:
        if choice not in (KEEP, GIVE_UP) or screen.live is not live:
            return
        screen.workers.cancel_group(screen, "fork")
        if then_back:
            screen.live = None  # nothing more to follow here: its last messages are not shown
        if choice == GIVE_UP:
            live.give_up("given up by the person")
            if screen.informed_fork and live.session.result.informed is None:
                mark_informed(screen.store, live.session)
        if then_back:
            go_back(screen)

    ask_to_leave(
        screen,
        f"Stop playing session {live.session.id} unfinished?",
        "Kept, it stays unfinished: replaying it (F2) offers r to resume it at its last step.",
        answered,
    )


def stop_fork(screen: ReplayScreen) -> None:
    if holds_work(screen):
        ask_to_stop(screen, then_back=False)
        return
    screen.workers.cancel_group(screen, "fork")


# ---- elsewhere ---------------------------------------------------------------------


def compare_parent(screen: ReplayScreen) -> None:
    from clarify_tui.tui.screens.compare import CompareScreen

    if not screen.session.parent_id:
        screen.notify("Only a fork has a parent to compare with.", severity="warning")
        return
    screen.app.push_screen(CompareScreen(screen.store, screen.session.parent_id, screen.session.id))


def whatif(screen: ReplayScreen) -> None:
    from clarify_tui.tui.screens.whatif import WhatIfScreen

    screen.app.push_screen(WhatIfScreen(screen.store, screen.session.id))


def back(screen: ReplayScreen) -> None:
    if holds_work(screen):
        ask_to_stop(screen, then_back=True)
        return
    if screen.live is not None:
        screen.workers.cancel_group(screen, "fork")
    go_back(screen)


def go_back(screen: ReplayScreen) -> None:
    if len(screen.app.screen_stack) > 2:
        screen.app.pop_screen()
    else:
        screen.app.exit()
