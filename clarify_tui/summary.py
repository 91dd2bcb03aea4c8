"""A session in a few words: its one-word outcome, whether it failed, its durations.

The same words in `clarify-tui sessions` and the TUI's sessions list and replay title.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from clarify_tui.models import Session
from clarify_tui.results import CTSResult


def outcome(session: Session) -> str:
    """A one-word verdict: the status unless completed, else the restore score (CTS),
    `correct`/`wrong`, or `-` when the session was not judged."""
    if session.status != "completed":
        return session.status
    r = session.result
    if isinstance(r, CTSResult) and r.restore_score is not None:
        return f"{r.restore_score:.1f}"
    if r.correct is None:
        return "-"
    return "correct" if r.correct else "wrong"


def failed(session: Session) -> bool:
    """Completed with a wrong answer (CTS: a restore score below 100): `sessions --failed`
    and the sessions list's "failed" filter."""
    if session.status != "completed":
        return False
    r = session.result
    if isinstance(r, CTSResult) and r.restore_score is not None:
        return r.restore_score < 100.0
    return r.correct is False


def ended_by_invalid(done: Sequence[Session]) -> str:
    """`; N ended by 3 invalid outputs in a row …` after `run` (empty when none was), for the
    protocols whose own line does not count them."""
    if skips := sum(1 for s in done if getattr(s.result, "invalid_skip", None)):
        return f"; {skips} ended by 3 invalid outputs in a row (scored wrong, not errored)"
    return ""


def seconds(session: Session) -> float | None:
    """Wall-clock seconds from creation to finish; None while the session runs."""
    if not session.finished_at:
        return None
    return (datetime.fromisoformat(session.finished_at) - datetime.fromisoformat(session.created_at)).total_seconds()


def duration(session: Session) -> str:
    """`seconds` as text, e.g. `12.3s`; empty while the session runs."""
    value = seconds(session)
    return "" if value is None else f"{value:.1f}s"


def active(session: Session) -> str:
    """A person's active time on the task (the task clock, pauses excluded), if recorded."""
    ms = session.result.active_ms
    return "" if ms is None else f"{ms / 1000:.1f}s"
