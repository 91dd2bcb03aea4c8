"""Reads of several queries see one snapshot of the database (db_errors.snapshot).

Why: 60 campaign visitors starting together crashed 5 apps: `load_sessions` read the
sessions, then their DiscoBench difficulty in a second query, and a session another
visitor created in between was in the second answer only (`KeyError`). The race is made
deterministic here: a connection that lets another process's write land right after the
first query of a read.
"""

from __future__ import annotations

import sqlite3

from clarify_tui.campaign.claims import Campaign, ClaimBook
from clarify_tui.campaign.status import campaign_status
from clarify_tui.metrics.records import load_sessions
from clarify_tui.models import Session
from clarify_tui.store import Store
from tests.conftest import DISCO

RUN = "camp"
TASK = DISCO.model_copy(update={"discobench": DISCO.discobench.model_copy(update={"difficulty": "hard"})})


def disco_session(who: str, status: str = "running") -> Session:
    return Session(
        run=RUN,
        task_id=TASK.id,
        protocol=TASK.protocol,
        agent="human",
        user="rule",
        search="local",
        judge="rule",
        mode="human_agent",
        annotator=who,
        status=status,
    )


def racing(path, write_after: str, write) -> type[sqlite3.Connection]:
    """A connection class whose first query starting with `write_after` is followed, once,
    by `write()` on another connection (another visitor's process)."""

    class Racing(sqlite3.Connection):
        fired = False

        def execute(self, sql, *args):  # type: ignore[override]
            cursor = super().execute(sql, *args)
            if not Racing.fired and sql.lstrip().startswith(write_after):
                Racing.fired = True
                write()
            return cursor

    return Racing


def test_a_session_written_between_two_queries_of_load_sessions_is_in_none_of_them(tmp_path):
    db = tmp_path / "c.db"
    store = Store(db)
    store.start_session(disco_session("ana"), TASK)
    other = Store(db)  # another process's connection

    def another_visitor_arrives() -> None:
        other.start_session(disco_session("bob"), TASK)

    conn = sqlite3.connect(db, factory=racing(db, "SELECT id, run, task_id", another_visitor_arrives))
    sessions = load_sessions(conn, runs=[RUN])  # before: KeyError on bob's session in the difficulty query
    assert [s.annotator for s in sessions] == ["ana"]
    assert sessions[0].difficulty == "hard"
    assert conn.in_transaction is False  # the snapshot is let go: the next read sees bob
    assert sorted(s.annotator for s in load_sessions(conn, runs=[RUN])) == ["ana", "bob"]
    conn.close()
    other.close()
    store.close()


def test_load_sessions_through_a_store_keeps_its_writes_working(tmp_path):
    """A Store's own connection: the snapshot ends, and the store writes (and commits) after it."""
    store = Store(tmp_path / "c.db")
    store.start_session(disco_session("ana"), TASK)
    assert [s.annotator for s in load_sessions(store, runs=[RUN])] == ["ana"]
    assert not store.conn.in_transaction
    store.start_session(disco_session("bob"), TASK)
    fresh = Store(tmp_path / "c.db")
    assert sorted(s.annotator for s in load_sessions(fresh, runs=[RUN])) == ["ana", "bob"]
    fresh.close()
    store.close()


def test_queue_status_reads_claims_and_sessions_of_one_moment(tmp_path, monkeypatch):
    """A visitor finishing its task between the claims query and the sessions query was
    counted twice by `queue status`: in progress by its live claim (first query) and done
    by its completed session (later query). One snapshot sees it in progress only."""
    db = tmp_path / "c.db"
    store = Store(db)
    book = ClaimBook(db, Campaign(run=RUN, task_ids=[TASK.id], per_task=1))
    book.register()
    assert book.claim_next("ana").task_id == TASK.id
    session = disco_session("ana")
    store.start_session(session, TASK)

    def ana_finishes() -> None:
        session.status = "completed"
        store.finish_session(session)
        book.conn.execute("UPDATE claims SET state='done' WHERE annotator='ana'")

    from clarify_tui.campaign import status

    opened = status.read_only
    monkeypatch.setattr(
        status,
        "read_only",
        lambda path: sqlite3.connect(
            f"file:{path}?mode=ro",
            uri=True,
            factory=racing(path, "SELECT annotator, task_id FROM claims", ana_finishes),
        ),
    )
    report = campaign_status(db, RUN, [TASK.id], 1)
    ana = report["annotators"][0]
    assert (ana["done"], ana["in_progress"]) == (0, 1)
    monkeypatch.setattr(status, "read_only", opened)
    ana = campaign_status(db, RUN, [TASK.id], 1)["annotators"][0]
    assert (ana["done"], ana["in_progress"]) == (1, 0)
    book.close()
    store.close()
