"""Exit codes scripts and CI can rely on, and a dead endpoint stopping the run
(issue 22, "Exit codes and dead endpoints"; docs/runs.md "Exit codes")."""

from __future__ import annotations

import socket
import threading

import pytest
from servers import FakeOpenAI, interactcomp_router

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
        patch.setattr("clarify_tui.runner.make_agent", lambda spec, cfg=None: _CrashingAgent())
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

    monkeypatch.setattr("clarify_tui.commands.run.asyncio.run", interrupted)
    assert main([*RUN, "--db", str(tmp_path / "i.db")]) == 130
    assert "--resume" in capsys.readouterr().err


class _Silent:
    """A loopback server that accepts connections, reads them and never answers."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.base_url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"
        self.accepted = 0
        self.held: list[socket.socket] = []
        self._stop = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        self.sock.settimeout(0.1)
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.accepted += 1
            self.held.append(conn)  # kept open, never answered

    def close(self) -> None:
        self._stop.set()
        for conn in self.held:
            conn.close()
        self.sock.close()


def _llm_run(db, url, *extra):
    return ["run", "--benchmark", "interactcomp", "--agent", "openai:a", "--user", "openai:u", "--judge", "openai:j",
            "--db", str(db), "--run", "dead", "--task-attempts", "1", "--concurrency", "1",
            "--set", f"openai.base_url=\"{url}\"", "--set", "openai.timeout=0.2", "--set", "openai.max_retries=0",
            *extra]


def test_an_endpoint_that_never_answers_stops_the_run_and_resume_finishes_it(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    silent = _Silent()
    db = tmp_path / "dead.db"
    try:
        code = main(_llm_run(db, silent.base_url, "--set", "openai.stop_after_failures=3"))
    finally:
        silent.close()
    err = capsys.readouterr().err
    assert code == 1
    [line] = [line for line in err.splitlines() if "stopped" in line]
    assert f"run 'dead' stopped: 3 model calls in a row failed at {silent.base_url}" in line
    assert "timed out" in line and "--resume --retry-errored" in line and "Traceback" not in err
    sessions = Store(db).sessions(runs=["dead"])
    statuses = [s.status for s in sessions]  # not 11 tasks x timeout x retries
    assert statuses.count("errored") == 3 and set(statuses) <= {"errored", "abandoned"} and len(statuses) <= 4
    assert silent.accepted <= 4

    with FakeOpenAI(interactcomp_router(0.0)) as healthy:
        assert main(_llm_run(db, healthy.base_url, "--resume", "--retry-errored")) == 0
    live = [s for s in Store(db).sessions(runs=["dead"]) if s.status not in ("superseded", "abandoned")]
    assert len(live) == DEMO_TASKS and {s.status for s in live} == {"completed"}


def test_stop_after_failures_0_never_stops(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    silent = _Silent()
    try:
        code = main(_llm_run(tmp_path / "n.db", silent.base_url, "--limit", "4",
                             "--set", "openai.stop_after_failures=0"))
    finally:
        silent.close()
    assert code == 1 and "stopped" not in capsys.readouterr().err
    assert [s.status for s in Store(tmp_path / "n.db").sessions(runs=["dead"])] == ["errored"] * 4
