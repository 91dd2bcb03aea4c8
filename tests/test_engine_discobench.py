"""DiscoBench rules: per-checkpoint answering (the default), the trajectory mode for
imported single-answer runs, ask judgement, clue release, ablations, per-checkpoint counts."""

from __future__ import annotations

import pytest

from clarify_tui.metrics.profiles import profile_of
from clarify_tui.models import Action, ActionKind, EpisodeConfig
from tests.conftest import DISCO

TRAJECTORY = EpisodeConfig(checkpoints="trajectory")
SANDROCK, PORTIA = "My Time at Sandrock", "My Time at Portia"


def outcomes(session):
    return [c.outcome for c in session.result.checkpoints]


# ---- per-checkpoint answering (paper 000 §3, lines 79-83; B.2, line 307) ----------------


async def test_the_agent_is_told_how_many_checkpoints_and_which_one_never_their_content(make_episode):
    ep = make_episode(
        DISCO, [Action.search("Pathea Games award game"), Action.answer(SANDROCK), Action.answer("Focus Entertainment")]
    )
    session = await ep.run()
    first, after_search, second = ep.agent.views
    assert (first.checkpoint, first.checkpoints) == (1, 2) and (after_search.checkpoint, second.checkpoint) == (1, 2)
    assert "checkpoint 1 of 2" in first.notice and "intermediate answer" in first.notice
    assert "checkpoint 2 of 2" in second.notice and "final answer" in second.notice
    for view in (first, second):
        shown = "\n".join([view.question, view.notice or ""] + [t.observation.text for t in view.history])
        for cp in DISCO.discobench.checkpoints:
            for hidden in (cp.description, cp.clue, cp.ambiguity_logic, *cp.distractors):
                assert not hidden or hidden not in shown
    assert session.result.checkpoint_mode == "answer"
    assert session.config.checkpoints == "answer"


async def test_a_search_naming_the_distractor_fails_nothing_the_answers_decide(make_episode):
    """The issue's example: a query naming a distractor, then right answers -> 2/2, accuracy 1."""
    session = await make_episode(
        DISCO,
        [
            Action.search("My Time at Portia publisher"),
            Action.search(SANDROCK),
            Action.answer(SANDROCK),
            Action.answer("Focus Entertainment"),
        ],
    ).run()
    assert outcomes(session) == ["missed_ambiguity_correct", "correct_answer"]
    assert session.result.correct is True
    assert [c.answer for c in session.result.checkpoints] == [SANDROCK, "Focus Entertainment"]


async def test_a_search_naming_the_target_does_not_pass_the_checkpoint(make_episode):
    ep = make_episode(DISCO, [Action.search(SANDROCK), Action.search("Focus Entertainment")])
    await ep.step()
    await ep.step()
    state = ep.state().protocol
    assert state.current == 0 and state.checkpoints[0].status == "current"
    assert state.checkpoints[0].searches == 2


async def test_a_wrong_intermediate_answer_fails_it_and_the_next_is_current_unannounced(make_episode):
    """Silent cascading (paper 000 appendix I case 1, line 477: "an incorrect resolution at
    CP 1 ... still routes to ... CP 2 ... with no local indication of the upstream error")."""
    ep = make_episode(DISCO, [Action.answer(PORTIA), Action.answer("Focus Entertainment")])
    session = await ep.run()
    assert outcomes(session) == ["failed", "correct_answer"]
    first, second = ep.agent.views
    assert second.checkpoint == 2 and "checkpoint 2 of 2" in second.notice
    right = make_episode(DISCO, [Action.answer(SANDROCK), Action.answer("Focus Entertainment")])
    await right.run()
    told_wrong, told_right = second.history[-1].observation, right.agent.views[1].history[-1].observation
    assert told_wrong == told_right  # the same words and data, right or wrong
    judged = [s for s in ep.steps if s.actor == "judge"]
    assert judged[0].observation.data == {"checkpoint": 0, "status": "failed"}


async def test_the_last_checkpoints_answer_alone_decides_accuracy(make_episode):
    """B.1 line 293/297: Acc(q) = equiv(final answer, gold); B.2 line 307: CP(q) = A_q / N_q.
    A wrong CP1 and a right final answer: accuracy 1, checkpoint pass 1/2."""
    session = await make_episode(DISCO, [Action.answer(PORTIA), Action.answer("Focus Entertainment")]).run()
    assert session.result.correct is True and session.result.answer == "Focus Entertainment"
    assert [c.advanced for c in session.result.checkpoints] == [False, True]


