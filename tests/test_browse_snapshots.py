"""Snapshot tests of the browsing screens (pytest-textual-snapshot).

The database is built through the CLI runner with scripted agents, offline, with session
ids and clocks made deterministic (uuid4 counts up, the models' clock is frozen), so the
pictures do not change between runs. Update with `pytest --snapshot-update` after
checking the new SVGs in tests/__snapshots__/ by eye.
"""

from __future__ import annotations

import itertools
import types
import uuid
from datetime import UTC, datetime
from unittest import mock

import pytest

from clarify_tui.cli import main as cli
from clarify_tui.store import Store
from clarify_tui.tui.browse import BrowseApp
from tests.clitools import scripted_run

SIZE = (150, 42)


class FrozenClock(datetime):
    @classmethod
    def now(cls, tz=None):
        return datetime(2025, 1, 2, 3, 4, 5, tzinfo=tz or UTC)


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("snap") / "snapshots.db"
    counter = itertools.count(1)
    with (
        mock.patch("uuid.uuid4", lambda: uuid.UUID(int=next(counter) << 80)),
        mock.patch("clarify_tui.models.datetime", FrozenClock),
        mock.patch("clarify_tui.engine.episode.time", types.SimpleNamespace(perf_counter=lambda: 0.0)),
    ):  # 0 ms
        for benchmark, agent, extra in (
            ("discobench", "direct-guess", []),
            ("discobench", "search-then-ask", []),
            ("interactcomp", "direct-guess", []),
            ("interactcomp", "search-then-ask", []),
            ("cts", "direct-guess", ["--k", "2", "--deep-search", "scripted:direct-guess"]),
            ("cts", "search-then-ask", ["--k", "2", "--deep-search", "scripted:direct-guess"]),
        ):
            assert cli(scripted_run(path, benchmark, agent, f"{benchmark[:5]}-{agent}", 4, *extra)) == 0
    return path


async def _settle(pilot):
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def test_sessions_screen(db, snap_compare):
    """You should see the filter row (runs, protocols, agents, modes, annotators, failed
    only, errored only) over a table of 24 sessions: four per run, ids 000000000001 up,
    outcomes `wrong` in red for the direct-guess DiscoBench and InteractComp runs,
    `correct` in green for search-then-ask, restore scores for CTS; the status line says
    "24 of 24 sessions · sorted by created ↑"."""
    assert snap_compare(BrowseApp(Store(db), start="sessions"), terminal_size=SIZE)


def test_sessions_screen_failed_only(db, snap_compare):
    """You should see the "failed only" box ticked and only the failed sessions: the
    direct-guess DiscoBench and InteractComp runs and any CTS session below 100."""

    async def tick(pilot):
        pilot.app.screen.query_one("#filter-failed").value = True
        await pilot.pause()

    assert snap_compare(BrowseApp(Store(db), start="sessions"), terminal_size=SIZE, run_before=tick)


def test_compare_view(db, snap_compare):
    """You should see two columns on task dg-01: on the left the direct-guess session
    (verdict: its answer, ✗ wrong · 0 asks · 1 search), on the right the search-then-ask
    one (answer "Godalming" ✓ correct · 1 ask); the first row (the same opening search)
    is shared, then a "the trajectories part here" divider, the guess and its failed
    checkpoint on the left against the ask, its judged target and the clue on the right."""
    store = Store(db)
    a = store.sessions(runs=["disco-direct-guess"])[0].id
    b = store.sessions(runs=["disco-search-then-ask"])[0].id
    assert snap_compare(BrowseApp(store, start="compare", session_id=a, other_id=b), terminal_size=SIZE)


def test_scores_numbers(db, snap_compare):
    """You should see "group by run" and three tables (interactcomp, discobench, cts), a
    column per run: accuracy 0.000 for direct-guess and 1.000 for search-then-ask, the
    DiscoBench detection and profile rows, the CTS restore-score rows."""
    assert snap_compare(BrowseApp(Store(db), start="scores"), terminal_size=(150, 60), run_before=_settle)


def test_scores_charts(db, snap_compare):
    """You should see the Charts tab: accuracy bars by run, one row each with its value
    (search-then-ask full, 1.00; direct-guess empty, 0.00), the InteractComp reliability diagram (a grey diagonal and one point per
    run), DiscoBench profile shares and pass rates (guess for direct-guess, search+ask for
    search-then-ask) and the CTS restore-score histogram across the bottom."""

    async def charts(pilot):
        await _settle(pilot)
        await pilot.press("t")
        await pilot.pause()

    assert snap_compare(BrowseApp(Store(db), start="scores"), terminal_size=(150, 50), run_before=charts)


# ---- 80×24 (issue 14): one-line filters, newest first, replay in one column ----------


def test_small_sessions_screen(db, snap_compare):
    """You should see the filters as one-line widgets on two rows (no label broken letter
    by letter), the newest session (000000000018…) at the top, "sorted by created ↓", and
    a one-line footer."""
    assert snap_compare(BrowseApp(Store(db), start="sessions"), terminal_size=(80, 24))


def test_small_replay(db, snap_compare):
    """You should see the replay head over one column: the question (with a scroll hint
    if it is cut), the trajectory with the current step marked, and the footer with
    w Panels (the state and hidden panels are one key away)."""
    store = Store(db)
    sid = store.sessions(runs=["disco-search-then-ask"])[0].id
    assert snap_compare(BrowseApp(store, start="replay", session_id=sid), terminal_size=(80, 24))


def test_small_replay_side_panels(db, snap_compare):
    """`w` shows the question and hidden information on the left and the state at this
    step (the checkpoint table) on the right, in place of the trajectory."""
    store = Store(db)
    sid = store.sessions(runs=["disco-search-then-ask"])[0].id

    async def panels(pilot):
        await pilot.pause()
        await pilot.press("w")
        await pilot.pause()

    assert snap_compare(BrowseApp(store, start="replay", session_id=sid), terminal_size=(80, 24), run_before=panels)
