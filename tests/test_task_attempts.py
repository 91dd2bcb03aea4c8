"""A task played again as InteractComp's reference harness does: up to 3 attempts while the
agent's action cannot be called (call_error) or the session errors (core/benchmark.py:106),
earlier attempts kept as superseded and never scored; `--task-attempts 1` plays once."""

from __future__ import annotations

import json
import threading

import pytest
from servers import FakeOpenAI, Request, Script, chat, error, interactcomp_router
from servers import llm_run as run_argv

from clarify_tui.cli import main
from clarify_tui.store import Store

FLAT = json.dumps({"action": "search", "query": "striking sport"})  # params outside "params": the harness raises


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with FakeOpenAI(Script()) as srv:
        monkeypatch.setenv("OPENAI_BASE_URL", srv.base_url)
        yield srv


def first_calls_broken(broken: int, bad_reply=lambda: chat(FLAT)):
    """The agent's first `broken` episodes open with `bad_reply`; everything else is healthy."""
    healthy, opened, lock = interactcomp_router(0.0), [0], threading.Lock()

    def handle(request: Request):
        agent = "impartial grader" not in request.prompt and "specialized Q&A agent" not in request.prompt
        if agent and "Last action: \nObservation: \n" in request.prompt:  # round 1 of a new episode
            with lock:
                opened[0] += 1
                n = opened[0]
            if n <= broken:
                return bad_reply()
        return healthy(request)

    return handle


def run(db, *extra) -> int:
    return main(
        run_argv(
            db,
            "r",
            "--limit",
            "1",
            "--concurrency",
            "1",
            "--search-cache",
            "off",
            "--set",
            "openai.max_retries=0",
            *extra,
        )
    )


def score(db, capsys) -> dict:
    capsys.readouterr()
    assert main(["score", "--db", str(db), "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)["groups"][0]


def test_a_failed_call_is_played_again_and_only_the_last_attempt_scores(tmp_path, server, capsys):
    server.set_handler(first_calls_broken(1))
    db = tmp_path / "a.db"
    assert run(db) == 0
    assert "1 attempt(s) played again" in capsys.readouterr().err
    sessions = Store(db).sessions(runs=["r"])
    [old] = [s for s in sessions if s.status == "superseded"]
    [last] = [s for s in sessions if s.status != "superseded"]
    assert old.result.outcome == "call_error" and old.error.startswith("attempt 1 of 3: ")
    assert (last.status, last.result.correct) == ("completed", True)
    group = score(db, capsys)
    assert group["n_sessions"] == 1 and group["metrics"]["accuracy"] == 1.0


def test_one_attempt_on_request_keeps_the_failed_call_as_a_wrong_answer(tmp_path, server, capsys):
    server.set_handler(first_calls_broken(1))
    db = tmp_path / "b.db"
    assert run(db, "--task-attempts", "1") == 0
    [only] = Store(db).sessions(runs=["r"])
    assert (only.status, only.result.outcome, only.result.correct) == ("completed", "call_error", False)
    group = score(db, capsys)
    assert group["metrics"]["accuracy"] == 0.0 and group["metrics"]["call_errors"] == 1


def test_three_failed_calls_end_the_task_as_the_harness_scores_it(tmp_path, server, capsys):
    server.set_handler(first_calls_broken(5))
    db = tmp_path / "c.db"
    assert run(db) == 0
    sessions = Store(db).sessions(runs=["r"])
    assert sorted(s.status for s in sessions) == ["completed", "superseded", "superseded"]
    assert sorted(s.error for s in sessions if s.error)[-1].startswith("attempt 2 of 3: ")
    [last] = [s for s in sessions if s.status == "completed"]
    assert (last.result.outcome, last.result.correct) == ("call_error", False)
    assert score(db, capsys)["metrics"]["call_errors"] == 1


def test_an_errored_attempt_is_played_again_and_the_run_records_the_attempts(tmp_path, server, capsys):
    server.set_handler(first_calls_broken(2, lambda: error(500, "injected")))
    db = tmp_path / "d.db"
    assert run(db, "--task-attempts", "2") == 1  # a session errored: exit 1 (docs/runs.md "Exit codes")
    sessions = Store(db).sessions(runs=["r"])
    assert sorted(s.status for s in sessions) == ["errored", "superseded"]
    assert json.loads(Store(db).run_row("r")["config"])["task_attempts"] == 2
    capsys.readouterr()
    # resuming under another attempt count is another experiment: refused, both shown
    assert run(db, "--resume", "--task-attempts", "3") == 2
    assert "differs in task_attempts" in capsys.readouterr().err


def test_other_benchmarks_play_a_task_once(tmp_path, server, capsys):
    server.set_handler(lambda request: error(500, "down"))
    db = tmp_path / "e.db"
    assert (
        main(
            [
                "run",
                "--benchmark",
                "discobench",
                "--agent",
                "openai:a",
                "--db",
                str(db),
                "--run",
                "r",
                "--limit",
                "1",
                "--search-cache",
                "off",
                "--set",
                "openai.max_retries=0",
            ]
        )
        == 1
    )
    [only] = Store(db).sessions(runs=["r"])
    assert only.status == "errored"


def test_resume_after_a_crash_continues_the_attempt_count(tmp_path, server, capsys):
    server.set_handler(lambda request: error(500, "down"))
    db = tmp_path / "f.db"
    assert run(db) == 1  # a session errored: exit 1 (docs/runs.md "Exit codes")
    store = Store(db)
    [last] = [s for s in store.sessions(runs=["r"]) if s.status == "errored"]
    last.status = "running"  # the process died during attempt 3
    store.update_session(last)
    assert run(db, "--resume") == 1
    statuses = sorted(s.status for s in Store(db).sessions(runs=["r"]))
    assert statuses == ["abandoned", "errored", "superseded", "superseded"]  # attempt 3 once more, no 4th
