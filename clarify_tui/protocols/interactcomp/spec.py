"""InteractComp as the registry knows it (protocols/README.md)."""

from __future__ import annotations

from collections.abc import Sequence

from clarify_tui.metrics.options import ScoreOptions
from clarify_tui.metrics.records import ScoredSession
from clarify_tui.models import ActionKind
from clarify_tui.protocols.base import ProtocolSpec
from clarify_tui.protocols.interactcomp import audit, charts, deviations, panel, paper_table, summary, table
from clarify_tui.protocols.interactcomp.compat import reads_as_reference
from clarify_tui.protocols.interactcomp.metric_model import InteractCompMetrics
from clarify_tui.protocols.interactcomp.metrics import interactcomp_metrics
from clarify_tui.protocols.interactcomp.prompts import ACTION_PROMPTS
from clarify_tui.protocols.interactcomp.roles import ROLES
from clarify_tui.protocols.interactcomp.rules import InteractCompRules
from clarify_tui.protocols.interactcomp.run_checks import check_config
from clarify_tui.results import InteractCompResult

REFERENCE_TASK_ATTEMPTS = 3  # its harness, core/benchmark.py:106: stop_after_attempt(3)


def score(
    _all: Sequence[ScoredSession], groups: Sequence[Sequence[ScoredSession]], _options: ScoreOptions
) -> list[InteractCompMetrics]:
    """Each group on its own: InteractComp's metrics share nothing across groups."""
    return [interactcomp_metrics(members) for members in groups]


SPEC = ProtocolSpec(
    name="interactcomp",
    title="InteractComp",
    rules=InteractCompRules,
    result=InteractCompResult,
    score=score,
    run_line=summary.run_line,
    table_rows=table.ROWS,
    ci_rows=table.CI_ROWS,
    metric_inputs=table.METRIC_INPUTS,
    summary_columns=table.SUMMARY_COLUMNS,
    paper=deviations.PAPER,
    deviations=deviations.SOURCES,
    run_notes=summary.run_notes,
    score_notes=summary.score_notes,
    task_attempts=REFERENCE_TASK_ATTEMPTS,
    task_attempts_source="core/benchmark.py:106, stop_after_attempt(3)",
    paper_tables=paper_table.paper_tables,
    setting_words=paper_table.setting_words,
    charts=charts.charts,
    state_panel=panel.state_panel,
    score_card=panel.score_card,
    refusal=panel.refusal,
    report_rank=0,
    never_offers=(ActionKind.clarify, ActionKind.visit),
    answer_confidence=True,
    yes_no_user=True,
    notice_in_question=True,
    graded_as_reference=lambda session: reads_as_reference(session.config.compat),
    counts_unreadable=True,
    agent_prompts=ACTION_PROMPTS,
    set_rounds=lambda config: config.interactcomp_mode == "answer_only",
    run_flags=("mode", "forced_asks", "actions"),
    check_config=check_config,
    reads_compat=True,
    roles=ROLES,
    audit=audit.AUDIT,
)
