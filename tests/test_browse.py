"""Pilot tests of the browsing screens (BrowseApp): replay navigation, fork, compare,
ask-versus-guess, the sessions list and the replay / demo commands.

The database is built once per module through the CLI runner (scripted agents, offline).
"""

from __future__ import annotations

import io

import pytest
from rich.console import Console
from textual.widgets import Checkbox, Input, Static

from clarify_tui.cli import main as cli
from clarify_tui.commands.demo import pick_task
from clarify_tui.store import Store
from clarify_tui.tui.browse import BrowseApp
from clarify_tui.tui.screens.ask_vs_guess import RUN_NAME, AskVsGuessScreen
from clarify_tui.tui.screens.compare import CompareScreen
from clarify_tui.tui.screens.replay import ReplayScreen
from clarify_tui.tui.screens.sessions import SessionsScreen
from clarify_tui.tui.widgets.session_table import SessionTable
from clarify_tui.tui.widgets.state import StatePanel, render_state
from clarify_tui.tui.widgets.trajectory import Trajectory
from tests.clitools import scripted_run

SIZE = (150, 45)


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("browse") / "browse.db"
    for agent in ("direct-guess", "search-then-ask"):
        assert cli(scripted_run(path, "discobench", agent, f"dg-{agent}", 3)) == 0
    return path


@pytest.fixture
def store(db):
    s = Store(db)
    yield s
    s.close()


def first(store, run):
    return store.sessions(runs=[run])[0]


def plain(renderable) -> str:
    console = Console(width=60, file=io.StringIO(), record=True)
    console.print(renderable)
    return console.export_text()


def text_of(widget: Static) -> str:
    return str(widget.render())


async def settle(pilot):
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def test_replay_steps_show_the_state_recorded_at_each_step(store):
    session = first(store, "dg-search-then-ask")
    steps = store.steps(session.id)
    task = store.task_for(session.id)
    app = BrowseApp(store, start="replay", session_id=session.id[:6])  # a prefix is enough
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        await pilot.press("home")
        for n in range(len(steps)):
            assert screen.cursor == n
            assert screen.shown_state == steps[n].state
            panel = screen.query_one(StatePanel)
            expected = render_state(task, steps[n].state, reveal=True, spoilers=True)
            assert plain(panel.content) == plain(expected)
            await pilot.press("right")
        assert screen.cursor == len(steps) - 1  # right at the last step stays there
        await pilot.press("home")
        assert screen.cursor == 0
        await pilot.press("end")
        assert screen.cursor == len(steps) - 1
        await pilot.press("left", "left")
        assert screen.shown_state == steps[-3].state


async def test_failed_discobench_opens_at_the_first_failed_checkpoint(store):
    session = first(store, "dg-direct-guess")
    steps = store.steps(session.id)
    failure = next(s.index for s in steps if any(cp.status == "failed" for cp in s.state.protocol.checkpoints))
    app = BrowseApp(store, start="replay", session_id=session.id)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert screen.cursor == failure
        assert screen.guess is not None and steps[screen.guess].actor == "agent"
        assert steps[screen.guess].action.kind.value in ("search", "answer")
        await pilot.pause()
        assert "guess" in screen.query_one(Trajectory).marks(screen.guess)
        assert "instead of asking" in text_of(screen.query_one("#replay-head", Static))


async def test_fork_saves_parent_fork_step_copied_steps_and_continuation(store):
    parent = first(store, "dg-direct-guess")
    parent_steps = store.steps(parent.id)
    app = BrowseApp(store, start="sessions", pace=0)
    async with app.run_test(size=SIZE) as pilot:
        table = app.screen.query_one(SessionTable)
        table.move_cursor(row=[r.id for r in table.rows_shown].index(parent.id))
        await pilot.press("enter")
        await pilot.pause()
        replay = app.screen
        assert isinstance(replay, ReplayScreen)
        replay.pace = 0
        await pilot.press("home", "f")  # fork after step 0 (the search), before the guess
        await pilot.pause()
        spec = app.screen.query_one("#fork-spec", Input)
        assert spec.value == parent.agent  # the same agent by default
        spec.value = "scripted:search-then-ask"
        await pilot.press("enter")
        await settle(pilot)
        fork = replay.session
        assert fork.id != parent.id and fork.parent_id == parent.id and fork.fork_step == 0
        saved = store.session(fork.id)
        assert saved.parent_id == parent.id and saved.fork_step == 0 and saved.status == "completed"
        assert saved.agent == "scripted:search-then-ask"
        fork_steps = store.steps(fork.id)
        copied = fork_steps[:1]
        assert [s.model_dump(exclude={"created_at"}) for s in copied] == [
            s.model_dump(exclude={"created_at"}) for s in parent_steps[:1]
        ]
        assert len(fork_steps) > 1 and any(s.action.kind.value == "ask" for s in fork_steps[1:])
        assert replay.steps[-1].index == fork_steps[-1].index  # the screen replays the fork now
        # back in the sessions list the fork sits right under its parent
        await pilot.press("q")
        await pilot.pause()
        rows = app.screen.query_one(SessionTable).rows_shown
        ids = [r.id for r in rows]
        assert ids[ids.index(parent.id) + 1] == fork.id
        assert rows[ids.index(fork.id)].depth == 1


