"""InteractComp rules: modes, forced asks, the answer-only last round, grading, invalid streaks."""

from __future__ import annotations

from clarify_tui.models import Action, ActionKind, EpisodeConfig
from tests.conftest import IC


async def test_asking_agent_finds_the_target_and_guessing_agent_takes_the_distractor(make_episode):
    guess = await make_episode(IC, "direct-guess").run()
    ask = await make_episode(IC, "search-then-ask").run()
    assert guess.result["answer"] == "Tokyo Tower" and guess.result["correct"] is False
    assert ask.result["answer"] == "Sapporo TV Tower" and ask.result["correct"] is True
    assert ask.result["asks"] >= 1


async def test_rule_user_says_no_to_distractor_yes_to_context_and_idk_otherwise(make_episode):
    ep = make_episode(IC, [
        Action.ask("Is it Tokyo Tower?"),
        Action.ask("Does it have a large digital clock?"),
        Action.ask("Was its architect born in Osaka?"),
        Action.answer("Sapporo TV Tower", 90),
    ])
    await ep.run()
    replies = [s.action.text for s in ep.steps if s.actor == "user"]
    assert replies == ["no", "yes", "i don't know"]


async def test_answer_only_mode_refuses_search_and_counts_it_invalid(make_episode):
    ep = make_episode(IC, [Action.search("tower"), Action.answer("Tokyo Tower", 50)],
                      EpisodeConfig(interactcomp_mode="answer_only"))
    session = await ep.run()
    assert ep.steps[0].error and "not allowed" in ep.steps[0].error
    assert session.status == "completed" and session.result["invalid"] == 1 and session.result["rounds"] == 2


async def test_forced_ask_refuses_answer_until_enough_asks(make_episode):
    ep = make_episode(IC, [
        Action.answer("Tokyo Tower", 50),
        Action.ask("Is it in Hokkaido?"),
        Action.answer("Sapporo TV Tower", 80),
    ], EpisodeConfig(interactcomp_mode="forced_ask", forced_asks=1))
    session = await ep.run()
    assert "ask 1 more" in ep.steps[0].observation.text
    assert session.result["answer"] == "Sapporo TV Tower" and session.result["correct"]


async def test_last_round_allows_only_answer(make_episode):
    ep = make_episode(IC, [Action.search("tower"), Action.search("japan")], EpisodeConfig(max_rounds=2))
    await ep.step()
    assert ep.allowed() == [ActionKind.answer]
    assert "last round" in ep.view().notice


async def test_running_out_of_rounds_is_a_wrong_answer_not_an_error(make_episode):
    ep = make_episode(IC, [Action.search("a"), Action.search("b")], EpisodeConfig(max_rounds=2))
    session = await ep.run()
    assert session.status == "completed" and session.result["correct"] is False


async def test_three_invalid_actions_in_a_row_end_the_session_errored_with_the_raw_output(make_episode):
    bad = [Action(kind=ActionKind.invalid, raw=f"garbage {i}", text="Use the JSON format.") for i in range(3)]
    session = await make_episode(IC, bad).run()
    assert session.status == "errored" and "garbage 2" in session.error


async def test_full_with_context_shows_the_context_and_full_does_not(make_episode):
    with_ctx = make_episode(IC, [Action.answer("x", 1)], EpisodeConfig(interactcomp_mode="full_with_context"))
    plain = make_episode(IC, [Action.answer("x", 1)])
    assert with_ctx.view().context == IC.interactcomp.context
    assert plain.view().context is None


async def test_a_cancelled_action_leaves_the_episode_as_it_was(make_episode):
    import asyncio

    class SlowSearch:
        spec = "slow"

        async def search(self, query, max_results=5):
            await asyncio.sleep(10)

    ep = make_episode(IC, [Action.search("tower")])
    ep.search = SlowSearch()
    before = ep.state()
    job = asyncio.ensure_future(ep.apply(Action.search("tower")))
    await asyncio.sleep(0.01)
    job.cancel()
    try:
        await job
    except asyncio.CancelledError:
        pass
    assert ep.state() == before and ep.steps == [] and not ep.done


async def test_every_round_but_the_last_allows_search(make_episode):
    """With 3 rounds: rounds 1 and 2 may search, round 3 must answer."""
    ep = make_episode(IC, [Action.search("a"), Action.search("b"), Action.answer("Tokyo Tower", 50)],
                      EpisodeConfig(max_rounds=3))
    session = await ep.run()
    assert [s.error for s in ep.steps if s.actor == "agent"] == [None, None, None]
    assert session.result["searches"] == 2
