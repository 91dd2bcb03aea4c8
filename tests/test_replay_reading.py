"""What replay reads from stored steps, without a terminal: the view the agent had at a
step (engine/view_at.py) and where a failed session opens (trajectory.opening_step)."""

from __future__ import annotations

import pytest

from clarify_tui.agents.scripted import ScriptedAgent
from clarify_tui.engine.view_at import view_at
from clarify_tui.models import Action, ActionKind, EpisodeConfig, Session, Step
from clarify_tui.results import EpisodeState
from clarify_tui.trajectory import first_failure, guess_step, opening_step
from tests.conftest import CTS, DISCO, IC

SHOWN = ("question", "phase", "rounds_used", "max_rounds", "allowed", "notice", "context", "checkpoint", "checkpoints")


class SpyAgent:
    def __init__(self, policy: str) -> None:
        self.inner, self.spec, self.seen = ScriptedAgent(policy), f"scripted:{policy}", []

    async def act(self, view):
        self.seen.append(view.model_copy(deep=True))
        return await self.inner.act(view)


@pytest.mark.parametrize(
    "task, policy, config",
    [
        (IC, "search-then-ask", EpisodeConfig(interactcomp_mode="forced_ask", forced_asks=2)),
        (IC, "direct-guess", EpisodeConfig(interactcomp_mode="full_with_context")),
        (DISCO, "search-then-ask", EpisodeConfig()),
        (DISCO, "direct-guess", EpisodeConfig(ablation="original_question")),
        (CTS, "ask-first", EpisodeConfig(k=1)),
        (CTS, "direct-guess", EpisodeConfig(k=0)),
    ],
)
async def test_the_view_rebuilt_from_a_stored_step_is_what_the_agent_was_shown(make_episode, task, policy, config):
    agent = SpyAgent(policy)
    episode = make_episode(task, agent, config=config)
    await episode.run()
    assert episode.session.status == "completed"
    agent_steps = [s for s in episode.steps if s.actor == "agent"]
    assert len(agent.seen) == len(agent_steps) >= 1
    checked = 0
    for shown, step in zip(agent.seen, agent_steps):
        if step.index == 0:
            continue
        before = episode.steps[step.index - 1]  # the state the agent acted on
        rebuilt = view_at(task, episode.session, before.state)
        assert {f: getattr(rebuilt, f) for f in SHOWN} == {f: getattr(shown, f) for f in SHOWN}
        checked += 1
    assert checked >= 1
    opening = view_at(task, episode.session, EpisodeState())  # a session with no steps: the opening view
    assert {f: getattr(opening, f) for f in SHOWN} == {f: getattr(agent.seen[0], f) for f in SHOWN}


async def test_the_view_after_the_last_step_of_an_ended_session_allows_nothing(make_episode):
    episode = make_episode(DISCO, "direct-guess")
    await episode.run()
    view = view_at(DISCO, episode.session, episode.steps[-1].state, ended=True)
    assert view.allowed == [] and view.question == DISCO.question
    assert view_at(DISCO, episode.session, episode.steps[0].state).allowed  # mid-session: the agent could act


def _step(index: int, actor: str, kind: ActionKind, statuses: list[str]) -> Step:
    return Step(
        index=index,
        actor=actor,
        action=Action(kind=kind, text="x"),
        state={"protocol": {"checkpoints": [{"status": s} for s in statuses]}},
    )


def test_a_failed_discobench_session_opens_at_the_failure_and_points_at_the_guess():
    steps = [
        _step(0, "agent", ActionKind.search, ["current", "pending"]),
        _step(1, "agent", ActionKind.ask, ["current", "pending"]),
        _step(2, "user", ActionKind.ask, ["current", "pending"]),
        _step(3, "agent", ActionKind.answer, ["failed", "current"]),
        _step(4, "judge", ActionKind.judge, ["failed", "failed"]),
    ]
    assert first_failure(steps) == 3
    assert guess_step(steps, 3) == 3
    assert guess_step(steps, 2) == 0  # the ask is not a guess: the search before it is
    disco = Session(task_id="d1", protocol="discobench", agent="a", user="u", search="s")
    assert opening_step(disco, steps) == (3, 3)
    assert opening_step(disco, steps[:3]) == (0, None)  # nothing failed yet
    ic = Session(task_id="i1", protocol="interactcomp", agent="a", user="u", search="s")
    assert opening_step(ic, steps) == (0, None)  # only DiscoBench has checkpoints to fail
    assert opening_step(disco, []) == (0, None)
