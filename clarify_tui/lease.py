"""One writer per run: a lease row in the database, with the holder and a heartbeat.

Why: two processes playing the same run both see the same unfinished tasks and both play
them (22 sessions for 11 tasks). The lease is taken in one `BEGIN IMMEDIATE` transaction,
so of two processes starting together exactly one wins; the other gets a RunLeaseError
naming the holder. A lease is stale, and taken over, when its holder is a process on this host that no
longer exists (a crash or kill -9), or a process on another host whose heartbeat is older
than `STALE_AFTER_S`. Different runs have different rows, so many runs share one database.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import time
import secrets
from dataclasses import dataclass

from clarify_tui.errors import RunLeaseError

TABLE = "run_leases"
STALE_AFTER_S = 30.0
HEARTBEAT_EVERY_S = 5.0


@dataclass(frozen=True)
class Lease:
    run: str
    token: str
    pid: int
    host: str


def ensure_table(conn: sqlite3.Connection) -> None:
    conn.execute(
        f"CREATE TABLE IF NOT EXISTS {TABLE} (run TEXT PRIMARY KEY, token TEXT, pid INTEGER, host TEXT, "
        "acquired_at REAL, heartbeat_at REAL)"
    )
    conn.commit()


def acquire(conn: sqlite3.Connection, run: str, stale_after: float = STALE_AFTER_S) -> Lease:
    """Take the run's lease or raise RunLeaseError naming who holds it."""
    lease = Lease(run=run, token=secrets.token_hex(16), pid=os.getpid(), host=socket.gethostname())
    ensure_table(conn)
    conn.execute("BEGIN IMMEDIATE")
    try:
        row = conn.execute(
            f"SELECT pid, host, acquired_at, heartbeat_at FROM {TABLE} WHERE run = ?", [run]
        ).fetchone()
        now = time.time()
        if row is not None and not _stale(row, now, stale_after):
            pid, host, acquired, beat = row
            raise RunLeaseError(
                f"run '{run}' is being written by pid {pid} on {host} (since "
                f"{time.strftime('%H:%M:%S', time.localtime(acquired))}, last heartbeat {now - beat:.0f} s ago); "
                "wait for it to finish or use --run to start another run"
            )
        conn.execute(
            f"INSERT OR REPLACE INTO {TABLE} (run, token, pid, host, acquired_at, heartbeat_at) VALUES (?, ?, ?, ?, ?, ?)",
            [run, lease.token, lease.pid, lease.host, now, now],
        )
        conn.commit()
    except BaseException:
        conn.rollback()
        raise
    return lease


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


def _stale(row: tuple, now: float, stale_after: float) -> bool:
    """On this host the holder's pid decides: a live process keeps its lease even when its
    heartbeat lags (a loaded machine, a writer thread waiting on a lock), so a second writer
    can never take over a run that is still being played. Only a holder on another host is
    judged by its heartbeat."""
    pid, host, _acquired, beat = row
    if host == socket.gethostname():
        return not pid_alive(int(pid))
    return now - (beat or 0) > stale_after


def pid_alive(pid: int) -> bool:
    """Is process `pid` on this host still running? (Ours always is.)"""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
