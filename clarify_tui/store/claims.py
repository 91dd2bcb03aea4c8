"""The `claims` and `campaigns` tables: the SQL behind a campaign's queue
(campaign/claims.py holds the rules: who may take which task, when a claim lapses).

Why here: the store speaks all SQL on the sessions database. These run on the claim
book's own connection (autocommit, WAL, a long busy wait), since every visitor of
`clarify-tui serve` is its own process on the same file and a claim is one short
`BEGIN IMMEDIATE` transaction (`transaction`).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from clarify_tui import db_errors

BUSY_TIMEOUT_S = 60.0

SCHEMA = """
CREATE TABLE IF NOT EXISTS claims (
    run TEXT NOT NULL, task_id TEXT NOT NULL, annotator TEXT NOT NULL,
    claimed_at REAL NOT NULL, heartbeat_at REAL NOT NULL, state TEXT NOT NULL, holder TEXT,
    PRIMARY KEY (run, task_id, annotator)
);
CREATE INDEX IF NOT EXISTS claims_live ON claims (run, state);
CREATE TABLE IF NOT EXISTS campaigns (
    run TEXT PRIMARY KEY, dataset TEXT, benchmark TEXT, per_task INTEGER NOT NULL,
    seed INTEGER, task_ids TEXT NOT NULL, created_at TEXT NOT NULL
);
"""


def read_only(path: str | Path) -> sqlite3.Connection:
    """The store's read-only connection (it also reads a database in a folder we may not
    write), with the campaign's long busy wait."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no database at {path}")
    conn = db_errors.connect(path, readonly=True)
    conn.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")
    return conn


def connect(path: str | Path) -> sqlite3.Connection:
    """A connection in autocommit mode (transactions are explicit), WAL, a long busy wait."""
    conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_S, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")
    conn.executescript(SCHEMA)
    if "holder" not in {row[1] for row in conn.execute("PRAGMA table_info(claims)")}:
        try:  # a database served before claims had holders
            conn.execute("ALTER TABLE claims ADD COLUMN holder TEXT")
        except sqlite3.OperationalError as exc:
            if "duplicate column" not in str(exc):  # another process added it first
                raise
    return conn


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[None]:
    """BEGIN IMMEDIATE: take the write lock first, so a read-then-claim cannot race."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def has_sessions(conn: sqlite3.Connection) -> bool:
    """The file has a sessions table (a Store opened it first)."""
    return conn.execute("SELECT 1 FROM sqlite_master WHERE name='sessions'").fetchone() is not None


# ---- campaigns ------------------------------------------------------------------------


def campaign_shape(conn: sqlite3.Connection, run: str) -> tuple[int, list[str]] | None:
    """(per_task, task ids) recorded for the run's campaign, or None."""
    row = conn.execute("SELECT per_task, task_ids FROM campaigns WHERE run=?", [run]).fetchone()
    return None if row is None else (row[0], json.loads(row[1]))


def add_campaign(
    conn: sqlite3.Connection,
    run: str,
    dataset: str | None,
    benchmark: str | None,
    per_task: int,
    seed: int | None,
    task_ids: list[str],
    created_at: str,
) -> None:
    conn.execute(
        "INSERT INTO campaigns VALUES (?, ?, ?, ?, ?, ?, ?)",
        [run, dataset, benchmark, per_task, seed, json.dumps(task_ids), created_at],
    )


def campaign_row(path: str | Path, run: str) -> tuple | None:
    """(run, task ids, per_task, dataset, benchmark, seed) of the run's campaign, or None
    (a run played without `serve`, a file never served). Read only."""
    conn = read_only(path)
    try:
        row = conn.execute(
            "SELECT run, task_ids, per_task, dataset, benchmark, seed FROM campaigns WHERE run=?", [run]
        ).fetchone()
    except sqlite3.OperationalError:  # no campaigns table: never served
        row = None
    finally:
        conn.close()
    if row is None:
        return None
    return (row[0], json.loads(row[1]), *row[2:])


# ---- claims ---------------------------------------------------------------------------


def release_expired(conn: sqlite3.Connection, run: str, before: float) -> None:
    """Live claims whose last heartbeat is older than `before` are released."""
    conn.execute("UPDATE claims SET state='released' WHERE run=? AND state='live' AND heartbeat_at < ?", [run, before])


def live_of(conn: sqlite3.Connection, run: str, annotator: str) -> list[tuple[str, str | None]]:
    """(task, holder) of the annotator's live claims."""
    return conn.execute(
        "SELECT task_id, holder FROM claims WHERE run=? AND annotator=? AND state='live'", [run, annotator]
    ).fetchall()


def mark_done(conn: sqlite3.Connection, run: str, task_id: str, annotator: str) -> None:
    conn.execute("UPDATE claims SET state='done' WHERE run=? AND task_id=? AND annotator=?", [run, task_id, annotator])


def take(conn: sqlite3.Connection, run: str, task_id: str, annotator: str, now: float, holder: str) -> None:
    """Claim (or claim again) the task for the annotator, held by `holder`; a live claim
    keeps the time it was first claimed."""
    conn.execute(
        "INSERT INTO claims VALUES (?, ?, ?, ?, ?, 'live', ?) ON CONFLICT (run, task_id, annotator) "
        "DO UPDATE SET state='live', heartbeat_at=excluded.heartbeat_at, holder=excluded.holder, "
        "claimed_at=CASE WHEN claims.state='live' THEN claims.claimed_at ELSE excluded.claimed_at END",
        [run, task_id, annotator, now, now, holder],
    )


