"""The workbench's screens need a terminal.

Why: started with stdin or stderr not a terminal (a pipe, a file, a CI job, `docker run`
without -t), Textual draws its escape codes into the pipe and waits for keys for ever:
`clarify-tui replay ID 2>log` or `< /dev/null` hung until killed. Refused with one line
instead. Textual reads keys from stdin and draws on stderr (drivers/linux_driver.py), so
those two are checked; textual-serve's web driver (TEXTUAL_DRIVER, `serve`) and headless
runs need no terminal.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from clarify_tui.errors import UsageError


class NoTerminal(UsageError):
    """A screen was asked for where there is no terminal to draw it on."""


def has_terminal() -> bool:
    if os.environ.get("TEXTUAL_DRIVER"):
        return True
    return all(stream is not None and stream.isatty() for stream in (sys.__stdin__, sys.__stderr__))


class NeedsTerminal:
    """Mixed into the apps: `run` refuses to start without a terminal (see the module)."""

    def run(self, *args: Any, **kwargs: Any) -> Any:
        if not kwargs.get("headless") and not has_terminal():
            raise NoTerminal(
                "this command opens a screen and needs a terminal (stdin and stderr are not one "
                "here); run it in a terminal, or use the printing commands (score, sessions, export)"
            )
        return super().run(*args, **kwargs)  # type: ignore[misc]
