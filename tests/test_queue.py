"""The human-baseline queue in the workbench (`play --as agent --annotator NAME --queue RUN`),
driven through Pilot: the seeded order, `n` for the next task, quitting mid-task and
resuming the same session in a new app, the task clock's pause (not counted in the
action's latency), notes, the barrier, and F2 / F3 opening the browse screens."""

from __future__ import annotations

import types

import pytest

from clarify_tui import annotation
from clarify_tui.cli import main as cli_main
from clarify_tui.models import Protocol
from clarify_tui.search.local import LocalSearch
from clarify_tui.sessions_ops import queue_order
from clarify_tui.store import Store
from clarify_tui.tui import driver as driver_module
from clarify_tui.tui.app import ClarifyApp
from clarify_tui.tui.messages import AgentTurnStarted, SessionEnded
from clarify_tui.tui.screens.play import PlayScreen
from clarify_tui.tui.screens.play_queue import QueueScreen, QueueSpec
from tests.conftest import CTS, DISCO, DOCS, IC
from tests.test_tui import SIZE, Messages, assert_barrier, rendered_text, type_text

TASKS = [IC, DISCO, CTS]
RUN, NAME = "hb", "ann"


@pytest.fixture
def store(tmp_path):
    return Store(tmp_path / "queue.db")


@pytest.fixture(scope="module")
def search():
    return LocalSearch(DOCS)


def queue_app(store, search, seed=None, tasks=TASKS, **kwargs) -> ClarifyApp:
    spec = QueueSpec(run=RUN, annotator=NAME, seed=seed)
    return ClarifyApp(store=store, search=search, tasks=tasks, as_="agent", queue=spec, **kwargs)


async def answer(pilot, hook: Messages, screen: PlayScreen) -> None:
    """End the task on the screen with a (quick) answer."""
    if screen.task_.protocol == Protocol.cts:
        await pilot.press("enter")  # the clarify form opens by itself: no questions
        await hook.next(AgentTurnStarted)
        await pilot.pause()
    # DiscoBench: a wrong checkpoint answer moves on to the next checkpoint (paper 000,
    # silent cascading), so each checkpoint is answered; the last answer ends the task
    answers = len(screen.task_.discobench.checkpoints) if screen.task_.protocol == Protocol.discobench else 1
    for n in range(answers):
        await pilot.press("enter")
        await type_text(pilot, "Sapporo TV Tower" if screen.task_.protocol == Protocol.interactcomp else "no idea")
        await pilot.press("enter")
        if screen.task_.protocol == Protocol.interactcomp:
            await pilot.press("5", "0", "enter")
        if n < answers - 1:
            await hook.next(AgentTurnStarted)
            await pilot.pause()
    await hook.next(SessionEnded)
    await pilot.pause()


async def test_queue_serves_the_seeded_order_and_n_moves_on_to_the_end(store, search):
    order = [t.id for t in queue_order(TASKS, 4)]
    assert order != [t.id for t in TASKS]  # the seed matters here
    hook = Messages()
    app = queue_app(store, search, seed=4)
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        served = []
        for position in range(3):
            await hook.next(AgentTurnStarted)
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, PlayScreen) and screen.setup.queue == (position + 1, 3)
            served.append(screen.task_.id)
            assert_barrier(screen, screen.task_)  # nothing hidden on screen before the end
            assert screen.check_action("next_task", ()) is None  # n waits for the end
            await answer(pilot, hook, screen)
            assert "press n for the" in rendered_text(screen)
            await pilot.press("n")
            await pilot.pause()
        assert served == order
        assert isinstance(app.screen, QueueScreen)
        assert "The queue is finished" in rendered_text(app.screen) and "3 of 3 tasks done" in rendered_text(app.screen)
    sessions = store.sessions()
    assert [s.task_id for s in sessions] == order
    for s in sessions:
        assert (s.run, s.annotator, s.mode, s.agent, s.status) == (RUN, NAME, "human_agent", "human", "completed")
        assert s.result.active_ms > 0


async def test_quitting_mid_task_and_relaunching_resumes_the_same_session(store, search):
    hook = Messages()
    app = queue_app(store, search, tasks=[IC, DISCO])
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await hook.next(AgentTurnStarted)
        await pilot.press("k")
        await type_text(pilot, "Is it Tokyo Tower?")
        await pilot.press("enter")
        await hook.next(AgentTurnStarted)
        await pilot.press("ctrl+n")
        await type_text(pilot, "the clock was odd")
        await pilot.press("enter")
        await pilot.pause()
        sid = app.screen.driver.session.id
        await pilot.press("q")  # quit: the session stays running
    assert store.session(sid).status == "running" and store.session(sid).note == "the clock was odd"
    before = store.steps(sid)
    assert [(s.actor, s.action.kind.value) for s in before] == [("agent", "ask"), ("user", "reply")]

    hook = Messages()
    app = queue_app(store, search, tasks=[IC, DISCO])
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        view = (await hook.next(AgentTurnStarted)).view
        await pilot.pause()
        screen = app.screen
        assert screen.driver.session.id == sid and screen.task_.id == "i1"
        assert len(screen.driver.steps) == 2 and view.rounds_used == 1  # the human agent acts next
        assert "Is it Tokyo Tower?" in rendered_text(screen)
        assert_barrier(screen, IC)
        await pilot.press("ctrl+n")
        await type_text(pilot, "resumed")
        await pilot.press("enter")
        await answer(pilot, hook, screen)
        await pilot.press("n")
        await hook.next(AgentTurnStarted)
        assert app.screen.task_.id == "d1"  # the next unfinished task
    session = store.session(sid)
    assert session.status == "completed" and session.result.correct
    assert (session.run, session.annotator, session.mode) == (RUN, NAME, "human_agent")
    assert session.note == "the clock was odd\nresumed"
    after = store.steps(sid)
    assert [s.index for s in after] == [0, 1, 2, 3]
    assert [s.model_dump() for s in after[:2]] == [s.model_dump() for s in before]  # steps before are kept
    assert [(s.actor, s.action.kind.value) for s in after[2:]] == [("agent", "answer"), ("judge", "judge")]
    assert [s.task_id for s in store.sessions()] == ["i1", "d1"]  # one session for i1, not two


