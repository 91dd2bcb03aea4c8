"""Riddle as clarify-tui's registry knows it: the entry point `clarify_tui.protocols: riddle`."""

from __future__ import annotations

from collections.abc import Sequence
from importlib.resources import files
from pathlib import Path
from typing import Any

from clarify_riddle.rules import RiddleResult, RiddleRules, RiddleState
from clarify_tui.deviations import PaperSetting
from clarify_tui.metrics.common import exclusion_counts, mean, ratio, usage_totals
from clarify_tui.metrics.options import ScoreOptions
from clarify_tui.metrics.paper_tables import PaperTable, make_row, pct, row_label
from clarify_tui.metrics.records import ScoredSession
from clarify_tui.metrics.report import score_sessions
from clarify_tui.models import Session
from clarify_tui.protocols.base import ProtocolSpec


def metrics(sessions: Sequence[ScoredSession]) -> dict[str, Any]:
    """accuracy over the judged sessions, how often the agent asked for the hint, and what
    every protocol reports beside its own metrics (usage, sessions left out)."""
    judged = [s for s in sessions if s.scorable and s.result.correct is not None]
    asked = sum(1 for s in judged if isinstance(s.result, RiddleResult) and s.result.asks)
    return {
        "accuracy": mean([bool(s.result.correct) for s in judged]),
        "ask_rate": ratio(asked, len(judged)),
        **usage_totals(judged, sessions),
        **exclusion_counts(sessions),
    }


def score(
    every: Sequence[ScoredSession], groups: Sequence[Sequence[ScoredSession]], options: ScoreOptions
) -> list[dict[str, Any]]:
    return [metrics(members) for members in groups]


def paper_tables(
    sessions: Sequence[ScoredSession], settings: dict[str, dict], by: str, options: ScoreOptions
) -> list[PaperTable]:
    """`report`'s table: one row per run (or agent), accuracy and ask rate in percent."""
    rows = [
        make_row(row_label(g), [pct(g["metrics"].get("accuracy"), 1), pct(g["metrics"].get("ask_rate"), 1)], g)
        for g in score_sessions(sessions, by=by)["groups"]
    ]
    return [
        PaperTable(
            key="riddle",
            caption="Riddle: accuracy and ask rate (%)",
            columns=["Run" if by == "run" else "Agent", "Acc.", "Ask rate"],
            rows=rows,
        )
    ]


def run_line(done: Sequence[Session], errored: Sequence[Session]) -> str:
    correct = sum(1 for s in done if s.result.correct)
    return f"; accuracy {correct / len(done):.2f} ({correct}/{len(done)})"


def demo_tasks() -> Path:
    return Path(str(files("clarify_riddle") / "tasks.jsonl"))


SPEC = ProtocolSpec(
    name="riddle",
    title="Riddle",
    rules=RiddleRules,
    result=RiddleResult,
    state=RiddleState,
    score=score,
    report_rank=4,
    run_line=run_line,
    table_rows=(("accuracy", "accuracy", "rate"), ("ask_rate", "ask rate", "rate")),
    ci_rows=(),
    metric_inputs={"accuracy": "answer", "ask_rate": "engine"},
    summary_columns={"accuracy": "acc", "ask_rate": "ask"},
    paper=PaperSetting(user="rule", judge="rule", search=(None, "any"), rounds=(5, "riddle's own default")),
    deviations=(),
    paper_tables=paper_tables,
    demo_tasks=demo_tasks,
)
