"""CTS's rows in the score tables (`clarify-tui score`, the TUI's scores screen) and
which judgment each metric reads (exports' score_inputs). Imports nothing: the scores
screen reads it."""

from __future__ import annotations

ANSWER_KIND, NUGGETS_KIND = "answer", "nuggets"  # the judgment kinds (metrics/records.py)
ENGINE = "engine"  # a result field no judgment replaces

# (metric key, label, kind); kind tells report.format_metric how to print the value
ROWS: tuple[tuple[str, str, str], ...] = (
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
)
# shown under their metric when the groups carry them (score --by annotator)
CI_ROWS: tuple[tuple[str, str, str], ...] = (("restore_score_ci95", "  mean 95% CI (t)", "ci"),)
# metric -> the judgment kind whose verdict it reads
METRIC_INPUTS: dict[str, str] = {
    **dict.fromkeys(
        (
            "restore_score_mean",
            "restore_score_p50",
            "restore_score_p90",
            "restore_score_min",
            "restore_score_max",
            "delta_vs_orig",
        ),
        NUGGETS_KIND,
    ),
    **dict.fromkeys(
        ("ua_unknown_rate", "cq_region_rate", "region_only_unknown_rate", "all_unknown_rate", "known_cnt", "per_turn"),
        ENGINE,
    ),
}
# the wide table's columns (score, more groups than fit): metric -> short header
SUMMARY_COLUMNS: dict[str, str] = {
    "restore_score_mean": "mean",
    "restore_score_ci95": "mean 95% CI",
    "restore_score_p50": "p50",
    "restore_score_p90": "p90",
    "delta_vs_orig": "Δ vs orig [95% CI]",
    "ua_unknown_rate": "unknown",
    "all_unknown_rate": "all unk",
}
