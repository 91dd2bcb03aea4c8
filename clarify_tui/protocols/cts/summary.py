"""CTS's words after `run`: the mean restore score and what ran deep search."""

from __future__ import annotations

from collections.abc import Sequence

from clarify_tui.models import Session
from clarify_tui.results import CTSResult
from clarify_tui.summary import ended_by_invalid


def deep_search_line(spec: str | None) -> str:
    """What ran CTS deep search: the paper keeps it fixed (WebDancer) while clarifiers vary."""
    if spec:
        return f"deep search: {spec} (fixed)"
    return "deep search: the agent under test (no --deep-search given; the paper keeps it fixed)"


def run_line(done: Sequence[Session], errored: Sequence[Session]) -> str:
    """`; mean restore score …; deep search: …` for the completed sessions (at least one)."""
    scores = [(s.result.restore_score if isinstance(s.result, CTSResult) else None) or 0.0 for s in done]
    line = f"; mean restore score {sum(scores) / len(scores):.1f}"
    return line + "; " + deep_search_line(done[0].config.deep_search) + ended_by_invalid(done)
