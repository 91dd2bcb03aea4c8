"""Store write-through, batch runs, resume after a crash, errored sessions, bad input."""

from __future__ import annotations

import json

import pytest

from clarify_tui.cli import main
from clarify_tui.errors import BackendError
from clarify_tui.models import Action
from clarify_tui.runner import RunExistsError, RunSpec, run_batch
from clarify_tui.store import Store
from tests.conftest import CTS, DISCO, IC


async def test_every_step_is_in_the_database_while_the_episode_is_still_running(make_episode, tmp_path):
    store = Store(tmp_path / "s.db")
    ep = make_episode(
        IC, [Action.search("red tower"), Action.ask("Is it Tokyo Tower?"), Action.answer("x", 5)], sink=store
    )
    await ep.step()
    assert store.session(ep.session.id).status == "running"
    assert [s.action.kind.value for s in store.steps(ep.session.id)] == ["search"]
    await ep.run()
    saved = store.steps(ep.session.id)
    assert [(s.actor, s.action.kind.value) for s in saved] == [
        ("agent", "search"),
        ("agent", "ask"),
        ("user", "reply"),
        ("agent", "answer"),
        ("judge", "judge"),
    ]
    assert store.session(ep.session.id).status == "completed"
    assert store.task_for(ep.session.id) == IC


class ExplodingAgent:
    spec = "test:exploding"

    async def act(self, view):
        raise BackendError("server said 500 five times")


async def test_a_backend_failure_marks_the_session_errored_not_wrong(make_episode, tmp_path):
    store = Store(tmp_path / "s.db")
    session = await make_episode(IC, ExplodingAgent(), sink=store).run()
    stored = store.session(session.id)
    assert stored.status == "errored" and "500" in stored.error
    assert stored.result.correct is None


def _install_world(monkeypatch, search):
    import clarify_tui.backends as backends

    monkeypatch.setattr(backends, "_local_search", lambda: search)


async def test_resume_skips_completed_tasks_and_replays_interrupted_ones(tmp_path, search, monkeypatch):
    _install_world(monkeypatch, search)
    store = Store(tmp_path / "r.db")
    spec = RunSpec(name="r1", agent="scripted:search-then-ask", benchmark="interactcomp")
    first = await run_batch(store, spec, [IC])
    assert [s.status for s in first.sessions] == ["completed"]
    with pytest.raises(RunExistsError):
        await run_batch(store, spec, [IC])
    # simulate a crash mid-episode of a second task: its session was left "running"
    crashed = IC.model_copy(update={"id": "i2"})
    from clarify_tui.backends import make_agent, make_judge, make_user
    from clarify_tui.engine import build_episode

    ep = build_episode(
        crashed,
        agent=make_agent("scripted:direct-guess"),
        user=make_user("rule"),
        search=search,
        judge=make_judge("rule"),
        sink=store,
    )
    ep.session.run = "r1"
    await ep.step()
    assert store.session(ep.session.id).status == "running"
    again = await run_batch(store, spec, [IC, crashed], resume=True)
    assert again.skipped == 1 and [s.task_id for s in again.sessions] == ["i2"]
    assert store.session(ep.session.id).status == "abandoned"
    statuses = sorted(s.status for s in store.sessions(runs=["r1"]))
    assert statuses == ["abandoned", "completed", "completed"]


async def test_one_crashing_episode_does_not_stop_the_run(tmp_path, search, monkeypatch):
    _install_world(monkeypatch, search)
    import clarify_tui.runner as runner
    from clarify_tui.backends import make_agent

    monkeypatch.setattr(runner, "build_agent", lambda spec, cfg=None: _FlakyAgent(make_agent("scripted:direct-guess")))
    store = Store(tmp_path / "f.db")
    tasks = [IC.model_copy(update={"id": f"i{n}"}) for n in range(4)]
    summary = await run_batch(store, RunSpec(name="f", agent="scripted:direct-guess", concurrency=2), tasks)
    assert len(summary.errored) == 1 and len(summary.completed) == 3


class _FlakyAgent:
    spec = "test:flaky"

    def __init__(self, inner):
        self.inner = inner

    async def act(self, view):
        if view.task_id == "i2":
            raise RuntimeError("bug in agent")
        return await self.inner.act(view)


def test_a_malformed_dataset_line_names_file_and_line_and_writes_nothing(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    good = IC.model_dump_json()
    bad.write_text(good + "\n" + '{"id": "x", "protocol": "interactcomp"\n', encoding="utf-8")
    db = tmp_path / "bad.db"
    code = main(
        [
            "run",
            "--benchmark",
            "interactcomp",
            "--dataset",
            str(bad),
            "--agent",
            "scripted:direct-guess",
            "--db",
            str(db),
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and "bad.jsonl" in err and "2" in err
    assert not db.exists() or Store(db).sessions() == []


def test_cli_run_and_export_jsonl_on_a_dataset_file(tmp_path, capsys, search, monkeypatch):
    _install_world(monkeypatch, search)
    db = tmp_path / "cli.db"
    for bench, task in (("interactcomp", IC), ("discobench", DISCO), ("cts", CTS)):
        data = tmp_path / f"{bench}.jsonl"
        data.write_text(task.model_dump_json() + "\n", encoding="utf-8")
        assert (
            main(
                [
                    "run",
                    "--benchmark",
                    bench,
                    "--dataset",
                    str(data),
                    "--agent",
                    "scripted:search-then-ask",
                    "--db",
                    str(db),
                    "--run",
                    bench,
                    "--k",
                    "2",
                ]
            )
            == 0
        )
    capsys.readouterr()
    assert main(["export", "--db", str(db), "--format", "jsonl"]) == 0
    lines = [json.loads(text) for text in capsys.readouterr().out.splitlines()]
    assert {record["session"]["protocol"] for record in lines} == {"interactcomp", "discobench", "cts"}
    for record in lines:
        assert record["task"]["id"] == record["session"]["task_id"]
        assert record["steps"] and {"actor", "action", "input", "output", "tokens_in", "latency_ms", "error"} <= set(
            record["steps"][0]
        )
