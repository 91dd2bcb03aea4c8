"""Grouping and the `score --format json` object.

`score(store, runs=..., benchmark=..., by="run", judge=None)` returns
`{"groups": [{"key": {by: value}, "benchmark": B, "n_sessions": N, "metrics": {...}}]}`
with each protocol's metric names (its spec's `metric_inputs`); `score_groups` gives the
same report typed (metrics/model.py). `n_sessions` counts the sessions the metrics are
computed over; sessions left out (errored, abandoned, running, unjudged) are counted
inside `metrics`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, TypedDict, Unpack

from clarify_tui.errors import UsageError
from clarify_tui.metrics.comparability import comparability
from clarify_tui.metrics.epochs import epoch_metrics
from clarify_tui.metrics.model import Group, OwnMetrics, ProtocolMetrics, Scores
from clarify_tui.metrics.options import ScoreKeywords, ScoreOptions
from clarify_tui.metrics.records import ScoredSession, load_sessions
from clarify_tui.metrics.roles import split_by_role
from clarify_tui.protocols import registry


class ScoreGroup(TypedDict):
    """One group of `score --format json`: what it is grouped by (`{by: value}`; the value
    is None for automated sessions grouped by annotator; `"role"` joins it when that value's
    sessions mix roles, metrics/roles.py), its benchmark, the sessions the
    metrics are computed over, and the metrics by their names (a spec's `metric_inputs`; values are
    numbers, null, [lo, hi] intervals, or nested per-profile / per-turn objects)."""

    key: dict[str, Any]
    benchmark: str
    n_sessions: int
    comparable: bool  # False when a session deviates from the paper's protocol
    deviations: list[str]  # how (metrics/comparability.py)
    metrics: dict[str, Any]


class ScoreReport(TypedDict):
    """The `score --format json` object."""

    groups: list[ScoreGroup]


GROUP_BY = ("run", "agent", "mode", "annotator")


def group_sessions(
    sessions: Iterable[ScoredSession], by: str = "run"
) -> dict[tuple[str, Any, str | None], list[ScoredSession]]:
    """Sessions by (benchmark, value of `by`, role), in first-seen order. The role is None
    unless the sessions of one value have several roles (metrics/roles.py): a person's
    sessions, stepped ones and automated ones are then groups of their own, never one number."""
    if by not in GROUP_BY:
        raise UsageError(f"--by must be one of: {', '.join(GROUP_BY)}")
    by_value: dict[tuple[str, Any], list[ScoredSession]] = {}
    for s in sessions:
        by_value.setdefault((s.protocol, s.key(by)), []).append(s)
    return {
        (benchmark, value, role): part
        for (benchmark, value), members in by_value.items()
        for role, part in split_by_role(members).items()
    }


def group_key(by: str, value: Any, role: str | None) -> dict[str, Any]:
    """A group's `key`: `{by: value}`, with `"role"` only for a value whose sessions mix
    roles (so the json of a run that does not mix them is as it always was)."""
    return {by: value} if role is None else {by: value, "role": role}


def is_counted(s: ScoredSession) -> bool:
    """Whether a session enters this benchmark's metrics (completed, judged, with a verdict)."""
    return registry.get(s.protocol).counted(s)


