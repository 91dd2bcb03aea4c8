"""DiscoBench as the registry knows it (protocols/README.md)."""

from __future__ import annotations

from collections.abc import Sequence

from clarify_tui.metrics.options import ScoreOptions
from clarify_tui.metrics.profiles import choose_k, common_subset
from clarify_tui.metrics.records import ScoredSession
from clarify_tui.models import ActionKind
from clarify_tui.protocols.base import ProtocolSpec
from clarify_tui.protocols.discobench import audit, charts, deviations, panel, paper_table, summary, table
from clarify_tui.protocols.discobench.metric_model import DiscoBenchMetrics
from clarify_tui.protocols.discobench.metrics import discobench_metrics, keyed_profile_checkpoints, profile_checkpoints
from clarify_tui.protocols.discobench.roles import ROLES
from clarify_tui.protocols.discobench.rules import DiscoBenchRules
from clarify_tui.results import DiscoBenchResult


def score(
    every: Sequence[ScoredSession], groups: Sequence[Sequence[ScoredSession]], options: ScoreOptions
) -> list[DiscoBenchMetrics]:
    """One profile K for every group scored together, and (`--profile-subset common`) the
    reached ambiguous checkpoints every group reached (metrics/profiles.py)."""
    k, k_source = choose_k(profile_checkpoints(every), options.profile_k)
    subset = (
        common_subset(keyed_profile_checkpoints(m) for m in groups)
        if options.profile_subset == "common" and len(groups) > 1
        else None
    )
    return [discobench_metrics(members, k=k, k_source=k_source, profile_subset=subset) for members in groups]


SPEC = ProtocolSpec(
    name="discobench",
    title="DiscoBench",
    rules=DiscoBenchRules,
    result=DiscoBenchResult,
    score=score,
    run_line=summary.run_line,
    table_rows=table.ROWS,
    ci_rows=table.CI_ROWS,
    metric_inputs=table.METRIC_INPUTS,
    summary_columns=table.SUMMARY_COLUMNS,
    paper=deviations.PAPER,
    deviations=deviations.SOURCES,
    paper_tables=paper_table.paper_tables,
    setting_words=paper_table.setting_words,
    charts=charts.charts,
    state_panel=panel.state_panel,
    score_card=panel.score_card,
    report_rank=1,
    never_offers=(ActionKind.clarify, ActionKind.visit),
    difficulty=("discobench", "difficulty"),
    opens_at_failure=True,
    run_flags=("prompting", "ablation", "checkpoints"),
    roles=ROLES,
    audit=audit.AUDIT,
)
