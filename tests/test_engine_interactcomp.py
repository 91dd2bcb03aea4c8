"""InteractComp rules: modes, forced asks, the answer-only last round, grading, invalid streaks."""

from __future__ import annotations

from clarify_tui.models import Action, ActionKind, EpisodeConfig
from tests.conftest import IC


async def test_asking_agent_finds_the_target_and_guessing_agent_takes_the_distractor(make_episode):
    guess = await make_episode(IC, "direct-guess").run()
    ask = await make_episode(IC, "search-then-ask").run()
    assert guess.result.answer == "Tokyo Tower" and guess.result.correct is False
    assert ask.result.answer == "Sapporo TV Tower" and ask.result.correct is True
    assert ask.result.asks >= 1


async def test_rule_user_says_no_to_distractor_yes_to_context_and_idk_otherwise(make_episode):
    ep = make_episode(
        IC,
        [
            Action.ask("Is it Tokyo Tower?"),
            Action.ask("Does it have a large digital clock?"),
            Action.ask("Was its architect born in Osaka?"),
            Action.answer("Sapporo TV Tower", 90),
        ],
    )
    await ep.run()
    replies = [s.action.text for s in ep.steps if s.actor == "user"]
    assert replies == ["no", "yes", "i don't know"]


async def test_answer_only_is_one_final_round_call_and_a_search_there_is_no_answer(make_episode):
    """Reference run_benchmark.py:162-163 (max_rounds 1) and agent.py:136-148 ("No Answer")."""
    ep = make_episode(
        IC,
        [Action.search("tower"), Action.answer("Tokyo Tower", 50)],
        EpisodeConfig(interactcomp_mode="answer_only", max_rounds=10),
    )
    session = await ep.run()
    assert ep.max_rounds == 1
    assert [(s.actor, s.action.kind, s.action.text) for s in ep.steps][0] == ("agent", ActionKind.answer, "No Answer")
    assert session.status == "completed" and session.result.correct is False
    assert (session.result.outcome, session.result.rounds, session.result.invalid) == ("no_answer", 1, 0)


async def test_forced_ask_refuses_an_early_answer_without_using_a_round(make_episode):
    ep = make_episode(
        IC,
        [
            Action.answer("Tokyo Tower", 50),
            Action.ask("Is it in Hokkaido?"),
            Action.answer("Sapporo TV Tower", 80),
        ],
        EpisodeConfig(interactcomp_mode="forced_ask", forced_asks=1, max_rounds=2),
    )
    session = await ep.run()
    assert ep.steps[0].observation.text == (
        "Answer is not allowed before 1 asks. Asks so far: 0/1. Please use ask or search."
    )
    assert session.result.answer == "Sapporo TV Tower" and session.result.correct
    assert (session.result.rounds, session.result.invalid, session.result.refused) == (2, 1, 1)


def test_forced_ask_refuses_too_few_rounds(make_episode):
    import pytest

    with pytest.raises(ValueError, match="max_rounds >= forced_asks \\+ 1"):
        make_episode(IC, [], EpisodeConfig(interactcomp_mode="forced_ask", forced_asks=5, max_rounds=5))


async def test_forced_ask_puts_the_constraints_before_the_question(make_episode):
    ep = make_episode(IC, [], EpisodeConfig(interactcomp_mode="forced_ask", forced_asks=2, max_rounds=3))
    assert ep.view().question == (
        "Constraints: You must perform at least 2 ask actions before answering. Early answers will be "
        f"rejected. The final round must answer.\n\nQUESTION:\n{IC.question}"
    )


async def test_last_round_allows_only_answer(make_episode):
    ep = make_episode(IC, [Action.search("tower"), Action.search("japan")], EpisodeConfig(max_rounds=2))
    await ep.step()
    assert ep.allowed() == [ActionKind.answer]
    assert "last round" in ep.view().notice


async def test_running_out_of_rounds_is_a_wrong_answer_not_an_error(make_episode):
    ep = make_episode(IC, [Action.search("a"), Action.search("b")], EpisodeConfig(max_rounds=2))
    session = await ep.run()
    assert session.status == "completed" and session.result.correct is False


def _garbage(n):
    return [Action(kind=ActionKind.invalid, raw=f"garbage {i}", text="Invalid action.") for i in range(n)]


async def test_four_invalid_outputs_in_a_row_skip_the_task_graded_wrong_never_errored(make_episode):
    """Reference agent.py:197/:212 (more than 3 retries) and run_benchmark.py:91-92."""
    session = await make_episode(IC, _garbage(4) + [Action.answer("Sapporo TV Tower", 90)]).run()
    assert session.status == "completed" and session.error is None
    assert (session.result.outcome, session.result.answer, session.result.correct) == ("invalid_skip", "", False)
    assert (session.result.invalid, session.result.rounds) == (4, 0)


async def test_three_invalid_outputs_are_retried_inside_the_round(make_episode):
    ep = make_episode(IC, _garbage(3) + [Action.answer("Sapporo TV Tower", 90)], EpisodeConfig(max_rounds=2))
    session = await ep.run()
    assert session.result.correct is True and session.result.outcome == "answered"
    assert (session.result.invalid, session.result.rounds) == (3, 1)


async def test_full_with_context_puts_the_context_before_the_question(make_episode):
    ep = make_episode(IC, [], EpisodeConfig(interactcomp_mode="full_with_context"))
    assert ep.view().question == f"CONTEXT:\n{IC.interactcomp.context}\n\nQUESTION:\n{IC.question}"


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
    ep = make_episode(
        IC, [Action.search("a"), Action.search("b"), Action.answer("Tokyo Tower", 50)], EpisodeConfig(max_rounds=3)
    )
    session = await ep.run()
    assert [s.error for s in ep.steps if s.actor == "agent"] == [None, None, None]
    assert session.result.searches == 2


async def test_the_view_without_history_is_the_agents_view_less_its_past_turns(make_episode):
    """The play screen's panels ask for it (they show no turns): same question, rounds,
    allowed actions; no turns."""
    ep = make_episode(
        IC, [Action.ask("Is it Tokyo Tower?"), Action.search("tower clock"), Action.answer("Sapporo TV Tower", 90)]
    )
    await ep.step()
    await ep.step()
    full, short = ep.view(), ep.view(history=False)
    assert [t.action.kind for t in full.history] == [ActionKind.ask, ActionKind.search]
    assert short.history == [] and short.model_dump(exclude={"history"}) == full.model_dump(exclude={"history"})
