"""The rows of the score tables, the same in `clarify-tui score` and the TUI's scores
screen: per benchmark (metric key, label, kind), then the rows every benchmark has.
`kind` tells `report.format_metric` how to print the value. Column titles
(`group_label`) and the DiscoBench profile cells are shared the same way."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # at run time this module imports nothing (the scores screen reads it)
    from clarify_tui.metrics.report import ScoreGroup

# (metric key, label, kind). kind: rate | num | int | money | score | delta | hist | ci
TABLE_ROWS: dict[str, list[tuple[str, str, str]]] = {
    "interactcomp": [
        ("accuracy", "accuracy", "rate"),
        ("accuracy_std", "  std over runs", "rate"),
        ("accuracy_all", "  errored as wrong", "rate"),
        ("invalid_skips", "  invalid skips (wrong)", "int"),
        ("rounds", "rounds (mean)", "num"),
        ("interaction_rate", "interaction rate", "rate"),
        ("interact_rounds", "asks per session", "num"),
        ("calibration_error", "calibration error", "rate"),
        ("calibration_missing", "  no confidence", "int"),
    ],
    "discobench": [
        ("accuracy", "accuracy", "rate"),
        ("checkpoint_pass_rate", "checkpoint pass rate", "rate"),
        ("detection_accuracy", "detection accuracy", "rate"),
        ("detection_precision", "detection precision", "rate"),
        ("detection_recall", "detection recall", "rate"),
        ("detection_f1", "detection F1", "rate"),
        ("ce_a", "CE-A", "rate"),
        ("ce_b", "CE-B", "rate"),
        ("ask_turns", "ask turns", "num"),
        ("tool_turns", "tool turns", "num"),
    ],
    "cts": [
        ("restore_score_mean", "restore score mean", "score"),
        ("restore_score_p50", "  p50", "score"),
        ("restore_score_p90", "  p90", "score"),
        ("restore_score_min", "  min", "score"),
        ("restore_score_max", "  max", "score"),
        ("delta_vs_orig", "Δ vs orig [95% CI]", "delta"),
        ("ua_unknown_rate", "UA unknown rate", "rate"),
        ("cq_region_rate", "region question rate", "rate"),
        ("region_only_unknown_rate", "region unknown rate", "rate"),
        ("all_unknown_rate", "all-unknown rate", "rate"),
        ("known_cnt", "known_cnt 0..k", "hist"),
    ],
}
CI_ROWS = {  # shown when the groups carry them (score --by annotator)
    "interactcomp": [("accuracy_ci95", "  95% CI (Wilson)", "ci")],
    "discobench": [("accuracy_ci95", "  95% CI (Wilson)", "ci")],
    "cts": [("restore_score_ci95", "  mean 95% CI (t)", "ci")],
}
COMMON_ROWS = [
    ("tokens_in", "tokens in, all roles", "int"),  # the papers count the model under test's: tokens_by_role
    ("tokens_out", "tokens out, all roles", "int"),
    ("agent_cost_usd", "agent cost (USD, as the papers)", "money"),
    ("cost_usd", "cost (USD), all roles", "money"),
    ("cost_usd_total", "  incl. excluded + re-judging", "money"),
    ("errored", "errored (excluded)", "int"),
    ("abandoned", "abandoned (excluded)", "int"),
]


def benchmark_rows(benchmark: str, groups: Sequence[ScoreGroup]) -> list[tuple[str, str, str]]:
    """TABLE_ROWS of the benchmark, with each confidence interval under its metric when the
    groups carry one."""
    rows = list(TABLE_ROWS[benchmark])
    for key, label, kind in CI_ROWS.get(benchmark, []):
        if any(key in g["metrics"] for g in groups):
            under = key.removesuffix("_ci95")
            at = next((i + 1 for i, row in enumerate(rows) if row[0] in (under, under + "_mean")), len(rows))
            rows.insert(at, (key, label, kind))
    return rows


def group_label(group: ScoreGroup) -> str:
    """A report group's column title: the value it is grouped by, and its role when that
    value's sessions mix roles (`tui · person as agent`; metrics/roles.py). Automated
    sessions have no annotator (JSON: null); a table says "(automated)", or "(no annotator)"
    beside a role."""
    from clarify_tui.metrics.roles import role_label

    role = group["key"].get("role")
    value = value_label(next(iter(group["key"].values())), role is not None)
    return value if role is None else f"{value} · {role_label(role)}"


def value_label(value: object, beside_role: bool = False) -> str:
    """A grouped-by value as the tables print it (None: sessions without an annotator)."""
    if value is None:
        return "(no annotator)" if beside_role else "(automated)"
    return str(value)


def profile_cell(p: dict) -> str:
    """One DiscoBench profile of a group: `share / pass rate (n=N)`, `-` where undefined."""
    share = "-" if p["share"] is None else f"{p['share']:.2f}"
    rate = "-" if p["pass_rate"] is None else f"{p['pass_rate']:.2f}"
    return f"{share} / {rate} (n={p['n']})"