async def test_a_paused_clock_is_not_counted_in_the_action_latency(store, search, monkeypatch):
    now = [100.0]
    fake = types.SimpleNamespace(perf_counter=lambda: now[0])
    monkeypatch.setattr("clarify_tui.engine.episode.time", fake)
    monkeypatch.setattr(annotation, "time", fake)
    hook = Messages()
    app = queue_app(store, search, tasks=[IC])
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await hook.next(AgentTurnStarted)  # the turn starts at t=100
        screen = app.screen
        now[0] = 101.0
        await pilot.press("p")
        assert screen.driver.clock.paused and screen.has_class("paused")
        assert not screen.query_one("#regions").display  # the task is hidden while paused
        await pilot.press("k")  # no action while paused
        assert not screen.query("ActionForm")
        now[0] = 111.0
        await pilot.press("p")  # 10 s of pause
        now[0] = 112.5
        await pilot.press("k")
        await type_text(pilot, "Is it Tokyo Tower?")
        await pilot.press("enter")
        await hook.next(AgentTurnStarted)
        now[0] = 114.0
        await answer(pilot, hook, screen)
        sid = screen.driver.session.id
    agent_steps = [s for s in store.steps(sid) if s.actor == "agent"]
    assert [s.latency_ms for s in agent_steps] == [2500.0, 1500.0]  # 12.5 s less the 10 s pause; 1.5 s
    assert store.session(sid).result.active_ms == 4000.0


async def test_f2_and_f3_open_the_browse_screens_but_not_while_playing_the_agent(store, search):
    app = ClarifyApp(store=store, search=search, tasks=TASKS)
    async with app.run_test(size=SIZE) as pilot:
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "Sessions" in titles and "Scores" in titles
        await pilot.press("f2")
        assert type(app.screen).__name__ == "SessionsScreen"
        await pilot.press("q")
        assert app.screen is app.picker
        await pilot.press("f3")
        assert type(app.screen).__name__ == "ScoresScreen"
        await pilot.press("q")
        assert app.screen is app.picker

    hook = Messages()
    app = queue_app(store, search, tasks=[IC])
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await hook.next(AgentTurnStarted)
        await pilot.press("f2", "f3")
        assert isinstance(app.screen, PlayScreen)  # other sessions would show the answer
        helps = {c.title: c.help for c in app.get_system_commands(app.screen)}
        assert "not now" in helps["Sessions"]  # listed, but picking it only says why (test_tui_keys)
        await answer(pilot, hook, app.screen)
        await pilot.press("f2")
        assert type(app.screen).__name__ == "SessionsScreen"


def test_plain_play_records_the_annotator_given(store, search):
    setup = driver_module.PlaySetup(task=IC, role="agent", annotator="bob")
    drv = driver_module.EpisodeDriver.for_play(setup, store, lambda message: None, search=search)
    assert drv.session.annotator == "bob" and drv.session.mode == "human_agent" and drv.session.run == "tui"


@pytest.mark.parametrize(
    "argv",
    [
        ["play", "--queue", "hb"],  # not --as agent
        ["play", "--as", "agent", "--queue", "hb", "--task", "i1"],
        ["play", "--as", "agent", "--limit", "3"],  # --limit without --queue
    ],
)
def test_play_queue_rejects_inconsistent_options(argv, tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        cli_main(argv + ["--db", str(tmp_path / "x.db")])
    assert exc.value.code == 2


async def test_skipping_a_task_abandons_it_and_serves_the_next_one(store, search):
    order = [t.id for t in queue_order(TASKS, 4)]
    hook = Messages()
    app = queue_app(store, search, seed=4)
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await hook.next(AgentTurnStarted)
        await pilot.pause()
        assert app.screen.task_.id == order[0]
        await pilot.press("ctrl+o")
        await pilot.pause()
        await pilot.press("y")  # the confirmation (tests/test_tui_keys.py covers "no")
        await hook.next(AgentTurnStarted)
        await pilot.pause()
        assert app.screen.task_.id == order[1]
    skipped = [s for s in store.sessions() if s.task_id == order[0]]
    assert [s.status for s in skipped] == ["abandoned"] and "skipped" in skipped[0].note
    relaunched = queue_app(store, search, seed=4)
    async with relaunched.run_test(size=SIZE, message_hook=Messages()) as pilot:
        await pilot.pause(0.3)
        assert relaunched.screen.task_.id == order[1]  # the skipped task is not served again
