"""Snapshot tests (pytest-textual-snapshot) of the task picker and the play screen for
each protocol. Update with `pytest tests/test_tui_snapshots.py --snapshot-update` after
looking at the new SVGs in tests/__snapshots__/.

Session ids and latencies are pinned so the pictures are stable.
"""

from __future__ import annotations

import types

import pytest

from clarify_tui import annotation, models
from clarify_tui.engine import episode
from clarify_tui.models import EpisodeConfig
from clarify_tui.search.local import LocalSearch
from clarify_tui.store import Store
from clarify_tui.tui.app import ClarifyApp
from tests.conftest import CTS, DISCO, DOCS, IC

SIZE = (160, 45)


@pytest.fixture(autouse=True)
def pinned(monkeypatch):
    counter = iter(range(10_000))
    monkeypatch.setattr(
        models, "uuid", types.SimpleNamespace(uuid4=lambda: types.SimpleNamespace(hex=f"{next(counter):012d}"))
    )
    monkeypatch.setattr(episode, "time", types.SimpleNamespace(perf_counter=lambda: 0.0))
    monkeypatch.setattr(annotation, "time", types.SimpleNamespace(perf_counter=lambda: 0.0))  # the task clock


def app(**kwargs) -> ClarifyApp:
    return ClarifyApp(tasks=[IC, DISCO, CTS], store=Store(":memory:"), search=LocalSearch(DOCS), **kwargs)


async def steps(pilot, *keys: str) -> None:
    for key in keys:
        await pilot.press(key)
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()


def test_task_picker(snap_compare):
    """You should see the filter bar (protocol, domain, language: all; role: observe;
    a search box) above a table of three tasks: i1 interactcomp, d1 discobench, c1 cts,
    the first row highlighted, "3 of 3 tasks" in the status line and the footer keys."""
    assert snap_compare(app(), terminal_size=SIZE)


def test_play_interactcomp_step_mode(snap_compare):
    """You should see the InteractComp question on the left with a "Press h" spoiler
    hint below it, in the centre a search step with hit cards (Tokyo Tower, Sapporo TV
    Tower) and an ask "Is it Tokyo Tower?" answered "no", the pending next action at the
    bottom, and on the right rounds 2 / 10 with 1 ask and 1 search."""

    async def run_before(pilot) -> None:
        await steps(pilot, "h", "space", "enter", "space", "enter", "space")

    assert snap_compare(app(task_id="i1", run_mode="step"), terminal_size=SIZE, run_before=run_before)


def test_play_discobench_watched_to_the_end(snap_compare):
    """You should see a finished DiscoBench session: the trajectory ends with the answer
    and the judge's verdict, the right panel shows the score card (correct, checkpoints
    passed 2/2) over a checkpoint table (1 ambi/entity passed, asked right; 2 unambi
    passed) and the released clue; the hidden panel lists targets, distractors and clues."""

    async def run_before(pilot) -> None:
        pilot.app.screen.pace = 0
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        pilot.app.clear_notifications()  # the "saved" toast may or may not have timed out yet
        await pilot.pause()

    assert snap_compare(app(task_id="d1"), terminal_size=SIZE, run_before=run_before)


def test_play_cts_after_clarification(snap_compare):
    """You should see the CTS search phase: the left panel shows the rewritten query,
    the trajectory shows the clarify step with two questions and their answers (one
    "unknown" in yellow) and the rewrite, the right panel the Q&A pairs with the unknown
    marked and the rewritten query, and a pending search."""

    async def run_before(pilot) -> None:
        await steps(pilot, "space", "enter", "space")

    assert snap_compare(
        app(task_id="c1", run_mode="step", config=EpisodeConfig(k=2)), terminal_size=SIZE, run_before=run_before
    )


def test_play_the_agent_interactcomp(snap_compare):
    """You should see the human-agent screen: the question, the hidden panel locked
    ("Locked until the session ends"), an action bar with s search, k ask, enter answer,
    and no gold answer or context anywhere."""

    async def run_before(pilot) -> None:
        await pilot.pause()

    assert snap_compare(app(task_id="i1", as_="agent"), terminal_size=SIZE, run_before=run_before)
