"""The series the TUI's scores charts draw, computed from the same report as `score`.

`compute_scores` is `score_sessions(sessions, by=...)` plus, per group, accuracy (the
bar chart), the InteractComp reliability diagram's points (the calibration-error bins),
DiscoBench profile shares and pass rates, and the CTS restore-score histogram. Pure and
thread-safe: the screen runs it in a worker and only draws the result.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from clarify_tui.protocols.cts.metrics import session_score
from clarify_tui.protocols.interactcomp.metrics import CALIBRATION_BINS, calibration_bin, harness_confidence
from clarify_tui.metrics.profiles import PROFILES
from clarify_tui.metrics.records import ScoredSession
from clarify_tui.metrics.report import ScoreReport, group_sessions, score_sessions
from clarify_tui.metrics.table_rows import group_label
from clarify_tui.results import CTSResult, InteractCompResult

HIST_BINS = 10


@dataclass
class ScoresData:
    """Everything the screen shows for one grouping."""

    by: str
    report: ScoreReport
    accuracy: list[tuple[str, float | None]] = field(default_factory=list)
    reliability: dict[str, list[tuple[float, float, int]]] = field(default_factory=dict)
    profile_share: dict[str, list[float | None]] = field(default_factory=dict)
    profile_pass: dict[str, list[float | None]] = field(default_factory=dict)
    restore_hist: dict[str, list[int]] = field(default_factory=dict)


def reliability_points(members: Iterable[ScoredSession]) -> list[tuple[float, float, int]]:
    """(mean confidence 0-1, accuracy, n) per non-empty confidence bin (the CE bins)."""
    bins: dict[int, list[tuple[float, bool]]] = {}
    for s in members:
        r = s.result
        conf_or_none = harness_confidence(r) if isinstance(r, InteractCompResult) else None
        if s.scorable and r.correct is not None and conf_or_none is not None:
            conf = conf_or_none
            bins.setdefault(calibration_bin(conf, CALIBRATION_BINS), []).append((conf / 100.0, bool(r.correct)))
    return [
        (sum(c for c, _ in pts) / len(pts), sum(1 for _, ok in pts if ok) / len(pts), len(pts))
        for _, pts in sorted(bins.items())
    ]


def restore_histogram(members: Iterable[ScoredSession], bins: int = HIST_BINS) -> list[int]:
    """How many scored CTS sessions fall in each of `bins` equal restore-score bins (0-100)."""
    counts = [0] * bins
    for s in members:
        score = session_score(s.result) if s.scorable and isinstance(s.result, CTSResult) else None
        if score is not None:
            counts[calibration_bin(score, bins)] += 1  # the same equal bins over 0-100
    return counts


def compute_scores(sessions: Sequence[ScoredSession], by: str) -> ScoresData:
    """The report of `score --by BY` plus the series the charts draw (pure; thread-safe),
    over the same sessions as the report (one task counted once: metrics/once.py)."""
    from clarify_tui.metrics.once import count_once

    sessions, _ = count_once(sessions)
    report = score_sessions(sessions, by=by)
    data = ScoresData(by=by, report=report)
    groups = group_sessions(sessions, by)
    for g in report["groups"]:
        label = group_label(g)
        m = g["metrics"]
        members = groups[(g["benchmark"], next(iter(g["key"].values())), g["key"].get("role"))]
        if g["benchmark"] in ("interactcomp", "discobench"):
            name = label if g["benchmark"][:5] in label else f"{g['benchmark'][:5]}·{label}"
            data.accuracy.append((name, m.get("accuracy")))
        if g["benchmark"] == "interactcomp":
            data.reliability[label] = reliability_points(members)
        elif g["benchmark"] == "discobench":
            profiles = m.get("profiles") or {}
            data.profile_share[label] = [(profiles.get(p) or {}).get("share") for p in PROFILES]
            data.profile_pass[label] = [(profiles.get(p) or {}).get("pass_rate") for p in PROFILES]
        elif g["benchmark"] == "cts":
            data.restore_hist[label] = restore_histogram(members)
    return data