def score_groups(sessions: Sequence[ScoredSession], by: str = "run", **options: Unpack[ScoreKeywords]) -> Scores:
    """The typed score report for already loaded sessions (`options`: metrics/options.py
    ScoreOptions, whose defaults they are; `executor`: see cts_metrics).
    `profile_subset`: "common" (the paper's Tables 3 and 5: the reached ambiguous
    checkpoints every DiscoBench group reached) or "all" (profiles.py).
    `profile_k`: None = the paper's K = 3; "data" = one data-driven K over every DiscoBench
    group scored here together; a number (profiles.choose_k). A task completed twice by one
    player of one run counts once (metrics/once.py)."""
    from clarify_tui.metrics.once import count_once

    sessions, _ = count_once(sessions)
    out: list[Group] = []
    grouped = group_sessions(sessions, by)
    chosen = ScoreOptions(**options)
    scored: dict[tuple[str, Any, str | None], ProtocolMetrics] = {}
    for name in dict.fromkeys(benchmark for benchmark, _, _ in grouped):  # each protocol scores its own groups
        if name not in registry.names():
            continue
        keys = [key for key in grouped if key[0] == name]
        every = [s for s in sessions if s.protocol == name]
        made = registry.get(name).score(every, [grouped[key] for key in keys], chosen)
        scored.update(zip(keys, (m if isinstance(m, ProtocolMetrics) else OwnMetrics.from_json(m) for m in made)))
    for (benchmark, value, role), members in grouped.items():
        if (metrics := scored.get((benchmark, value, role))) is None:
            continue
        if by == "annotator":  # a person's result with its uncertainty (metrics/intervals.py)
            from clarify_tui.metrics.intervals import group_intervals

            metrics.intervals.update(group_intervals(benchmark, members))
        metrics.epochs = epoch_metrics(benchmark, [s for s in members if is_counted(s)])
        active = [ms for s in members if is_counted(s) and (ms := s.result.active_ms) is not None]
        if active:  # human-agent sessions: the task clock's time, pauses excluded
            metrics.active_ms_mean = sum(active) / len(active)
        comparable = comparability(members)
        out.append(
            Group(
                key=group_key(by, value, role),
                benchmark=benchmark,
                n_sessions=sum(1 for s in members if is_counted(s)),
                comparable=comparable["comparable"],
                deviations=comparable["deviations"],
                metrics=metrics,
            )
        )
    order = {b: i for i, b in enumerate(registry.in_report_order())}
    out.sort(key=lambda g: order.get(g.benchmark, len(order)))  # stable: keeps group order
    return Scores(out)


def score_sessions(sessions: Sequence[ScoredSession], by: str = "run", **options: Unpack[ScoreKeywords]) -> ScoreReport:
    """`score_groups` as the JSON of `score --format json` (the options are its)."""
    return score_groups(sessions, by, **options).to_json()


def score(
    store: Any,
    runs: Iterable[str] | None = None,
    benchmark: str | None = None,
    by: str = "run",
    judge: str | None = None,
    **options: Unpack[ScoreKeywords],
) -> ScoreReport:
    """Load the selection from a Store (or its sqlite_utils Database) and score it."""
    return score_sessions(load_sessions(store, runs=runs, benchmark=benchmark, judge=judge), by, **options)


def flatten(metrics: dict, prefix: str = "") -> dict[str, Any]:
    """Nested metrics as dotted columns (csv): profiles.direct_ask.share, ci95 as .lo/.hi."""
    flat: dict[str, Any] = {}
    for name, value in metrics.items():
        key = f"{prefix}{name}"
        if isinstance(value, dict):
            flat.update(flatten(value, key + "."))
        elif isinstance(value, list):
            if name == "ci95" and len(value) == 2:
                flat[key + ".lo"], flat[key + ".hi"] = value
            elif all(isinstance(item, str) for item in value):  # unpriced_models
                flat[key] = ";".join(value)
            else:
                for item in value:
                    if isinstance(item, dict) and "turn" in item:
                        flat.update(flatten({k: v for k, v in item.items() if k != "turn"}, f"{key}.{item['turn']}."))
        else:
            flat[key] = value
    return flat


def format_metric(value: Any, kind: str, *, with_n: bool = True) -> str:
    """One metric as the score table prints it (`kind`: delta, hist, rate, score, num, money)."""
    if kind == "delta":
        if not value:
            return "-"
        lo, hi = value.get("ci95") or (None, None)
        ci = f" [{lo:+.2f}, {hi:+.2f}]" if lo is not None else ""
        n = f" (n={value['n_tasks']})" if with_n and "n_tasks" in value else ""
        return f"{value['mean']:+.2f}{ci}{n}"
    if kind == "ci":
        return "-" if not value else f"[{value[0]:.3f}, {value[1]:.3f}]"
    if kind == "hist":
        return " / ".join("-" if v is None else f"{v:.2f}" for v in (value or {}).values()) or "-"
    if value is None:
        return "unpriced" if kind == "money" else "-"  # a null cost: a model without a price, never $0
    if kind == "rate":
        return f"{value:.3f}"
    if kind == "score":
        return f"{value:.2f}"
    if kind == "num":
        return f"{value:.2f}"
    if kind == "money":
        return f"{value:.4f}"
    return str(value)
