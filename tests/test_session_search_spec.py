"""A session records its search backend and its cache mode apart (`search` = local, not
`cache(local)`), and rows written before that read the same way."""

from __future__ import annotations

import json

from clarify_tui.cli import main
from clarify_tui.models import Session
from clarify_tui.store import Store


def test_backend_and_cache_mode_are_recorded_apart(tmp_path):
    db = tmp_path / "s.db"
    assert (
        main(
            [
                "run",
                "--benchmark",
                "interactcomp",
                "--dataset",
                "demo",
                "--agent",
                "scripted:search-then-ask",
                "--db",
                str(db),
                "--run",
                "rec",
                "--limit",
                "1",
            ]
        )
        == 0
    )
    assert (
        main(
            [
                "run",
                "--benchmark",
                "interactcomp",
                "--dataset",
                "demo",
                "--agent",
                "scripted:search-then-ask",
                "--db",
                str(db),
                "--run",
                "rep",
                "--limit",
                "1",
                "--search-cache",
                "replay",
            ]
        )
        == 0
    )
    store = Store(db)
    [rec] = store.sessions(runs=["rec"])
    [rep] = store.sessions(runs=["rep"])
    assert (rec.search, rec.search_cache) == ("local", "record")
    assert (rep.search, rep.search_cache) == ("local", "replay")
    rows = {r["run"]: r for r in store.db.query("SELECT run, search, search_cache FROM sessions")}
    assert (rows["rec"]["search"], rows["rec"]["search_cache"]) == ("local", "record")


def test_an_older_row_with_the_cache_wrapper_reads_apart(tmp_path):
    db = tmp_path / "old.db"
    store = Store(db)
    session = Session(run="old", task_id="t", protocol="interactcomp", agent="a", user="rule", search="local")
    store.update_session(session)
    store.db.execute("UPDATE sessions SET search = 'cache(tavily)', search_cache = NULL")
    store.db.conn.commit()
    [old] = Store(db).sessions()
    assert (old.search, old.search_cache) == ("tavily", "on")
    assert json.loads(old.model_dump_json())["search"] == "tavily"
