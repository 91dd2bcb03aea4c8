"""An own agent is held to what other agents are (issue 31, item 5): a `py:` agent's `act`
has the agents' time limit (`--set agent.timeout`), a plain `def act` runs in a thread so a
slow one does not hold up the run's other episodes, and an `http://` agent has the circuit
breaker of a model endpoint (a dead server stops the run instead of failing every task)."""

from __future__ import annotations

from clarify_tui.cli import main
from clarify_tui.store import Store
from tests.servers import LoopbackServer, Reply

AGENTS = '''
import asyncio
import threading

from clarify_tui import Action

MEET = threading.Barrier(2, timeout=20)
NEVER = threading.Event()


class Together:
    """Each act waits for the other episode's act: only possible when neither blocks the loop."""
    def act(self, view):
        try:
            MEET.wait()
        except threading.BrokenBarrierError:
            return Action.answer("alone")
        return Action.answer("together")


class Hangs:
    def act(self, view):
        NEVER.wait(60)
        return Action.answer("late")


class HangsAsync:
    async def act(self, view):
        await asyncio.sleep(60)
        return Action.answer("late")
'''


def agents(tmp_path):
    path = tmp_path / "agents.py"
    path.write_text(AGENTS, encoding="utf-8")
    return path


def answers(db) -> list[str]:
    store = Store(db)
    return sorted(s.action.text for session in store.sessions() for s in store.steps(session.id) if s.actor == "agent")


def test_a_plain_def_act_runs_in_a_thread_and_does_not_block_other_episodes(tmp_path, capsys):
    db = tmp_path / "t.db"
    assert (
        main(
            [
                "run",
                "--benchmark",
                "interactcomp",
                "--agent",
                f"py:{agents(tmp_path)}:Together",
                "--limit",
                "2",
                "--concurrency",
                "2",
                "--db",
                str(db),
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert answers(db) == ["together", "together"]


def test_a_py_agent_past_the_agents_time_limit_errors_the_session(tmp_path, capsys):
    for name in ("Hangs", "HangsAsync"):
        db = tmp_path / f"{name}.db"
        assert (
            main(
                [
                    "run",
                    "--benchmark",
                    "interactcomp",
                    "--agent",
                    f"py:{agents(tmp_path)}:{name}",
                    "--limit",
                    "1",
                    "--set",
                    "agent.timeout=0.3",
                    "--db",
                    str(db),
                    "--task-attempts",
                    "1",
                ]
            )
            == 1
        )
        assert "0 completed, 1 errored" in capsys.readouterr().err
        [session] = Store(db).sessions()
        assert session.status == "errored"
        assert (
            "did not act within 0.3 s on task ic-01 (the agents' time limit: --set agent.timeout=SECONDS)"
            in session.error
        )


def test_a_dead_http_agent_trips_the_circuit_breaker_and_stops_the_run(tmp_path, capsys):
    toml = tmp_path / "clarify.toml"
    toml.write_text("[openai]\ntimeout = 5\nmax_retries = 0\nstop_after_failures = 2\n", encoding="utf-8")
    db = tmp_path / "dead.db"
    with LoopbackServer(lambda _req: Reply(status=500, body={"error": "down"})) as server:
        code = main(
            [
                "run",
                "--benchmark",
                "interactcomp",
                "--agent",
                server.url + "/act",
                "--limit",
                "6",
                "--concurrency",
                "1",
                "--task-attempts",
                "1",
                "--config",
                str(toml),
                "--db",
                str(db),
                "--run",
                "dead",
            ]
        )
        calls = len(server.requests)
    err = " ".join(capsys.readouterr().err.split())
    assert code == 1
    assert f"run 'dead' stopped: 2 agent calls in a row failed at {server.url}/act (the last: HTTP 500" in err
    assert calls == 2  # not one call per task left
