"""One writer per run: a lease row in the database, with the holder and a heartbeat.

Why: two processes playing the same run both see the same unfinished tasks and both play
them (22 sessions for 11 tasks). The lease is taken in one `BEGIN IMMEDIATE` transaction,
so of two processes starting together exactly one wins; the other gets a RunLeaseError
naming the holder. A lease is stale, and taken over, when its holder is a process on this host that no
longer exists (a crash or kill -9), or a process on another host whose heartbeat is older
than `STALE_AFTER_S`. Different runs have different rows, so many runs share one database.

"No longer exists" is decided by the process's identity, not its pid alone: a pid is
reused (a container restarted where the run was pid 1, a reboot), and a lease naming a
reused pid would be refused for ever. The lease records the holder's boot id and start
time (`/proc/PID/stat` field 22, in clock ticks since boot); the holder is alive only when
a process with that pid exists *and* has that identity. Where /proc cannot tell (not
Linux, an older lease), the pid decides, and `take_over=True` (`run --take-over`) breaks
any lease, saying whose it was. A holder that is a zombie (killed, not yet reaped by its
parent) is dead: `--resume` right after `kill -9` works.

A pid means something only in its pid namespace: a run inside a container and a `--resume`
from the host (same host name, same database) see each other's pids as other processes or
none. The lease records the holder's pid namespace (`/proc/self/ns/pid`); a holder in the
caller's own namespace is judged by its process, as above; one in another namespace, which
the caller cannot see, is live while its heartbeat is fresh, as a holder on another host.
"""

from __future__ import annotations

import os
import secrets
import socket
import sqlite3
import time
from dataclasses import dataclass

from clarify_tui.errors import RunLeaseError
from clarify_tui.processes import is_zombie, pid_alive

__all__ = ["Lease", "acquire", "heartbeat", "release", "is_zombie", "pid_alive", "process_id", "pid_namespace"]

TABLE = "run_leases"
STALE_AFTER_S = 30.0
HEARTBEAT_EVERY_S = 5.0


@dataclass(frozen=True)
class Lease:
    run: str
    token: str
    pid: int
    host: str
    took_over: str | None = None  # whose lease this one replaced (one line), if any


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
            stale = _stale(row, now, stale_after)
            if not stale and not take_over:
                raise RunLeaseError(
                    f"run '{run}' is being written by {holder(row, now)}; wait for it to finish, use --run to start "
                    "another run, or --take-over if that process is gone"
                )
            took_over = f"took over run '{run}' from {holder(row, now)}" + (
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
                process_id(me),
                process_started_at(me),
                pid_namespace(),
            ],
        )
        conn.commit()
    except BaseException:
        conn.rollback()
        raise
    return lease


QUIET_FOR_S = 2 * HEARTBEAT_EVERY_S + 1  # a live holder beats at least once in this long
WATCH_EVERY_S = 0.25  # how often --take-over re-reads a recent holder's heartbeat while it waits


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
    if row is None or _stale(row, now, stale_after) or now - (row[3] or 0) >= QUIET_FOR_S:
        return
    until = time.monotonic() + QUIET_FOR_S - (now - (row[3] or 0))
    while True:
        time.sleep(max(0.0, min(WATCH_EVERY_S, until - time.monotonic())))
        again = _row(conn, run)
        if again is not None and again[6] == row[6] and again[3] != row[3]:
            now = time.time()
            raise RunLeaseError(
                f"--take-over refused: run '{run}' is being written by {holder(again, now)}; its heartbeat moved "
                "while we waited, so it is running: stop it first"
            )
        if again is None or again[6] != row[6] or time.monotonic() >= until:
            return


def holder(row: tuple, now: float) -> str:
    """'pid 4242 on gpu-3 (process started 04:50:58, lease since 04:51:02, last heartbeat 2 s ago)'."""
    pid, host, acquired, beat, _proc_id, started = row[:6]
    started_part = f"process started {clock(started)}, " if started else ""
    return (
        f"pid {pid} on {host} ({started_part}lease since {clock(acquired or 0)}, "
        f"last heartbeat {now - (beat or 0):.0f} s ago)"
    )


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
    """On this host the holder's process decides: a live process keeps its lease even when
    its heartbeat lags (a loaded machine, a writer thread waiting on a lock), so a second
    writer can never take over a run that is still being played; a process with the
    holder's pid but another identity (start time, boot) is not the holder, and a zombie is
    dead. A holder on another host, or in a pid namespace the caller cannot see (a
    container), is judged by its heartbeat."""
    pid, host, _acquired, beat, proc_id = row[:5]
    ns = row[7] if len(row) > 7 else None
    if host == socket.gethostname() and (not ns or ns == pid_namespace()):
        current = process_id(int(pid)) if proc_id else None  # None for a zombie: pid_alive decides
        if current is not None:
            return current != proc_id
        return not pid_alive(int(pid))
    return now - (beat or 0) > stale_after


def clock(t: float) -> str:
    """A time of today as 04:51:02, of another day with its date (a lease left by a reboot)."""
    when = time.localtime(t)
    today = time.localtime()[:3] == when[:3]
    return time.strftime("%H:%M:%S" if today else "%Y-%m-%d %H:%M:%S", when)


def process_id(pid: int) -> str | None:
    """'<boot id>:<start time in ticks>' of process `pid` (Linux /proc), None when it does
    not exist or /proc cannot tell. Two processes with one pid never share it."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read().decode("ascii", "replace")
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as f:
            boot = f.read().strip()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()  # after "pid (comm) ": field 3 onwards
    if fields and fields[0] in ("Z", "X"):  # ended, only not reaped yet (an orphan waits for init)
        return None
    return f"{boot}:{fields[19]}" if len(fields) > 19 else None


def pid_namespace() -> str | None:
    """This process's pid namespace ('pid:[4026531836]'), None where /proc cannot tell."""
    try:
        return os.readlink("/proc/self/ns/pid")
    except OSError:
        return None


def process_started_at(pid: int) -> float | None:
    """When process `pid` started (epoch seconds), for the messages; None if unknown."""
    ident = process_id(pid)
    try:
        with open("/proc/stat", encoding="ascii") as f:
            boot = next(float(line.split()[1]) for line in f if line.startswith("btime "))
    except (OSError, StopIteration, ValueError):
        return None
    if ident is None:
        return None
    return boot + int(ident.rsplit(":", 1)[1]) / os.sysconf("SC_CLK_TCK")
