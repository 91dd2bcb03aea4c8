"""Issue 22, a person's input in the TUI: nothing typed is silently dropped, and what the
screen says the agent received is what it received.

- a non-numeric confidence ("abc") is refused with a message and asked again; the answer
  is sent only with a valid one;
- a DiscoBench reply the person typed is not shown as "(clue released)" (nor recorded so)
  when it does not carry the clue; the release key still releases it.
"""

from __future__ import annotations

import pytest

from clarify_tui.tui.messages import AgentTurnStarted, ReplyRequested, SessionEnded
from clarify_tui.tui.widgets.action_form import parse_confidence
from tests.test_tui import SIZE, Messages, make_app, rendered_text, search, store, type_text  # noqa: F401
from tests.test_tui_keys import shown


@pytest.mark.parametrize(("typed", "value"), [("", None), ("80", 80.0), (" 75% ", 75.0), ("0", 0.0), ("100", 100.0)])
def test_a_confidence_is_empty_or_a_number_from_0_to_100(typed, value):
    assert parse_confidence(typed) == value


@pytest.mark.parametrize("typed", ["abc", "150", "-5", "nan", "1e3"])
def test_anything_else_is_refused_with_a_message_naming_it(typed):
    with pytest.raises(ValueError, match=f"0 to 100, not '{typed}'"):
        parse_confidence(typed)


async def test_a_non_numeric_confidence_is_asked_again_not_dropped(store, search):
    hook = Messages()
    app = make_app(store, search, task_id="i1", as_="agent")
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        screen = app.screen
        await hook.next(AgentTurnStarted)
        await pilot.pause()
        await pilot.press("enter")  # the answer form
        await type_text(pilot, "Sapporo TV Tower")
        await pilot.press("enter", "a", "b", "c", "enter")
        await pilot.pause()
        assert screen.driver.session.status == "running"  # not answered without the confidence
        assert "not 'abc'" in shown(app)  # said on the form's own line
        field = app.focused
        assert field is not None and field.has_class("confidence") and field.value == "abc"  # kept, to fix
        field.value = ""
        await pilot.press("8", "0", "enter")
        await hook.next(SessionEnded)
        sid = screen.driver.session.id
    assert store.session(sid).result.confidence == 80


async def test_a_typed_discobench_reply_without_the_clue_is_not_shown_as_released(store, search):
    hook = Messages()
    app = make_app(store, search, task_id="d1", as_="user")
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        screen = app.screen
        screen.pace = 0
        request = (await hook.next(ReplyRequested)).request
        await pilot.pause()
        assert request.asked_right and request.clue  # the judge says the ask targets the ambiguity
        await pilot.press("t")
        await type_text(pilot, "Sorry, I can't say more.")
        await pilot.press("enter")
        await hook.next(SessionEnded)
        await pilot.pause()
        shown = rendered_text(screen)
        sid = screen.driver.session.id
    replies = [s for s in store.steps(sid) if s.actor == "user"]
    assert replies[0].action.text == "Sorry, I can't say more."
    assert replies[0].observation.data["released_clue"] is False
    assert not store.session(sid).result.checkpoints[0].clue_released
    assert "(clue released)" not in shown
