"""Is a process of this host still running? (The run lease, campaign claims and the
temporary files of exports and merges ask.)

Why one place: a pid that answers `kill(pid, 0)` may be a zombie, killed but not yet
reaped by its parent, which will never write again; every caller must treat it as dead.
"""

from __future__ import annotations

import os


def is_zombie(pid: int) -> bool:
    """Has process `pid` ended without being reaped by its parent (state Z or X)? It holds
    its pid, and `kill(pid, 0)` succeeds, but it will never write again."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read().decode("ascii", "replace")
    except OSError:
        return False
    state = stat[stat.rindex(")") + 2 :].split()[:1]
    return state in (["Z"], ["X"])


def pid_alive(pid: int) -> bool:
    """Is process `pid` on this host still running? (Ours always is; a zombie is not.)"""
    if pid == os.getpid():
        return True
    if is_zombie(pid):
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
