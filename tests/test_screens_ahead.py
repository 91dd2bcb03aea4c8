"""F2, F3 and ? built while the workbench is idle (tui/speed/ahead.py): what opens is what a
screen built at the key shows, with data current at the opening, and keys pressed while
they are built are handled."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time

import pytest
from textual.screen import Screen
from textual.widgets import Static

from clarify_tui.models import Session
from clarify_tui.search.local import LocalSearch
from clarify_tui.store import Store
from clarify_tui.tui.app import ClarifyApp
from clarify_tui.tui.screens.help import HelpScreen, HelpText, help_table
from clarify_tui.tui.screens.sessions import SessionsScreen
from clarify_tui.tui.speed.ahead import QUIET_S
from clarify_tui.tui.widgets.session_table import SessionTable
from tests.conftest import CTS, DISCO, DOCS, IC

SIZE = (160, 45)


def make_app(db, **kwargs) -> ClarifyApp:
    store = kwargs.pop("store", None) or Store(db)
    return ClarifyApp(store=store, tasks=[IC, DISCO, CTS], search=LocalSearch(DOCS), **kwargs)


def add_session(store: Store, run: str, status: str = "running") -> Session:
    session = Session(
        run=run,
        task_id=IC.id,
        protocol=IC.protocol,
        agent="scripted:search-then-ask",
        user="rule",
        search="local",
        judge="rule",
        status=status,
    )
    store.start_session(session, IC)
    return session


async def finished(app, seconds: float = 60) -> None:
    """The warm-up's end; a failure, not a hang, if it never comes."""
    await asyncio.wait_for(app.ahead.finished.wait(), seconds)


async def built(app, pilot) -> None:
    await pilot.pause()
    await finished(app)
    assert app.ahead.error is None
    assert set(app.ahead.ready) == {"sessions", "scores", "help"}
    await pilot.pause()


def screen_text(app) -> str:
    """What the terminal shows, as text (every cell)."""
    return app.export_screenshot()


async def test_f2_built_ahead_shows_a_session_stored_after_it_was_built(tmp_path):
    app = make_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        await built(app, pilot)
        ahead = app.ahead.built["sessions"]
        assert ahead.query_one(SessionTable).row_count == 0
        session = add_session(app.store, "after-the-build")
        await pilot.press("f2")
        await pilot.pause()
        assert app.screen is ahead
        assert [r.id for r in ahead.query_one(SessionTable).rows_shown] == [session.id]
        assert "1 of 1 session ·" in str(ahead.query_one("#sessions-status", Static).render())


async def test_f2_built_ahead_shows_a_session_another_process_stored(tmp_path):
    """Another connection (a `clarify-tui run` in another terminal) changes data_version."""
    app = make_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        await built(app, pilot)
        other = Store(tmp_path / "t.db")
        session = add_session(other, "elsewhere")
        other.close()
        await pilot.press("f2")
        await pilot.pause()
        assert [r.id for r in app.screen.query_one(SessionTable).rows_shown] == [session.id]


async def test_f3_built_ahead_scores_a_session_stored_after_it_was_built(tmp_path):
    app = make_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        await built(app, pilot)
        ahead = app.ahead.built["scores"]
        assert "0 sessions" in str(ahead.query_one("#scores-summary", Static).render())
        add_session(app.store, "after-the-build", status="completed")
        await pilot.press("f3")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.screen is ahead
        assert "1 session · 1 group by run" in str(ahead.query_one("#scores-summary", Static).render())


@pytest.mark.parametrize("key", ["f2", "f3", "question_mark"])
async def test_a_screen_built_ahead_shows_what_one_built_at_the_key_shows(tmp_path, key):
    """Same cells; and opening it lays nothing out and draws no widget's lines again
    (if Textual stopped keeping what was done ahead, this fails before the bench does)."""
    store = Store(tmp_path / "t.db")
    for run in ("a", "b", "c"):
        add_session(store, run, status="completed")
    fresh = make_app(None, store=store)
    fresh.ahead.builders.clear()  # nothing built ahead: the key builds the screen
    async with fresh.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press(key)
        await fresh.workers.wait_for_complete()
        await pilot.pause()
        expected = screen_text(fresh)

    app = make_app(None, store=store)
    async with app.run_test(size=SIZE) as pilot:
        await built(app, pilot)
        kind = {"f2": "sessions", "f3": "scores", "question_mark": "help"}[key]
        ahead = app.ahead.built[kind]
        layouts, drawn = [], []
        refresh_layout, widgets = ahead._refresh_layout, [w for w in ahead.walk_children() if w.region]
        ahead._refresh_layout = lambda *a, **k: (layouts.append(a), refresh_layout(*a, **k))[1]
        for widget in widgets:
            widget.render_line = lambda y, w=widget, line=widget.render_line: (drawn.append(w), line(y))[1]
        await pilot.press(key)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.screen is ahead
        assert screen_text(app) == expected
        if kind != "scores":  # F3 shows its numbers once computed: new tables, laid out and drawn then
            # the footer's one line is drawn again: its keys depend on the screen below (q Back, screens/back.py)
            assert layouts == [] and [w for w in drawn if type(w).__name__ != "Footer"] == []


