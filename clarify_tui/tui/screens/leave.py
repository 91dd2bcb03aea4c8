"""Leaving a person's unfinished session asks first (q on the play screen, q on replay's
live human fork): no single key ends a person's work. The question is the confirm dialog's
(screens/confirm.py), with three answers:

- keep it for later (enter, the default): the session stays `running`, as ctrl+q leaves
  it; `play --task` (or the task picker) offers to resume it at its last step;
- give it up: saved as abandoned, never scored;
- cancel (escape): back to the session as it was.

Nothing to ask about (docs/tui.md): a session nobody has played yet, a finished one, an
agent a person only watches.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.screen import Screen

from clarify_tui.tui.screens.confirm import Choice, ConfirmScreen

KEEP = "keep"
GIVE_UP = "give up"


def leave_choices(resumable: bool) -> tuple[Choice, ...]:
    """Keep (when the session can be resumed), give up, cancel."""
    keep = (Choice(("enter", "k"), "keep it for later (resume it at this step)", KEEP),) if resumable else ()
    return keep + (
        Choice(("g",), "give it up (saved as abandoned, never scored)", GIVE_UP),
        Choice(("escape", "c"), "cancel, go on playing", None),
    )


def ask_to_leave(
    screen: Screen, question: str, detail: str, then: Callable[[str | None], None], *, resumable: bool = True
) -> None:
    """Push the question; `then` gets KEEP, GIVE_UP or None (cancelled)."""
    screen.app.push_screen(ConfirmScreen(question, detail, leave_choices(resumable)), then)
