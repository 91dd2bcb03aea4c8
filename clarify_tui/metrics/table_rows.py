"""The rows of the score tables, the same in `clarify-tui score` and the TUI's scores
screen: per benchmark (metric key, label, kind: its spec's), then the rows every benchmark has.
`kind` tells `report.format_metric` how to print the value. Column titles
(`group_label`) and the DiscoBench profile cells are shared the same way."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # at run time this module imports nothing (the scores screen reads it)
    from clarify_tui.metrics.model import Group
    from clarify_tui.metrics.report import ScoreGroup

# The rows every benchmark has, under its own (its spec's `table_rows`: protocols/<name>/table.py).
COMMON_ROWS = [
    ("tokens_in", "tokens in, all roles", "int"),  # the papers count the model under test's: tokens_by_role
    ("tokens_out", "tokens out, all roles", "int"),
    ("agent_cost_usd", "agent cost (USD, as the papers)", "money"),
    ("cost_usd", "cost (USD), all roles", "money"),
    ("cost_usd_total", "  incl. excluded + re-judging", "money"),
    ("errored", "errored (excluded)", "int"),
    ("abandoned", "abandoned (excluded)", "int"),
]


def benchmark_rows(benchmark: str, groups: Sequence[Group]) -> list[tuple[str, str, str]]:
    """The benchmark's rows (its spec's), with each confidence interval under its metric
    when the groups carry one."""
    from clarify_tui.protocols import registry

    spec = registry.get(benchmark)
    rows = list(spec.table_rows)
    for key, label, kind in spec.ci_rows:
        if any(g.metrics.has(key) for g in groups):
            under = key.removesuffix("_ci95")
            at = next((i + 1 for i, row in enumerate(rows) if row[0] in (under, under + "_mean")), len(rows))
            rows.insert(at, (key, label, kind))
    return rows


def group_label(group: Group | ScoreGroup) -> str:
    """A report group's column title: the value it is grouped by, and its role when that
    value's sessions mix roles (`tui · person as agent`; metrics/roles.py). Automated
    sessions have no annotator (JSON: null); a table says "(automated)", or "(no annotator)"
    beside a role."""
    from clarify_tui.metrics.roles import role_label

    key = group["key"] if isinstance(group, dict) else group.key  # a plug-in's table may hold the JSON
    role = key.get("role")
    value = value_label(next(iter(key.values())), role is not None)
    return value if role is None else f"{value} · {role_label(role)}"


def value_label(value: object, beside_role: bool = False) -> str:
    """A grouped-by value as the tables print it (None: sessions without an annotator)."""
    if value is None:
        return "(no annotator)" if beside_role else "(automated)"
    return str(value)


class Profile(Protocol):
    """A DiscoBench profile as the cells read it (protocols/discobench/metric_model.py's
    `Profile`; named by shape so this shared module reaches no protocol's folder)."""

    @property
    def share(self) -> float | None: ...
    @property
    def pass_rate(self) -> float | None: ...
    @property
    def n(self) -> int: ...


def profile_cell(p: Profile) -> str:
    """One DiscoBench profile of a group: `share / pass rate (n=N)`, `-` where undefined."""
    share = "-" if p.share is None else f"{p.share:.2f}"
    rate = "-" if p.pass_rate is None else f"{p.pass_rate:.2f}"
    return f"{share} / {rate} (n={p.n})"
