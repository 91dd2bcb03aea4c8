"""The `run_leases` table: the rows behind one writer per run (clarify_tui/lease.py decides
who holds a lease and words the refusals; this module runs the SQL).

Why here: the store speaks all SQL on the sessions database. Every function takes the
Store's connection, which the Store serialises (Store.acquire_run and friends).
"""

from __future__ import annotations

import os
import secrets
import socket
import sqlite3
import time

from clarify_tui import lease as leases
from clarify_tui.errors import RunLeaseError
from clarify_tui.lease import STALE_AFTER_S, Lease

TABLE = "run_leases"
_COLUMNS = "run, token, pid, host, acquired_at, heartbeat_at, proc_id, proc_started_at, pid_ns"


def ensure_table(conn: sqlite3.Connection) -> None:
    conn.execute(
        f"CREATE TABLE IF NOT EXISTS {TABLE} (run TEXT PRIMARY KEY, token TEXT, pid INTEGER, host TEXT, "
        "acquired_at REAL, heartbeat_at REAL, proc_id TEXT, proc_started_at REAL, pid_ns TEXT)"
    )
    have = {row[1] for row in conn.execute(f"PRAGMA table_info({TABLE})")}
    for column, kind in (("proc_id", "TEXT"), ("proc_started_at", "REAL"), ("pid_ns", "TEXT")):  # older tables
        if column not in have:
            try:
                conn.execute(f"ALTER TABLE {TABLE} ADD COLUMN {column} {kind}")
            except sqlite3.OperationalError as exc:  # another process opening the file added it first
                if "duplicate column name" not in str(exc):
                    raise
    conn.commit()


def acquire(conn: sqlite3.Connection, run: str, stale_after: float = STALE_AFTER_S, take_over: bool = False) -> Lease:
    """Take the run's lease or raise RunLeaseError naming who holds it. `take_over` breaks
    a lease held by a live (or apparently live) process; the Lease says whose it was."""
    me = os.getpid()
    ensure_table(conn)
    if take_over:
        _refuse_a_beating_holder(conn, run, stale_after)
    conn.execute("BEGIN IMMEDIATE")
    try:
        row = _row(conn, run)
        now = time.time()
        took_over = None
        if row is not None:
            stale = leases.is_stale(row, now, stale_after)
            if not stale and not take_over:
                raise RunLeaseError(
                    f"run '{run}' is being written by {leases.holder(row, now)}; wait for it to finish, use --run to start "
                    "another run, or --take-over if that process is gone"
                )
            took_over = f"took over run '{run}' from {leases.holder(row, now)}" + (
                " (it is not running any more)" if stale else " (--take-over: its heartbeat had stopped)"
            )
        lease = Lease(run=run, token=secrets.token_hex(16), pid=me, host=socket.gethostname(), took_over=took_over)
        conn.execute(
            f"INSERT OR REPLACE INTO {TABLE} ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                run,
                lease.token,
                lease.pid,
                lease.host,
                now,
                now,
                leases.process_id(me),
                leases.process_started_at(me),
                leases.pid_namespace(),
            ],
        )
        conn.commit()
    except BaseException:
        conn.rollback()
        raise
    return lease


def _row(conn: sqlite3.Connection, run: str) -> tuple | None:
    return conn.execute(
        f"SELECT pid, host, acquired_at, heartbeat_at, proc_id, proc_started_at, token, pid_ns FROM {TABLE} "
        "WHERE run = ?",
        [run],
    ).fetchone()


def _refuse_a_beating_holder(conn: sqlite3.Connection, run: str, stale_after: float) -> None:
    """--take-over breaks a lease whose holder looks alive but is not writing: if its
    heartbeat is recent, wait until it would have beaten again (outside any transaction,
    so a live holder can), and refuse when it did: two writers on one run would count
    tasks twice. The row is read every `WATCH_EVERY_S` while waiting, so a beating holder is
    refused as soon as it beats rather than after the whole quiet period."""
    row = _row(conn, run)
    now = time.time()
    if row is None or leases.is_stale(row, now, stale_after) or now - (row[3] or 0) >= leases.QUIET_FOR_S:
        return
    until = time.monotonic() + leases.QUIET_FOR_S - (now - (row[3] or 0))
    while True:
        time.sleep(max(0.0, min(leases.WATCH_EVERY_S, until - time.monotonic())))
        again = _row(conn, run)
        if again is not None and again[6] == row[6] and again[3] != row[3]:
            now = time.time()
            raise RunLeaseError(
                f"--take-over refused: run '{run}' is being written by {leases.holder(again, now)}; its heartbeat moved "
                "while we waited, so it is running: stop it first"
            )
        if again is None or again[6] != row[6] or time.monotonic() >= until:
            return


def heartbeat(conn: sqlite3.Connection, lease: Lease) -> bool:
    """Refresh the lease; False when it was taken over (then the holder must stop)."""
    cur = conn.execute(
        f"UPDATE {TABLE} SET heartbeat_at = ? WHERE run = ? AND token = ?", [time.time(), lease.run, lease.token]
    )
    conn.commit()
    return cur.rowcount == 1


def release(conn: sqlite3.Connection, lease: Lease) -> None:
    conn.execute(f"DELETE FROM {TABLE} WHERE run = ? AND token = ?", [lease.run, lease.token])
    conn.commit()
