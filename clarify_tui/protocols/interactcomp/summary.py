"""InteractComp's words after `run`: accuracy with errored sessions as wrong, invalid skips,
and the notes on its reply readings and stated confidences."""

from __future__ import annotations

from collections.abc import Sequence

from clarify_tui.metrics.records import ScoredSession
from clarify_tui.models import Session
from clarify_tui.protocols.interactcomp.compat import strict_note
from clarify_tui.protocols.interactcomp.metrics import confidence_warnings
from clarify_tui.results import InteractCompResult


def run_line(done: Sequence[Session], errored: Sequence[Session]) -> str:
    """`; accuracy …, accuracy_all …; N invalid skips` for the completed sessions (at least one)."""
    correct = sum(1 for s in done if s.result.correct)
    line = f"; accuracy {correct / len(done):.2f} ({correct}/{len(done)})"
    every = len(done) + len(errored)
    skips = sum(1 for s in done if isinstance(s.result, InteractCompResult) and s.result.outcome == "invalid_skip")
    line += f", accuracy_all {correct / every:.2f} ({correct}/{every}, errored as wrong)"
    return line + f"; {skips} invalid skip{'s' * (skips != 1)} (scored wrong)"


def score_notes(sessions: Sequence[ScoredSession]) -> list[str]:
    """After `score`: the stated-confidence warnings, then the note on a --compat that is
    not the paper's (over every session scored, of any protocol: only its results count)."""
    notes = confidence_warnings([s.result for s in sessions if s.scorable and isinstance(s.result, InteractCompResult)])
    compats = [
        s.result.compat
        for s in sessions
        if isinstance(s.result, InteractCompResult) and s.status in ("completed", "errored")
    ]
    return notes + ([f"note: {note}"] if (note := strict_note(compats)) else [])


def run_notes(sessions: Sequence[Session], done: Sequence[Session]) -> list[str]:
    """The note on a --compat that is not the paper's, then the stated-confidence warnings."""
    notes = [f"note: {note}"] if (note := strict_note(s.config.compat for s in sessions)) else []
    return notes + confidence_warnings([s.result for s in done if isinstance(s.result, InteractCompResult)])
