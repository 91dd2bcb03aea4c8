"""What finished sessions cost, as sweeps read it: the dry run's estimate (sweep/estimate.py)
and a running sweep's spending limit (sweep/play.py).

Why here: the store speaks all SQL on the sessions database.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence

_FINISHED = "s.status = 'completed' AND s.counterfactual IS NULL"


def completed_of_run(conn: sqlite3.Connection, run: str) -> list[str]:
    """Ids of the run's completed baseline sessions."""
    return [r[0] for r in conn.execute(f"SELECT s.id FROM sessions s WHERE s.run = ? AND {_FINISHED}", [run])]


def completed_alike(conn: sqlite3.Connection, protocol: str, agent: str, user: str, judge: str) -> list[str]:
    """Ids of the completed baseline sessions played with these roles, in any run."""
    return [
        r[0]
        for r in conn.execute(
            f"SELECT s.id FROM sessions s WHERE s.protocol = ? AND s.agent = ? AND s.user = ? AND s.judge = ? "
            f"AND {_FINISHED}",
            [protocol, agent, user, judge],
        )
    ]


def calls_by_model(conn: sqlite3.Connection, session_ids: Sequence[str]) -> Iterator[tuple[str, int, float, int]]:
    """(model, calls with their retries, dollars, unpriced calls) of the sessions' steps,
    per model, 500 sessions at a time (a model appears once per batch)."""
    ids = list(session_ids)
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        marks = ", ".join("?" for _ in chunk)
        yield from conn.execute(
            f"SELECT model, count(*) + coalesce(sum(retries), 0), coalesce(sum(cost_usd), 0), "
            f"count(*) - count(cost_usd) FROM steps WHERE session_id IN ({marks}) AND model IS NOT NULL "
            "GROUP BY model",
            chunk,
        )


def settled_costs(conn: sqlite3.Connection, session_ids: Sequence[str]) -> list[tuple[str, float, int]]:
    """(id, dollars, unpriced calls) of those of the sessions that are no longer running."""
    marks = ", ".join("?" for _ in session_ids)
    return conn.execute(
        f"SELECT s.id, (SELECT coalesce(sum(cost_usd), 0) FROM steps WHERE session_id = s.id), "
        f"(SELECT count(*) FROM steps WHERE session_id = s.id AND model IS NOT NULL AND cost_usd IS NULL) "
        f"FROM sessions s WHERE s.id IN ({marks}) AND s.status != 'running'",
        list(session_ids),
    ).fetchall()
