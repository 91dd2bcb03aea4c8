"""InteractComp's rows in the score tables (`clarify-tui score`, the TUI's scores screen) and
which judgment each metric reads (exports' score_inputs). Imports nothing: the scores
screen reads it."""

from __future__ import annotations

ANSWER_KIND, NUGGETS_KIND = "answer", "nuggets"  # the judgment kinds (metrics/records.py)
ENGINE = "engine"  # a result field no judgment replaces

# (metric key, label, kind); kind tells report.format_metric how to print the value
ROWS: tuple[tuple[str, str, str], ...] = (
    ("accuracy", "accuracy", "rate"),
    ("accuracy_std", "  std over runs", "rate"),
    ("accuracy_all", "  errored as wrong", "rate"),
    ("invalid_skips", "  invalid skips (wrong)", "int"),
    ("rounds", "rounds (mean)", "num"),
    ("interaction_rate", "interaction rate", "rate"),
    ("interact_rounds", "asks per session", "num"),
    ("calibration_error", "calibration error", "rate"),
    ("calibration_missing", "  no confidence", "int"),
)
# shown under their metric when the groups carry them (score --by annotator)
CI_ROWS: tuple[tuple[str, str, str], ...] = (("accuracy_ci95", "  95% CI (Wilson)", "ci"),)
# metric -> the judgment kind whose verdict it reads
METRIC_INPUTS: dict[str, str] = {
    "accuracy": ANSWER_KIND,
    "accuracy_std": ANSWER_KIND,
    "calibration_error": ANSWER_KIND,
    "rounds": ENGINE,
    "interaction_rate": ENGINE,
    "interact_rounds": ENGINE,
}
# the wide table's columns (score, more groups than fit): metric -> short header
SUMMARY_COLUMNS: dict[str, str] = {
    "accuracy": "acc",
    "accuracy_ci95": "acc 95% CI",
    "rounds": "rounds",
    "interaction_rate": "IR",
    "calibration_error": "CE",
}
