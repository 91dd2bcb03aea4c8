"""DiscoBench rules: checkpoint tracking, silent cascading, ask judgement, clue release, ablations."""

from __future__ import annotations

from clarify_tui.models import Action, ActionKind, EpisodeConfig
from tests.conftest import DISCO


def outcomes(session):
    return [c["outcome"] for c in session.result["checkpoints"]]


async def test_guessing_commits_to_the_distractor_and_later_checkpoints_go_unreached(make_episode):
    session = await make_episode(DISCO, "direct-guess").run()
    assert session.result["answer"] == "My Time at Portia"
    assert outcomes(session) == ["failed", "unreached"]
    assert session.result["correct"] is False


async def test_search_then_ask_gets_the_clue_and_passes_every_checkpoint(make_episode):
    ep = make_episode(DISCO, "search-then-ask")
    session = await ep.run()
    assert outcomes(session) == ["correct_answer", "correct_answer"]
    cp = session.result["checkpoints"][0]
    assert cp["asked_right"] and cp["clue_released"] and cp["first_action"] == "search"
    replies = [s for s in ep.steps if s.actor == "user"]
    assert replies[0].action.text == DISCO.discobench.checkpoints[0].clue


async def test_passing_an_ambiguous_checkpoint_without_asking_is_missed_ambiguity_correct(make_episode):
    session = await make_episode(DISCO, [
        Action.search("My Time at Sandrock publisher"),
        Action.answer("Focus Entertainment"),
    ]).run()
    assert outcomes(session) == ["missed_ambiguity_correct", "correct_answer"]


async def test_an_untargeted_ask_releases_nothing_and_an_ask_on_an_unambiguous_checkpoint_is_wrong(make_episode):
    ep = make_episode(DISCO, [
        Action.ask("Can you say more?"),
        Action.search("My Time at Sandrock"),
        Action.ask("Is it Focus Entertainment?"),
        Action.answer("Focus Entertainment"),
    ])
    session = await ep.run()
    first, second = session.result["checkpoints"]
    assert first["asked"] and not first["asked_right"] and not first["clue_released"]
    assert second["asked"] and not second["asked_right"]  # unambiguous: a false positive ask
    clue = DISCO.discobench.checkpoints[0].clue
    assert all(clue not in s.action.text for s in ep.steps if s.actor == "user")


async def test_an_alias_of_the_gold_answer_is_correct(make_episode):
    session = await make_episode(DISCO, [Action.answer("focus home interactive")]).run()
    assert session.result["correct"] is True
    assert outcomes(session)[1] == "correct_answer"


async def test_no_ask_ablation_refuses_asks_and_original_question_ablation_shows_the_original(make_episode):
    ep = make_episode(DISCO, [Action.ask("Which game?"), Action.answer("x")], EpisodeConfig(ablation="no_ask"))
    assert ActionKind.ask not in ep.allowed()
    await ep.run()
    assert "not allowed" in ep.steps[0].error
    orig = make_episode(DISCO, [Action.answer("x")], EpisodeConfig(ablation="original_question"))
    assert orig.view().question == DISCO.discobench.original_question


async def test_state_per_step_records_checkpoint_status_as_it_was(make_episode):
    ep = make_episode(DISCO, "search-then-ask")
    await ep.run()
    statuses = [s.state["protocol"]["checkpoints"][0]["status"] for s in ep.steps]
    assert statuses[0] == "current" and statuses[-1] == "passed"