async def test_the_final_answer_given_at_checkpoint_1_does_not_end_the_task(make_episode):
    """The issue's case: the final answer at CP1 fails CP1 only; the agent goes on and its
    answer at the last checkpoint is judged against the gold."""
    ep = make_episode(DISCO, [Action.answer("Focus Entertainment"), Action.answer("Focus Entertainment")])
    session = await ep.run()
    assert len(ep.agent.views) == 2 and session.result.correct is True
    assert outcomes(session) == ["failed", "correct_answer"]


async def test_strict_keeps_the_old_reading_a_wrong_intermediate_answer_ends_the_task(make_episode):
    ep = make_episode(DISCO, "direct-guess", EpisodeConfig(checkpoints="strict"))
    session = await ep.run()
    assert session.result.checkpoints[0].answer == PORTIA
    assert outcomes(session) == ["failed", "unreached"]
    assert session.result.correct is False and session.result.answer is None
    assert session.result.checkpoint_mode == "strict"
    judged = [s for s in ep.steps if s.actor == "judge"]
    assert judged[-1].observation.data == {"checkpoint": 0, "status": "failed"}
    strict_final_at_cp1 = await make_episode(
        DISCO, [Action.answer("Focus Entertainment")], EpisodeConfig(checkpoints="strict")
    ).run()
    assert strict_final_at_cp1.result.correct is False


async def test_intermediate_answers_count_aliases_and_the_last_answer_is_final(make_episode):
    cps = DISCO.discobench.checkpoints
    task = DISCO.model_copy(deep=True)
    task.discobench.checkpoints[0] = cps[0].model_copy(update={"aliases": ["Sandrock"]})
    session = await make_episode(task, [Action.answer("sandrock"), Action.answer("focus home interactive")]).run()
    assert outcomes(session) == ["missed_ambiguity_correct", "correct_answer"]
    assert session.result.correct is True and session.result.answer == "focus home interactive"


async def test_asks_never_pass_or_fail_a_checkpoint(make_episode):
    ep = make_episode(DISCO, [Action.ask(f"Do you mean {PORTIA}?"), Action.ask(f"Is it {SANDROCK}?")])
    await ep.step()
    await ep.step()
    cp = ep.state().protocol.checkpoints[0]
    assert cp.status == "current" and cp.asked_right and cp.asks == 2


async def test_search_then_ask_gets_the_clue_and_answers_every_checkpoint(make_episode):
    ep = make_episode(DISCO, "search-then-ask")
    session = await ep.run()
    assert outcomes(session) == ["correct_answer", "correct_answer"]
    cp = session.result.checkpoints[0]
    assert cp.asked_right and cp.clue_released and cp.first_action == "search"
    replies = [s for s in ep.steps if s.actor == "user"]
    assert replies[0].action.text == DISCO.discobench.checkpoints[0].clue


async def test_running_out_of_rounds_fails_the_current_checkpoint(make_episode):
    ep = make_episode(DISCO, [Action.answer(SANDROCK), Action.search("x")], EpisodeConfig(max_rounds=2))
    session = await ep.run()
    assert outcomes(session) == ["missed_ambiguity_correct", "failed"]


# ---- searches belong to one checkpoint (appendix E) ----------------------------------


async def test_an_ask_opening_a_later_checkpoint_is_direct_ask_in_both_modes(make_episode):
    answer_mode = await make_episode(
        DISCO,
        [
            Action.search(SANDROCK),
            Action.answer(SANDROCK),
            Action.ask("Is it Focus Entertainment?"),
            Action.answer("Focus Entertainment"),
        ],
    ).run()
    trajectory = await make_episode(
        DISCO,
        [
            Action.search(SANDROCK),
            Action.ask("Is it Focus Entertainment?"),
            Action.answer("Focus Entertainment"),
        ],
        TRAJECTORY,
    ).run()
    for session in (answer_mode, trajectory):
        first, second = session.result.checkpoints
        assert first.searches == 1 and second.searches == 0
        assert second.searches_before_first_ask == 0 and profile_of(second) == "direct_ask"


# ---- trajectory mode (imported single-answer runs) -----------------------------------


async def test_trajectory_mode_infers_outcomes_from_queries_and_is_recorded(make_episode):
    ep = make_episode(DISCO, [Action.search(PORTIA), Action.answer("Focus Entertainment")], TRAJECTORY)
    session = await ep.run()
    assert ep.agent.views[0].checkpoints is None and "checkpoint" not in (ep.agent.views[0].notice or "")
    assert outcomes(session) == ["failed", "unreached"]
    assert session.result.checkpoint_mode == "trajectory" and session.result.correct is True


