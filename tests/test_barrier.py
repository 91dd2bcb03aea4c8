"""The barrier: hidden task fields never reach what an agent is shown.

Every bundled task is played by every scripted agent; every view the agent received is
checked for every hidden string (context, clue, fused query, gold answer, nugget text,
checkpoint targets), except where the protocol legitimately reveals it: search results
(the agent found it), the agent's own words, a DiscoBench clue after a right ask, and
CTS answers elicited by a clarification question.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from clarify_tui.agents.scripted import POLICIES, ScriptedAgent
from clarify_tui.engine import build_episode
from clarify_tui.judges.rule import RuleJudge
from clarify_tui.models import ActionKind, EpisodeConfig, Task
from clarify_tui.search.local import LocalSearch
from clarify_tui.tasks import load_tasks
from clarify_tui.users.rule import RuleUser
from tests.conftest import CTS, DISCO, IC


class SpyAgent:
    def __init__(self, inner):
        self.inner, self.spec, self.views = inner, inner.spec, []

    async def act(self, view):
        self.views.append(view.model_copy(deep=True))
        return await self.inner.act(view)


def shown_outside_search(view) -> str:
    """What the view shows that did not come from search results or the agent itself."""
    parts = [view.question, view.context or "", view.notice or ""]
    for turn in view.history:
        if turn.action.kind in (ActionKind.search, ActionKind.visit):
            continue
        parts.append(turn.observation.text)
        parts += turn.observation.items
    return "\n".join(parts)


def legitimately_revealed(task: Task, view) -> set[str]:
    revealed: set[str] = set()
    for turn in view.history:
        if turn.action.kind == ActionKind.ask:
            revealed.add(turn.observation.text.strip())
        if turn.action.kind == ActionKind.clarify:
            revealed.update(a.strip() for a in turn.observation.items)
    return revealed


async def check(task: Task, search, policy: str, config: EpisodeConfig) -> None:
    spy = SpyAgent(ScriptedAgent(policy))
    ep = build_episode(task, agent=spy, user=RuleUser(), search=search, judge=RuleJudge(), config=config)
    await ep.run()
    assert spy.views, "the agent was never asked to act"
    for view in spy.views:
        shown = shown_outside_search(view)
        revealed = legitimately_revealed(task, view)
        for hidden in task.hidden_strings():
            if hidden.strip() in revealed or any(hidden in r for r in revealed):
                continue
            assert hidden not in shown, f"{task.id} / {policy}: hidden text leaked into the view: {hidden!r}"


def demo_tasks() -> list[Task]:
    tasks = []
    for bench in ("discobench", "interactcomp", "cts"):
        tasks += load_tasks(bench, "demo")
    return tasks


@pytest.mark.parametrize("policy", POLICIES)
async def test_no_hidden_string_reaches_any_scripted_agent_on_the_bundled_demo(policy):
    search = LocalSearch()
    tasks = demo_tasks()
    assert len(tasks) >= 26
    for task in tasks:
        await check(task, search, policy, EpisodeConfig(k=3))


@pytest.mark.parametrize("policy", POLICIES)
async def test_no_hidden_string_reaches_the_agent_on_the_test_world(policy, search):
    for task in (IC, DISCO, CTS):
        await check(task, search, policy, EpisodeConfig(k=2))


async def test_the_barrier_check_catches_a_leak(search):
    """The check itself must be able to fail: a question that contains the gold answer."""
    leaky = IC.model_copy(update={"question": "Is the Sapporo TV Tower the red tower I mean?"})
    with pytest.raises(AssertionError, match="leaked"):
        await check(leaky, search, "direct-guess", EpisodeConfig())


def test_the_core_never_imports_textual():
    """Every core module imported for real in a fresh interpreter (the one subprocess
    import test; the import-linter contracts of tests/test_layers.py cover the rest)."""
    # modules found by path: pkgutil.walk_packages imports every package it walks into,
    # the TUI's included (clarify_tui.tui.speed imports Textual by design)
    code = (
        "import importlib, pathlib, sys, clarify_tui\n"
        "root = pathlib.Path(clarify_tui.__file__).parent\n"
        "for path in sorted(root.rglob('*.py')):\n"
        "    name = '.'.join(path.relative_to(root.parent).with_suffix('').parts).removesuffix('.__init__')\n"
        "    if name.startswith(('clarify_tui.tui', 'clarify_tui.commands')) or name.endswith(('.cli', '.__main__')):\n"
        "        continue\n"
        "    importlib.import_module(name)\n"
        "print('textual' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False", out.stderr