def beat(conn: sqlite3.Connection, run: str, annotator: str, holder: str, now: float) -> None:
    """Refresh the annotator's live claims held by `holder` (or by nobody)."""
    conn.execute(
        "UPDATE claims SET heartbeat_at=? WHERE run=? AND annotator=? AND state='live' "
        "AND (holder=? OR holder IS NULL)",
        [now, run, annotator, holder],
    )


def let_go(conn: sqlite3.Connection, run: str, holder: str) -> None:
    conn.execute("UPDATE claims SET holder=NULL WHERE run=? AND holder=?", [run, holder])


def held(conn: sqlite3.Connection, run: str) -> list[tuple[int, str]]:
    """(rowid, holder) of the run's live claims that a process holds."""
    return conn.execute(
        "SELECT rowid, holder FROM claims WHERE run=? AND state='live' AND holder IS NOT NULL", [run]
    ).fetchall()


def unhold(conn: sqlite3.Connection, rowid: int) -> None:
    conn.execute("UPDATE claims SET holder=NULL WHERE rowid=?", [rowid])


def taken_by_others(conn: sqlite3.Connection, run: str, annotator: str, covered: Sequence[str]) -> dict[str, int]:
    """Task -> how many others hold a live claim on it or have a session in `covered` statuses."""
    rows = conn.execute(
        f"SELECT task_id, COUNT(DISTINCT who) FROM ("
        f" SELECT task_id, annotator AS who FROM claims WHERE run=? AND state='live' AND annotator<>?"
        f" UNION SELECT task_id, annotator AS who FROM sessions WHERE run=? AND annotator<>?"
        f" AND status IN ({', '.join('?' for _ in covered)})"
        f") GROUP BY task_id",
        [run, annotator, run, annotator, *covered],
    )
    return {task: n for task, n in rows}


def covered_by_others(conn: sqlite3.Connection, run: str, task_id: str, annotator: str, covered: Sequence[str]) -> int:
    """How many others have a session of the task in `covered` statuses."""
    return conn.execute(
        f"SELECT COUNT(DISTINCT annotator) FROM sessions WHERE run=? AND task_id=? AND annotator<>?"
        f" AND status IN ({', '.join('?' for _ in covered)})",
        [run, task_id, annotator, *covered],
    ).fetchone()[0]


def live_since(conn: sqlite3.Connection, run: str, since: float, unserved_ok: bool = False) -> list[tuple[str, str]]:
    """(annotator, task) of the run's live claims that beat since `since`. A file never
    served has no claims table: none with `unserved_ok`, else sqlite3.OperationalError."""
    try:
        return conn.execute(
            "SELECT annotator, task_id FROM claims WHERE run=? AND state='live' AND heartbeat_at >= ?", [run, since]
        ).fetchall()
    except sqlite3.OperationalError:  # no claims table: a TUI-only queue
        if unserved_ok:
            return []
        raise


# ---- the claimed sessions --------------------------------------------------------------


def sessions_of(conn: sqlite3.Connection, run: str, annotator: str) -> list[tuple[str, str, str]]:
    """(id, task, status) of the annotator's sessions of the run, oldest first."""
    return conn.execute(
        "SELECT id, task_id, status FROM sessions WHERE run=? AND annotator=? ORDER BY created_at, id", [run, annotator]
    ).fetchall()


def abandon(conn: sqlite3.Connection, session_id: str, when: str, note: str) -> None:
    """A running session ends as abandoned, `note` added to its notes."""
    conn.execute(
        "UPDATE sessions SET status='abandoned', finished_at=?, "
        "note=TRIM(COALESCE(note || char(10), '') || ?) WHERE id=? AND status='running'",
        [when, note, session_id],
    )


def statuses_of(conn: sqlite3.Connection, run: str, annotator: str) -> list[tuple[str, str, str, str, int]]:
    """(id, task, protocol, status, epoch) of the annotator's baseline sessions of the run,
    oldest first (a file from before epochs: epoch 0; `whatif` forks left out)."""
    columns = {row[1] for row in conn.execute('PRAGMA table_info("sessions")')}
    baseline = " AND counterfactual IS NULL" if "counterfactual" in columns else ""  # as load_sessions
    epoch = "epoch" if "epoch" in columns else "0"
    return conn.execute(
        f"SELECT id, task_id, protocol, status, {epoch} FROM sessions WHERE run=? AND annotator=?{baseline} "
        "ORDER BY created_at, id",
        [run, annotator],
    ).fetchall()


def covering_others(
    conn: sqlite3.Connection, run: str, annotator: str, covered: Sequence[str]
) -> list[tuple[str, str]]:
    """(task, annotator) of others' baseline sessions of the run in `covered` statuses."""
    columns = {row[1] for row in conn.execute('PRAGMA table_info("sessions")')}
    baseline = " AND counterfactual IS NULL" if "counterfactual" in columns else ""
    return conn.execute(
        f"SELECT DISTINCT task_id, annotator FROM sessions WHERE run=? AND annotator<>?{baseline} "
        f"AND status IN ({', '.join('?' for _ in covered)})",
        [run, annotator, *covered],
    ).fetchall()


def running_agent_ms(conn: sqlite3.Connection, run: str) -> dict[str, float]:
    """Session id -> the agent's recorded milliseconds, for the run's running sessions."""
    return dict(
        conn.execute(
            "SELECT s.id, SUM(st.latency_ms) FROM sessions s JOIN steps st ON st.session_id = s.id "
            "WHERE s.run=? AND s.status='running' AND st.actor='agent' GROUP BY s.id",
            [run],
        )
    )
