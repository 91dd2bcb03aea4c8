"""What the agent was shown right after a stored step, rebuilt by the protocol's own rules.

Replay shows the question panel as the agent saw it at the step under the cursor (CTS's
search phase: the rewritten query; DiscoBench's original-question ablation; the
InteractComp harness's question with its constraints line; the notice and the allowed
actions). Rather than re-implement each protocol's view, this restores the protocol
state recorded with the step into a fresh `Rules` and asks it, exactly as a live
episode would. The history is left out: replay shows the steps themselves.
"""

from __future__ import annotations

from typing import Any, cast

from clarify_tui.agent_view import AgentView
from clarify_tui.engine import build_episode
from clarify_tui.engine.episode import Episode
from clarify_tui.models import Session, Task
from clarify_tui.results import EpisodeState


class _Absent:
    """Stands in for the agent, user, search and judge: building a view (replay's, a labels
    item's) calls none of them."""

    spec = "replay"


def replay_episode(task: Task, session: Session) -> Episode:
    """An episode of `session` (a copy) with no backends, to restore stored steps or state
    into and ask its rules what the agent was shown; nothing is played or written."""
    absent = cast(Any, _Absent())
    return build_episode(
        task,
        agent=absent,
        user=absent,
        search=absent,
        judge=absent,
        config=session.config,
        session=session.model_copy(),
    )


def view_at(task: Task, session: Session, state: EpisodeState, *, ended: bool = False) -> AgentView:
    """The AgentView (without history) for `state`, a stored `Step.state` of `session`.

    `ended`: the step is the last of a session that is over, so nothing is allowed any
    more (a protocol may record its last judge step before it marks itself done). A
    state without this protocol's part (a session that never started) shows the
    protocol's opening view.
    """
    episode = replay_episode(task, session)
    episode.rounds_used = state.rounds_used
    episode.max_rounds = state.max_rounds or episode.max_rounds
    episode.invalid_streak = state.invalid_streak
    episode.done = ended or state.done
    if isinstance(state.protocol, type(episode.rules.state)):  # else: never started, or not this protocol's
        episode.rules.restore(state.protocol)
    return episode.view()
