"""`--fail-on-error [N|FRACTION]`: when a batch's failed sessions make its exit non-zero.

Why a threshold: at scale a few sessions always fail (a model's rate limit, an unparsable
reply), and a job scheduler or CI step must tell "a few" from "the run is broken". A
failed session is one that errored (infrastructure) or whose agent output could not be
used (ended by invalid outputs, or an InteractComp action the harness could not call).
`run --fail-on-error` is the same flag with the same meaning; this is the sweep's check.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from clarify_tui.models import Session


def error_budget(text: str) -> float:
    """An argparse type: N (a count, a whole number >= 0) or FRACTION (0 < f < 1) of the sessions."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a count N or a fraction like 0.05, got '{text}'") from None
    if value < 0 or (value >= 1 and not value.is_integer()):
        raise argparse.ArgumentTypeError(f"expected a count N >= 0 or a fraction between 0 and 1, got '{text}'")
    return value


def failed(session: Session) -> bool:
    """Errored, or ended by agent output that could not be used (run's summary names both)."""
    if session.status == "errored":
        return True
    result = session.result
    return bool(getattr(result, "invalid_skip", False)) or getattr(result, "outcome", None) in ("invalid_skip", "call_error")


def fail_on_error_exceeded(sessions: Iterable[Session], limit: float) -> tuple[bool, int, int]:
    """(whether more sessions failed than `limit` allows, how many failed, how many ended).
    `limit` >= 1 (or 0) is a count; 0 < limit < 1 a fraction of the ended sessions."""
    ended = [s for s in sessions if s.status in ("completed", "errored")]
    bad = sum(1 for s in ended if failed(s))
    allowed = limit * len(ended) if 0 < limit < 1 else limit
    return bad > allowed, bad, len(ended)