async def test_keys_pressed_while_screens_are_built_are_handled(tmp_path):
    app = make_app(tmp_path / "t.db")
    add_session(app.store, "r1")
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(20_000):
            if "sessions" in app.ahead.built:  # registered, its widgets mounting
                break
            assert not app.ahead.finished.is_set(), app.ahead.error
            await pilot.pause(0.001)
        table = app.picker.query_one("#tasks")
        await pilot.press("down")
        assert table.cursor_row == 1
        half_built = app.ahead.built["sessions"]
        await pilot.press("f2")  # taken as far as it got: Textual finishes it
        await pilot.pause()
        assert app.screen is half_built and half_built.query_one(SessionTable).row_count == 1
        await pilot.press("q")
        await finished(app)
        assert app.ahead.error is None and "sessions" not in app.ahead.built
        await pilot.press("f2")  # taken once: built at the key, as before
        await pilot.pause()
        assert isinstance(app.screen, SessionsScreen) and app.screen is not half_built


async def test_a_screen_built_at_another_terminal_size_is_not_shown(tmp_path):
    app = make_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        await built(app, pilot)
        ahead = app.ahead.built["sessions"]
        await pilot.resize_terminal(80, 24)
        await pilot.press("f2")
        await pilot.pause()
        assert isinstance(app.screen, SessionsScreen) and app.screen is not ahead
        assert app.screen.has_class("-narrow") and app.screen.query_one(SessionTable).region.right <= 80


async def test_building_ahead_creates_no_database(tmp_path):
    db = tmp_path / "never.db"
    app = ClarifyApp(db=db, tasks=[IC, DISCO, CTS], search=LocalSearch(DOCS))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await finished(app)
        assert set(app.ahead.ready) == {"help"} and not db.exists()
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)


async def test_the_help_text_is_drawn_as_a_static_draws_it(tmp_path):
    app = make_app(tmp_path / "t.db")
    app.ahead.builders.clear()  # (stopping the warm-up midway cancelled a screen's mounting)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = Screen()
        await app.push_screen(screen)
        static, text = Static(help_table(app.BINDINGS)), HelpText(help_table(app.BINDINGS))
        await screen.mount_all([static, text])
        await pilot.pause()
        assert static.size == text.size and static.size.height > 50
        region = static.size.region
        assert static.render_lines(region) == text.render_lines(region)


