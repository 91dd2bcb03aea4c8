"""Whether the speed-ups may run: only on the Textual versions they were tested with.

Everything in `tui/speed/` names Textual internals that may change in any release. On a
Textual outside TESTED (or with CLARIFY_TUI_STOCK_TEXTUAL=1 in the environment) the
workbench uses stock Textual classes instead: it works the same, only slower to open
screens (docs/textual-internals.md lists each internal and what it buys).
"""

from __future__ import annotations

import os
from importlib.metadata import PackageNotFoundError, version

TESTED = ((8, 2, 5), (8, 3))  # lowest tested version; first version not tested (pyproject pins the same)
OFF_VARIABLE = "CLARIFY_TUI_STOCK_TEXTUAL"


def parse(text: str) -> tuple[int, ...]:
    """ "8.2.5" -> (8, 2, 5); a pre-release or local tail ends the number ("8.3.0rc1" -> (8, 3, 0))."""
    parts = []
    for part in text.split("."):
        digits = ""
        for char in part:
            if not char.isdigit():
                break
            digits += char
        if not digits:
            break
        parts.append(int(digits))
        if len(digits) != len(part):
            break
    return tuple(parts)


def in_tested_range(text: str) -> bool:
    low, high = TESTED
    return low <= parse(text) < high


def speed_on() -> bool:
    """The speed-ups run: Textual is a tested version and the environment does not turn them off."""
    if os.environ.get(OFF_VARIABLE, "").strip() not in ("", "0"):
        return False
    try:
        return in_tested_range(version("textual"))
    except PackageNotFoundError:  # a vendored or source-tree Textual: its version is unknown
        return False


ACTIVE = speed_on()
"""Decided once at import: the classes the screens inherit are chosen from it."""
