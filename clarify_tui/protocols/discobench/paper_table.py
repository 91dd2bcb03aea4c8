"""DiscoBench's table in `clarify-tui report` (paper 000, Table 2), from the score groups
(metrics/paper_tables.py: the rows, footnotes and renderers every table shares)."""

from __future__ import annotations

from collections.abc import Sequence

from clarify_tui.metrics.model import Group, metrics_as
from clarify_tui.metrics.options import ScoreOptions
from clarify_tui.metrics.paper_tables import NA, PaperTable, Row, make_row, num, partition_by_setting, pct, row_label
from clarify_tui.metrics.records import ScoredSession
from clarify_tui.metrics.report import score_groups
from clarify_tui.protocols.discobench.metric_model import DiscoBenchMetrics


def setting_words(config: dict) -> str:
    """Its ablation, unless none (Table 4 holds the ablations)."""
    ablation = config.get("ablation") or "none"
    return "" if ablation == "none" else f"ablation: {ablation}"


DISCO_HEADERS = ["Acc.", "CP", "Det.", "Det. F1", "CE-A", "CE-B", "Ask"]
PROMPTINGS = ("neutral", "guided")


def paper_tables(
    sessions: Sequence[ScoredSession], settings: dict[str, dict], by: str, options: ScoreOptions
) -> list[PaperTable]:
    """Neutral and Guided side by side, as the paper: one row per run (its prompting's half
    filled) or per agent (both halves when it ran under both)."""
    rows: dict[str, Row] = {}
    halves: dict[str, dict[str, Group]] = {}
    for setting, members in partition_by_setting(sessions, settings).items():
        for prompting in PROMPTINGS:
            part = [s for s in members if (settings.get(s.id, {}).get("prompting") or "neutral") == prompting]
            if not part:
                continue
            for g in score_groups(part, by=by, profile_k=options.profile_k).groups:
                label = row_label(g, setting)
                halves.setdefault(label, {})[prompting] = g
    for label, half in halves.items():
        cells: list[str] = []
        for prompting in PROMPTINGS:
            one = half.get(prompting)
            if one is None:
                cells += [NA] * len(DISCO_HEADERS)
                continue
            m = metrics_as(one, DiscoBenchMetrics)
            rates = (m.accuracy, m.checkpoint_pass_rate, m.detection_accuracy, m.detection_f1, m.ce_a, m.ce_b)
            cells += [pct(rate, 1) for rate in rates] + [num(m.ask_turns)]
        groups = list(half.values())
        row = make_row(label, cells, groups[0])
        for g in groups[1:]:  # an agent under both promptings: both halves' counts and costs
            other = make_row(label, [], g)
            row.scored += other.scored
            row.errored += other.errored
            row.excluded += other.excluded
            row.unreadable += other.unreadable
            row.comparable = row.comparable and other.comparable
            row.deviations += [d for d in other.deviations if d not in row.deviations]
            row.unpriced += [u for u in other.unpriced if u not in row.unpriced]
            row.agent_cost = _add_money(row.agent_cost, other.agent_cost)
            row.total_cost = _add_money(row.total_cost, other.total_cost)
        rows[label] = row
    n = len(DISCO_HEADERS)
    return [
        PaperTable(
            key="discobench",
            caption="DiscoBench (paper 000, Table 2): Acc. = end-to-end accuracy %; CP = checkpoint pass rate %; "
            "Det. = ambiguity detection accuracy %, Det. F1 %; CE-A, CE-B = clarification evaluation %; "
            "Ask = mean clarification turns",
            columns=["Model", *(f"{h}" for h in DISCO_HEADERS), *(f"{h}" for h in DISCO_HEADERS)],
            spans=[("Neutral", n), ("Guided", n)],
            rows=list(rows.values()),
            whatif_digits=1,
        )
    ]


def _add_money(a: str, b: str) -> str:
    if "unpriced" in (a, b):
        return "unpriced"
    if NA in (a, b):
        return a if b == NA else b
    return f"{float(a) + float(b):.2f}"
