"""The record / replay search cache, in front of Tavily on a loopback server."""

from __future__ import annotations

import json

import pytest
import sqlite_utils
from servers import FakeTavily, Reply, Script, llm_config, tavily_results

from clarify_tui.errors import BackendError
from clarify_tui.search.cache import CachedSearch, CacheMissError, export_cache, import_cache, normalise_query
from clarify_tui.services import build_search

KEY = "tvly-test-cache-77"
HITS = [("Hornussen", "https://h", "Hornussen is a Swiss sport."), ("Baseball", "https://b", "Bat and ball.")]


def answer(request):
    if request.path == "/extract":  # the page cannot be fetched
        return Reply(body={"results": [], "failed_results": [{"url": request.json["urls"][0], "error": "x"}]})
    return tavily_results(request.json["query"], HITS)


@pytest.fixture
def tavily(monkeypatch):
    monkeypatch.setenv("TAVILY_API_KEY", KEY)
    with FakeTavily(answer) as srv:
        yield srv
        assert srv.errors == []


@pytest.fixture
def db(tmp_path):
    return sqlite_utils.Database(tmp_path / "clarify.db")


def cached(srv, db, mode="record"):
    return CachedSearch(build_search(llm_config(tavily_url=srv.url)), db, mode)


async def test_record_fills_then_serves_normalised_repeats(tavily, db):
    search = cached(tavily, db)
    assert search.spec == "cache(tavily)"
    first = await search.search("Swiss  striking SPORT", max_results=2)
    again = await search.search("swiss striking sport ", max_results=2)
    assert not first.cached and again.cached
    assert again.hits == first.hits and again.query == "swiss striking sport "
    assert len(tavily.requests) == 1
    await search.search("swiss striking sport", max_results=3)  # other parameters: another entry
    assert len(tavily.requests) == 2
    row = next(db["search_cache"].rows)
    assert row["backend"] == "tavily" and json.loads(row["params"]) == {
        "max_results": 2,
        "search_depth": "basic",
        "topic": "general",
    }
    assert KEY not in json.dumps(list(db["search_cache"].rows))


async def test_replay_with_a_warm_cache_never_calls_tavily(tavily, db):
    await cached(tavily, db).search("swiss striking sport")
    await cached(tavily, db).visit("https://h")
    tavily.set_handler(lambda r: Reply(status=500, body={}))
    replay = cached(tavily, db, "replay")
    result = await replay.search("Swiss striking sport")
    assert result.cached and [h.title for h in result.hits] == ["Hornussen", "Baseball"]
    assert await replay.visit("https://h") is None  # the recorded "could not fetch" replays too
    assert len(tavily.requests) == 2


async def test_replay_miss_is_an_error_naming_the_query(tavily, db):
    replay = cached(tavily, db, "replay")
    with pytest.raises(CacheMissError, match="query 'never searched'") as miss:
        await replay.search("never searched")
    assert isinstance(miss.value, BackendError)  # the engine ends the session errored
    assert tavily.requests == []


async def test_off_passes_through_and_stores_nothing(tavily, db):
    search = cached(tavily, db, "off")
    await search.search("q")
    await search.search("q")
    assert len(tavily.requests) == 2 and db["search_cache"].count == 0


async def test_backend_errors_are_not_cached(tavily, db):
    tavily.set_handler(Script(*[Reply(status=500, body={})] * 3, tavily_results("q", HITS)))
    search = cached(tavily, db)
    with pytest.raises(BackendError):
        await search.search("q")
    assert db["search_cache"].count == 0
    assert len((await search.search("q")).hits) == 2


async def test_export_import_replays_on_a_machine_without_a_key(tavily, db, tmp_path, monkeypatch):
    recorder = cached(tavily, db)
    await recorder.search("swiss striking sport")
    await recorder.search("瑞士 击球 运动")
    path = tmp_path / "cache.jsonl"
    assert export_cache(db, path) == 2
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert {line["query"] for line in lines} == {"swiss striking sport", "瑞士 击球 运动"}

    monkeypatch.delenv("TAVILY_API_KEY")
    elsewhere = sqlite_utils.Database(tmp_path / "other.db")
    assert import_cache(elsewhere, path) == 2
    replay = CachedSearch(build_search(llm_config(search_cache="replay")), elsewhere, "replay")
    result = await replay.search("瑞士 击球 运动")
    assert result.cached and result.hits[0].title == "Hornussen"
    assert len(tavily.requests) == 2


def test_import_rejects_garbage_and_rekeys_entries(tmp_path, db):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"kind": "search"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match="bad.jsonl:1"):
        import_cache(db, bad)
    forged = tmp_path / "forged.jsonl"
    entry = {
        "key": "not-the-real-key",
        "kind": "search",
        "backend": "tavily",
        "query": "Q",
        "params": {"max_results": 5},
        "response": {"hits": []},
    }
    forged.write_text(json.dumps(entry) + "\n", encoding="utf-8")
    import_cache(db, forged)
    assert next(db["search_cache"].rows)["key"] != "not-the-real-key"


def test_normalise_query() -> None:
    assert normalise_query("  Hornussen\tRULES ") == normalise_query("hornussen rules")
    assert normalise_query("ＡＢＣ") == "abc"  # full-width folds to ASCII
