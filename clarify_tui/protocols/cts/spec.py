"""Clarify-Then-Search as the registry knows it (protocols/README.md)."""

from __future__ import annotations

from collections.abc import Sequence

from clarify_tui.metrics.intervals import t_interval
from clarify_tui.metrics.options import ScoreOptions
from clarify_tui.metrics.records import ScoredSession
from clarify_tui.protocols.base import ProtocolSpec
from clarify_tui.protocols.cts import audit, charts, deviations, panel, paper_table, summary, table
from clarify_tui.protocols.cts.metric_model import CTSMetrics
from clarify_tui.protocols.cts.metrics import cts_metrics, is_orig, score_of
from clarify_tui.protocols.cts.roles import ROLES
from clarify_tui.protocols.cts.rules import CTSRules
from clarify_tui.results import CTSResult


def counted(s: ScoredSession) -> bool:
    """Scorable with a restore score (CTS has no right/wrong verdict)."""
    return s.scorable and score_of(s) is not None


def intervals(sessions: Sequence[ScoredSession]) -> dict[str, list[float] | None]:
    """The t interval of the clarified sessions' mean restore score (orig ones left out)."""
    scores = [v for s in sessions if s.scorable and (v := score_of(s)) is not None and not is_orig(s)]
    return {"restore_score_ci95": t_interval(scores)}


def score(
    every: Sequence[ScoredSession], groups: Sequence[Sequence[ScoredSession]], options: ScoreOptions
) -> list[CTSMetrics]:
    """Every group's delta_vs_orig against the orig sessions of the whole selection."""
    orig = [s for s in every if is_orig(s) and counted(s)]
    return [
        cts_metrics(members, orig=orig, resamples=options.bootstrap, seed=options.seed, executor=options.executor)
        for members in groups
    ]


SPEC = ProtocolSpec(
    name="cts",
    title="CTS",
    rules=CTSRules,
    result=CTSResult,
    score=score,
    run_line=summary.run_line,
    table_rows=table.ROWS,
    ci_rows=table.CI_ROWS,
    metric_inputs=table.METRIC_INPUTS,
    summary_columns=table.SUMMARY_COLUMNS,
    paper=deviations.PAPER,
    deviations=deviations.SOURCES,
    graded_by="nuggets",
    paper_tables=paper_table.paper_tables,
    charts=charts.charts,
    state_panel=panel.state_panel,
    score_card=panel.score_card,
    refusal=panel.refusal,
    user_step="question",
    report_rank=2,
    run_flags=("k", "deep_search"),
    counted=counted,
    clarify_budget=3,  # paper 001 §4: k in {0, 1, 2, 3}
    value=score_of,
    intervals=intervals,
    roles=ROLES,
    audit=audit.AUDIT,
)
