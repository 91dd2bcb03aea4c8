"""The series of the TUI's scores charts (metrics/charts.py), computed without a terminal."""

from __future__ import annotations

import itertools

import pytest

from clarify_tui.metrics.charts import HIST_BINS, compute_scores
from clarify_tui.metrics.profiles import PROFILES
from clarify_tui.metrics.records import ScoredSession
from clarify_tui.metrics.table_rows import group_label, profile_cell
from clarify_tui.protocols.cts.charts import restore_histogram
from clarify_tui.protocols.discobench.metric_model import Profile
from clarify_tui.protocols.interactcomp.charts import reliability_points
from clarify_tui.results import parse_result

_N = itertools.count(1)


def session(
    protocol: str, result: dict, *, run: str = "r", status: str = "completed", judged: bool = True, agent: str = "a"
) -> ScoredSession:
    n = next(_N)  # one task per session (id(result) of a freed dict repeats: one task counted once)
    return ScoredSession(
        id=f"{protocol}-{n}",
        run=run,
        task_id=f"t{n}",
        protocol=protocol,
        agent=agent,
        mode="automated",
        annotator=None,
        status=status,
        result=parse_result(protocol, result),
        judged_by="rule" if judged else None,
    )


def test_reliability_points_are_mean_confidence_and_accuracy_per_calibration_bin():
    members = [
        session("interactcomp", {"correct": True, "confidence": 90}),
        session("interactcomp", {"correct": False, "confidence": 85}),
        session("interactcomp", {"correct": True, "confidence": 10}),
        session("interactcomp", {"correct": True, "confidence": None}),  # no confidence: not plotted
        session("interactcomp", {"correct": False, "confidence": 95}, status="errored"),  # excluded
        session("interactcomp", {"correct": False, "confidence": 95}, judged=False),  # unjudged
    ]
    points = reliability_points(members)
    assert points == [(0.10, 1.0, 1), (pytest.approx(0.875), 0.5, 2)]


def test_restore_histogram_counts_scored_cts_sessions_in_equal_bins():
    members = [
        session("cts", {"restore_score": 0.0}),
        session("cts", {"restore_score": 9.9}),
        session("cts", {"restore_score": 55.0}),
        session("cts", {"restore_score": 100.0}),  # the top bin is closed
        session("cts", {"restore_score": None}),
        session("cts", {"restore_score": 70.0}, status="abandoned"),
    ]
    counts = restore_histogram(members)
    assert len(counts) == HIST_BINS and sum(counts) == 4
    assert counts[0] == 2 and counts[5] == 1 and counts[9] == 1
    assert restore_histogram(members, bins=2) == [2, 2]


def test_compute_scores_draws_every_benchmark_from_the_score_report():
    sessions = [
        session("interactcomp", {"correct": True, "confidence": 80}, run="ic-run"),
        session("interactcomp", {"correct": False, "confidence": 30}, run="ic-run"),
        session("cts", {"restore_score": 42.0}, run="cts-run"),
    ]
    data = compute_scores(sessions, "run")
    assert data.by == "run"
    assert [group_label(g) for g in data.report.groups] == ["ic-run", "cts-run"]
    assert data.accuracy == [("inter·ic-run", 0.5)]  # CTS has no accuracy bar
    assert data.reliability == {"ic-run": [(0.3, 0.0, 1), (0.8, 1.0, 1)]}
    assert data.restore_hist == {"cts-run": [0, 0, 0, 0, 1, 0, 0, 0, 0, 0]}
    assert data.profile_share == {} and data.profile_pass == {}


def test_discobench_groups_get_one_share_and_pass_rate_per_profile():
    cps = [{"index": 0, "type": "ambi", "reached": True, "asked": True, "passed": True}]
    sessions = [session("discobench", {"correct": True, "checkpoints": cps}, agent="x")]
    data = compute_scores(sessions, "agent")
    assert list(data.profile_share) == ["x"] and len(data.profile_share["x"]) == len(PROFILES)
    assert len(data.profile_pass["x"]) == len(PROFILES)
    assert data.accuracy == [("disco·x", 1.0)]


def test_table_labels_and_profile_cells_shared_by_score_and_the_tui():
    assert group_label({"key": {"annotator": None}}) == "(automated)"
    assert group_label({"key": {"run": "r1"}}) == "r1"
    assert profile_cell(Profile(share=0.5, pass_rate=None, n=4)) == "0.50 / - (n=4)"
