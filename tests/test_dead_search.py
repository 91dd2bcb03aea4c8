"""A dead search endpoint stops the run like a dead model endpoint (issue 22, "Exit codes
and dead endpoints"; docs/runs.md "Dead endpoints"): Tavily or Serper servers on
127.0.0.1 that accept and never answer, or answer 500 every time."""

from __future__ import annotations

import time

import pytest
from servers import FakeOpenAI, FakeTavily, LoopbackServer, Reply, llm_config, tavily_results

from clarify_tui.breaker import Breaker, reset_all
from clarify_tui.cli import main
from clarify_tui.errors import BackendError, EndpointDown
from clarify_tui.services import build_judge, build_search
from clarify_tui.store import Store

DEMO_TASKS = 11
TAVILY_KEY = "tvly-secret-7777"
SERPER_KEY = "serper-secret-8888"
HITS = [("Hornussen", "https://example.org/hornussen", "A Swiss team sport: a puck struck with a whip.")]


def _hangs(request) -> Reply:
    """Reads the request and sits on it far past the client's 0.2 s timeout."""
    return Reply(status=200, body={}, delay=5)


def _fails(request) -> Reply:
    return Reply(status=500, body={"message": "internal error"})


def _tavily_ok(request) -> Reply:
    return tavily_results(request.json.get("query", ""), HITS)


def _serper_ok(request) -> Reply:
    return Reply(body={"organic": [{"title": t, "link": u, "snippet": c} for t, u, c in HITS]})


def _run(db, search, *extra):
    """Offline agent, user and judge: only the search endpoint is remote. One task at a time."""
    return [
        "run",
        "--benchmark",
        "interactcomp",
        "--agent",
        "scripted:search-heavy-guess",
        "--search",
        search,
        "--search-cache",
        "off",
        "--db",
        str(db),
        "--run",
        "dead",
        "--task-attempts",
        "1",
        "--concurrency",
        "1",
        *extra,
    ]


def _statuses(db) -> list[str]:
    return [s.status for s in Store(db).sessions(runs=["dead"])]


