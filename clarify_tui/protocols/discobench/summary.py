"""DiscoBench's words after `run`."""

from __future__ import annotations

from collections.abc import Sequence

from clarify_tui.models import Session
from clarify_tui.summary import ended_by_invalid


def run_line(done: Sequence[Session], errored: Sequence[Session]) -> str:
    """`; accuracy …` for the completed sessions (at least one)."""
    correct = sum(1 for s in done if s.result.correct)
    return f"; accuracy {correct / len(done):.2f} ({correct}/{len(done)})" + ended_by_invalid(done)
