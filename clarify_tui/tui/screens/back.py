"""`q` on a browsing screen (sessions, replay, compare, scores, ask-vs-guess): *Back* when
a screen lies under it, *Quit* when it is the first screen of its app (the standalone
`replay`, `compare`, `demo ask-vs-guess` apps), and the footer says which. It used to say
"Back" and quit."""

from __future__ import annotations

from textual.binding import Binding
from textual.screen import Screen


def back_bindings(prefix: str) -> list[Binding]:
    """Two bindings of `q`; `back_enabled` lets exactly one of them through."""
    return [
        Binding("q", "back", "Back", id=f"{prefix}-back", tooltip="back to the screen before"),
        Binding("q", "back_quits", "Quit", id=f"{prefix}-quit", tooltip="quit (this is the first screen)"),
    ]


def is_first(screen: Screen) -> bool:
    """Whether `screen` is (or, built ahead and not shown yet, will be) its app's first
    screen: the one right above the app's default screen."""
    stack = screen.app.screen_stack
    if screen in stack:
        return stack.index(screen) <= 1
    return len(stack) <= 1


def back_enabled(screen: Screen, action: str) -> bool | None:
    """For `check_action`: whether `action` is this screen's live `q`; None: not a `q` action."""
    if action == "back":
        return not is_first(screen)
    if action == "back_quits":
        return is_first(screen)
    return None


def go_back(screen: Screen) -> None:
    if is_first(screen):
        screen.app.exit()
    else:
        screen.app.pop_screen()
