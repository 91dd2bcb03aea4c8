"""InteractComp's table in `clarify-tui report` (paper 003, Table 2), from the score groups
(metrics/paper_tables.py: the rows, footnotes and renderers every table shares)."""

from __future__ import annotations

from collections.abc import Sequence

from clarify_tui.metrics.model import metrics_as
from clarify_tui.metrics.options import ScoreOptions
from clarify_tui.metrics.paper_tables import PaperTable, make_row, num, partition_by_setting, pct, row_label
from clarify_tui.metrics.records import ScoredSession
from clarify_tui.metrics.report import score_groups
from clarify_tui.protocols.interactcomp.metric_model import InteractCompMetrics


def setting_words(config: dict) -> str:
    """Its mode, unless `full` (Table 2's)."""
    mode = config.get("interactcomp_mode") or "full"
    return "" if mode == "full" else mode


def paper_tables(
    sessions: Sequence[ScoredSession], settings: dict[str, dict], by: str, options: ScoreOptions
) -> list[PaperTable]:
    """Paper 003 Table 2: one row per group, each mode other than `full` apart."""
    rows = []
    for setting, members in partition_by_setting(sessions, settings).items():
        for g in score_groups(members, by=by).groups:
            m = metrics_as(g, InteractCompMetrics)
            acc = pct(m.accuracy)
            if m.accuracy is not None and m.accuracy_std is not None:
                acc += f" (± {pct(m.accuracy_std)})"
            cells = [num(m.rounds), pct(m.interaction_rate), acc, pct(m.calibration_error)]
            row = make_row(row_label(g, setting), cells, g)
            row.cells.append(row.agent_cost)
            rows.append(row)
    return [
        PaperTable(
            key="interactcomp",
            caption="InteractComp (paper 003, Table 2): Round = mean rounds; IR = % of rounds that interact; "
            "Acc. = accuracy % (± std over runs); C.E. = calibration error × 100 (5 bins); "
            "Cost($) = the agent under test",
            columns=["Model", "Round", "IR", "Acc.", "C.E.", "Cost($)"],
            spans=[("Interaction", 2), ("Performance", 2), ("Cost", 1)],
            rows=rows,
            agent_cost_only=True,
            whatif_digits=2,
        )
    ]
