"""One writer per run: a lease row in the database, with the holder and a heartbeat.

This module decides who holds a lease (a process's identity, staleness, the messages);
store/lease.py reads and writes the `run_leases` rows.

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
import socket
import time
from dataclasses import dataclass

from clarify_tui.processes import is_zombie, pid_alive

__all__ = ["Lease", "is_zombie", "pid_alive", "process_id", "pid_namespace"]

STALE_AFTER_S = 30.0
HEARTBEAT_EVERY_S = 5.0


@dataclass(frozen=True)
class Lease:
    run: str
    token: str
    pid: int
    host: str
    took_over: str | None = None  # whose lease this one replaced (one line), if any


QUIET_FOR_S = 2 * HEARTBEAT_EVERY_S + 1  # a live holder beats at least once in this long
WATCH_EVERY_S = 0.25  # how often --take-over re-reads a recent holder's heartbeat while it waits


def holder(row: tuple, now: float) -> str:
    """'pid 4242 on gpu-3 (process started 04:50:58, lease since 04:51:02, last heartbeat 2 s ago)'."""
    pid, host, acquired, beat, _proc_id, started = row[:6]
    started_part = f"process started {clock(started)}, " if started else ""
    return (
        f"pid {pid} on {host} ({started_part}lease since {clock(acquired or 0)}, "
        f"last heartbeat {now - (beat or 0):.0f} s ago)"
    )


def is_stale(row: tuple, now: float, stale_after: float) -> bool:
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
