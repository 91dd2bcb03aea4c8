"""Typed metrics: what a protocol's scorer returns for one group, and the groups of a report.

As Inspect's `EvalMetric`/`EvalScore`: the score table, the scores screen (F3), `report` and
the exporters read attributes that mypy checks, not `dict[str, Any]`. A protocol's model
(`protocols/<name>/metric_model.py`) subclasses `ProtocolMetrics` and declares its own
numbers as fields, in the order `score --format json` prints them; every protocol carries
the same usage, exclusions and the report's additions (intervals, epochs, active time).
`to_json()` gives exactly the JSON of `score --format json`, key order included.

A plug-in protocol may keep returning plain dicts from its scorer: `OwnMetrics.from_json`
keeps its own numbers in order, untyped, with the usage and exclusions every protocol has.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

if TYPE_CHECKING:
    from clarify_tui.metrics.report import ScoreGroup, ScoreReport


def plain(value: Any) -> Any:
    """A metric value as JSON data: a model's `to_json()`, containers item by item (order kept)."""
    if isinstance(value, Record):
        return value.to_json()
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


class Record:
    """A dataclass whose JSON is its fields in declaration order."""

    def to_json(self) -> dict[str, Any]:
        return {f.name: plain(getattr(self, f.name)) for f in fields(self)}  # type: ignore[arg-type]


@dataclass(kw_only=True)
class RoleTokens(Record):
    """One role's usage (agent, user, judge...); a null cost: an unpriced model, never $0."""

    tokens_in: int
    tokens_out: int
    cost_usd: float | None


@dataclass(kw_only=True)
class Usage(Record):
    """What the scored sessions spent (metrics/common.py `usage_totals` says how it is counted)."""

    tokens_in: int
    tokens_out: int
    cost_usd: float | None
    agent_cost_usd: float | None
    unpriced_models: list[str]
    tokens_by_role: dict[str, RoleTokens]
    tokens_in_total: int
    tokens_out_total: int
    cost_usd_total: float | None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Usage:
        roles = {role: RoleTokens(**u) for role, u in data["tokens_by_role"].items()}
        return cls(**{**{name: data[name] for name in USAGE_KEYS}, "tokens_by_role": roles})


@dataclass(kw_only=True)
class Exclusions(Record):
    """Sessions left out of every metric, each status apart (metrics/common.py)."""

    errored: int
    abandoned: int
    running: int
    unjudged: int


USAGE_KEYS = tuple(f.name for f in fields(Usage))
EXCLUSION_KEYS = tuple(f.name for f in fields(Exclusions))


@dataclass(kw_only=True)
class Epochs(Record):
    """Scores over `run --epochs N` (metrics/epochs.py); `pass_k` only for right/wrong answers."""

    n_epochs: int
    mean: float
    std: float
    per_epoch: dict[str, float]
    pass_k: dict[str, float | None] | None = None

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        if self.pass_k is None:
            del out["pass_k"]
        return out


_NAMES: dict[type, frozenset[str]] = {}


def _names(model: type) -> frozenset[str]:
    """A model's own JSON names: its fields, less the ones every protocol carries (kept per class)."""
    if model not in _NAMES:
        _NAMES[model] = frozenset(f.name for f in fields(model)) - set(BASE_FIELDS)
    return _NAMES[model]


# Fields every protocol's metrics carry, printed after its own numbers in this order.
BASE_FIELDS = ("usage", "excluded", "intervals", "epochs", "active_ms_mean")


