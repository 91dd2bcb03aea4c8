"""A crash that shows no data: Textual prints an unhandled exception's traceback with its
local variables, which may hold a task's hidden fields (gold answer, clues).

Not a speed-up, so it is on whatever Textual's version: hidden stays hidden. It lives in
the wall because the only hook Textual has for this is private (`App._fatal_error`,
textual/app.py 8.2: `Traceback(show_locals=True)`); tests/test_wall.py checks
that a crash shows the short message and no local variable.
"""

from __future__ import annotations


class ShortCrash:
    """For an App with a public `crashed() -> renderable` (what the visitor sees instead)."""

    def _fatal_error(self) -> None:
        """Overrides `App._fatal_error`: the app's own message through the public `panic`."""
        self.bell()  # type: ignore[attr-defined]
        self.panic(self.crashed())  # type: ignore[attr-defined]