def test_a_screens_imports_come_one_module_at_a_time_deepest_first():
    code = (
        "from clarify_tui.tui.speed.ahead import import_order\n"
        "print(list(import_order('clarify_tui.tui.screens.scores')))"
    )
    names = eval(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    assert names[-1] == "clarify_tui.tui.screens.scores" and len(names) == len(set(names))
    assert names.index("clarify_tui.metrics.charts") < names.index("clarify_tui.tui.screens.scores")
    assert "textual.widgets.TabbedContent" in names
    assert all(n.startswith(("clarify_tui.", "textual.widgets.")) for n in names)


async def test_no_screen_is_built_ahead_in_the_queue(tmp_path):
    from clarify_tui.tui.screens.play_queue import QueueSpec

    app = make_app(tmp_path / "t.db", queue=QueueSpec(run="q", annotator="ann"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.3)
        assert not app.ahead.built and not app.ahead.finished.is_set()


async def test_the_help_text_is_drawn_ahead_at_the_width_its_layout_gives(tmp_path):
    """HelpText.draw_ahead guesses the width from the dialog's CSS: a wrong guess would
    leave the whole text to be drawn inside the layout step (one long stall)."""
    app = make_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        await built(app, pilot)
        text = app.ahead.built["help"].query_one(HelpText)
        drawn_ahead = {key[0] for key, _lines in text._parts.values()}
        assert drawn_ahead == {text.size.width} and len(text._parts) == len(text._group.renderables)
        assert any(what == "help: HelpText ahead" for _ms, what in app.ahead.steps)


async def test_a_new_screen_on_top_holds_the_warm_up_back_as_a_key_does(tmp_path):
    """enter pressed while the tasks load opens the task later: the warm-up's next step
    waits QUIET_S after the new screen, as after a key."""
    app = make_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        await built(app, pilot)
        await app.push_screen(Screen())
        start = time.monotonic()
        await app.ahead._quiet()
        assert time.monotonic() - start >= QUIET_S and app.ahead._top is app.screen
        app.ahead.note_input()  # a key
        start = time.monotonic()
        await app.ahead._quiet()
        assert time.monotonic() - start >= QUIET_S * 0.9


@pytest.mark.parametrize("wait_for", ["sessions", "scores", "help"])
async def test_quitting_while_a_screen_is_built_ahead_is_clean(tmp_path, wait_for):
    app = make_app(tmp_path / "t.db")
    add_session(app.store, "r1", status="completed")
    async with app.run_test(size=SIZE) as pilot:
        while wait_for not in app.ahead.built:  # its widgets mounting, a step at a time
            await pilot.pause(0.001)
        app.exit()
    assert app.return_code == 0  # run_test re-raises any error the app met while closing


@pytest.mark.parametrize("kind, key", [("scores", "f3"), ("sessions", "f2")])
async def test_a_click_on_the_footer_takes_a_half_built_screen_without_waiting_for_the_warm_up(tmp_path, kind, key):
    """A step of the warm-up waiting for a quiet moment while its screen is taken gives up
    at once: the screen on top is then that screen, which cannot paint while the step holds
    up its mounting (test_footer's click on F3 once hung 300 s so)."""
    from clarify_tui.tui.widgets.footer import Footer

    app = make_app(tmp_path / "t.db")
    add_session(app.store, "r1", status="completed")
    async with app.run_test(size=SIZE) as pilot:
        while kind not in app.ahead.built:  # registered, its widgets mounting a step at a time
            assert not app.ahead.finished.is_set(), app.ahead.error
            await pilot.pause(0.001)
        half_built = app.ahead.built[kind]
        line = app.screen.query_one(Footer).render().plain
        await asyncio.wait_for(pilot.click(Footer, offset=(line.index(key), 0)), 30)
        await asyncio.wait_for(pilot.pause(), 30)
        assert app.screen is half_built
        assert all(node.is_mounted for node in half_built.walk_children())
        await asyncio.wait_for(finished(app), 30)
        assert app.ahead.error is None


async def test_textuals_compound_widgets_are_composed_at_once(tmp_path):
    """Only our widgets and Textual's plain containers are mounted a child at a time; F3's
    tabs (whose Underline Tabs reads as soon as a tab is active) are composed as Textual
    composes them (test_tui's orig_baseline test once crashed with NoMatches 'Underline')."""
    from textual.widgets import TabbedContent, Tabs

    app = make_app(tmp_path / "t.db")
    add_session(app.store, "r1", status="completed")
    async with app.run_test(size=SIZE) as pilot:
        await built(app, pilot)
        stepped = {type(w).__name__ for w in app.ahead.stepped}
        assert {"ScoresScreen", "SessionsScreen", "HelpScreen"} <= stepped
        assert not any(isinstance(w, (Tabs, TabbedContent)) for w in app.ahead.stepped)
        assert all(type(w).__module__.startswith(("clarify_tui.", "textual.containers")) for w in app.ahead.stepped)
        await pilot.press("f3")
        await pilot.pause()
        assert app.screen.query_one(Tabs).active  # a tab is active, its underline drawn


async def test_what_was_built_ahead_is_frozen_out_of_the_collectors_scans(tmp_path):
    """The screens built ahead live until taken: the warm-up ends with gc.freeze, so a full
    collection does not walk them (one landed in play and replay openings: ~120 ms of CPU,
    benchmarks/bench_tui.py)."""
    import gc

    gc.unfreeze()
    app = make_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        before = gc.get_freeze_count()
        await built(app, pilot)
        assert gc.get_freeze_count() > before
        sessions = app.ahead.built["sessions"]
        assert not any(sessions is o for o in gc.get_objects())  # frozen objects are out of the collector's lists
    gc.unfreeze()
