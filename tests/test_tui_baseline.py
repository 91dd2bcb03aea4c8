"""Baselines that stay clean (issue 14): a person who had seen hidden information is
kept out of score groups, a task left running is offered for resuming on relaunch, the
task clock survives an interruption, `run` refuses a human, automated sessions have no
annotator "None"."""

from __future__ import annotations

import json

import pytest

from clarify_tui.cli import main as cli
from clarify_tui.models import ActionKind
from clarify_tui.search.local import LocalSearch
from clarify_tui.store import Store, work_drafts
from clarify_tui.tui.app import ClarifyApp
from clarify_tui.tui.browse import BrowseApp
from clarify_tui.tui.messages import AgentTurnStarted, SessionEnded
from clarify_tui.tui.screens.play import PlayScreen
from tests.conftest import CTS, DISCO, DOCS, IC
from tests.test_tui import SIZE, Messages, type_text


@pytest.fixture
def demo_db(tmp_path):
    db = tmp_path / "demo.db"
    assert (
        cli(
            [
                "run",
                "--benchmark",
                "interactcomp",
                "--dataset",
                "demo",
                "--agent",
                "scripted:search-then-ask",
                "--db",
                str(db),
                "--run",
                "auto",
                "--limit",
                "1",
                "--concurrency",
                "1",
            ]
        )
        == 0
    )
    return db


def score_json(db, capsys, *extra) -> dict:
    capsys.readouterr()
    assert cli(["score", "--db", str(db), "--by", "mode", "--format", "json", *extra]) == 0
    captured = capsys.readouterr()
    assert ("1 informed session(s) left out" in captured.err) == (not extra)
    return json.loads(captured.out)


async def test_a_fork_made_after_the_gold_was_shown_is_informed_and_left_out(demo_db, capsys):
    store = Store(demo_db)
    parent = store.sessions(runs=["auto"])[0]
    hook = Messages()
    app = BrowseApp(store, start="replay", session_id=parent.id)
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await pilot.pause()
        screen = app.screen
        assert screen.spoilers  # the hidden panel (gold answer) is on screen
        screen.start_fork(0, "human")
        fork_id = screen.session.id
        assert store.session(fork_id).result.informed is True
        await hook.next(AgentTurnStarted)
        await pilot.pause()
        await pilot.press("enter")
        await type_text(pilot, "Deep Impact")
        await pilot.press("enter", "enter")  # answer, then the (empty) confidence field
        await hook.next(SessionEnded)
        await pilot.pause()
    fork = store.session(fork_id)
    assert fork.status == "completed" and fork.mode == "human_agent" and fork.result.informed is True
    modes = [g["key"]["mode"] for g in score_json(demo_db, capsys)["groups"]]
    assert "human_agent" not in modes and "automated" in modes
    modes = [g["key"]["mode"] for g in score_json(demo_db, capsys, "--include-informed")["groups"]]
    assert "human_agent" in modes
    app = BrowseApp(store, start="scores")  # F3 leaves it out too, and says so
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(200):
            await pilot.pause(0.05)
            if app.screen.query("#scores-left-out"):
                break
        assert "1 informed session left out" in str(app.screen.query_one("#scores-left-out").render())


def app_on(db, **kwargs) -> ClarifyApp:
    return ClarifyApp(
        db=db, tasks=[IC, DISCO, CTS], search=LocalSearch(DOCS), task_id="i1", as_="agent", annotator="ana", **kwargs
    )


async def play_one_search(db) -> str:
    hook = Messages()
    app = app_on(db)
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await hook.next(AgentTurnStarted)
        await pilot.press("s")
        await type_text(pilot, "red lattice tower")
        await pilot.press("enter")
        await hook.next(AgentTurnStarted)
        await pilot.pause()
        sid = app.screen.driver.session.id
        await pilot.press("ctrl+q")  # leaves the session running
    return sid


@pytest.mark.parametrize("answer", ["y", "n"])
async def test_relaunching_play_task_offers_to_resume_the_session_left_running(tmp_path, answer):
    db = tmp_path / "play.db"
    left = await play_one_search(db)
    store = Store(db)
    saved = store.session(left)
    assert saved.status == "running" and saved.result.active_ms > 0
    store.work.create_queue("aud", "audit", "r1")  # meanwhile ana is shown an audit item of i1: its context
    store.work.add_items("aud", [("s9", 1, {"kind": "audit", "protocol": "interactcomp", "task_id": "i1"})])
    work_drafts.mark_shown(store, "aud", "s9:1", "ana")
    hook = Messages()
    app = app_on(db)
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await pilot.pause(0.2)
        assert type(app.screen).__name__ == "ConfirmScreen"
        await pilot.press(answer)
        await hook.next(AgentTurnStarted)
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, PlayScreen)
        if answer == "y":
            assert screen.driver.session.id == left
            assert [s.action.kind for s in screen.driver.steps] == [ActionKind.search]
            assert screen.driver.clock.base_ms == saved.result.active_ms  # not the summed latencies
            toasts = [str(n.message) for n in app._notifications]  # the resumed play is informed from now, and says so
            assert any("informed and left out of baselines: you were shown an audit item" in t for t in toasts)
        else:
            assert screen.driver.session.id != left and screen.driver.steps == []
    if answer == "n":
        assert Store(db).session(left).status == "abandoned"


def test_sessions_and_csv_show_active_time(tmp_path, capsys):
    import asyncio

    db = tmp_path / "active.db"
    asyncio.run(play_one_search(db))
    capsys.readouterr()
    assert cli(["sessions", "--db", str(db)]) == 0
    assert "active" in capsys.readouterr().out
    out = tmp_path / "s.csv"
    assert cli(["export", "--db", str(db), "--format", "csv", "--out", str(out)]) == 0
    import csv

    rows = list(csv.DictReader(out.open()))
    assert float(rows[0]["active_ms"]) > 0 and rows[0]["informed"] == "0"


@pytest.mark.parametrize("role", ["agent", "user"])
def test_run_refuses_a_human_with_a_pointer_to_play(tmp_path, capsys, role):
    argv = [
        "run",
        "--benchmark",
        "interactcomp",
        "--dataset",
        "demo",
        "--db",
        str(tmp_path / "r.db"),
        "--limit",
        "1",
        "--agent",
        "human" if role == "agent" else "scripted:direct-guess",
    ]
    if role == "user":
        argv += ["--user", "human"]
    assert cli(argv) == 2
    err = capsys.readouterr().err
    assert f"play --as {role}" in err


def test_automated_sessions_have_no_annotator_none(demo_db, capsys):
    """In a table the group reads "(automated)"; JSON keeps null."""
    capsys.readouterr()
    assert cli(["score", "--db", str(demo_db), "--by", "annotator"]) == 0
    table = capsys.readouterr().out
    assert "(automated)" in table and "None" not in table
