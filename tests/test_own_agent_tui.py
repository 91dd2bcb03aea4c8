"""Bring your own agent in the TUI's step mode (Pilot): the agent from docs/agents.md and
the example HTTP agent propose, a person accepts each proposal (and replaces one), on all
three protocols; the sessions are saved as stepped, with the agent's spec."""

from __future__ import annotations

import pytest

from clarify_tui.models import EpisodeConfig
from clarify_tui.search.local import LocalSearch
from clarify_tui.store import Store
from clarify_tui.tui.app import ClarifyApp
from tests.conftest import CTS, DISCO, DOCS, IC
from tests.test_own_agent import RecordingAgentServer, docs_agent
from tests.test_tui import SIZE, settle, type_text

TASKS = {"interactcomp": IC, "discobench": DISCO, "cts": CTS}


async def step_to_the_end(pilot, driver, replace_first: bool = False) -> None:
    """space (propose), enter (accept) until the session ends; optionally replace the
    first proposal with a typed search."""
    for turn in range(40):
        if driver.done:
            return
        await pilot.press("space")
        await settle(pilot)
        if driver.done:
            return
        assert driver.pending is not None
        if replace_first and turn == 0 and "search" in [k.value for k in driver.episode.allowed()]:
            await pilot.press("r", "s")
            await type_text(pilot, "my own query")
            await pilot.press("enter")
            await pilot.pause()
        elif replace_first and turn == 1 and driver.pending.kind.value == "ask":  # edit the agent's question
            await pilot.press("e")
            await pilot.pause()
            pilot.app.screen.query("Input").first().value = "Is it the red one?"
            await pilot.press("enter")
            await pilot.pause()
        await pilot.press("enter")
        await settle(pilot)
    raise AssertionError("the session did not end in 40 steps")


@pytest.mark.parametrize("protocol", ["interactcomp", "discobench", "cts"])
@pytest.mark.parametrize("kind", ["py", "http"])
async def test_own_agent_in_step_mode_plays_each_protocol(tmp_path, protocol, kind):
    store = Store(tmp_path / "tui.db")
    task = TASKS[protocol]
    config = EpisodeConfig(k=1, deep_search="scripted:search-then-ask") if protocol == "cts" else EpisodeConfig()
    server = RecordingAgentServer() if kind == "http" else None
    spec = server.url if server else f"py:{docs_agent(tmp_path)}:MyAgent"
    if server:
        server.__enter__()
    try:
        app = ClarifyApp(
            store=store,
            search=LocalSearch(DOCS),
            tasks=[IC, DISCO, CTS],
            task_id=task.id,
            run_mode="step",
            agent_spec=spec,
            config=config,
        )
        async with app.run_test(size=SIZE) as pilot:
            driver = app.screen.driver
            await step_to_the_end(pilot, driver, replace_first=protocol != "cts")
            sid = driver.session.id
    finally:
        if server:
            server.__exit__()
    session = store.session(sid)
    assert session.status == "completed" and session.mode == "stepped" and session.agent == spec
    agent_steps = [s for s in store.steps(sid) if s.actor == "agent"]
    kinds = [s.action.kind.value for s in agent_steps]
    assert kinds[0] == ("clarify" if protocol == "cts" else "search")
    if protocol != "cts":
        assert agent_steps[0].action.text == "my own query" and "edited or replaced" in (session.note or "")
        assert agent_steps[1].action.text == "Is it the red one?" and agent_steps[1].action.human == "edited"
        assert "ask" in kinds and kinds[-1] == "answer"
    if server:
        assert server.views and all(v["task_id"] == task.id for v in server.views)


