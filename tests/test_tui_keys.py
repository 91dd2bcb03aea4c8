"""Keys that tell the truth (issue 14): what a key does is what the footer says, a key
that cannot run says why, dialogs close with one Escape, a person's edits are marked."""

from __future__ import annotations

import asyncio
import io
import json

import pytest

from clarify_tui.models import ActionKind, EpisodeConfig
from clarify_tui.search.local import LocalSearch
from clarify_tui.store import Store
from clarify_tui.tui.app import ClarifyApp
from clarify_tui.tui.messages import AgentTurnStarted
from clarify_tui.tui.screens.play import PlayScreen
from clarify_tui.tui.screens.play_queue import QueueSpec
from clarify_tui.tui.widgets.action_bar import ActionBar
from clarify_tui.tui.widgets.reply_box import ReplyBox
from clarify_tui.tui.widgets.trajectory import Trajectory
from tests.conftest import CTS, DISCO, DOCS, IC
from tests.test_tui import SIZE, Messages, settle, type_text


@pytest.fixture
def store(tmp_path):
    return Store(tmp_path / "keys.db")


def make_app(store, **kwargs) -> ClarifyApp:
    return ClarifyApp(tasks=[IC, DISCO, CTS], store=store, search=LocalSearch(DOCS), **kwargs)


