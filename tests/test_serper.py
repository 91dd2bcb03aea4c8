"""`--search serper`: Google's organic results through Serper, as the InteractComp reference
searches (core/engine/search.py:38-72), against a loopback Serper-compatible server."""

from __future__ import annotations

import sqlite3

import pytest
import sqlite_utils
from servers import LoopbackServer, Reply, Script, llm_config

from clarify_tui.cli import main
from clarify_tui.errors import BackendError
from clarify_tui.search.cache import CachedSearch
from clarify_tui.services import build_search

KEY = "serper-secret-4242"
ORGANIC = [
    {"title": f"Page {i}", "link": f"https://p{i}.example", "snippet": f"Snippet {i}.", "position": i}
    for i in range(1, 8)
]


def organic(request) -> Reply:
    return Reply(body={"searchParameters": {"q": request.json["q"]}, "organic": ORGANIC})


@pytest.fixture
def serper(monkeypatch):
    monkeypatch.setenv("SERPER_API_KEY", KEY)
    with LoopbackServer(organic) as srv:
        yield srv
        assert srv.errors == []


def config(srv, **serper):
    return llm_config(
        serper={"base_url": srv.url, "max_retries": 2, "backoff_initial": 0.01, "backoff_max": 0.05, **serper}
    )


async def test_a_search_posts_q_with_the_key_header_and_keeps_the_top_5_organic_results(serper):
    backend = build_search(config(serper), spec="serper")
    result = await backend.search("swiss striking sport")
    [request] = serper.requests
    assert request.path == "/search" and request.json == {"q": "swiss striking sport"}  # the query alone
    assert request.headers["x-api-key"] == KEY
    assert [(h.title, h.url, h.content) for h in result.hits] == [
        (f"Page {i}", f"https://p{i}.example", f"Snippet {i}.") for i in range(1, 6)
    ]
    assert result.usage.model == "serper" and await backend.visit("https://p1.example") is None
    assert KEY not in repr(backend)


async def test_searches_are_recorded_and_replayed_and_the_key_is_never_stored(serper, tmp_path):
    db = sqlite_utils.Database(tmp_path / "c.db")
    search = CachedSearch(build_search(config(serper), spec="serper"), db, "record")
    assert search.spec == "cache(serper)"
    first = await search.search("Swiss striking SPORT")
    again = await search.search("swiss striking sport")
    assert again.cached and again.hits == first.hits and len(serper.requests) == 1
    replay = CachedSearch(build_search(config(serper), environ={}, cache_mode="replay", spec="serper"), db, "replay")
    assert (await replay.search("swiss striking sport")).hits == first.hits and len(serper.requests) == 1
    assert KEY not in "\n".join(sqlite3.connect(tmp_path / "c.db").iterdump())


async def test_server_errors_are_retried_then_raised_and_a_bad_key_fails_at_once(serper):
    serper.set_handler(Script(Reply(status=500, body={}), organic))
    assert len((await build_search(config(serper), spec="serper").search("q")).hits) == 5
    serper.set_handler(lambda r: Reply(status=503, body={"message": "down"}))
    with pytest.raises(BackendError, match=r"serper search 'q' at http://127\.0\.0\.1:\d+ failed after 3 attempt"):
        await build_search(config(serper), spec="serper").search("q")
    before = len(serper.requests)
    serper.set_handler(lambda r: Reply(status=403, body={"message": "Unauthorized."}))
    with pytest.raises(BackendError, match="HTTP 403"):
        await build_search(config(serper), spec="serper").search("q")
    assert len(serper.requests) == before + 1


def test_run_without_a_key_is_one_clean_line(monkeypatch, tmp_path, capsys):
    monkeypatch.delenv("SERPER_API_KEY", raising=False)
    code = main(
        [
            "run",
            "--benchmark",
            "interactcomp",
            "--agent",
            "scripted:search-heavy-guess",
            "--search",
            "serper",
            "--db",
            str(tmp_path / "x.db"),
            "--limit",
            "1",
        ]
    )
    err = capsys.readouterr().err
    assert code != 0 and "Traceback" not in err
    assert "--search serper needs an API key: set SERPER_API_KEY" in " ".join(err.split())
    assert not (tmp_path / "x.db").exists()


def test_a_run_searches_through_serper_base_url_and_stores_no_key(serper, monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("SERPER_BASE_URL", serper.url)
    db = tmp_path / "run.db"
    assert (
        main(
            [
                "run",
                "--benchmark",
                "interactcomp",
                "--agent",
                "scripted:search-heavy-guess",
                "--search",
                "serper",
                "--db",
                str(db),
                "--limit",
                "2",
                "--run",
                "s",
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert serper.requests and all(r.path == "/search" and set(r.json) == {"q"} for r in serper.requests)
    conn = sqlite3.connect(db)
    assert KEY not in "\n".join(conn.iterdump())
    assert {row[0] for row in conn.execute("SELECT backend FROM search_cache")} == {"serper"}
    from clarify_tui.store import Store

    store = Store(db)
    searched = [st for sess in store.sessions() for st in store.steps(sess.id) if st.action.kind.value == "search"]
    assert searched and all(
        [h.url for h in st.observation.hits] == [f"https://p{i}.example" for i in range(1, 6)] for st in searched
    )
