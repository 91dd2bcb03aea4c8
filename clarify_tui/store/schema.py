"""The database file's shape: its tables, the columns added since the first release, its
indexes and schema version, and the checks made before anything is written.

Why apart from the Store's queries: what a file looks like changes rarely and must stay
the same for every reader (old files, `merge`, another process opening the file at the
same moment), while the queries change often. sqlite3 only, no model: opening a store
builds no pydantic models (the TUI's first paint).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from clarify_tui import db_errors
from clarify_tui.errors import StoreError
from clarify_tui.store import run_leases

SCHEMA_VERSION = 1

# The tables as sqlite-utils created them before (same column types, same quoting), so old
# and new files look alike to every reader, merge included.
TABLES = {
    "meta": ('"key" TEXT PRIMARY KEY', '"value" TEXT'),
    "runs": (
        '"name" TEXT PRIMARY KEY',
        '"created_at" TEXT',
        '"benchmark" TEXT',
        '"dataset" TEXT',
        '"agent" TEXT',
        '"user" TEXT',
        '"search" TEXT',
        '"judge" TEXT',
        '"config" TEXT',
        '"provenance" TEXT',
        '"deviations" TEXT',
        '"run_id" TEXT',
    ),
    "tasks": ('"key" TEXT PRIMARY KEY', '"task_id" TEXT', '"protocol" TEXT', '"data" TEXT'),
    "sessions": (
        '"id" TEXT PRIMARY KEY',
        '"run" TEXT',
        '"task_id" TEXT',
        '"task_key" TEXT',
        '"protocol" TEXT',
        '"agent" TEXT',
        '"user" TEXT',
        '"search" TEXT',
        '"search_cache" TEXT',
        '"judge" TEXT',
        '"mode" TEXT',
        '"annotator" TEXT',
        '"status" TEXT',
        '"error" TEXT',
        '"config" TEXT',
        '"result" TEXT',
        '"parent_id" TEXT',
        '"fork_step" INTEGER',
        '"note" TEXT',
        '"created_at" TEXT',
        '"finished_at" TEXT',
        '"counterfactual" TEXT',
        '"epoch" INTEGER',
    ),
    "steps": (
        '"session_id" TEXT',
        '"idx" INTEGER',
        '"actor" TEXT',
        '"kind" TEXT',
        '"input" TEXT',
        '"action" TEXT',
        '"output" TEXT',
        '"tokens_in" INTEGER',
        '"tokens_out" INTEGER',
        '"cost_usd" REAL',
        '"latency_ms" REAL',
        '"model" TEXT',
        '"error" TEXT',
        '"state" TEXT',
        '"created_at" TEXT',
        '"retries" INTEGER',
        '"retry_cause" TEXT',
        'PRIMARY KEY ("session_id", "idx")',
    ),
    "judgments": (
        '"id" INTEGER PRIMARY KEY',
        '"session_id" TEXT',
        '"judge" TEXT',
        '"kind" TEXT',
        '"verdict" TEXT',
        '"created_at" TEXT',
    ),
}
# columns added after the first release: older files lack them
ADDED_COLUMNS = {
    "sessions": (("search_cache", "TEXT"), ("counterfactual", "TEXT"), ("epoch", "INTEGER")),
    "steps": (("retries", "INTEGER"), ("retry_cause", "TEXT")),
    "runs": (
        ("provenance", "TEXT"),
        ("deviations", "TEXT"),  # deviations: JSON list (deviations.py)
        ("run_id", "TEXT"),
    ),
}
INDEXES = {
    "idx_sessions_run_task_id": ("sessions", '"run", "task_id"'),
    "idx_judgments_session_id": ("judgments", '"session_id"'),
}


def columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in conn.execute(f'PRAGMA table_info("{table}")')}


def check(conn: sqlite3.Connection, path: Path, existing: bool) -> None:
    """Refuse, before anything is written, a newer schema, another application's
    database, and (`existing`: for readers) a file with no tables at all."""
    why = db_errors.foreign(conn, path)
    if why:
        raise StoreError(why)
    if existing and not conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchone():
        raise StoreError(f"{path} holds no clarify-tui data (an empty file); nothing was changed, pass --db FILE")
    version = db_errors.schema_version(conn)
    if version is not None and version > SCHEMA_VERSION:
        raise StoreError(
            f"{path} has schema version {version}; this clarify-tui knows {SCHEMA_VERSION}. "
            "Upgrade clarify-tui (nothing was changed)."
        )


def create(conn: sqlite3.Connection, columns_of: Callable[[str], set[str]]) -> None:
    """The tables, the added columns an older file lacks, the version and the indexes
    (`columns_of(table)`: the columns a table has now)."""
    for table, cols in TABLES.items():
        conn.execute(f'CREATE TABLE IF NOT EXISTS "{table}" (\n   ' + ",\n   ".join(cols) + "\n)")
    for table, added in ADDED_COLUMNS.items():
        have = columns_of(table)
        for column, kind in added:
            if column not in have:
                try:
                    conn.execute(f'ALTER TABLE "{table}" ADD COLUMN "{column}" {kind}')
                except sqlite3.OperationalError as exc:  # another process opening the file added it first
                    if "duplicate column name" not in str(exc):
                        raise
    # written on every writable open: a file another process holds locked fails here, at once
    with conn:
        conn.execute(
            'INSERT INTO "meta" ("key", "value") VALUES (?, ?) '
            'ON CONFLICT ("key") DO UPDATE SET "value" = excluded."value"',
            ["schema_version", str(SCHEMA_VERSION)],
        )
    run_leases.ensure_table(conn)
    for name, (table, indexed) in INDEXES.items():
        conn.execute(f'CREATE INDEX IF NOT EXISTS "{name}"\n    ON "{table}" ({indexed})')
    conn.commit()