async def test_compare_aligns_by_action_and_gives_a_verdict_per_column(store):
    a, b = first(store, "dg-direct-guess"), first(store, "dg-search-then-ask")
    app = BrowseApp(store, start="compare", session_id=a.id, other_id=b.id)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        left = text_of(screen.query_one("#compare-verdict-a", Static))
        right = text_of(screen.query_one("#compare-verdict-b", Static))
        assert (
            "wrong" in left and "0 asks" in left and "3 searches" in left
        )  # one per checkpoint: a wrong CP1 no longer ends the task
        assert "correct" in right and "ask" in right
        left_groups = [g for g, _, _ in screen.rows if g is not None]
        right_groups = [g for _, g, _ in screen.rows if g is not None]
        assert sum(len(g) for g in left_groups) == len(store.steps(a.id))
        assert sum(len(g) for g in right_groups) == len(store.steps(b.id))
        assert screen.rows[0][2]  # both open with the same search
        assert all(g[0].actor == "agent" for g in left_groups + right_groups)
        await pilot.press("x")
        assert "correct" in text_of(screen.query_one("#compare-verdict-a", Static))


async def test_ask_vs_guess_saves_both_sessions_and_shows_both_verdicts(tmp_path):
    store = Store(tmp_path / "avg.db")
    app = BrowseApp(store, start="ask-vs-guess", task=pick_task(None), pace=0)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, AskVsGuessScreen) and screen.finished
        saved = store.sessions(runs=[RUN_NAME])
        assert {s.agent for s in saved} == {"scripted:direct-guess", "scripted:search-then-ask"}
        assert all(s.status == "completed" and s.task_id == pick_task(None).id for s in saved)
        assert "wrong" in text_of(screen.query_one("#avg-verdict-a", Static))
        assert "correct" in text_of(screen.query_one("#avg-verdict-b", Static))
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(app.screen, CompareScreen)
    store.close()


async def test_sessions_filters_failed_only(store):
    app = BrowseApp(store, start="sessions")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, SessionsScreen)
        total = len(screen.query_one(SessionTable).rows_shown)
        screen.query_one("#filter-failed", Checkbox).value = True
        await pilot.pause()
        shown = screen.query_one(SessionTable).rows_shown
        assert 0 < len(shown) < total and all(r.failed for r in shown)
        screen.query_one("#filter-errored", Checkbox).value = True
        await pilot.pause()
        assert screen.query_one(SessionTable).rows_shown == []
        status = str(screen.query_one("#sessions-status", Static).render())
        assert f"None of the {total} sessions match the filters" in status


async def test_sessions_of_an_empty_database_say_what_fills_them(tmp_path):
    app = BrowseApp(Store(tmp_path / "empty.db"), start="sessions")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        status = str(app.screen.query_one("#sessions-status", Static).render())
        assert "No sessions yet" in status and "clarify-tui run" in status


async def test_sessions_filter_picked_with_the_keyboard(store):
    """A filter is a drop-down: enter opens its choices (the arrow turns), down + enter
    picks the first run, and the table and the filter's own line show it."""
    from clarify_tui.tui.speed.light_select import LightSelect, LightSelectCurrent

    app = BrowseApp(store, start="sessions")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        select = screen.query_one("#filter-run", LightSelect)
        current = select.query_one(LightSelectCurrent)
        assert "all runs" in current.render().plain and "▼" in current.render().plain
        select.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert select.expanded and "▲" in current.render().plain
        await pilot.press("down", "enter")
        await pilot.pause()
        run = sorted({r.session.run for r in screen.rows})[0]
        assert select.value == run and screen.filters.run == run and not select.expanded
        lines = current.render().plain.split("\n")  # a long name wraps, the arrow on its first line
        assert "".join([lines[0][:-2], *lines[1:]]).replace(" ", "") == run
        shown = screen.query_one(SessionTable).rows_shown
        assert shown and all(r.session.run == run for r in shown)


def test_replay_command_rejects_an_unknown_session(db, capsys):
    assert cli(["replay", "no-such-session", "--db", str(db)]) == 2
    assert "no session" in capsys.readouterr().err


def test_demo_picks_the_first_discobench_task_by_default():
    task = pick_task(None)
    assert task.protocol.value == "discobench"
    assert pick_task(f"discobench:{task.id}").id == task.id