def test_a_tavily_server_that_never_answers_stops_the_run_and_resume_finishes_it(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("TAVILY_API_KEY", TAVILY_KEY)
    db = tmp_path / "t.db"
    with FakeTavily(_hangs) as server:
        settings = [
            "--set",
            f'tavily.base_url="{server.url}"',
            "--set",
            "tavily.timeout=0.2",
            "--set",
            "tavily.max_retries=0",
        ]
        code = main(_run(db, "tavily", *settings, "--set", "tavily.stop_after_failures=3"))
        err = capsys.readouterr().err
        assert code == 1  # the LLM breaker's exit code
        [line] = [line for line in err.splitlines() if "stopped" in line]
        assert f"run 'dead' stopped: 3 tavily calls in a row failed at {server.url}" in line
        assert "timed out" in line and "--resume --retry-errored" in line
        assert TAVILY_KEY not in err and "Traceback" not in err
        statuses = _statuses(db)  # 3 sessions, not 11 tasks x timeout x retries
        assert statuses == ["errored"] * 3
        assert len(server.requests) == 3  # from the trip on, no call goes to the server

        server.set_handler(_tavily_ok)  # the server is back: the same command resumes
        assert (
            main(
                _run(
                    db,
                    "tavily",
                    *settings,
                    "--set",
                    "tavily.timeout=30",
                    "--set",
                    "tavily.max_retries=2",
                    "--resume",
                    "--retry-errored",
                )
            )
            == 0
        )
    live = [s for s in Store(db).sessions(runs=["dead"]) if s.status not in ("superseded", "abandoned")]
    assert len(live) == DEMO_TASKS and {s.status for s in live} == {"completed"}


def test_a_serper_server_answering_500_stops_the_run_after_n_failures_and_resume_finishes_it(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.setenv("SERPER_API_KEY", SERPER_KEY)
    db = tmp_path / "s.db"
    with LoopbackServer(_fails) as server:
        settings = [
            "--set",
            f'serper.base_url="{server.url}"',
            "--set",
            "serper.max_retries=1",
            "--set",
            "serper.backoff_initial=0.01",
            "--set",
            "serper.backoff_max=0.02",
        ]
        code = main(_run(db, "serper", *settings))  # the default: 5 in a row
        err = capsys.readouterr().err
        assert code == 1
        [line] = [line for line in err.splitlines() if "stopped" in line]
        assert f"run 'dead' stopped: 5 serper calls in a row failed at {server.url} (the last: HTTP 500)" in line
        assert "--resume --retry-errored" in line and SERPER_KEY not in err and "Traceback" not in err
        assert _statuses(db).count("errored") == 5 and "completed" not in _statuses(db)
        assert len(server.requests) == 5 * 2  # 5 searches x (1 + 1 retry), then none

        server.set_handler(_serper_ok)
        assert main(_run(db, "serper", *settings, "--resume", "--retry-errored")) == 0
    live = [s for s in Store(db).sessions(runs=["dead"]) if s.status not in ("superseded", "abandoned")]
    assert len(live) == DEMO_TASKS and {s.status for s in live} == {"completed"}


def test_an_episode_in_flight_when_the_endpoint_goes_down_is_errored_not_abandoned(tmp_path, capsys, monkeypatch):
    """Task ic-01's search fails at once and trips the breaker (stop after 1) while ic-02's
    search is still waiting on the server: the run stops without waiting for it, and its
    session is errored (counted apart, never scored), not left abandoned."""
    monkeypatch.setenv("SERPER_API_KEY", SERPER_KEY)

    def first_fails_second_hangs(request) -> Reply:
        return _fails(request) if "1998" in request.json["q"] else Reply(body={"organic": []}, delay=60)

    db = tmp_path / "f.db"
    with LoopbackServer(first_fails_second_hangs) as server:
        started = time.monotonic()
        code = main(
            [
                *_run(
                    db,
                    "serper",
                    "--limit",
                    "2",
                    "--set",
                    f'serper.base_url="{server.url}"',
                    "--set",
                    "serper.max_retries=0",
                    "--set",
                    "serper.timeout=30",
                    "--set",
                    "serper.stop_after_failures=1",
                    "--concurrency",
                    "2",
                )
            ]
        )  # the last wins
        assert time.monotonic() - started < 30  # not the hanging search's timeout
    assert code == 1 and "stopped: 1 serper call in a row failed" in capsys.readouterr().err
    sessions = {s.task_id: s for s in Store(db).sessions(runs=["dead"])}
    assert {t: s.status for t, s in sessions.items()} == {"ic-01": "errored", "ic-02": "errored"}
    assert "HTTP 500" in sessions["ic-01"].error
    assert sessions["ic-02"].error.startswith("not finished: the run stopped, 1 serper call in a row failed at ")
    assert sessions["ic-02"].result is None or not getattr(sessions["ic-02"].result, "correct", False)


def test_search_stop_after_failures_0_never_stops(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SERPER_API_KEY", SERPER_KEY)
    with LoopbackServer(_fails) as server:
        code = main(
            _run(
                tmp_path / "n.db",
                "serper",
                "--limit",
                "7",
                "--set",
                f'serper.base_url="{server.url}"',
                "--set",
                "serper.max_retries=0",
                "--set",
                "serper.stop_after_failures=0",
            )
        )
    assert code == 1 and "stopped" not in capsys.readouterr().err
    assert _statuses(tmp_path / "n.db") == ["errored"] * 7


async def test_a_down_search_endpoint_gets_no_more_calls_and_an_answer_resets_the_count(monkeypatch):
    monkeypatch.setenv("SERPER_API_KEY", SERPER_KEY)
    reset_all()
    with LoopbackServer(_fails) as server:
        config = llm_config(serper={"base_url": server.url, "max_retries": 0, "stop_after_failures": 2})
        backend = build_search(config, spec="serper")
        with pytest.raises(BackendError, match="HTTP 500"):
            await backend.search("q")
        server.set_handler(_serper_ok)
        await backend.search("q")  # an answer: the count starts again
        server.set_handler(_fails)
        for _ in range(2):
            with pytest.raises(BackendError, match="HTTP 500"):
                await backend.search("q")
        with pytest.raises(EndpointDown, match="not called: 2 serper calls in a row failed at "):
            await backend.search("q")
        assert len(server.requests) == 4
        server.set_handler(lambda r: Reply(status=403, body={"message": "Unauthorized."}))
        reset_all()
        for _ in range(3):  # a 4xx is ours: retrying would not help, and it never trips the breaker
            with pytest.raises(BackendError, match="HTTP 403"):
                await backend.search("q")
        assert backend.breaker.down is None


async def test_a_down_endpoint_is_never_read_as_an_answer_under_compat_reference(monkeypatch):
    """--compat reference turns failed calls into "Search failed" / "i don't know" / wrong, as
    the harness does; a call not made because the run is stopping errors the session instead."""
    from clarify_tui.backends import make_agent, make_judge, make_user
    from clarify_tui.engine import build_episode
    from clarify_tui.models import EpisodeConfig
    from clarify_tui.tasks import load_tasks

    monkeypatch.setenv("TAVILY_API_KEY", TAVILY_KEY)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    reset_all()
    with FakeTavily(_fails) as server:
        config = llm_config(tavily_url=server.url, tavily={"max_retries": 0, "stop_after_failures": 1})
        search = build_search(config, spec="tavily")
        with pytest.raises(BackendError, match="HTTP 500"):
            await search.search("q")
        task = load_tasks("interactcomp", "demo")[0]
        episode = build_episode(
            task,
            agent=make_agent("scripted:search-heavy-guess"),
            user=make_user("rule"),
            search=search,
            judge=make_judge("rule"),
            config=EpisodeConfig(compat="reference"),
        )
        session = await episode.run()
        assert session.status == "errored" and "not called: 1 tavily call in a row failed" in session.error
        assert session.result is None or not getattr(session.result, "correct", False)
        assert len(server.requests) == 1
    with FakeOpenAI(_hangs) as llm:
        config = llm_config(llm.base_url, openai={"timeout": 0.2, "max_retries": 0, "stop_after_failures": 1})
        judge = build_judge("judge-m", config)
        verdict = await judge.grade_reference("q", "a", "a", failure_is_wrong=True)  # the harness: scored 0
        assert verdict.correct is False and verdict.fault
        with pytest.raises(EndpointDown):  # tripped: not a wrong answer, the session errors
            await judge.grade_reference("q", "a", "a", failure_is_wrong=True)
    reset_all()


def test_the_stop_line_shows_no_secret_of_the_url():
    breaker = Breaker("serper call", "https://user:pw-secret@search.example/v1?key=k-secret", stop_after=1)
    breaker.failed("HTTP 500")
    assert breaker.down == "1 serper call in a row failed at https://search.example/v1 (the last: HTTP 500)"
    reset_all()
