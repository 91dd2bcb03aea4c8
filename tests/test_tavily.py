"""Tavily search through the real tavily-python client against a loopback /search."""

from __future__ import annotations

import pytest
from servers import FakeTavily, Reply, Script, error, llm_config, tavily_results

from clarify_tui.config import ConfigError, load_config
from clarify_tui.errors import BackendError
from clarify_tui.services import build_search

KEY = "tvly-test-DO-NOT-LEAK-99"
HITS = [
    ("Hornussen", "https://en.wikipedia.org/wiki/Hornussen", "Hornussen is a Swiss sport."),
    ("Baseball", "https://en.wikipedia.org/wiki/Baseball", "Baseball is a bat-and-ball game."),
]


@pytest.fixture
def tavily(monkeypatch):
    monkeypatch.setenv("TAVILY_API_KEY", KEY)
    with FakeTavily(Script()) as srv:
        yield srv
        assert srv.errors == []


def search_backend(srv, **tavily_settings):
    return build_search(llm_config(tavily_url=srv.url, tavily=tavily_settings))


async def test_search_maps_results_and_sends_settings(tavily):
    tavily.set_handler(Script(lambda r: tavily_results(r.json["query"], HITS)))
    backend = search_backend(tavily, search_depth="advanced", cost_per_search=0.016)
    result = await backend.search("swiss striking sport", max_results=2)
    assert [h.title for h in result.hits] == ["Hornussen", "Baseball"]
    assert result.hits[0].url == HITS[0][1] and result.hits[0].score == 0.9
    assert result.usage.cost_usd == 0.016 and result.usage.model == "tavily"
    [request] = tavily.requests
    assert request.path == "/search"
    assert request.json["query"] == "swiss striking sport" and request.json["max_results"] == 2
    assert (request.json["search_depth"], request.json["topic"]) == ("advanced", "general")
    assert request.headers["authorization"] == f"Bearer {KEY}"


async def test_tavily_base_url_comes_from_the_environment(tavily, monkeypatch, tmp_path):
    monkeypatch.setenv("TAVILY_BASE_URL", tavily.url)
    monkeypatch.chdir(tmp_path)  # no clarify.toml here
    tavily.set_handler(Script(tavily_results("q", HITS[:1])))
    result = await build_search(load_config()).search("q")
    assert len(result.hits) == 1 and len(tavily.requests) == 1


async def test_429_then_success(tavily):
    tavily.set_handler(Script(error(429, "rate limited"), tavily_results("q", HITS)))
    result = await search_backend(tavily).search("q")
    assert len(result.hits) == 2 and len(tavily.requests) == 2


async def test_500_until_retries_run_out(tavily):
    tavily.set_handler(lambda r: error(503, "down"))
    with pytest.raises(BackendError, match=r"tavily search 'q' .* after 3 attempt\(s\): HTTP 503"):
        await search_backend(tavily).search("q")
    assert len(tavily.requests) == 3


async def test_bad_key_is_not_retried(tavily):
    tavily.set_handler(lambda r: Reply(status=401, body={"detail": {"error": "Unauthorized"}}))
    with pytest.raises(BackendError, match="invalid API key") as failure:
        await search_backend(tavily).search("q")
    assert len(tavily.requests) == 1
    assert KEY not in str(failure.value)


async def test_slow_server_hits_the_timeout(tavily):
    tavily.set_handler(lambda r: Reply(body={"results": []}, delay=2.0))
    with pytest.raises(BackendError, match="timed out"):
        await search_backend(tavily, timeout=0.2, max_retries=1).search("q")
    assert len(tavily.requests) == 2


async def test_connection_refused_is_retried_then_backend_error(monkeypatch):
    monkeypatch.setenv("TAVILY_API_KEY", KEY)
    with FakeTavily(Script()) as srv:
        url = srv.url
    backend = build_search(llm_config(tavily_url=url, tavily={"max_retries": 1}))
    with pytest.raises(BackendError, match=r"after 2 attempt\(s\): Connect"):
        await backend.search("q")


async def test_visit_uses_extract(tavily):
    tavily.set_handler(
        Script(
            Reply(body={"results": [{"url": "https://x", "raw_content": "Full page text."}], "failed_results": []}),
            Reply(body={"results": [], "failed_results": [{"url": "https://y", "error": "blocked"}]}),
        )
    )
    backend = search_backend(tavily)
    assert await backend.visit("https://x") == "Full page text."
    assert await backend.visit("https://y") is None
    assert tavily.requests[0].path == "/extract" and tavily.requests[0].json["urls"] == ["https://x"]


def test_missing_key_is_a_config_error_unless_replaying(monkeypatch):
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="TAVILY_API_KEY"):
        build_search(llm_config())
    assert build_search(llm_config(search_cache="replay")).spec == "tavily"
