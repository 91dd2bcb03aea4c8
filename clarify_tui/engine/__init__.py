"""The episode engine: protocol state machines, UI-agnostic and async."""

from __future__ import annotations

from typing import Any

from clarify_tui.agents.base import Agent
from clarify_tui.engine.episode import Episode, Rules, StepSink
from clarify_tui.judges.base import Judge
from clarify_tui.models import EpisodeConfig, Protocol, Session, Task
from clarify_tui.protocols import registry
from clarify_tui.search.base import SearchBackend
from clarify_tui.users.base import UserSimulator


def rules_for(protocol: Protocol) -> type[Rules]:
    """The rules class of a protocol: the engine knows none, it asks the registry."""
    return registry.get(protocol).rules


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
        rules_class=rules_for(task.protocol),
        deep_search=deep_search,
    )


def __getattr__(name: str) -> Any:
    """`RULES` (protocol -> its rules class), for code written before the registry: built
    on first use, as each rules module imports the engine."""
    if name == "RULES":
        return {Protocol(n): registry.get(n).rules for n in registry.names()}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["Episode", "EpisodeConfig", "Rules", "StepSink", "build_episode"]