async def test_trajectory_mode_passing_without_asking_is_missed_ambiguity_correct(make_episode):
    session = await make_episode(
        DISCO,
        [
            Action.search("My Time at Sandrock publisher"),
            Action.answer("Focus Entertainment"),
        ],
        TRAJECTORY,
    ).run()
    assert outcomes(session) == ["missed_ambiguity_correct", "correct_answer"]


@pytest.mark.parametrize("mode", ["answer", "strict", "trajectory"])
async def test_scripted_agents_play_every_mode(make_episode, mode):
    config = EpisodeConfig(checkpoints=mode)
    assert outcomes(await make_episode(DISCO, "direct-guess", config).run())[0] == "failed"
    assert outcomes(await make_episode(DISCO, "search-then-ask", config).run()) == ["correct_answer"] * 2


# ---- asks, ablations, state -----------------------------------------------------------


async def test_an_untargeted_ask_releases_nothing_and_an_ask_on_an_unambiguous_checkpoint_is_wrong(make_episode):
    ep = make_episode(
        DISCO,
        [
            Action.ask("Can you say more?"),
            Action.search(SANDROCK),
            Action.answer(SANDROCK),
            Action.ask("Is it Focus Entertainment?"),
            Action.answer("Focus Entertainment"),
        ],
    )
    session = await ep.run()
    first, second = session.result.checkpoints
    assert first.asked and not first.asked_right and not first.clue_released
    assert second.asked and not second.asked_right  # unambiguous: a false positive ask
    clue = DISCO.discobench.checkpoints[0].clue
    assert all(clue not in s.action.text for s in ep.steps if s.actor == "user")


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
    statuses = [s.state.protocol.checkpoints[0].status for s in ep.steps]
    assert statuses[0] == "current" and statuses[-1] == "passed"


# ---- the agent's own failure is a wrong answer (issue 22) ------------------------------


def _garbage(n):
    return [Action(kind=ActionKind.invalid, raw=f"garbage {i}", text="Invalid action.") for i in range(n)]


async def test_three_invalid_outputs_in_a_row_are_a_wrong_answer_never_an_errored_session(make_episode):
    """A model's own failure is a wrong answer (as InteractComp's invalid_skip); only
    infrastructure failures are excluded. Paper 000 B.1 averages over all valid questions."""
    from clarify_tui.metrics.records import from_session
    from clarify_tui.metrics.report import score_sessions
    from tests.test_discobench_scoring import group

    ep = make_episode(DISCO, [Action.answer(SANDROCK)] + _garbage(3))
    session = await ep.run()
    assert session.status == "completed" and session.error is None
    assert session.result.correct is False and session.result.invalid_skip is True
    assert outcomes(session) == ["missed_ambiguity_correct", "failed"]
    session.run = "x"
    m = group(score_sessions([from_session(session, [])]), "x")
    assert m["errored"] == 0 and m["accuracy"] == 0.0 and m["checkpoint_pass_rate"] == 0.5
    two = await make_episode(DISCO, _garbage(2) + [Action.answer(SANDROCK), Action.answer("Focus Entertainment")]).run()
    assert two.result.correct is True and two.result.invalid_skip is None


def test_the_run_summary_counts_invalid_skips_as_scored_not_errored(tmp_path, capsys, monkeypatch):
    """What a user reading `run`'s summary sees: completed, 0 errored, the skip counted."""
    from clarify_tui.agents.scripted import ScriptedAgent
    from clarify_tui.cli import main

    async def garbage(self, view):
        return Action(kind=ActionKind.invalid, raw="garbage", text="Invalid action.")

    monkeypatch.setattr(ScriptedAgent, "act", garbage)
    data = tmp_path / "d.jsonl"
    data.write_text(DISCO.model_dump_json() + "\n", encoding="utf-8")
    assert (
        main(
            [
                "run",
                "--benchmark",
                "discobench",
                "--dataset",
                str(data),
                "--agent",
                "scripted:direct-guess",
                "--db",
                str(tmp_path / "s.db"),
                "--run",
                "bad",
            ]
        )
        == 0
    )
    line = " ".join(capsys.readouterr().err.split())
    assert "1 completed, 0 errored" in line and "1 ended by 3 invalid outputs in a row (scored wrong" in line
