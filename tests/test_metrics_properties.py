"""Bounds that hold for any sessions: every rate in [0, 1], F1 <= 1, restore scores in [0, 100].

Sessions here are generated results (the shapes of docs/internals.md), not engine runs:
the properties are about the arithmetic, whatever the trajectories were.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from clarify_tui.metrics import cts_metrics, discobench_metrics, interactcomp_metrics
from clarify_tui.metrics.common import bootstrap_mean_ci
from clarify_tui.metrics.records import ScoredSession
from clarify_tui.protocols.cts.metrics import restore_score
from clarify_tui.results import NuggetCoverage, parse_result

STATUSES = st.sampled_from(["completed", "completed", "completed", "errored", "abandoned"])


def session(protocol: str, result: dict, status: str, task: str = "t") -> ScoredSession:
    return ScoredSession(
        id=f"{protocol}-{id(result)}",
        run="r",
        task_id=task,
        protocol=protocol,
        agent="a",
        mode="automated",
        annotator=None,
        status=status,
        result=parse_result(protocol, result),
        judged_by="rule",
    )


ic_result = st.builds(
    lambda correct, confidence, asks, extra: {
        "correct": correct,
        "confidence": confidence,
        "asks": asks,
        "rounds": asks + extra,
    },
    st.booleans(),
    st.one_of(st.none(), st.floats(min_value=0, max_value=100)),
    st.integers(0, 9),
    st.integers(1, 5),
)


@st.composite
def checkpoint(draw, index):
    reached = draw(st.booleans())
    ambi = draw(st.booleans())
    asked = reached and draw(st.booleans())
    asked_right = asked and ambi and draw(st.booleans())
    outcome = (
        draw(st.sampled_from(["correct_answer", "missed_ambiguity_correct", "failed"])) if reached else "unreached"
    )
    searches = draw(st.integers(0, 8))
    return {
        "index": index,
        "type": "ambi" if ambi else "unambi",
        "reached": reached,
        "asked": asked,
        "asked_right": asked_right,
        "outcome": outcome,
        "advanced": outcome != "failed" and reached,
        "searches": searches,
        "searches_before_first_ask": draw(st.integers(0, searches)) if asked else None,
    }


@st.composite
def disco_result(draw):
    n = draw(st.integers(1, 4))
    return {
        "correct": draw(st.booleans()),
        "checkpoints": [draw(checkpoint(i)) for i in range(n)],
        "ask_turns": draw(st.integers(0, 5)),
        "tool_turns": draw(st.integers(0, 9)),
    }


coverage_row = st.builds(
    lambda w, c: {"id": "n", "weight": w, "coverage": c},
    st.integers(1, 3),
    st.sampled_from(["full", "partial", "none"]),
)


@st.composite
def cts_result(draw):
    orig = draw(st.booleans())
    k = 0 if orig else draw(st.integers(1, 3))
    return {
        "orig": orig,
        "k": max(k, 1),
        "questions": [f"q{i}" for i in range(k)],
        "answers": [draw(st.sampled_from(["unknown", "2023", "Kyoto", "Unknown."])) for _ in range(k)],
        "aspects": [draw(st.sampled_from(["region", "time", "entity", "other"])) for _ in range(k)],
        "coverage": draw(st.lists(coverage_row, min_size=1, max_size=6)),
    }


def rates(metrics: dict, names) -> list[float]:
    return [metrics[n] for n in names if metrics[n] is not None]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(ic_result, STATUSES), max_size=25))
def test_interactcomp_rates_are_fractions(rows):
    m = interactcomp_metrics([session("interactcomp", r, s) for r, s in rows]).to_json()
    for value in rates(m, ("accuracy", "interaction_rate", "calibration_error")):
        assert 0.0 <= value <= 1.0 + 1e-12


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(disco_result(), STATUSES), max_size=20), st.integers(0, 6))
def test_discobench_rates_are_fractions_and_f1_at_most_one(rows, k):
    m = discobench_metrics([session("discobench", r, s) for r, s in rows], k=k).to_json()
    names = (
        "accuracy",
        "checkpoint_pass_rate",
        "detection_accuracy",
        "detection_precision",
        "detection_recall",
        "detection_f1",
        "ce_a",
        "ce_b",
    )
    for value in rates(m, names):
        assert 0.0 <= value <= 1.0 + 1e-12
    assert m["ce_b"] is None or m["ce_b"] <= m["ce_a"]
    c = m["detection"]
    # F1 is null exactly when 2TP+FP+FN = 0, and equals 2PR/(P+R) whenever P and R exist
    assert (m["detection_f1"] is None) == (2 * c["tp"] + c["fp"] + c["fn"] == 0)
    p, r = m["detection_precision"], m["detection_recall"]
    if p is not None and r is not None and p + r:
        assert abs(m["detection_f1"] - 2 * p * r / (p + r)) < 1e-12
    # errored and abandoned are counted apart, each exactly
    assert m["errored"] == sum(1 for _, st_ in rows if st_ == "errored")
    assert m["abandoned"] == sum(1 for _, st_ in rows if st_ == "abandoned")
    shares = [p["share"] for p in m["profiles"].values() if p["share"] is not None]
    assert not shares or abs(sum(shares) - 1.0) < 1e-9
    for p in m["profiles"].values():
        assert p["pass_rate"] is None or 0.0 <= p["pass_rate"] <= 1.0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(cts_result(), STATUSES, st.sampled_from(["t1", "t2", "t3"])), max_size=20))
def test_cts_scores_in_0_100_and_rates_are_fractions(rows):
    sessions = [session("cts", r, s, t) for r, s, t in rows]
    orig = [s for s in sessions if s.result.orig and s.scorable]
    m = cts_metrics(sessions, orig=orig, resamples=200).to_json()
    for name in (
        "restore_score_mean",
        "restore_score_p50",
        "restore_score_p90",
        "restore_score_min",
        "restore_score_max",
    ):
        assert m[name] is None or 0.0 <= m[name] <= 100.0
    for value in rates(m, ("ua_unknown_rate", "cq_region_rate", "region_only_unknown_rate", "all_unknown_rate")):
        assert 0.0 <= value <= 1.0
    shares = [v for v in m["known_cnt"].values() if v is not None]
    assert not shares or abs(sum(shares) - 1.0) < 1e-9
    if m["delta_vs_orig"]:
        lo, hi = m["delta_vs_orig"]["ci95"]
        assert -100.0 <= lo <= hi <= 100.0


@given(st.lists(coverage_row, min_size=1, max_size=10))
def test_restore_score_is_within_0_100(rows):
    assert 0.0 <= restore_score([NuggetCoverage(**row) for row in rows]) <= 100.0


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(min_value=-100, max_value=100), min_size=1, max_size=40), st.integers(0, 10**6))
def test_bootstrap_ci_lies_within_the_data_range(values, seed):
    lo, hi = bootstrap_mean_ci(values, resamples=100, seed=seed)
    assert min(values) - 1e-9 <= lo <= hi <= max(values) + 1e-9


def test_bootstrap_ci_of_a_subnormal_range():
    """Hypothesis 6.100 (the floor CI installs) found it: a range of 1.5e-300 made the
    fixed-point scale 2^1025, which overflowed (OverflowError) instead of giving a CI."""
    lo, hi = bootstrap_mean_ci([0.0, 1.4932217896051502e-300], resamples=100, seed=0)
    assert 0.0 <= lo <= hi <= 1.4932217896051502e-300 and hi > 0.0
