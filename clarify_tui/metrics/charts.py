"""The series the TUI's scores charts draw, computed from the same report as `score`.

`compute_scores` is `score_groups(sessions, by=...)` plus, per group, accuracy (the
bar chart) and the protocol's own series (its spec's `charts`: the InteractComp
reliability diagram's points, DiscoBench profile shares and pass rates, the CTS
restore-score histogram). Pure and
thread-safe: the screen runs it in a worker and only draws the result.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from clarify_tui.metrics.model import Scores
from clarify_tui.metrics.records import ScoredSession
from clarify_tui.metrics.report import group_sessions, score_groups
from clarify_tui.metrics.table_rows import group_label
from clarify_tui.protocols import registry

HIST_BINS = 10


@dataclass
class ScoresData:
    """Everything the screen shows for one grouping."""

    by: str
    report: Scores
    accuracy: list[tuple[str, float | None]] = field(default_factory=list)
    reliability: dict[str, list[tuple[float, float, int]]] = field(default_factory=dict)
    profile_share: dict[str, list[float | None]] = field(default_factory=dict)
    profile_pass: dict[str, list[float | None]] = field(default_factory=dict)
    restore_hist: dict[str, list[int]] = field(default_factory=dict)


def compute_scores(sessions: Sequence[ScoredSession], by: str) -> ScoresData:
    """The report of `score --by BY` plus the series the charts draw (pure; thread-safe),
    over the same sessions as the report (one task counted once: metrics/once.py)."""
    from clarify_tui.metrics.once import count_once

    sessions, _ = count_once(sessions)
    report = score_groups(sessions, by=by)
    data = ScoresData(by=by, report=report)
    groups = group_sessions(sessions, by)
    for g in report.groups:
        label = group_label(g)
        m = g.metrics
        members = groups[(g.benchmark, next(iter(g.key.values())), g.role)]
        spec = registry.get(g.benchmark)
        if spec.graded_by == "answer":
            name = label if g.benchmark[:5] in label else f"{g.benchmark[:5]}·{label}"
            data.accuracy.append((name, m.value("accuracy")))  # every protocol graded by answers names it so
        if spec.charts is not None:  # its own series (the reliability diagram, profiles, the histogram)
            spec.charts(label, m, members, data)
    return data
