"""CTS rules: k questions, closed-book answers, rewrite, deep search on q-hat, nugget scoring."""

from __future__ import annotations

import pytest

from clarify_tui.models import Action, EpisodeConfig
from clarify_tui.protocols.cts.rules import restore_score
from tests.conftest import CTS


async def test_clarifying_restores_more_nuggets_than_orig(make_episode):
    orig = await make_episode(CTS, "direct-guess", EpisodeConfig(k=2)).run()
    ask = await make_episode(CTS, "search-then-ask", EpisodeConfig(k=2)).run()
    assert orig.result.orig is True and orig.result.questions == []
    assert ask.result.questions and len(ask.result.questions) == 2
    assert ask.result.restore_score > orig.result.restore_score


async def test_user_answers_only_from_intent_slots_and_rewriter_adds_only_known_answers(make_episode):
    ep = make_episode(
        CTS,
        [
            Action.clarify(["Which country or region are you asking about?", "Which time period or year do you mean?"]),
            Action.search("x"),
            Action.answer("nothing"),
        ],
        EpisodeConfig(k=2),
    )
    session = await ep.run()
    assert session.result.answers == ["unknown", "2023"]
    assert session.result.aspects == ["region", "time"]
    assert session.result.rewritten == "matcha prices 2023"
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


async def test_user_reply_steps_hold_the_question_in_input_and_the_answer_in_output(make_episode, tmp_path):
    """Like an agent's ask step: the question goes in, the answer comes out, in the step and
    in the database's input/output columns; an older database (reply in, question out)
    still reads as (question, reply)."""
    from clarify_tui.models import ActionKind, Observation, Step
    from clarify_tui.protocols.cts.rules import user_reply
    from clarify_tui.store import Store

    store = Store(tmp_path / "cts.db")
    questions = ["Which country or region are you asking about?", "Which time period or year do you mean?"]
    ep = make_episode(CTS, [Action.clarify(questions), Action.answer("nothing")], EpisodeConfig(k=2), sink=store)
    session = await ep.run()
    replies = [s for s in store.steps(session.id) if s.actor == "user" and s.action.kind == ActionKind.reply]
    assert [(s.action.text, s.observation.text) for s in replies] == list(zip(questions, ["unknown", "2023"]))
    assert [user_reply(s) for s in replies] == list(zip(questions, ["unknown", "2023"]))
    rows = list(
        store.db.query(
            "SELECT input, output FROM steps WHERE session_id = ? AND kind = 'reply' ORDER BY idx", [session.id]
        )
    )
    assert [r["input"] for r in rows] == questions and '"2023"' in rows[1]["output"]
    old = Step(
        index=0,
        actor="user",
        action=Action(kind=ActionKind.reply, text="2023"),
        observation=Observation(text=questions[1], data={"aspect": "time"}),
    )
    assert user_reply(old) == (questions[1], "2023")


async def test_restore_score_is_stored_at_full_precision(make_episode):
    """Three nuggets of weight 1, one covered: 100/3 = 33.333..., stored unrounded and equal
    to the metric's value (it used to be rounded to 4 places)."""
    from clarify_tui.models import Nugget
    from clarify_tui.protocols.cts.metrics import session_score
    from clarify_tui.results import CTSResult

    nuggets = [*CTS.cts.nuggets, Nugget(id="n3", text="Shizuoka tea exports doubled in 2021", weight=1)]
    nuggets = [n.model_copy(update={"weight": 1}) for n in nuggets]
    task = CTS.model_copy(update={"cts": CTS.cts.model_copy(update={"nuggets": nuggets})})
    session = await make_episode(
        task, [Action.clarify([]), Action.answer("Uji matcha prices rose 20 percent in 2023")], EpisodeConfig(k=1)
    ).run()
    assert [c.coverage for c in session.result.coverage] == ["full", "none", "none"]
    assert session.result.restore_score == 100 / 3
    assert session.result.restore_score == session_score(CTSResult(coverage=session.result.coverage))
