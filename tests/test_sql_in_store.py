"""Issue 32: the store speaks all SQL on the sessions database; the search index keeps its own.

A statement written anywhere else (a campaign module reading `claims`, a metric reading
`sessions`) fails here: give it a name in `clarify_tui/store/` (store/claims.py,
store/scoring.py, ...) and call that. The few files allowed outside say why.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "clarify_tui"
SQL = re.compile(
    r"\b(SELECT|INSERT|UPDATE|DELETE FROM|CREATE (TABLE|INDEX)|ALTER TABLE|PRAGMA)\b"
    r"|\.(execute|executemany|executescript)\("
)
OWNERS = ("store", "search")  # the sessions database's statements; the search index's own
ALLOWED = {
    # below the Store: it probes a file before any Store opens it (the TUI refuses a foreign
    # file before its first paint without importing the store) and the Store itself calls
    # it to connect, to refuse another application's file and to read the schema version;
    # it reads SQLite's catalogue (sqlite_master) and that version row, no table of ours
    "db_errors.py",
}


def sql_outside_the_store(root: Path = ROOT) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if rel.parts[0] in OWNERS or rel.as_posix() in ALLOWED:
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if SQL.search(line):
                found.append(f"clarify_tui/{rel.as_posix()}:{n}: {line.strip()}")
    return found


def test_no_sql_outside_the_store_and_the_search_index():
    found = sql_outside_the_store()
    assert not found, "name the query in clarify_tui/store/ and call it:\n" + "\n".join(found)


def test_the_check_sees_a_statement_and_a_connection_call(tmp_path):
    """The pattern catches what it must (else the test above could never fail)."""
    assert SQL.search('rows = conn.execute("SELECT id FROM sessions WHERE run=?", [run])')
    assert SQL.search('    f"UPDATE claims SET holder=NULL WHERE run=? AND holder=?",')
    assert SQL.search("cursor.executemany(sql, rows)")
    assert not SQL.search("for widget in self.query(ActionForm):")  # a Textual DOM query is not SQL
    module = tmp_path / "clarify_tui" / "metrics" / "sneaky.py"
    module.parent.mkdir(parents=True)
    module.write_text('def n(conn):\n    return conn.execute("SELECT COUNT(*) FROM steps").fetchone()[0]\n')
    store = tmp_path / "clarify_tui" / "store" / "fine.py"
    store.parent.mkdir(parents=True)
    store.write_text(module.read_text())
    assert sql_outside_the_store(tmp_path / "clarify_tui") == [
        'clarify_tui/metrics/sneaky.py:2: return conn.execute("SELECT COUNT(*) FROM steps").fetchone()[0]'
    ]
