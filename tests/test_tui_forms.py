"""Issue 30: a person's action form never drops or mixes what was typed, however fast it
comes. Keys are sent as a burst (all posted at once, not waiting for the app between
them, as a fast typist or a terminal's paste does); what is asserted is the stored
session and the drawn screen."""

from __future__ import annotations

import asyncio

from textual import events

from clarify_tui.models import ActionKind
from clarify_tui.search.local import LocalSearch
from clarify_tui.store import Store
from clarify_tui.tui.app import ClarifyApp
from clarify_tui.tui.messages import AgentTurnStarted
from tests.conftest import CTS, DISCO, DOCS, IC
from tests.test_tui import Messages

SMALL = (80, 24)
NAMES = {"\t": "tab", "\r": "enter", " ": "space", "'": "apostrophe", ",": "comma"}


def burst(app, text: str) -> None:
    """Every key of `text` posted to the app at once (\\t is tab, \\r enter)."""
    for ch in text:
        app.post_message(events.Key(NAMES.get(ch, ch), ch))


def drawn(app) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


async def until(condition, what: str) -> None:
    for _ in range(500):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"never: {what}")


def answers(store, sid) -> list[tuple[str, float | None]]:
    return [
        (s.action.text, s.action.confidence)
        for s in store.steps(sid)
        if s.actor == "agent" and s.action.kind == ActionKind.answer
    ]


async def answer_form(tmp_path, task_id: str):
    """The app playing `task_id` as the agent, the answer form open at 80x24."""
    store = Store(tmp_path / "forms.db")
    hook = Messages()
    app = ClarifyApp(tasks=[IC, DISCO, CTS], store=store, search=LocalSearch(DOCS), task_id=task_id, as_="agent")
    return app, hook, store


async def test_a_burst_across_the_fields_keeps_each_field_and_a_bad_confidence_is_refused_on_a_line(tmp_path):
    app, hook, store = await answer_form(tmp_path, "i1")
    async with app.run_test(size=SMALL, message_hook=hook) as pilot:
        await hook.next(AgentTurnStarted)
        await pilot.pause()
        await pilot.press("enter")  # the answer form
        await pilot.pause()
        burst(app, "Deep Impact\t150\r")
        await until(lambda: "from 0 to 100, not '150'" in drawn(app), "the refusal drawn in the form")
        sid = app.screen.driver.session.id
        assert answers(store, sid) == []  # nothing sent
        lines = drawn(app).splitlines()
        assert any(line.strip() == "Deep Impact" for line in lines), lines  # each field as typed
        assert any(line.strip() == "150" for line in lines), lines
        burst(app, "80\r")  # the refused value is selected: typing replaces it
        await until(lambda: answers(store, sid), "the answer stored")
    assert answers(store, sid) == [("Deep Impact", 80.0)]


async def test_tab_in_the_one_field_discobench_answer_keeps_the_answer(tmp_path):
    app, hook, store = await answer_form(tmp_path, "d1")
    async with app.run_test(size=SMALL, message_hook=hook) as pilot:
        await hook.next(AgentTurnStarted)
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        burst(app, "Deep Impact\t\r")
        sid = app.screen.driver.session.id
        await until(lambda: answers(store, sid), "the answer stored")
    assert answers(store, sid) == [("Deep Impact", None)]


async def test_a_paste_with_a_tab_fills_answer_and_confidence(tmp_path):
    app, hook, store = await answer_form(tmp_path, "i1")
    async with app.run_test(size=SMALL, message_hook=hook) as pilot:
        await hook.next(AgentTurnStarted)
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        app.post_message(events.Paste("Deep Impact\t80"))
        burst(app, "\r")
        sid = app.screen.driver.session.id
        await until(lambda: answers(store, sid), "the answer stored")
    assert answers(store, sid) == [("Deep Impact", 80.0)]


async def test_enter_on_an_empty_answer_says_so_in_the_form(tmp_path):
    app, hook, store = await answer_form(tmp_path, "d1")
    async with app.run_test(size=SMALL, message_hook=hook) as pilot:
        await hook.next(AgentTurnStarted)
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        burst(app, "\r")
        await until(lambda: "Type something first." in drawn(app), "the refusal drawn in the form")
        burst(app, "Tokyo Tower\r")  # the form is still there, focused
        sid = app.screen.driver.session.id
        await until(lambda: answers(store, sid), "the answer stored")
    assert answers(store, sid) == [("Tokyo Tower", None)]


