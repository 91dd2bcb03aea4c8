"""The reads behind scoring (metrics/records.py, metrics/comparability.py, report's paper
tables): sessions, their steps' usage, difficulty, judgments and the runs' recorded
settings, as plain rows; the metrics turn them into ScoredSessions.

Why here: the store speaks all SQL on the sessions database. They take a connection
(a Store's, or a read-only one a campaign's status opened) that the caller holds in one
snapshot (db_errors.snapshot), so every read sees the same file. A file written before
a column existed (opened read-only, so not migrated) is read as if it held its default.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Selection:
    """Which sessions are scored: a WHERE clause over `sessions` and its parameters."""

    where: str = ""
    params: list = field(default_factory=list)
    has_epoch: bool = True


def columns(conn: Any, table: str) -> set[str]:
    return {row[1] for row in conn.execute(f'PRAGMA table_info("{table}")')}


def select(conn: Any, runs: Sequence[str], benchmark: str | None, counterfactuals: bool) -> Selection:
    """The sessions of `runs` (all when empty) of `benchmark`; `whatif` forks only with
    `counterfactuals` (they are never part of a baseline score)."""
    have = columns(conn, "sessions")
    clauses, params = [], []
    if not counterfactuals and "counterfactual" in have:
        clauses.append("counterfactual IS NULL")
    if runs:
        clauses.append(f"run IN ({', '.join('?' for _ in runs)})")
        params += list(runs)
    if benchmark:
        clauses.append("protocol = ?")
        params.append(benchmark)
    where = (" WHERE " + " AND ".join(clauses)) if clauses else ""
    return Selection(where, params, has_epoch="epoch" in have)


def session_rows(conn: Any, sel: Selection) -> list[tuple]:
    """(id, run, task, protocol, agent, user, judge, mode, annotator, status, result JSON,
    created_at, epoch) of each selected session, oldest first."""
    epoch = "epoch" if sel.has_epoch else "0"
    return conn.execute(
        "SELECT id, run, task_id, protocol, agent, user, judge, mode, annotator, status, result, created_at, "
        f"{epoch} FROM sessions{sel.where} ORDER BY created_at, id",
        sel.params,
    ).fetchall()


def step_usage(conn: Any, sel: Selection) -> Iterable[tuple]:
    """(session, actor, tokens in, tokens out, dollars, model) of every step of the selected
    sessions, step by step in index order (a sum adds the floats as an export's steps do)."""
    return conn.execute(
        "SELECT session_id, actor, tokens_in, tokens_out, cost_usd, model FROM steps "
        f"WHERE session_id IN (SELECT id FROM sessions{sel.where}) ORDER BY session_id, idx",
        sel.params,
    )


def difficulties(conn: Any, sel: Selection, protocol: str, path: str) -> Iterable[tuple]:
    """(session, difficulty) of the selected sessions of `protocol`, read at the JSON `path`
    of their task snapshot."""
    return conn.execute(
        "SELECT s.id, json_extract(t.data, ?) FROM sessions s "
        f"JOIN tasks t ON t.key = s.task_key WHERE s.id IN (SELECT id FROM sessions{sel.where}) AND s.protocol = ?",
        [path, *sel.params, protocol],
    )


def judgment_rows(conn: Any, sel: Selection) -> Iterable[tuple]:
    """(id, session, judge, kind, verdict JSON, created_at) of the selected sessions, in id order."""
    return conn.execute(
        "SELECT id, session_id, judge, kind, verdict, created_at FROM judgments "
        f"WHERE session_id IN (SELECT id FROM sessions{sel.where}) ORDER BY id",
        sel.params,
    )


def setting_rows(conn: Any, sel: Selection) -> Iterable[tuple]:
    """(id, run, protocol, agent, user, search, judge, config JSON, task key) of the selected sessions."""
    return conn.execute(
        f"SELECT id, run, protocol, agent, user, search, judge, config, task_key FROM sessions{sel.where}", sel.params
    )


def recorded_deviations(conn: Any) -> list[tuple[str, str]]:
    """(run, deviations JSON) of the runs that recorded them (older files: none)."""
    if "deviations" not in columns(conn, "runs"):
        return []
    return conn.execute("SELECT name, deviations FROM runs WHERE deviations IS NOT NULL").fetchall()


def run_settings(conn: Any) -> list[tuple]:
    """(run, benchmark, dataset, config JSON, provenance JSON) of every run (older files: none)."""
    if not {"provenance", "config", "dataset", "benchmark"} <= columns(conn, "runs"):
        return []
    return conn.execute("SELECT name, benchmark, dataset, config, provenance FROM runs").fetchall()


def session_configs(conn: Any, session_ids: Sequence[str]) -> dict[str, str | None]:
    """Session id -> its episode config JSON, read 500 ids at a time."""
    out: dict[str, str | None] = {}
    ids = list(session_ids)
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        marks = ", ".join("?" for _ in chunk)
        out.update(conn.execute(f"SELECT id, config FROM sessions WHERE id IN ({marks})", chunk).fetchall())
    return out
