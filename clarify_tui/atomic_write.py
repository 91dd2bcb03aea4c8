"""Every file the project writes (exports, search-cache exports, schemas) goes through here.

Why: `export --out FILE` used to open FILE for writing before anything was checked, so
`--out sessions/clarify.db` truncated the database to 0 bytes, and a failed export (a full
disk, a bad format found late) left half a file where a good one was. Here the target is
checked first (a directory, the database or its -wal/-shm/-journal, a link to any of them,
another SQLite database: refused with one line), the text is written to a temporary file
beside the target, flushed to disk, and renamed into place only when it is complete. A
refused or failed write leaves the old file untouched and no temporary file behind.

A process killed mid-write (kill -9, a power cut) cannot delete its temporary file; the
name carries the writer's pid (`.out.csv.4242-1a2b3c4d.tmp`), and the next write to the
same target removes the leftovers of writers that are no longer running
(`remove_leftovers`; merge does the same for its temporary database).

A target that exists and is not a regular file (`/dev/stdout`, a pipe, `/dev/full`) is
written directly: renaming over a device node would replace it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

from clarify_tui.processes import pid_alive

SQLITE_HEADER = b"SQLite format 3\x00"
_DB_COMPANIONS = ("", "-wal", "-shm", "-journal")


class OutputError(RuntimeError):
    """A file we were asked to write cannot or must not be written (the database itself, a
    directory, a full disk). One line naming the file; the old file is untouched. (Defined
    here, not in errors.py: this module sits in the lowest layer, beside results_schema.)"""


def check_target(path: Path, protect: Iterable[Path] = ()) -> Path:
    """The path to write (a symlink's target, so the link keeps pointing at the new file),
    or OutputError saying in one line why `path` must not be written."""
    path = Path(path)
    if path.is_dir():
        raise OutputError(f"--out {path} is a directory; name a file to write")
    real = path.resolve()
    for db in protect:
        for suffix in _DB_COMPANIONS:
            guarded = Path(f"{db}{suffix}")
            if real == guarded.resolve() or _same_file(real, guarded):
                raise OutputError(
                    f"refusing to write {path}: it is the database {db}{' (its ' + suffix[1:] + ' file)' if suffix else ''}; "
                    "nothing was written, name another file"
                )
    if real.is_file() and _is_sqlite(real):
        raise OutputError(f"refusing to write {path}: it is a SQLite database; nothing was written, name another file")
    if real.parent.exists() and not real.parent.is_dir():
        raise OutputError(f"cannot write {path}: {real.parent} is a file, not a folder")
    if not real.parent.is_dir():
        raise OutputError(f"cannot write {path}: folder {real.parent} does not exist")
    return real


@contextlib.contextmanager
def atomic_output(path: Path, *, protect: Iterable[Path] = (), newline: str | None = None) -> Iterator[IO[str]]:
    """A text file handle whose contents replace `path` only if the block completes."""
    shown = Path(path)
    target = check_target(shown, protect)
    if target.exists() and not stat.S_ISREG(target.stat().st_mode):
        with _translated(shown), open(target, "w", encoding="utf-8", newline=newline) as out:
            yield out
        return
    remove_leftovers(target)
    tmp = temporary_name(target)
    try:
        with _translated(shown):
            # 0o666 less the umask, as open() would give; an existing file keeps its mode
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            if target.exists():
                os.chmod(tmp, stat.S_IMODE(target.stat().st_mode))
        with _translated(shown):
            with os.fdopen(fd, "w", encoding="utf-8", newline=newline) as out:
                yield out
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def temporary_name(target: Path) -> Path:
    """Where `target` is built before it is renamed into place: beside it, hidden, named
    with this process's pid so a later writer can tell a leftover from a write in flight."""
    return target.with_name(f".{target.name}.{os.getpid()}-{secrets.token_hex(4)}.tmp")


_LEFTOVER = re.compile(r"\.(?P<name>.+)\.(?P<pid>\d+)-[0-9a-f]{8}\.tmp(?:-wal|-shm|-journal)?")


def remove_leftovers(target: Path) -> list[Path]:
    """Remove the temporary files of earlier writes to `target` whose writer is gone (killed
    mid-write); a write still in flight in another process is left alone. Returns what
    was removed."""
    removed: list[Path] = []
    try:
        siblings = list(target.parent.iterdir())
    except OSError:
        return removed
    for path in siblings:
        found = _LEFTOVER.fullmatch(path.name)
        if found and found["name"] == target.name and not pid_alive(int(found["pid"])):
            with contextlib.suppress(OSError):
                path.unlink()
                removed.append(path)
    return removed


def write_text(path: Path, text: str, *, protect: Iterable[Path] = ()) -> None:
    """Replace `path` with `text` (see `atomic_output`)."""
    with atomic_output(path, protect=protect) as out:
        out.write(text)


@contextlib.contextmanager
def _translated(path: Path) -> Iterator[None]:
    """An OS error while writing becomes one line naming the file."""
    try:
        yield
    except OSError as exc:
        why = "disk full" if exc.errno == errno.ENOSPC else (exc.strerror or str(exc))
        raise OutputError(f"cannot write {path}: {why}; {path} was left as it was") from exc


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def _is_sqlite(path: Path) -> bool:
    """Only called on files that are not our open database (checked before): closing a
    handle on a file this process holds a SQLite connection to would drop its locks."""
    try:
        with open(path, "rb") as f:
            return f.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return False
