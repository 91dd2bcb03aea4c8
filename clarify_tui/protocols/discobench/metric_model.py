"""DiscoBench's metrics for one group, typed (metrics.py says what each counts; paper 000,
appendix B; profiles, appendix E)."""

from __future__ import annotations

from dataclasses import dataclass

from clarify_tui.metrics.model import ProtocolMetrics, Record


@dataclass(kw_only=True)
class Detection(Record):
    """Pooled over reached checkpoints: ambiguous asked right (tp) or not (fn), unambiguous asked (fp) or not (tn)."""

    tp: int
    fn: int
    fp: int
    tn: int


@dataclass(kw_only=True)
class Profile(Record):
    """One behaviour profile: its share of the reached ambiguous checkpoints and their pass rate."""

    share: float | None
    pass_rate: float | None
    n: int


@dataclass(kw_only=True)
class AmbiguityRow(Record):
    """One ambiguity type (§5.3, Fig. 5)."""

    n: int
    detection_recall: float | None
    pass_rate: float | None


@dataclass(kw_only=True)
class DifficultyRow(Record):
    """One task difficulty (appendix D)."""

    n_sessions: int
    accuracy: float | None
    checkpoint_pass_rate: float | None


@dataclass(kw_only=True)
class DiscoBenchMetrics(ProtocolMetrics):
    """Fields in the order `score --format json` prints them."""

    accuracy: float | None
    checkpoint_pass_rate: float | None
    detection_accuracy: float | None
    detection_precision: float | None
    detection_recall: float | None
    detection_f1: float | None
    ce_a: float | None
    ce_b: float | None
    ask_turns: float | None
    tool_turns: float | None
    unreadable_verdicts: int
    detection: Detection
    profiles: dict[str, Profile]
    profile_subset: str  # "common" or "all"
    profile_n: int
    profile_k: float  # an int when given as one (the paper's 3): the JSON keeps it
    profile_k_source: str  # paper, data or override
    detection_excluded: int
    checkpoint_modes: dict[str, int]
    by_ambiguity_type: dict[str, AmbiguityRow]
    by_difficulty: dict[str, DifficultyRow]
