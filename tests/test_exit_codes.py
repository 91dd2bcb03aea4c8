"""Exit codes scripts and CI can rely on, and a dead endpoint stopping the run
(issue 22, "Exit codes and dead endpoints"; docs/runs.md "Exit codes")."""

from __future__ import annotations

import pytest
from servers import FakeOpenAI, Reply, interactcomp_router
from servers import llm_run as run_argv

from clarify_tui.cli import main
from clarify_tui.store import Store

RUN = ["run", "--benchmark", "interactcomp", "--agent", "scripted:direct-guess"]
DEMO_TASKS = 11


class _CrashingAgent:
    spec = "test:crashing"

    async def act(self, view):
        raise RuntimeError("bug in agent")


def test_all_completed_is_0(tmp_path):
    assert main([*RUN, "--db", str(tmp_path / "a.db"), "--limit", "2"]) == 0


def test_a_run_with_errored_sessions_is_1_also_after_a_plain_resume(tmp_path, capsys, monkeypatch):
    db = tmp_path / "e.db"
    with monkeypatch.context() as patch:
        patch.setattr("clarify_tui.runner.build_agent", lambda spec, cfg=None: _CrashingAgent())
        assert main([*RUN, "--db", str(db), "--run", "e", "--limit", "2", "--task-attempts", "1"]) == 1
    assert "2 errored" in capsys.readouterr().err
    # resumed: the errored tasks count as done, and they are still errored
    assert main([*RUN, "--db", str(db), "--run", "e", "--limit", "2", "--task-attempts", "1", "--resume"]) == 1


def test_usage_and_database_errors_are_2(tmp_path):
    with pytest.raises(SystemExit) as usage:
        main([*RUN, "--db", str(tmp_path / "u.db"), "--concurrency", "0"])
    assert usage.value.code == 2
    folder = tmp_path / "adir.db"
    folder.mkdir()
    assert main([*RUN, "--db", str(folder)]) == 2


def test_an_interrupted_run_is_130_and_says_how_to_continue(tmp_path, capsys, monkeypatch):
    def interrupted(coro, *args, **kwargs):
        coro.close()
        raise KeyboardInterrupt

    monkeypatch.setattr("clarify_tui.api.asyncio.run", interrupted)  # run goes through api.run
    assert main([*RUN, "--db", str(tmp_path / "i.db")]) == 130
    assert "--resume" in capsys.readouterr().err


def _never_answers(request) -> Reply:
    """Accepts the request, reads it, and sits on it far past the client's 0.2 s timeout."""
    return Reply(status=200, body="{}", delay=5)


def _llm_run(db, url, *extra):
    return run_argv(
        db,
        "dead",
        "--task-attempts",
        "1",
        "--concurrency",
        "1",
        "--set",
        f'openai.base_url="{url}"',
        "--set",
        "openai.timeout=0.2",
        "--set",
        "openai.max_retries=0",
        *extra,
    )


def test_an_endpoint_that_never_answers_stops_the_run_and_resume_finishes_it(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    db = tmp_path / "dead.db"
    with FakeOpenAI(_never_answers) as server:
        code = main(_llm_run(db, server.base_url, "--set", "openai.stop_after_failures=3"))
        err = capsys.readouterr().err
        assert code == 1
        [line] = [line for line in err.splitlines() if "stopped" in line]
        assert f"run 'dead' stopped: 3 model calls in a row failed at {server.base_url}" in line
        assert "timed out" in line and "--resume --retry-errored" in line and "Traceback" not in err
        sessions = Store(db).sessions(runs=["dead"])
        statuses = [s.status for s in sessions]  # not 11 tasks x timeout x retries
        assert statuses.count("errored") == 3 and set(statuses) <= {"errored", "abandoned"} and len(statuses) <= 4
        assert len(server.chat_requests()) <= 4

        server.set_handler(interactcomp_router(0.0))  # the server is back: the same command resumes
        assert (
            main(
                _llm_run(
                    db,
                    server.base_url,
                    "--resume",
                    "--retry-errored",
                    "--set",
                    "openai.stop_after_failures=3",
                    "--set",
                    "openai.timeout=30",
                    "--set",
                    "openai.max_retries=2",
                )
            )
            == 0
        )  # a loaded machine
    live = [s for s in Store(db).sessions(runs=["dead"]) if s.status not in ("superseded", "abandoned")]
    assert len(live) == DEMO_TASKS and {s.status for s in live} == {"completed"}


def test_stop_after_failures_0_never_stops(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with FakeOpenAI(_never_answers) as server:
        code = main(
            _llm_run(tmp_path / "n.db", server.base_url, "--limit", "4", "--set", "openai.stop_after_failures=0")
        )
    assert code == 1 and "stopped" not in capsys.readouterr().err
    assert [s.status for s in Store(tmp_path / "n.db").sessions(runs=["dead"])] == ["errored"] * 4


async def test_a_down_endpoint_gets_no_more_calls(monkeypatch):
    from servers import llm_config

    from clarify_tui.errors import BackendError
    from clarify_tui.models import Answer
    from clarify_tui.services import build_judge

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with FakeOpenAI(_never_answers) as server:
        config = llm_config(server.base_url, openai={"timeout": 0.2, "max_retries": 0, "stop_after_failures": 2})
        judge = build_judge("judge-m", config)
        for _ in range(2):
            with pytest.raises(BackendError, match="timed out"):
                await judge.equivalent("q", "a", Answer(text="a"))
        with pytest.raises(BackendError, match="not called: 2 model calls in a row failed at "):
            await judge.equivalent("q", "a", Answer(text="a"))
        assert len(server.chat_requests()) == 2
