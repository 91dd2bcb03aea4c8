"""CTS rules: k questions, closed-book answers, rewrite, deep search on q-hat, nugget scoring."""

from __future__ import annotations

import pytest

from clarify_tui.engine.cts import restore_score
from clarify_tui.models import Action, EpisodeConfig
from tests.conftest import CTS


async def test_clarifying_restores_more_nuggets_than_orig(make_episode):
    orig = await make_episode(CTS, "direct-guess", EpisodeConfig(k=2)).run()
    ask = await make_episode(CTS, "search-then-ask", EpisodeConfig(k=2)).run()
    assert orig.result["orig"] is True and orig.result["questions"] == []
    assert ask.result["questions"] and len(ask.result["questions"]) == 2
    assert ask.result["restore_score"] > orig.result["restore_score"]


async def test_user_answers_only_from_intent_slots_and_rewriter_adds_only_known_answers(make_episode):
    ep = make_episode(CTS, [
        Action.clarify(["Which country or region are you asking about?", "Which time period or year do you mean?"]),
        Action.search("x"),
        Action.answer("nothing"),
    ], EpisodeConfig(k=2))
    session = await ep.run()
    assert session.result["answers"] == ["unknown", "2023"]
    assert session.result["aspects"] == ["region", "time"]
    assert session.result["rewritten"] == "matcha prices 2023"
    # the deep-search agent sees q-hat, not the blurred query
    assert ep.agent.views[1].question == "matcha prices 2023"
    assert ep.agent.views[1].phase == "search"


async def test_clarify_with_the_wrong_number_of_questions_is_invalid(make_episode):
    ep = make_episode(CTS, [Action.clarify(["a?", "b?", "c?"])], EpisodeConfig(k=2))
    await ep.apply(Action.clarify(["a?", "b?", "c?"]))
    assert "exactly 2" in ep.steps[0].error


def test_restore_score_follows_the_paper_formula():
    # 100 * (3*1 + 2*0.5 + 1*0) / 6 = 66.67
    assert restore_score([3, 2, 1], ["full", "partial", "none"]) == pytest.approx(66.6667, abs=1e-3)
    assert restore_score([1], ["none"]) == 0.0