async def test_ask_vs_guess_fork_and_compare_with_own_agents(tmp_path):
    """demo ask-vs-guess --guess py:... --ask http://...; then a replay fork continued by
    the docs' agent; then compare opens on the two sessions."""
    from clarify_tui.commands.demo import pick_task
    from clarify_tui.tui.browse import BrowseApp
    from clarify_tui.tui.screens.ask_vs_guess import RUN_NAME, AskVsGuessScreen
    from clarify_tui.tui.screens.compare import CompareScreen

    store = Store(tmp_path / "avg.db")
    mine = f"py:{docs_agent(tmp_path)}:MyAgent"
    with RecordingAgentServer() as server:
        app = BrowseApp(store, start="ask-vs-guess", task=pick_task(None), agent_a=mine, agent_b=server.url, pace=0)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert isinstance(app.screen, AskVsGuessScreen) and app.screen.finished
            await pilot.press("c")
            await pilot.pause()
            assert isinstance(app.screen, CompareScreen)
    saved = store.sessions(runs=[RUN_NAME])
    assert {s.agent for s in saved} == {mine, server.url} and {s.status for s in saved} == {"completed"}
    assert server.views
    parent = next(s for s in saved if s.agent == server.url)
    app = BrowseApp(store, start="replay", session_id=parent.id, pace=0)
    async with app.run_test(size=SIZE) as pilot:
        replay = app.screen
        replay.start_fork(0, mine)
        await settle(pilot)
        fork_id = replay.session.id
    fork = store.session(fork_id)
    assert fork.parent_id == parent.id and fork.agent == mine and fork.status == "completed"
    store.close()


async def test_an_agent_that_raises_in_step_mode_ends_the_task_wrong_and_says_why(tmp_path):
    from tests.test_own_agent import RAISING

    (tmp_path / "agents.py").write_text(RAISING, encoding="utf-8")
    store = Store(tmp_path / "tui.db")
    app = ClarifyApp(
        store=store,
        search=LocalSearch(DOCS),
        tasks=[IC],
        task_id=IC.id,
        run_mode="step",
        agent_spec=f"py:{tmp_path}/agents.py:Buggy",
    )
    async with app.run_test(size=SIZE) as pilot:
        driver = app.screen.driver
        await pilot.press("space")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("space")  # the agent raises now
        await settle(pilot)
        assert driver.done
        shown = [(n.title, n.message) for n in app._notifications]  # as tests/test_tui.py reads toasts
        sid = driver.session.id
    session = store.session(sid)
    assert session.status == "completed" and session.result.correct is False
    assert ("the agent failed", "agent raised KeyError: 'my bug' (scored wrong)") in shown, shown


@pytest.mark.parametrize("protocol", ["interactcomp", "discobench"])
async def test_own_agent_in_watch_mode_runs_to_the_end(tmp_path, protocol):
    from clarify_tui.tui.messages import SessionEnded
    from tests.test_tui import Messages

    store = Store(tmp_path / "tui.db")
    spec = f"py:{docs_agent(tmp_path)}:MyAgent"
    messages = Messages()
    app = ClarifyApp(
        store=store,
        search=LocalSearch(DOCS),
        tasks=[IC, DISCO, CTS],
        task_id=TASKS[protocol].id,
        run_mode="watch",
        agent_spec=spec,
        pace=0.1,
    )  # a real pause between steps, shorter
    async with app.run_test(size=SIZE, message_hook=messages) as pilot:
        await messages.next(SessionEnded, timeout=30)
        await settle(pilot)
        sid = app.screen.driver.session.id
    session = store.session(sid)
    assert session.status == "completed" and session.mode == "automated" and session.agent == spec


def test_log_lines_do_not_write_past_a_full_screen_app(monkeypatch, tmp_path):
    """While the TUI runs it owns the terminal (Textual redirects sys.stderr): a warning
    (an own agent raising in step mode) goes to the log file only, not across the screen."""
    import io
    import logging
    import sys

    from clarify_tui import logsetup

    real = io.StringIO()
    monkeypatch.setattr(sys, "__stderr__", real)
    monkeypatch.setattr(sys, "stderr", real)
    logsetup.setup(False, tmp_path / "clarify-tui.log")
    log = logging.getLogger("clarify_tui.agents.custom")
    log.warning("before the app")
    monkeypatch.setattr(sys, "stderr", io.StringIO())  # what Textual does while it runs
    log.warning("while the app runs")
    assert "before the app" in real.getvalue() and "while the app runs" not in real.getvalue()
    assert "while the app runs" in (tmp_path / "clarify-tui.log").read_text()
    logsetup.setup(False, None)
