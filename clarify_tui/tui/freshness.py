"""Whether the database changed since a screen read it: a screen built ahead of its
opening (F2, F3) reads it again at the opening only then."""

from __future__ import annotations


def data_mark(store) -> tuple[int, int]:
    """Changes whenever the store's database does: rows this connection changed
    (`total_changes`) and commits by any other connection or process (`data_version`)."""
    conn = store.conn
    return conn.total_changes, conn.execute("PRAGMA data_version").fetchone()[0]
