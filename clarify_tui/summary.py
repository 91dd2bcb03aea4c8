"""A session in a few words: its one-word outcome and its wall-clock duration.

The same words in `clarify-tui sessions` and the TUI's sessions list and replay title.
"""

from __future__ import annotations

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


def duration(session: Session) -> str:
    """Seconds from creation to finish, e.g. `12.3s`; empty while the session runs."""
    if not session.finished_at:
        return ""
    seconds = (datetime.fromisoformat(session.finished_at) - datetime.fromisoformat(session.created_at)).total_seconds()
    return f"{seconds:.1f}s"


def active(session: Session) -> str:
    """A person's active time on the task (the task clock, pauses excluded), if recorded."""
    ms = session.result.active_ms
    return "" if ms is None else f"{ms / 1000:.1f}s"
