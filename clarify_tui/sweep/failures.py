"""`sweep --fail-on-error [N|FRACTION]`: `run --fail-on-error` over the whole sweep.

Why a threshold: at scale a few sessions always fail (a model's rate limit, an unparsable
reply), and a job scheduler or CI step must tell "a few" from "the sweep is broken". A
failed session is one that errored (infrastructure) or one the agent's own output ended
(agent_faults.ended_by_agent). The flag's reading and the test are run's own
(agent_faults.tolerance, over_tolerance); this only applies them to every cell at once.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from clarify_tui.agent_faults import ended_by_agent, over_tolerance

if TYPE_CHECKING:
    from clarify_tui.models import Session


def failed(session: Session) -> bool:
    """Errored, or ended by the agent's own output (run's summary names both)."""
    return session.status == "errored" or ended_by_agent(session)


def fail_on_error_exceeded(sessions: Iterable[Session], limit: float) -> tuple[bool, int, int]:
    """(whether more sessions failed than `limit` allows, how many failed, how many ended).
    `limit` >= 1 (or 0) is a count; 0 < limit < 1 a share of the ended sessions."""
    ended = [s for s in sessions if s.status in ("completed", "errored")]
    bad = sum(1 for s in ended if failed(s))
    return over_tolerance(bad, len(ended), limit), bad, len(ended)
