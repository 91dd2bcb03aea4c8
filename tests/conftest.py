"""Shared test fixtures over a tiny world (tasks + corpus) independent of the bundled demo
(clarify_tui/testing/world.py)."""

from __future__ import annotations

import pytest

from clarify_tui.agents.scripted import ScriptedAgent
from clarify_tui.engine import build_episode
from clarify_tui.judges.rule import RuleJudge
from clarify_tui.models import Action, EpisodeConfig
from clarify_tui.search.local import LocalSearch
from clarify_tui.testing.world import CTS, DISCO, DOCS, IC  # noqa: F401  (tests import them from here)
from clarify_tui.users.rule import RuleUser


class ListAgent:
    """Plays a fixed list of actions (tests spell out trajectories exactly)."""

    def __init__(self, actions: list[Action], spec: str = "test:list") -> None:
        self.actions = list(actions)
        self.spec = spec
        self.views = []

    async def act(self, view):
        self.views.append(view)
        return self.actions.pop(0)


@pytest.fixture(scope="session")
def search():
    return LocalSearch(DOCS)


@pytest.fixture
def make_episode(search):
    def make(task, agent, config=None, sink=None, user=None):
        if isinstance(agent, str):
            agent = ScriptedAgent(agent)
        elif isinstance(agent, list):
            agent = ListAgent(agent)
        return build_episode(
            task,
            agent=agent,
            user=user or RuleUser(),
            search=search,
            judge=RuleJudge(),
            config=config or EpisodeConfig(),
            sink=sink,
        )

    return make


@pytest.fixture
def wiki_fleiss_table() -> list[list[int]]:
    """Wikipedia's "Fleiss' kappa" worked example: 10 subjects, 14 raters, 5 categories;
    P-bar 0.378, P-bar-e 0.213, kappa 0.210 (test_stats.py, test_agreement.py)."""
    return [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
    ]
