"""DiscoBench's rows in the score tables (`clarify-tui score`, the TUI's scores screen) and
which judgment each metric reads (exports' score_inputs). Imports nothing: the scores
screen reads it."""

from __future__ import annotations

ANSWER_KIND, NUGGETS_KIND = "answer", "nuggets"  # the judgment kinds (metrics/records.py)
ENGINE = "engine"  # a result field no judgment replaces

# (metric key, label, kind); kind tells report.format_metric how to print the value
ROWS: tuple[tuple[str, str, str], ...] = (
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
)
# shown under their metric when the groups carry them (score --by annotator)
CI_ROWS: tuple[tuple[str, str, str], ...] = (("accuracy_ci95", "  95% CI (Wilson)", "ci"),)
# metric -> the judgment kind whose verdict it reads
METRIC_INPUTS: dict[str, str] = {
    **dict.fromkeys(
        (
            "accuracy",
            "checkpoint_pass_rate",
            "detection_accuracy",
            "detection_precision",
            "detection_recall",
            "detection_f1",
            "ce_a",
            "ce_b",
            "profiles",
            "by_ambiguity_type",
            "by_difficulty",
        ),
        ANSWER_KIND,
    ),
    "ask_turns": ENGINE,
    "tool_turns": ENGINE,
}
# the wide table's columns (score, more groups than fit): metric -> short header
SUMMARY_COLUMNS: dict[str, str] = {
    "accuracy": "acc",
    "accuracy_ci95": "acc 95% CI",
    "checkpoint_pass_rate": "CP",
    "detection_accuracy": "det acc",
    "detection_f1": "det F1",
    "ce_a": "CE-A",
    "ce_b": "CE-B",
    "ask_turns": "asks",
    "tool_turns": "tools",
}
