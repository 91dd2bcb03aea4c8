"""Counts as a person reads them: "1 step", "2 steps" (never "1 steps")."""

from __future__ import annotations


def plural(n: int, noun: str, many: str | None = None) -> str:
    """`n` and `noun`, singular for exactly one; `many` when adding "s" is wrong."""
    return f"{n} {noun if n == 1 else many or noun + 's'}"
