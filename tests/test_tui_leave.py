"""Issue 30: `q` never ends a person's work unasked. On a person's unfinished session
(playing the agent, playing the user, stepping the agent) it asks: keep it for later (the
default: left `running`, resumed by `play --task` or the picker), give it up (abandoned,
never scored), or cancel. What is asserted is what is stored and what is drawn."""

from __future__ import annotations

import asyncio

import pytest

from clarify_tui.models import ActionKind
from clarify_tui.search.local import LocalSearch
from clarify_tui.store import Store
from clarify_tui.tui.app import ClarifyApp
from clarify_tui.tui.messages import AgentTurnStarted, ReplyRequested, SessionEnded
from clarify_tui.tui.screens.play import PlayScreen
from tests.conftest import CTS, DISCO, DOCS, IC
from tests.test_tui import Messages, type_text
from tests.test_tui_forms import burst

SMALL = (80, 24)


def app_on(db, **kwargs) -> ClarifyApp:
    kwargs.setdefault("task_id", "i1")
    kwargs.setdefault("as_", "agent")
    return ClarifyApp(db=db, tasks=[IC, DISCO, CTS], search=LocalSearch(DOCS), annotator="ana", **kwargs)


def drawn(app) -> str:
    """The terminal's lines, as a person reads them."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


async def until(pilot, condition, what: str) -> None:
    for _ in range(500):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"never: {what}")


async def search_then_q(pilot, hook) -> str:
    """Play one search as the agent on i1 and press q: the question is up."""
    app = pilot.app
    await hook.next(AgentTurnStarted)
    await pilot.pause()
    await pilot.press("s")
    await type_text(pilot, "red lattice tower")
    await pilot.press("enter")
    await hook.next(AgentTurnStarted)
    await pilot.pause()
    sid = app.screen.driver.session.id
    await pilot.press("q")
    await pilot.pause()
    return sid


async def test_q_on_a_played_agent_session_asks_and_keeps_it_for_later_by_default(tmp_path):
    db = tmp_path / "leave.db"
    hook = Messages()
    app = app_on(db)
    async with app.run_test(size=SMALL, message_hook=hook) as pilot:
        sid = await search_then_q(pilot, hook)
        text = drawn(app)
        assert "unfinished?" in text and "keep it for later" in text and "give it up" in text, text
        assert "cancel, go on playing" in text
        assert Store(db).session(sid).status == "running"  # nothing ended while it asks
        await pilot.press("enter")  # the default: keep it
        await pilot.pause()
        assert app.screen is app.picker
    assert Store(db).session(sid).status == "running"

    # `play --task i1 --as agent` again offers it, and resumes it at its last step
    hook = Messages()
    app = app_on(db)
    async with app.run_test(size=SMALL, message_hook=hook) as pilot:
        await until(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen", "the resume question")
        assert f"Resume session {sid}" in drawn(app)
        await pilot.press("y")
        await hook.next(AgentTurnStarted)
        await pilot.pause()
        assert isinstance(app.screen, PlayScreen) and app.screen.driver.session.id == sid
        await pilot.press("enter")  # and it can be finished
        await type_text(pilot, "Sapporo TV Tower")
        await pilot.press("enter", "8", "0", "enter")
        await hook.next(SessionEnded)
    stored = Store(db)
    assert stored.session(sid).status == "completed"
    assert [s.action.kind for s in stored.steps(sid) if s.actor == "agent"] == [ActionKind.search, ActionKind.answer]
    assert len(stored.sessions()) == 1


async def test_a_session_kept_for_later_is_offered_again_from_the_picker(tmp_path):
    db = tmp_path / "picker.db"
    hook = Messages()
    app = app_on(db)
    async with app.run_test(size=SMALL, message_hook=hook) as pilot:
        sid = await search_then_q(pilot, hook)
        await pilot.press("k")  # keep, by its letter
        await pilot.pause()
    hook = Messages()
    app = app_on(db, task_id=None)
    async with app.run_test(size=SMALL, message_hook=hook) as pilot:
        await until(pilot, lambda: bool(app.picker.shown), "the tasks")
        await pilot.press("enter")  # i1, as the agent (the picker's role)
        await until(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen", "the resume question")
        await pilot.press("y")
        await hook.next(AgentTurnStarted)
        assert app.screen.driver.session.id == sid and len(app.screen.driver.steps) > 0
    assert [s.id for s in Store(db).sessions()] == [sid]


async def test_escape_on_the_resume_question_gives_nothing_up(tmp_path):
    db = tmp_path / "escape.db"
    hook = Messages()
    app = app_on(db)
    async with app.run_test(size=SMALL, message_hook=hook) as pilot:
        sid = await search_then_q(pilot, hook)
        await pilot.press("enter")
        await pilot.pause()
    app = app_on(db)
    async with app.run_test(size=SMALL) as pilot:
        await until(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen", "the resume question")
        assert "escape: cancel" in drawn(app)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is app.picker
    assert Store(db).session(sid).status == "running"


async def test_giving_up_abandons_and_cancel_goes_on(tmp_path):
    db = tmp_path / "giveup.db"
    hook = Messages()
    app = app_on(db)
    async with app.run_test(size=SMALL, message_hook=hook) as pilot:
        sid = await search_then_q(pilot, hook)
        await pilot.press("escape")  # cancel: the session goes on
        await pilot.pause()
        assert isinstance(app.screen, PlayScreen) and "Your turn" in drawn(app)
        assert Store(db).session(sid).status == "running"
        await pilot.press("q")
        await pilot.pause()
        await pilot.press("g")  # give it up
        await pilot.pause()
        assert app.screen is app.picker
    saved = Store(db).session(sid)
    assert saved.status == "abandoned" and "given up" in saved.note


async def test_q_with_an_answer_being_typed_asks_too(tmp_path):
    """Nothing played yet, but an answer typed (the focus moved out of the form): q asks."""
    db = tmp_path / "typed.db"
    hook = Messages()
    app = app_on(db)
    async with app.run_test(size=SMALL, message_hook=hook) as pilot:
        await hook.next(AgentTurnStarted)
        await pilot.pause()
        await pilot.press("enter")
        await type_text(pilot, "Sapporo TV Tower")
        app.screen.set_focus(None)
        await pilot.press("q")
        await pilot.pause()
        assert "keep it for later" in drawn(app)
        await pilot.press("escape")
        await pilot.pause()
        assert "Sapporo TV Tower" in drawn(app)  # still there to send


async def test_q_on_a_replied_user_session_asks_and_keeps_it(tmp_path):
    """Playing the user, stepping the agent so that it waits: one reply, then q."""
    db = tmp_path / "user.db"
    hook = Messages()
    app = app_on(db, as_="user", agent_spec="scripted:ask-first", run_mode="step")
    async with app.run_test(size=SMALL, message_hook=hook) as pilot:
        screen = app.screen
        await pilot.pause()
        await pilot.press("space")  # the agent proposes its ask
        await until(pilot, lambda: screen.driver.pending is not None and not screen.busy, "the proposal")
        await pilot.press("enter")  # applied: the person is asked
        await hook.next(ReplyRequested)
        await pilot.pause()
        await pilot.press("i")
        await until(pilot, lambda: any(s.actor == "user" for s in screen.driver.steps) and not screen.busy, "the reply")
        sid = screen.driver.session.id
        await pilot.press("q")
        await pilot.pause()
        assert "keep it for later" in drawn(app)
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is app.picker
    assert Store(db).session(sid).status == "running"
    app = app_on(db, as_="user", agent_spec="scripted:ask-first", run_mode="step")
    async with app.run_test(size=SMALL) as pilot:
        await until(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen", "the resume question")
        await pilot.press("y")
        await until(pilot, lambda: isinstance(app.screen, PlayScreen), "the play screen")
        assert app.screen.driver.session.id == sid
        assert [s.action.text for s in app.screen.driver.steps if s.actor == "user"] == ["i don't know"]


async def test_q_on_a_stepped_session_asks_and_step_mode_resumes_it(tmp_path):
    """A person stepping the agent (`--step`): once a step is applied the session is theirs."""
    db = tmp_path / "step.db"
    app = app_on(db, as_="observer", run_mode="step")
    async with app.run_test(size=SMALL) as pilot:
        screen = app.screen
        await pilot.pause()
        await pilot.press("space")
        await until(pilot, lambda: screen.driver.pending is not None and not screen.busy, "the proposal")
        await pilot.press("enter")
        await until(pilot, lambda: screen.driver.steps and not screen.busy, "the step")
        sid = screen.driver.session.id
        await pilot.press("q")
        await pilot.pause()
        assert "keep it for later" in drawn(app) and "--step" in drawn(app)
        await pilot.press("enter")
        await pilot.pause()
    assert Store(db).session(sid).status == "running"
    app = app_on(db, as_="observer", run_mode="step")
    async with app.run_test(size=SMALL) as pilot:
        await until(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen", "the resume question")
        await pilot.press("y")
        await until(pilot, lambda: isinstance(app.screen, PlayScreen), "the play screen")
        assert app.screen.driver.session.id == sid and app.screen.driver.steps


@pytest.mark.parametrize("as_", ["agent", "observer"])
async def test_nothing_played_or_a_watched_agent_leaves_without_asking(tmp_path, as_):
    db = tmp_path / "nothing.db"
    hook = Messages()
    app = app_on(db, as_=as_)
    async with app.run_test(size=SMALL, message_hook=hook) as pilot:
        if as_ == "agent":
            await hook.next(AgentTurnStarted)
        await pilot.pause()
        await pilot.press("q")
        await pilot.pause()
        assert app.screen is app.picker


# ---- a person's fork in replay ---------------------------------------------------------


@pytest.fixture
def forkable(tmp_path):
    from clarify_tui.cli import main as cli

    db = tmp_path / "fork.db"
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
                "r",
                "--limit",
                "1",
                "--concurrency",
                "1",
            ]
        )
        == 0
    )
    return db


async def test_q_on_a_persons_fork_asks_keeps_it_and_replay_resumes_it(forkable):
    from clarify_tui.tui.browse import BrowseApp

    store = Store(forkable)
    parent = store.sessions(runs=["r"])[0]
    app = BrowseApp(store, start="replay", session_id=parent.id, pace=0)
    async with app.run_test(size=SMALL) as pilot:
        replay = app.screen
        replay.action_toggle_hidden()  # unseen: the fork is a clean baseline
        replay.start_fork(0, "human")
        await until(pilot, lambda: replay.agent_turn, "the person's turn")
        fork_id = replay.session.id
        await pilot.press("s")
        await type_text(pilot, "red lattice tower")
        await pilot.press("enter")
        await until(pilot, lambda: replay.agent_turn and len(replay.live.steps) > replay.live_from, "the search")
        await pilot.press("escape")  # stop the fork: asked too
        await pilot.pause()
        assert "keep it for later" in drawn(app)
        await pilot.press("c")  # cancel: it goes on
        await pilot.pause()
        assert replay.live is not None and store.session(fork_id).status == "running"
        await pilot.press("q")
        await pilot.pause()
        assert "keep it for later" in drawn(app)
        await pilot.press("enter")
        await pilot.pause()
    assert store.session(fork_id).status == "running"

    app = BrowseApp(store, start="replay", session_id=fork_id, pace=0)
    async with app.run_test(size=SMALL) as pilot:
        replay = app.screen
        await pilot.pause()
        assert "unfinished: r resumes it" in drawn(app)
        await pilot.press("r")
        await until(pilot, lambda: replay.agent_turn, "the person's turn, resumed")
        assert replay.session.id == fork_id
        burst(app, "\rSapporo TV Tower\r\r")  # answer, no confidence: typed at once
        await until(pilot, lambda: replay.live is None, "the end")
    saved = store.session(fork_id)
    assert saved.status == "completed" and saved.result.answer == "Sapporo TV Tower"
    assert not saved.result.informed
    kinds = [s.action.kind for s in store.steps(fork_id) if s.actor == "agent"]
    assert kinds[-2:] == [ActionKind.search, ActionKind.answer]


async def test_giving_up_a_persons_fork_abandons_it(forkable):
    from clarify_tui.tui.browse import BrowseApp

    store = Store(forkable)
    parent = store.sessions(runs=["r"])[0]
    app = BrowseApp(store, start="replay", session_id=parent.id, pace=0)
    async with app.run_test(size=SMALL) as pilot:
        replay = app.screen
        replay.start_fork(0, "human")
        await until(pilot, lambda: replay.agent_turn, "the person's turn")
        fork_id = replay.session.id
        await pilot.press("s")
        await type_text(pilot, "red lattice tower")
        await pilot.press("enter")
        await until(pilot, lambda: replay.agent_turn and len(replay.live.steps) > replay.live_from, "the search")
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("g")
        await until(pilot, lambda: replay.live is None, "the fork stopped")
        assert replay.session.id == fork_id  # it replays what was played
    saved = store.session(fork_id)
    assert saved.status == "abandoned" and "given up" in saved.note
