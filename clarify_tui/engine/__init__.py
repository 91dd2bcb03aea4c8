"""The episode engine: protocol state machines, UI-agnostic and async."""

from __future__ import annotations

from clarify_tui.agents.base import Agent
from clarify_tui.engine.cts import CTSRules
from clarify_tui.engine.discobench import DiscoBenchRules
from clarify_tui.engine.episode import Episode, Rules, StepSink
from clarify_tui.engine.interactcomp import InteractCompRules
from clarify_tui.judges.base import Judge
from clarify_tui.models import EpisodeConfig, Protocol, Session, Task
from clarify_tui.search.base import SearchBackend
from clarify_tui.users.base import UserSimulator

RULES: dict[Protocol, type[Rules]] = {
    Protocol.interactcomp: InteractCompRules,
    Protocol.discobench: DiscoBenchRules,
    Protocol.cts: CTSRules,
}


def build_episode(
    task: Task,
    *,
    agent: Agent,
    user: UserSimulator,
    search: SearchBackend,
    judge: Judge,
    config: EpisodeConfig | None = None,
    session: Session | None = None,
    sink: StepSink | None = None,
    deep_search: Agent | None = None,
) -> Episode:
    """An Episode with the rules of the task's protocol."""
    return Episode(
        task,
        agent=agent,
        user=user,
        search=search,
        judge=judge,
        config=config,
        session=session,
        sink=sink,
        rules_class=RULES[task.protocol],
        deep_search=deep_search,
    )


__all__ = ["Episode", "EpisodeConfig", "Rules", "StepSink", "build_episode"]
