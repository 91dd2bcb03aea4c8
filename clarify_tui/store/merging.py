"""The SQL of `clarify-tui merge` (campaign/merge.py decides what is merged and how it is
matched; campaign/run_identity.py which runs are one): reading the input files, writing
the output in one transaction.

Why here: the store speaks all SQL on the sessions database. The files are opened on
their own connections (inputs read-only, rows as sqlite3.Row), never through a Store:
a merge reads several files and writes a new one.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from clarify_tui import db_errors
from clarify_tui.errors import StoreError, UsageError
from clarify_tui.store.claims import read_only
from clarify_tui.store.schema import SCHEMA_VERSION


def open_input(path: Path) -> sqlite3.Connection:
    """`path` opened read-only; any problem is one line naming `path` (not the --db)."""
    if not path.is_file():
        raise FileNotFoundError(f"no database at {path}" + (" (it is a directory)" if path.is_dir() else ""))
    with db_errors.translated(path):
        conn = read_only(path)
    conn.row_factory = sqlite3.Row
    try:
        conn.execute("SELECT 1 FROM sessions LIMIT 1")
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise UsageError(f"{path} is not a clarify-tui database ({exc})") from None
    version = db_errors.schema_version(conn)
    if version is not None and version > SCHEMA_VERSION:  # its columns may mean what we cannot tell: merged blind
        conn.close()
        raise StoreError(
            f"{path} has schema version {version}; this clarify-tui knows {SCHEMA_VERSION}. "
            "Upgrade clarify-tui (nothing was merged)."
        )
    return conn


def open_output(path: Path) -> sqlite3.Connection:
    """The output's connection: autocommit (the merge's one transaction is `writing`), rows as sqlite3.Row."""
    dest = sqlite3.connect(str(path), timeout=60, isolation_level=None)
    dest.row_factory = sqlite3.Row
    return dest


@contextmanager
def writing(dest: sqlite3.Connection, one_file: bool) -> Iterator[None]:
    """One write transaction (BEGIN IMMEDIATE ... COMMIT, rolled back on any error);
    `one_file`: then leave WAL mode, so the file alone holds the data (it is renamed into
    place; the next Store turns WAL on again)."""
    try:
        dest.execute("BEGIN IMMEDIATE")
        yield
        dest.execute("COMMIT")
        if one_file:
            dest.execute("PRAGMA journal_mode=DELETE")
    except BaseException:
        if dest.in_transaction:
            dest.execute("ROLLBACK")
        raise


# ---- reading ---------------------------------------------------------------------------


def tables(conn: sqlite3.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def _rows(conn: sqlite3.Connection, sql: str, params: Sequence = ()) -> list[dict]:
    return [dict(r) for r in conn.execute(sql, params)]


def all_rows(conn: sqlite3.Connection, table: str) -> list[dict]:
    return _rows(conn, f'SELECT * FROM "{table}"')


def session(conn: sqlite3.Connection, session_id: str) -> dict | None:
    found = _rows(conn, "SELECT * FROM sessions WHERE id=?", [session_id])
    return found[0] if found else None


def steps(conn: sqlite3.Connection, session_id: str) -> list[dict]:
    return _rows(conn, "SELECT * FROM steps WHERE session_id=? ORDER BY idx", [session_id])


def judgments(conn: sqlite3.Connection, session_id: str) -> list[dict]:
    return _rows(conn, "SELECT * FROM judgments WHERE session_id=?", [session_id])


def session_ids(conn: sqlite3.Connection) -> list[str]:
    """Every session id, oldest first."""
    return [sid for (sid,) in conn.execute("SELECT id FROM sessions ORDER BY created_at, id").fetchall()]


def has_session(conn: sqlite3.Connection, session_id: str) -> bool:
    return conn.execute("SELECT 1 FROM sessions WHERE id=?", [session_id]).fetchone() is not None


def task_keys(conn: sqlite3.Connection) -> list[tuple[str, str, str]]:
    """(key, task id, protocol) of every task snapshot."""
    return [(r[0], r[1], r[2]) for r in conn.execute("SELECT key, task_id, protocol FROM tasks")]


def run_rows(conn: sqlite3.Connection) -> list[dict]:
    """Every runs row (none in a file without a runs table)."""
    if not conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='runs'").fetchone():
        return []
    return [dict(r) for r in conn.execute("SELECT * FROM runs")]


def session_runs(conn: sqlite3.Connection) -> list[tuple[str, str, str | None, str | None]]:
    """(id, run, annotator, created_at) of every session."""
    return [(r[0], r[1], r[2], r[3]) for r in conn.execute("SELECT id, run, annotator, created_at FROM sessions")]


# ---- writing ---------------------------------------------------------------------------


def _columns(dest: sqlite3.Connection, table: str) -> set[str]:
    return {r[1] for r in dest.execute(f"PRAGMA table_info({table})")}


def _ensure_columns(dest: sqlite3.Connection, table: str, row: dict, key: Sequence[str] = ()) -> None:
    """A column the input has and the output lacks (a newer file) is added, not dropped."""
    if not _columns(dest, table):
        names = ", ".join(f'"{c}"' for c in row)
        keys = ", ".join(f'"{c}"' for c in key)
        dest.execute(f'CREATE TABLE "{table}" ({names}{", PRIMARY KEY (" + keys + ")" if keys else ""})')
        return
    for column in set(row) - _columns(dest, table):
        dest.execute(f'ALTER TABLE "{table}" ADD COLUMN "{column}"')


def insert(
    dest: sqlite3.Connection,
    table: str,
    row: dict,
    ignore: bool = False,
    key: Sequence[str] = (),
    replace: bool = False,
) -> int:
    """Write the row (a table the output lacks is created with primary key `key`);
    how many rows were written (0: `ignore` and its key was there). `replace`: the row
    takes the place of the one holding its key (a longer draft than the output's)."""
    _ensure_columns(dest, table, row, key)
    names = ", ".join(f'"{c}"' for c in row)
    marks = ", ".join("?" for _ in row)
    verb = "INSERT OR REPLACE" if replace else "INSERT OR IGNORE" if ignore else "INSERT"
    return dest.execute(f'{verb} INTO "{table}" ({names}) VALUES ({marks})', list(row.values())).rowcount


def insert_judgment(dest: sqlite3.Connection, judgment: dict) -> int:
    """Write the judgment unless one with the same content is there; its local id is dropped."""
    row = {k: v for k, v in judgment.items() if k != "id"}
    _ensure_columns(dest, "judgments", row)
    match = " AND ".join(f'"{c}" IS ?' for c in row)
    if dest.execute(f"SELECT 1 FROM judgments WHERE {match}", list(row.values())).fetchone():
        return 0
    return insert(dest, "judgments", row)
