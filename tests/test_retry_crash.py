"""A crash during `--resume --retry-errored` loses no task from the counts: an errored
session is superseded only once its task's new session has ended (issue 22, "Loses data")."""

from __future__ import annotations

import json
import os
import signal
import time

from clitools import cli, cli_env
from servers import FakeOpenAI, error, interactcomp_router
from servers import llm_run as run_argv

from clarify_tui.cli import main
from clarify_tui.store import Store

DEMO_TASKS = 11


def _run(db, url, *extra):
    return run_argv(
        db,
        "r",
        "--task-attempts",
        "1",
        "--concurrency",
        "1",
        "--search-cache",
        "off",
        "--set",
        f'openai.base_url="{url}"',
        "--set",
        "openai.max_retries=0",
        "--set",
        "openai.stop_after_failures=0",
        *extra,
    )


def _slow(seconds: float):
    healthy = interactcomp_router(0.0)

    def handle(request):
        reply = healthy(request)
        reply.delay = seconds
        return reply

    return handle


def test_kill_9_mid_retry_keeps_every_task_counted(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    db = tmp_path / "r.db"
    with FakeOpenAI(lambda request: error(500, "down")) as server:
        assert main(_run(db, server.base_url)) == 1
        assert [s.status for s in Store(db).sessions(runs=["r"])] == ["errored"] * DEMO_TASKS

        server.set_handler(_slow(0.05))
        proc = cli(*_run(db, server.base_url, "--resume", "--retry-errored"), env=cli_env(OPENAI_API_KEY="sk-test"))
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            done = [s for s in Store(db, readonly=True).sessions(runs=["r"]) if s.status == "completed"]
            if len(done) >= 2:
                break
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=60)

    sessions = Store(db, readonly=True).sessions(runs=["r"])
    completed = {s.task_id for s in sessions if s.status == "completed"}
    errored = {s.task_id for s in sessions if s.status == "errored"}
    assert 2 <= len(completed) < DEMO_TASKS
    assert len(completed | errored) == DEMO_TASKS and not completed & errored  # each task counted once
    capsys.readouterr()
    assert main(["score", "--db", str(db), "--run", "r", "--format", "json"]) == 0
    [group] = json.loads(capsys.readouterr().out)["groups"]
    assert group["n_sessions"] + group["metrics"]["errored"] == DEMO_TASKS


def test_a_crash_between_the_retry_and_marking_the_old_session_is_repaired_on_resume(tmp_path, capsys):
    """The new session's end and the old one's `superseded` are two writes: a kill -9
    between them leaves both; the next --resume supersedes the stale errored one."""
    db = tmp_path / "w.db"
    run = [
        "run",
        "--benchmark",
        "interactcomp",
        "--agent",
        "scripted:direct-guess",
        "--db",
        str(db),
        "--run",
        "w",
        "--limit",
        "2",
    ]
    assert main(run) == 0
    store = Store(db)
    first = store.sessions(runs=["w"])[0]
    stale = first.model_copy(update={"id": "stale-errored", "status": "errored", "error": "HTTP 500"})
    store.start_session(stale, store.task_for(first.id))
    store.update_session(stale)
    assert main(run + ["--resume"]) == 0
    statuses = {s.id: s.status for s in Store(db).sessions(runs=["w"])}
    assert statuses["stale-errored"] == "superseded" and list(statuses.values()).count("completed") == 2