@dataclass(kw_only=True)
class ProtocolMetrics(Record):
    """One group's metrics. Subclasses declare the protocol's own numbers (DESIGN.md names)."""

    usage: Usage
    excluded: Exclusions
    # `score --by annotator`: the protocol's intervals (its spec's `intervals`), e.g. accuracy_ci95
    intervals: dict[str, list[float] | None] = field(default_factory=dict)
    epochs: Epochs | None = None
    active_ms_mean: float | None = None  # person-as-agent sessions: the task clock, pauses excluded
    fields_are_numbers: ClassVar[bool] = True  # its own fields are its metrics (OwnMetrics: a dict of them)

    def own(self) -> dict[str, Any]:
        """The protocol's own numbers as JSON, in order."""
        return {f.name: plain(getattr(self, f.name)) for f in fields(self) if f.name not in BASE_FIELDS}

    def to_json(self) -> dict[str, Any]:
        """The `metrics` object of `score --format json`, key order included."""
        out = self.own()
        out.update(self.usage.to_json())
        out.update(self.excluded.to_json())
        out.update(self.intervals)
        if self.epochs is not None:
            out["epochs"] = self.epochs.to_json()
        if self.active_ms_mean is not None:
            out["active_ms_mean"] = self.active_ms_mean
        return out

    def value(self, name: str) -> Any:
        """A metric by its JSON name (None when the group has none): the score tables' rows are
        data, a spec's `table_rows`. Looked up where `to_json` would take it from, last writer first."""
        if name in self.intervals:
            return self.intervals[name]
        for part in (self.excluded, self.usage, self) if self.fields_are_numbers else (self.excluded, self.usage):
            if name in _names(type(part)):
                return plain(getattr(part, name))
        return self.to_json().get(name)  # a plug-in's own number, epochs, active_ms_mean

    def has(self, name: str) -> bool:
        return name in self.intervals or name in self.to_json()

    def numbers(self) -> dict[str, int | float]:
        """The top-level numbers (Inspect's EvalMetric values), pass^k included."""
        out = {k: v for k, v in self.to_json().items() if isinstance(v, int | float) and not isinstance(v, bool)}
        for k, v in ((self.epochs.pass_k or {}) if self.epochs else {}).items():
            if v is not None:
                out[f"pass^{k}"] = v
        return out


M = TypeVar("M", bound=ProtocolMetrics)


@dataclass(kw_only=True)
class OwnMetrics(ProtocolMetrics):
    """A plug-in's metrics given as a dict: its own numbers kept as given (not typed here)."""

    values: dict[str, Any] = field(default_factory=dict)
    fields_are_numbers: ClassVar[bool] = False

    def own(self) -> dict[str, Any]:
        return dict(self.values)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> OwnMetrics:
        """Split a metrics dict into its own numbers and what every protocol carries (a
        scorer adds `usage_totals` and `exclusion_counts`, docs/protocols.md)."""
        missing = [k for k in USAGE_KEYS + EXCLUSION_KEYS if k not in data]
        if missing:
            raise ValueError(
                f"a protocol's metrics lack {', '.join(missing)}: add metrics.common's usage_totals(...) "
                "and exclusion_counts(...) to each group's metrics"
            )
        epochs = data.get("epochs")
        return cls(
            usage=Usage.from_json(data),
            excluded=Exclusions(**{k: data[k] for k in EXCLUSION_KEYS}),
            epochs=None if epochs is None else Epochs(**epochs),
            active_ms_mean=data.get("active_ms_mean"),
            values={
                k: v for k, v in data.items() if k not in USAGE_KEYS + EXCLUSION_KEYS + ("epochs", "active_ms_mean")
            },
        )


def metrics_as(group: Group, model: type[M]) -> M:
    """A group's metrics as its protocol's model (a protocol's own table reads its own numbers)."""
    if not isinstance(group.metrics, model):
        raise TypeError(f"{group.benchmark} metrics are {type(group.metrics).__name__}, not {model.__name__}")
    return group.metrics


@dataclass(kw_only=True)
class Group:
    """One group of `score`: its key (`{by: value}`, with `"role"` when its value's sessions
    mix roles), benchmark, the sessions its metrics count, comparability and metrics."""

    key: dict[str, Any]
    benchmark: str
    n_sessions: int
    comparable: bool
    deviations: list[str]
    metrics: ProtocolMetrics

    @property
    def role(self) -> str | None:
        return self.key.get("role")

    def to_json(self) -> ScoreGroup:
        return {
            "key": self.key,
            "benchmark": self.benchmark,
            "n_sessions": self.n_sessions,
            "comparable": self.comparable,
            "deviations": self.deviations,
            "metrics": self.metrics.to_json(),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Group:
        """A group of `score --format json` (a plug-in's paper table may hold one)."""
        return cls(
            key=dict(data["key"]),
            benchmark=data["benchmark"],
            n_sessions=data["n_sessions"],
            comparable=bool(data.get("comparable", True)),
            deviations=list(data.get("deviations") or []),
            metrics=OwnMetrics.from_json(data["metrics"]),
        )


@dataclass
class Scores:
    """The score report, typed: `to_json()` is what `score --format json` prints."""

    groups: list[Group]

    def to_json(self) -> ScoreReport:
        return {"groups": [g.to_json() for g in self.groups]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Scores:
        """A report read back from `score --format json` (its metrics untyped: `OwnMetrics`)."""
        return cls([Group.from_json(g) for g in data["groups"]])