def notes(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def reply_box_up(pilot) -> ReplyBox:
    pilot.app.screen.pace = 0
    for _ in range(500):
        box = pilot.app.screen.query_one(ReplyBox)
        if box.request is not None and box.display:
            await pilot.pause()
            return box
        await asyncio.sleep(0.01)
    raise AssertionError("the agent never asked")


async def test_escape_while_a_reply_is_awaited_leaves_keys_that_work(store):
    """After escape the pending bar offers "enter apply": enter must apply it again."""
    app = make_app(store, task_id="i1", as_="user")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await reply_box_up(pilot)
        await pilot.press("escape")
        await pilot.pause()
        assert screen.run_mode == "step" and not screen.auto
        assert screen.driver.pending is not None and screen.check_action("apply", ())
        assert "enter apply" in str(screen.query_one("#pending").render())
        await pilot.press("enter")
        box = await reply_box_up(pilot)
        assert box.request.question  # the same ask, asked again


async def test_footer_keys_in_the_reply_box_act_instead_of_being_typed(store):
    app = make_app(store, task_id="d1", as_="user")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        box = await reply_box_up(pilot)
        assert app.focused is box
        before = screen.spoilers
        await pilot.press("h")
        assert screen.spoilers != before and box.query_one("#reply-input").value == ""
        await pilot.press("x")  # an unbound key starts a typed reply
        assert box.query_one("#reply-input").value == "x"
        box.focus()
        await pilot.press("q")  # leave (asked first: a reply is typed), not "xq"
        await pilot.pause()
        assert type(app.screen).__name__ == "ConfirmScreen"
        assert box.query_one("#reply-input").value == "x"
        await pilot.press("g")  # give it up
        await pilot.pause()
        assert app.screen is app.picker


@pytest.mark.parametrize(
    "task, keys, reason",
    [
        ("c1", ["s"], "CTS: clarify first"),
        ("i1", ["v"], "InteractComp has no visit"),
        ("i1", ["p", "s"], "Paused: p resumes"),
        ("i1", ["h"], "hidden panel opens when the task ends"),
    ],
)
async def test_a_key_that_cannot_run_says_why(store, task, keys, reason):
    hook = Messages()
    app = make_app(store, task_id=task, as_="agent", config=EpisodeConfig(k=1))
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await hook.next(AgentTurnStarted)
        await pilot.pause()
        if task == "c1":  # the clarify form opens by itself: leave it to press keys
            await pilot.press("escape")
        await pilot.press(*keys)
        await pilot.pause()
        assert any(reason in n for n in notes(app)), notes(app)
        assert not app.screen.query_one(ActionBar).composing


async def test_n_mid_task_says_why_and_ctrl_o_asks_first(store):
    hook = Messages()
    app = make_app(store, queue=QueueSpec(run="hb", annotator="ana"))
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await hook.next(AgentTurnStarted)
        await pilot.pause()
        first = app.screen.task_.id
        await pilot.press("n")
        await pilot.pause()
        assert any("once this task has ended" in n for n in notes(app))
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert type(app.screen).__name__ == "ConfirmScreen"
        await pilot.press("escape")  # no: the task stays, nothing is saved as abandoned
        await pilot.pause()
        assert isinstance(app.screen, PlayScreen) and app.screen.task_.id == first
        assert [s.status for s in store.sessions()] == ["running"]


async def test_blocked_palette_entries_say_why_and_close_the_palette(store):
    hook = Messages()
    app = make_app(store, task_id="i1", as_="agent")
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await hook.next(AgentTurnStarted)
        await pilot.pause()
        await pilot.press("ctrl+p")
        await pilot.pause()
        await type_text(pilot, "sessions")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause(0.2)
        assert isinstance(app.screen, PlayScreen)
        assert any("when the task ends" in n for n in notes(app))
        await pilot.press("s")  # s works again at once: the search form opens
        await pilot.pause()
        assert app.screen.query_one(ActionBar).composing


async def test_edit_keeps_the_proposal_one_escape_closes_and_edits_are_marked(store):
    app = make_app(store, task_id="i1", run_mode="step")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await pilot.press("space")
        await settle(pilot)
        proposal = screen.driver.pending.text
        await pilot.press("e")
        await pilot.pause()
        await pilot.press("escape")  # one press closes the editor
        await pilot.pause()
        assert app.screen is screen and screen.driver.pending.text == proposal
        await pilot.press("e")
        await pilot.pause()
        await pilot.press(*" tower")  # typed after the proposal, not over it
        await pilot.press("enter")
        await pilot.pause()
        assert screen.driver.pending.text == proposal + " tower"
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("r", "k")
        await type_text(pilot, "Is it Tokyo Tower?")
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("enter")
        await settle(pilot)
        trajectory = screen.query_one(Trajectory)
        cards = [trajectory.card_text(i) for i in trajectory.shown_indexes]
        sid = screen.driver.session.id
    assert "edited by a person" in cards[0] and "typed by a person" in cards[1]
    steps = store.steps(sid)
    assert [s.action.human for s in steps[:3]] == ["edited", "replaced", None]
    from clarify_tui.exporters.jsonl import export_jsonl

    out = io.StringIO()
    export_jsonl(store, None, out)
    record = json.loads(out.getvalue().splitlines()[0])
    assert [s["input"].get("human") for s in record["steps"][:3]] == ["edited", "replaced", None]


async def test_visit_takes_a_result_number(store):
    """CTS search phase: `v 1` opens the first result of the last search."""
    hook = Messages()
    app = make_app(store, task_id="c1", as_="agent", config=EpisodeConfig(k=1))
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        screen = app.screen
        await hook.next(AgentTurnStarted)
        await type_text(pilot, "Which matcha, and when?")  # the clarify form opens by itself
        await pilot.press("enter")
        await hook.next(AgentTurnStarted)
        await pilot.pause()
        assert ActionKind.visit in screen.query_one(ActionBar).allowed
        await pilot.press("v")
        await type_text(pilot, "1")
        await pilot.press("enter")
        await pilot.pause()
        assert any("No search yet" in n for n in notes(app))
        await pilot.press("s")
        await type_text(pilot, "matcha prices 2023")
        await pilot.press("enter")
        await hook.next(AgentTurnStarted)
        await pilot.pause()
        first_url = screen.driver.steps[-1].observation.hits[0].url
        await pilot.press("v")
        await type_text(pilot, "1")
        await pilot.press("enter")
        await hook.next(AgentTurnStarted)
        await pilot.pause()
        visit = [s for s in screen.driver.steps if s.action.kind == ActionKind.visit][-1]
    assert visit.action.text == first_url


def test_play_k_sets_the_cts_budget(monkeypatch, tmp_path):
    from clarify_tui.cli import main as cli
    from clarify_tui.tui import app as app_module

    seen = {}
    monkeypatch.setattr(app_module, "run_app", lambda **kwargs: seen.update(kwargs) or 0)
    assert cli(["play", "--task", "cts-01", "--as", "agent", "--k", "2", "--db", str(tmp_path / "k.db")]) == 0
    assert seen["config"].k == 2


def shown(app) -> str:
    """The text on the terminal, as a user reads it."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


async def test_a_reply_box_cut_by_a_small_terminal_says_so_and_pages(store):
    """At 80×24 what the user knows may not fit the reply box: its border says how to read
    the rest, pgdn/pgup scroll it, and the y/n/i line never scrolls out of reach first."""
    from tests.conftest import IC

    long_context = " ".join(f"Fact {i}: the tower has feature number {i}." for i in range(40))
    task = IC.model_copy(update={"interactcomp": IC.interactcomp.model_copy(update={"context": long_context})})
    app = ClarifyApp(
        tasks=[task], store=store, search=LocalSearch(DOCS), task_id="i1", as_="user", agent_spec="scripted:ask-first"
    )
    async with app.run_test(size=(80, 24)) as pilot:
        box = await reply_box_up(pilot)
        await pilot.pause()
        question = box.query_one("#reply-scroll")
        assert question.max_scroll_y > 0 and box.border_subtitle == "more ↓ pgdn"
        assert "y yes · n no · i i don't know" in shown(app)
        while question.scroll_y < question.max_scroll_y:
            await pilot.press("pagedown")
        assert "number 39." in shown(app) and box.border_subtitle == "more ↑ pgup"
        await pilot.press("pageup")
        assert "↓ pgdn" in box.border_subtitle
        await pilot.press("i")  # the reply keys still work from there
        for _ in range(200):
            if any(s.actor == "user" for s in app.screen.driver.steps):
                break
            await asyncio.sleep(0.01)
        replies = [s.action.text for s in app.screen.driver.steps if s.actor == "user"]
    assert replies[:1] == ["i don't know"]


@pytest.mark.parametrize(("key", "name"), [("f2", "SessionsScreen"), ("f3", "ScoresScreen")])
async def test_escape_goes_back_from_the_sessions_and_scores_screens(store, key, name):
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press(key)
        await pilot.pause()
        assert type(app.screen).__name__ == name
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is app.picker
