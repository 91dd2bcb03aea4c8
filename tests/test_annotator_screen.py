"""The annotator's screen tells the truth (issue 26), each check at the size the problem
was found: 80×24 for what was cut, 200×50 for what was said wrongly when everything fits."""

from __future__ import annotations

import pytest
from textual.widgets import Input, Label, Static

from clarify_tui.cli import main as cli
from clarify_tui.store import Store
from clarify_tui.tasks import load_tasks
from clarify_tui.tui.app import ClarifyApp
from clarify_tui.tui.browse import BrowseApp
from clarify_tui.tui.messages import ReplyRequested
from tests.test_tui import Messages

SMALL, LARGE = (80, 24), (200, 50)


def plain(widget) -> str:
    rendered = widget.render()
    return getattr(rendered, "plain", str(rendered))


async def settle(pilot) -> None:
    """Automated backends only: a person's turn keeps its worker waiting."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.pause()


async def frames(pilot, n: int = 3) -> None:
    """Let the screen take a few messages (a person's turn: no worker to wait for)."""
    for _ in range(n):
        await pilot.pause()


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("annotator") / "a.db"
    for bench, agent in (("interactcomp", "scripted:search-then-ask"), ("discobench", "scripted:direct-guess")):
        assert (
            cli(
                [
                    "run",
                    "--benchmark",
                    bench,
                    "--dataset",
                    "demo",
                    "--agent",
                    agent,
                    "--db",
                    str(path),
                    "--run",
                    bench,
                    "--limit",
                    "2",
                    "--concurrency",
                    "1",
                ]
            )
            == 0
        )
    store = Store(path)
    s = store.sessions(runs=["interactcomp"])[0]
    s.note = "asked twice by mistake"
    store.update_session(s)
    store.close()
    return path


def demo_app(store, **kwargs) -> ClarifyApp:
    tasks = [t for b in ("discobench", "interactcomp", "cts") for t in load_tasks(b, "demo")]
    return ClarifyApp(store=store, tasks=tasks, **kwargs)


def drawn(app, widget) -> str:
    """The terminal's text within `widget`'s content region."""
    region = widget.content_region
    lines = [strip.text for strip in app.screen._compositor.render_strips()][region.y : region.bottom]
    return "\n".join(line[region.x : region.right] for line in lines)


async def test_ctrl_down_scrolls_a_cut_question_at_80x24(tmp_path):
    app = demo_app(Store(tmp_path / "q.db"), task_id="dg-03", run_mode="step")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        panel = app.screen.query_one("#question")
        assert panel.border_subtitle.startswith("more ↓")
        first = drawn(app, panel)
        await pilot.press("ctrl+down")
        await settle(pilot)
        assert "ctrl+↑" in panel.border_subtitle
        after = drawn(app, panel)  # the text moved up: what was below the panel is drawn now
        assert after != first and after.splitlines()[0] in first and first.splitlines()[0] not in after


async def test_the_reply_box_says_more_only_when_something_is_cut(tmp_path):
    for size, cut in ((LARGE, False), (SMALL, True)):
        app = demo_app(Store(tmp_path / f"r{size[0]}.db"), task_id="ic-05", as_="user")
        hook = Messages()
        async with app.run_test(size=size, message_hook=hook) as pilot:
            await hook.next(ReplyRequested, timeout=120)  # the scripted agent asks
            await frames(pilot)
            box = app.screen.query_one("#reply-box")
            assert box.border_subtitle.startswith("more") == cut, (size, box.border_subtitle)


async def test_the_picker_shows_the_highlighted_tasks_whole_question_at_80x24(tmp_path):
    app = demo_app(Store(tmp_path / "p.db"))
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("down", "down")
        await settle(pilot)
        screen = app.screen
        task = screen.shown[2]
        assert plain(screen.query_one("#picker-question", Static)) == " ".join(task.question.split())
        assert len(task.question) > 40  # the column alone cut it


async def test_playing_the_agent_at_80x24_footer_status_and_f2_say_the_truth(tmp_path):
    app = demo_app(Store(tmp_path / "f.db"), task_id="ic-05", as_="agent")
    said: list[str] = []
    notify = app.notify
    app.notify = lambda message, **kw: (said.append(str(message)), notify(message, **kw))[1]  # type: ignore
    async with app.run_test(size=SMALL) as pilot:
        await frames(pilot)
        status = plain(app.screen.query_one("#status", Static))
        assert "user rule" in status and len(status) <= app.screen.query_one("#status").size.width
        await pilot.press("f2")
        await frames(pilot)
        assert type(app.screen).__name__ == "PlayScreen"
        assert any("Sessions open when the task ends" in m for m in said)


async def test_the_palette_over_f3_offers_no_play_actions(tmp_path):
    from clarify_tui.tui.commands import ScreenCommands

    app = demo_app(Store(tmp_path / "c.db"), task_id="ic-05", run_mode="step")
    async with app.run_test(size=LARGE) as pilot:
        await settle(pilot)
        play = app.screen
        assert ScreenCommands(play)._entries()[0] is play  # on the play screen: its actions
        await pilot.press("f3")
        await settle(pilot)
        assert type(app.screen).__name__ == "ScoresScreen"
        screen, actions, _ = ScreenCommands(app.screen)._entries()
        assert screen is app.screen and "Propose" not in [name for name, _, _ in actions]
        assert "Numbers/Charts" in [name for name, _, _ in actions]  # the scores screen's own


async def test_the_standalone_replay_app_has_help_sessions_and_scores(db):
    store = Store(db)
    session = store.sessions(runs=["interactcomp"])[0]
    app = BrowseApp(store, start="replay", session_id=session.id)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        head = plain(app.screen.query_one("#replay-head", Static))
        assert "note: asked twice by mistake" in head  # what the person typed is visible
        for key, name in (("question_mark", "HelpScreen"), ("f2", "SessionsScreen"), ("f3", "ScoresScreen")):
            await pilot.press(key)
            await settle(pilot)
            assert type(app.screen).__name__ == name
            await pilot.press("escape")
            await settle(pilot)
    store.close()


async def test_the_demo_says_quit_where_q_quits_and_has_help(db):
    from clarify_tui.tui.screens.back import back_enabled

    store = Store(db)
    task = load_tasks("interactcomp", "demo")[0]
    app = BrowseApp(store, start="ask-vs-guess", task=task, pace=0)
    async with app.run_test(size=LARGE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert back_enabled(screen, "back_quits") is True and back_enabled(screen, "back") is False
        assert "Quit" in {
            b.binding.description for b in screen.active_bindings.values() if b.binding.key == "q" and b.enabled
        }
        await pilot.press("question_mark")
        await settle(pilot)
        assert type(app.screen).__name__ == "HelpScreen"
    store.close()


async def test_the_fork_dialog_names_the_step_the_fork_keeps_and_an_informed_fork_says_why(db):
    from clarify_tui.tui.screens.replay import ReplayScreen

    store = Store(db)
    session = next(
        s
        for s in store.sessions(runs=["interactcomp"])
        if any(st.action.kind.value == "ask" for st in store.steps(s.id))
    )
    steps = store.steps(session.id)
    ask = next(i for i, st in enumerate(steps) if st.actor == "agent" and st.action.kind.value == "ask")
    app = BrowseApp(store, start="replay", session_id=session.id, pace=0)
    async with app.run_test(size=LARGE) as pilot:
        await settle(pilot)
        replay = app.screen
        assert isinstance(replay, ReplayScreen)
        replay.cursor = ask
        await pilot.press("h")  # the hidden panel: this person has now seen the context and gold
        await pilot.press("f")
        await settle(pilot)
        label = str(app.screen.query_one(Label).render())
        assert f"Fork after step {ask + 1}" in label  # the ask keeps its reply: what the fork records
        assert "informed" in plain(app.screen.query_one("#fork-informed", Static))
        app.screen.query_one("#fork-spec", Input).value = "human"
        await pilot.press("enter")
        await frames(pilot)
        assert replay.live is not None and replay.live.session.fork_step == ask + 1
        assert "informed: left out of baselines" in plain(replay.query_one("#replay-head", Static))
        # an InteractComp fork never offers clarify or visit
        assert replay.check_action("compose", ("clarify",)) is False
        assert replay.check_action("compose", ("visit",)) is False
        await pilot.press("escape")
        await frames(pilot)
    store.close()


async def test_f2_shows_outcome_and_annotator_and_notes_first_at_80x24(db):
    from clarify_tui.tui.widgets.session_table import COLUMNS, SessionTable

    keys = [k for k, _ in COLUMNS]
    assert keys[:4] == ["id", "task", "outcome", "annotator"] and "note" in keys
    store = Store(db)
    app = BrowseApp(store, start="sessions")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        table = app.screen.query_one(SessionTable)
        noted = next(i for i, r in enumerate(table.rows_shown) if r.session.note)
        row = [str(c) for c in table.get_row_at(noted)]
        assert row[keys.index("note")] == "asked twice by mistake"
        assert row[keys.index("outcome")] in ("correct", "wrong")
    store.close()
