"""What can be wrong with a database file, said in one line before anything is changed.

Why a module of its own: every command opens the same SQLite file, and a bad file (a
directory, not SQLite, read-only, newer schema, locked, disk full) must end the same way
everywhere: a `StoreError` whose message names the file and the problem, which the CLI
prints as one line with exit code 2. Checks that can be made without writing are made
before the first write (WAL is switched on only after the schema version was read).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import quote

from clarify_tui.errors import StoreError

BUSY_TIMEOUT_S = 5.0


def preflight(path: Path, readonly: bool) -> None:
    """Refuse a path that cannot be our database, without creating or touching it."""
    if path.is_dir():
        raise StoreError(f"{path} is a directory, not a database file; pass --db FILE")
    if not path.exists():
        if readonly:
            raise StoreError(f"no database at {path} (run something first, or pass --db)")
        parent = _existing_parent(path)
        if not parent.is_dir():
            raise StoreError(f"cannot create {path}: {parent} is a file, not a folder")
        if not os.access(parent, os.W_OK | os.X_OK):
            raise StoreError(f"cannot create {path}: {parent} is not writable")
        return
    if not os.access(path, os.R_OK):
        raise StoreError(f"{path} is not readable (permission denied)")
    # Not SQLite is found by SQLite itself on the first read (Store._check_version), never
    # by opening the file here: closing any descriptor of a file drops every POSIX lock
    # this process holds on it, including a live connection's, which can corrupt it.
    if not readonly and not writable(path):
        raise StoreError(
            f"{path} is read-only; commands that only read it (score, sessions, export, replay) still work"
        )


def writable(path: Path) -> bool:
    """Can we write the file and the WAL files beside it?"""
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK | os.X_OK)


def _existing_parent(path: Path) -> Path:
    parent = path.parent.absolute()
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    return parent


def connect(path: str | Path, readonly: bool) -> sqlite3.Connection:
    """A connection usable from any thread (callers serialise), with a 5 s busy timeout."""
    if str(path) == ":memory:":
        return sqlite3.connect(":memory:", check_same_thread=False)
    if readonly:
        return _connect_readonly(Path(path))
    return sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_S, check_same_thread=False)


def _connect_readonly(path: Path) -> sqlite3.Connection:
    """mode=ro; in a directory we may not write, a WAL file cannot get its -shm index, so
    read it as immutable — safe only when no -wal file holds changes (then say so)."""
    base = f"file:{quote(str(path.absolute()))}?mode=ro"
    conn = sqlite3.connect(base, uri=True, timeout=BUSY_TIMEOUT_S, check_same_thread=False)
    try:
        conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
        return conn
    except sqlite3.OperationalError:
        conn.close()
        if os.access(path.parent, os.W_OK | os.X_OK):
            raise
    wal = path.with_name(path.name + "-wal")
    if wal.exists() and wal.stat().st_size > 0:
        raise StoreError(
            f"{path} is in a read-only folder and its {wal.name} holds changes not yet in the file; "
            "copy both somewhere writable to read them"
        )
    return sqlite3.connect(base + "&immutable=1", uri=True, check_same_thread=False)


def retry_locked(step: Callable[[], None], budget: float | None = None, also: tuple[str, ...] = ()) -> None:
    """Run `step`, retrying while SQLite says locked, for up to `budget` seconds (the busy
    timeout, read at call time, when not given).

    Two processes opening a new file at once can each hold a read lock while wanting to
    write (switching on WAL, creating tables); SQLite then answers one of them "locked" at
    once instead of waiting, so the busy timeout alone does not help."""
    deadline = time.monotonic() + (BUSY_TIMEOUT_S if budget is None else budget)
    pause = 0.02
    while True:
        try:
            step()
            return
        except sqlite3.OperationalError as exc:
            text = str(exc).lower()
            if not any(word in text for word in ("locked", *also)) or time.monotonic() + pause > deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.5)


def describe(exc: BaseException, path: Path) -> str:
    """One line for a sqlite3 or OS error met while using `path`."""
    text = str(exc)
    low = text.lower()
    if "locked" in low or "busy" in low:
        return f"{path} is locked by another process (waited {BUSY_TIMEOUT_S:g} s); try again when it is done"
    if "disk is full" in low or "disk i/o error" in low or getattr(exc, "errno", None) == 28:
        return f"cannot write {path}: disk full or failing ({text}); finished sessions are kept, resume later"
    if "readonly" in low or "read-only" in low:
        return f"{path} is read-only; commands that only read it (score, sessions, export, replay) still work"
    if "not a database" in low:
        return f"{path} is not a SQLite database ({text}); nothing was changed"
    if "malformed" in low:
        return f"{path} is a damaged SQLite database ({text}); try `sqlite3 {path} .recover`"
    if "unable to open" in low:
        return f"cannot open {path} ({text}); check the path and its permissions"
    return f"database error in {path}: {text}"


@contextlib.contextmanager
def translated(path: Path) -> Iterator[None]:
    """Turn sqlite3 and OS errors into a StoreError naming `path`."""
    try:
        yield
    except StoreError:
        raise
    except (sqlite3.Error, OSError) as exc:
        raise StoreError(describe(exc, path)) from exc


OWN_TABLES = frozenset(
    {
        "meta",
        "runs",
        "tasks",
        "sessions",
        "steps",
        "judgments",
        "search_cache",
        "run_leases",
        "claims",
        "campaigns",
        "work_queues",
        "work_items",
        "work_answers",
        "work_drafts",
        "audit_comparisons",
        "work_shown",
    }
)


def foreign(conn: sqlite3.Connection, path: Path) -> str | None:
    """Why the SQLite file is not ours (another application's tables), or None. Read-only:
    `score` or `sessions` pointed at another program's database must not add our tables to it."""
    names = sorted(
        r[0]
        for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
        if not r[0].startswith("sqlite_")
    )  # SQLite's own (sqlite_sequence, sqlite_stat1)
    marked = "meta" in names and schema_version(conn) is not None or {"sessions", "steps"} <= set(names)
    ours = marked or set(names) <= OWN_TABLES  # e.g. a file that only ever held a lease or claims
    if not names or ours:
        return None
    shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    return (
        f"{path} is another application's SQLite database (tables: {shown}), not a clarify-tui database; "
        "nothing was changed, pass --db FILE"
    )


def refuse_foreign(path: Path) -> None:
    """StoreError when the existing file at `path` cannot be read as SQLite or is another
    application's database (`foreign`); read-only, nothing is written."""
    if not path.exists():
        return
    with translated(path):
        conn = connect(path, readonly=True)
        try:
            conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
            why = foreign(conn, path)
            if why:
                raise StoreError(why)
        finally:
            conn.close()


def schema_version(conn: sqlite3.Connection) -> int | None:
    """The stored schema version, read without writing anything (None for a new file)."""
    has_meta = conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'").fetchone()
    if not has_meta:
        return None
    row = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
    return int(row[0]) if row and str(row[0]).isdigit() else None


@contextlib.contextmanager
def snapshot(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One read transaction around several SELECTs, so they all see the same database.

    Why: a reader running its queries one by one (sessions, then their steps, then their
    difficulty) saw a session another process wrote in between in the later queries only
    (60 campaign visitors starting together: `KeyError` in metrics/records.py). In WAL
    mode a transaction reads one snapshot from its first SELECT on, and never blocks a
    writer. Inside a transaction the caller already opened, that one is the snapshot."""
    if conn.in_transaction:
        yield conn
        return
    conn.execute("BEGIN")
    try:
        yield conn
    finally:
        if conn.in_transaction:  # nothing was written: ending it only lets the snapshot go
            conn.execute("COMMIT")