async def test_a_person_can_continue_a_fork_as_the_agent(store):
    parent = first(store, "dg-direct-guess")
    app = BrowseApp(store, start="replay", session_id=parent.id, pace=0)
    async with app.run_test(size=SIZE) as pilot:
        replay = app.screen
        replay.start_fork(0, "human")
        await pilot.pause()
        fork_id = replay.session.id
        assert replay.live is not None and replay.agent_turn
        assert store.session(fork_id).mode == "human_agent"
        for answer in ("Brave New World", "Aldous Huxley"):  # one answer per checkpoint
            await pilot.press("enter")  # answer
            await pilot.pause()
            await pilot.press(*answer, "enter")
            for _ in range(50):
                await pilot.pause()
                if replay.agent_turn:
                    break
            assert replay.agent_turn, f"no agent turn after {answer}"
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press(*"Godalming", "enter")
        await settle(pilot)
        saved = store.session(fork_id)
        assert saved.status == "completed" and saved.parent_id == parent.id and saved.fork_step == 0
        assert saved.result.answer == "Godalming" and saved.result.correct is True
        assert replay.live is None and replay.session.id == fork_id


async def test_h_during_a_persons_fork_keeps_the_hidden_panel_locked(store):
    """A person continuing a fork as the agent never gets the hidden information back by
    toggling the panel (off, then on again)."""
    from clarify_tui.tui.widgets.hidden import HiddenPanel

    parent = first(store, "dg-direct-guess")
    app = BrowseApp(store, start="replay", session_id=parent.id, pace=0)
    async with app.run_test(size=SIZE) as pilot:
        replay = app.screen
        replay.start_fork(0, "human")
        await pilot.pause()
        panel = replay.query_one(HiddenPanel)
        for _ in range(2):
            await pilot.press("h")
            await pilot.pause()
            text = text_of(panel).casefold()
            assert panel.has_class("locked") and "locked until the session ends" in text
            assert not [h for h in replay.task_.hidden_strings() if h.casefold() in text]


async def test_a_persons_fork_says_which_actions_its_protocol_never_offers(store):
    """DiscoBench has no visit (its spec's `never_offers`): the key says so and opens nothing."""
    from clarify_tui.tui.widgets.action_bar import ActionBar

    parent = first(store, "dg-direct-guess")
    app = BrowseApp(store, start="replay", session_id=parent.id, pace=0)
    async with app.run_test(size=SIZE) as pilot:
        replay = app.screen
        replay.start_fork(0, "human")
        await pilot.pause()
        assert replay.agent_turn
        await pilot.press("v")
        await pilot.pause()
        # the warning toast's words (as tests/test_tui_keys.py reads a refused key's reason)
        assert "discobench has no visit." in [str(n.message) for n in app._notifications]
        assert not replay.query_one(ActionBar).composing


@pytest.fixture
def three_sessions_db(tmp_path):
    from clarify_tui.cli import main as cli

    db = tmp_path / "s.db"
    assert (
        cli(
            [
                "run",
                "--benchmark",
                "interactcomp",
                "--dataset",
                "demo",
                "--agent",
                "scripted:direct-guess",
                "--db",
                str(db),
                "--run",
                "r",
                "--limit",
                "3",
                "--concurrency",
                "1",
            ]
        )
        == 0
    )
    return db


async def test_sessions_newest_first_and_home_end(three_sessions_db):
    """The sessions list opens newest first; Home and End jump to the first and last row."""
    from clarify_tui.store import Store
    from clarify_tui.tui.browse import BrowseApp
    from clarify_tui.tui.widgets.session_table import SessionTable

    store = Store(three_sessions_db)
    newest_first = [s.id for s in sorted(store.sessions(), key=lambda s: (s.created_at, s.id), reverse=True)]
    app = BrowseApp(store, start="sessions")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        table = app.screen.query_one(SessionTable)
        assert [r.id for r in table.rows_shown] == newest_first
        await pilot.press("end")
        assert table.current_id == newest_first[-1]
        await pilot.press("home")
        assert table.current_id == newest_first[0]


async def test_sessions_load_once_on_opening_and_again_after_a_replay(store):
    """The sessions query reads every session: opening F2 runs it once (not once on mount and
    again on the first resume), and coming back from a replay runs it again (a fork may have
    added sessions). The table has the focus from the start."""
    calls = []
    real = store.sessions
    store.sessions = lambda *a, **k: calls.append(1) or real(*a, **k)
    app = BrowseApp(store, start="sessions")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert len(calls) == 1
        assert isinstance(app.focused, SessionTable)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ReplayScreen)
        await pilot.press("q")
        await settle(pilot)
        assert isinstance(app.screen, SessionsScreen)
        assert len(calls) == 2
