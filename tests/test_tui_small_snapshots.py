"""Snapshot tests at 80×24, the size most annotators' terminals open at (issue 14).

Below 120 columns the screens lay out in one column (tui/layout.py): the question on
top with a scroll hint when it does not fit, the trajectory, then the action prompt
(action bar or reply box) whole at the bottom. Update with
`pytest tests/test_tui_small_snapshots.py --snapshot-update` after looking at the SVGs.
Session ids, latencies and the task clock are pinned (as in test_tui_snapshots.py).
"""

from __future__ import annotations

import asyncio

import pytest

from clarify_tui.models import EpisodeConfig
from clarify_tui.search.local import LocalSearch
from clarify_tui.store import Store
from clarify_tui.tui.app import ClarifyApp
from clarify_tui.tui.widgets import pending
from clarify_tui.tui.widgets.reply_box import ReplyBox
from clarify_tui.tui.widgets.trajectory import Trajectory
from tests.conftest import CTS, DISCO, DOCS, IC
from tests.test_tui_snapshots import pinned, steps  # noqa: F401  (pinned: autouse fixture)

SMALL = (80, 24)
LONG = (
    "Which red and white lattice tower in Japan, opened in the late 1950s a year before a "
    "taller and more famous one in the capital, carries a large digital clock on its side "
    "and stands in a city on the northern island that hosts a snow festival every winter?"
)
IC_LONG = IC.model_copy(update={"question": LONG})


def app(**kwargs) -> ClarifyApp:
    return ClarifyApp(tasks=[IC_LONG, DISCO, CTS], store=Store(":memory:"), search=LocalSearch(DOCS), **kwargs)


@pytest.fixture(autouse=True)
def still_spinner(monkeypatch):
    monkeypatch.setattr(pending, "SPINNER", "⠿")  # the busy spinner's frame depends on timing


async def until_reply_box(pilot) -> None:
    """Watch mode at full pace until the agent asks and the reply box is up; then the
    trajectory is put at its end (following the newest step is timing-dependent)."""
    pilot.app.screen.action_pace(-99)  # the fastest pace, shown in the status line at once
    for _ in range(400):
        box = pilot.app.screen.query(ReplyBox)
        if box and box.first().request is not None:
            break
        await asyncio.sleep(0.01)
    await pilot.pause()
    await pilot.wait_for_scheduled_animations()
    pilot.app.screen.query_one(Trajectory).scroll_end(animate=False, immediate=True)
    await pilot.pause()
    await pilot.pause()


def test_small_picker(snap_compare):
    """You should see one-line filters on two rows (all protocols, all domains, all
    languages; watch / step, the search box), no label broken letter by letter, and the
    three tasks with their questions cut to the width (no sideways scrolling)."""
    assert snap_compare(app(), terminal_size=SMALL)


def test_small_play_the_agent(snap_compare):
    """You should see the long question on top with "more ↓ ctrl+↓ or wheel" on its
    bottom border, the search just made in the trajectory, and the whole action bar
    (s search · k ask · enter answer) above the status line and a one-line footer that
    lists w Panels."""

    async def run_before(pilot) -> None:
        await pilot.pause()
        await pilot.press("s", *"tower clock", "enter")
        await pilot.pause()
        await pilot.pause()

    assert snap_compare(app(task_id="i1", as_="agent"), terminal_size=SMALL, run_before=run_before)


def test_small_play_the_agent_side_panels(snap_compare):
    """`w` shows the side panels in place of the trajectory: the question and the locked
    hidden panel on the left, the state (rounds 0 / 10) on the right; the action bar stays."""

    async def run_before(pilot) -> None:
        await pilot.pause()
        await pilot.press("w")
        await pilot.pause()

    assert snap_compare(app(task_id="i1", as_="agent"), terminal_size=SMALL, run_before=run_before)


@pytest.mark.parametrize("task_id", ["i1", "d1", "c1"])
def test_small_play_the_user(snap_compare, task_id):
    """You should see the reply box whole at the bottom: the agent's question, then the
    keys this protocol accepts (InteractComp: y yes · n no · i i don't know; DiscoBench:
    c release the clue · or type; CTS: u unknown · or type), then what the user knows,
    and a one-line reply field where typing is allowed. Where what the user knows does not
    fit, the box's bottom border says "more ↓ pgdn"."""
    config = EpisodeConfig(k=1)
    assert snap_compare(
        app(task_id=task_id, as_="user", config=config), terminal_size=SMALL, run_before=until_reply_box
    )