async def test_a_form_closed_unsent_comes_back_as_it_was_left(tmp_path):
    """Escape, another action's key, or the answer key pressed again with the focus
    elsewhere (a click on the trajectory): what was typed is still there."""
    app, hook, store = await answer_form(tmp_path, "i1")
    async with app.run_test(size=SMALL, message_hook=hook) as pilot:
        await hook.next(AgentTurnStarted)
        await pilot.pause()
        await pilot.press("s")
        await pilot.pause()
        burst(app, "red tower")
        await until(lambda: "red tower" in drawn(app), "the query typed")
        await pilot.press("escape")
        await pilot.pause()
        assert "red tower" not in drawn(app)  # closed
        await pilot.press("enter")  # the answer form
        await pilot.pause()
        burst(app, "Deep Impact")
        await until(lambda: "Deep Impact" in drawn(app), "the answer typed")
        app.screen.set_focus(None)  # the focus leaves the form
        await pilot.press("enter")  # the answer key again: the same form, as it was
        await pilot.pause()
        assert "Deep Impact" in drawn(app)
        app.screen.set_focus(None)
        await pilot.press("s")  # the search form comes back with its query
        await pilot.pause()
        assert "red tower" in drawn(app) and "Deep Impact" not in drawn(app)
        burst(app, "\r")
        sid = app.screen.driver.session.id
        await until(lambda: any(s.actor == "agent" for s in store.steps(sid)), "the search stored")
        await hook.next(AgentTurnStarted)
        await pilot.pause()
        await pilot.press("enter")  # the next turn: the answer form still holds the answer
        await pilot.pause()
        assert "Deep Impact" in drawn(app)
        app.screen.set_focus(None)
        await pilot.press("s")  # the query was sent: its form starts blank
        await pilot.pause()
        lines = [line.strip() for line in drawn(app).splitlines()]
        assert lines[lines.index("search:") + 1] == "search query"  # the empty field's placeholder
    assert [s.action.text for s in store.steps(sid) if s.actor == "agent"] == ["red tower"]


async def test_a_burst_that_opens_the_form_lands_in_it(tmp_path):
    """`enter` opens the answer form and the rest comes at once, before the form is
    mounted: nothing is lost to the screen (its `p` would pause the clock), nothing mixed."""
    app, hook, store = await answer_form(tmp_path, "i1")
    async with app.run_test(size=SMALL, message_hook=hook) as pilot:
        await hook.next(AgentTurnStarted)
        await pilot.pause()
        burst(app, "\rDeep Impact\t80\r")
        sid = app.screen.driver.session.id
        await until(lambda: answers(store, sid), "the answer stored")
    assert answers(store, sid) == [("Deep Impact", 80.0)]
    assert store.session(sid).status == "completed"


async def test_a_typed_reply_sent_in_a_burst_is_stored_whole(tmp_path):
    """Playing the DiscoBench user: `t`, the reply, a stray tab and enter, all at once.
    The letters after `t` reach the field (none is taken for a key: `a` would pause the
    agent, `c` release the clue), and tab does not take the focus out of the reply."""
    from clarify_tui.tui.messages import ReplyRequested

    store = Store(tmp_path / "reply.db")
    hook = Messages()
    app = ClarifyApp(
        tasks=[IC, DISCO, CTS],
        store=store,
        search=LocalSearch(DOCS),
        task_id="d1",
        as_="user",
        agent_spec="scripted:ask-first",
    )
    async with app.run_test(size=SMALL, message_hook=hook) as pilot:
        app.screen.pace = 0
        await hook.next(ReplyRequested)
        await pilot.pause()
        burst(app, "tSorry, no idea\t\r")
        sid = app.screen.driver.session.id
        await until(lambda: any(s.actor == "user" for s in store.steps(sid)), "the reply stored")
    replies = [s.action.text for s in store.steps(sid) if s.actor == "user"]
    assert replies[0] == "Sorry, no idea"
