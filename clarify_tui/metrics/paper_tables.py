"""The papers' main tables (`clarify-tui report`), built from the score groups.

Why a module of its own: `score` prints every metric we compute, in our units; a paper's
table is a fixed selection in the paper's units and order, so that a row of ours can be
pasted under the paper's rows. The numbers are the metrics module's (`score_groups`),
only rescaled and formatted here; nothing is recomputed.

The tables (the captions cite them, docs/scoring.md lists them):

- InteractComp, paper 003 Table 2 (003_e5fb3f1934434c15.txt lines 289-313): Model | Round | IR | Acc. | C.E. | Cost($);
  IR, Acc. (± std over runs) and C.E. (5 bins) in percent, as the paper prints them.
- DiscoBench, paper 000 Table 2 (line 137, metrics §5.1): Model | Neutral: Acc. CP Det.
  Det. F1 CE-A CE-B Ask | Guided: the same; rates in percent, Ask in turns.
- CTS, paper 001 Table 2 (line 251) for k = 1, Table 6 (line 316) for k = 2, 3: System |
  mean (Δ) | p50 | p90 of restore_score_100, and Table 3 (line 263): System | mean Δ vs.
  orig | 95% CI (paired bootstrap).

Each row also carries what the table cannot show: sessions scored, errored and excluded,
the whole cost of every role, and the group's comparability (`comparable`, `deviations`),
which the renderers print as footnotes (markdown, LaTeX) or extra columns (csv).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from clarify_tui.errors import UsageError
from clarify_tui.metrics.model import Group
from clarify_tui.metrics.options import DEFAULT_BOOTSTRAP, ScoreOptions
from clarify_tui.metrics.records import ScoredSession
from clarify_tui.metrics.report import ScoreGroup
from clarify_tui.metrics.table_rows import group_label
from clarify_tui.protocols import registry

NA = "–"  # the papers' empty cell


@dataclass
class Row:
    """One row: `cells` are every column's text, the label's included; `label` names the
    row in footnotes."""

    label: str
    cells: list[str]
    scored: int = 0
    errored: int = 0
    excluded: int = 0  # abandoned, interrupted (running) and unjudged sessions
    unreadable: int = 0  # grader replies that stated no verdict, scored wrong (the paper's reading)
    agent_cost: str = NA
    total_cost: str = NA
    agent_cost_usd: float | None = None  # the dollars behind agent_cost (None: unpriced), for csv
    cost_usd: float | None = None
    comparable: bool = True
    deviations: list[str] = field(default_factory=list)
    unpriced: list[str] = field(default_factory=list)
    key: dict[str, Any] = field(default_factory=dict)  # the score group's key ({"run": name} with --by run)


@dataclass
class PaperTable:
    """One paper table: `columns` (the first names the row label), `spans` (header groups
    over the columns after the first, as (title, width)), rows and footnotes."""

    key: str
    caption: str
    columns: list[str]
    rows: list[Row]
    spans: list[tuple[str, int]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    label_at: int = 0  # the column holding the row label (1 when a `k` column comes first)
    prefixed: set[str] = field(default_factory=set)  # spans whose name always goes in front of their titles
    agent_cost_only: bool = False  # a Cost($) column of the agent under test (a footnote gives every role's)
    # `report --whatif`: None = no what-if columns (its rows are no runs); else the digits
    # of its Δ (as the table's own numbers), in restore score (True) or accuracy points
    whatif_digits: int | None = None
    whatif_restore: bool = False


def pct(value: float | None, digits: int = 2) -> str:
    return NA if value is None else f"{value * 100:.{digits}f}"


def num(value: float | None, digits: int = 2) -> str:
    return NA if value is None else f"{value:.{digits}f}"


def money(value: float | None) -> str:
    """Dollars as the InteractComp table prints them; None (a model without a price) is
    "unpriced", never $0."""
    return "unpriced" if value is None else f"{value:.2f}"


def agent_cost(metrics: dict) -> float | None:
    """The model under test's cost (what the papers price): `agent_cost_usd` when the
    group carries it (null = unpriced), else the agent role's share of `cost_usd`."""
    if "agent_cost_usd" in metrics:
        return metrics["agent_cost_usd"]
    role = (metrics.get("tokens_by_role") or {}).get("agent") or {}
    cost = role.get("cost_usd", 0.0)  # null: unpriced, never $0
    return None if cost is None else float(cost)


def make_row(label: str, cells: list[str], group: Group | ScoreGroup) -> Row:
    """A table row with the group's counts and costs."""
    if not isinstance(group, Group):
        return json_row(label, cells, group)
    g = group
    m = g.metrics
    x = m.excluded
    return Row(
        label=label,
        cells=[label, *cells],
        scored=g.n_sessions,
        errored=x.errored,
        excluded=x.abandoned + x.running + x.unjudged,
        unreadable=int(m.value("unreadable_verdicts") or 0),  # the protocols whose grader can fail to say
        agent_cost=money(m.usage.agent_cost_usd),
        total_cost=money(m.usage.cost_usd),
        agent_cost_usd=m.usage.agent_cost_usd,
        cost_usd=m.usage.cost_usd,
        comparable=g.comparable,
        deviations=list(g.deviations),
        unpriced=list(m.usage.unpriced_models),
        key=dict(g.key),
    )


def json_row(label: str, cells: list[str], group: ScoreGroup) -> Row:
    """`make_row` from a group's JSON (`score_sessions`): what a plug-in's table may hold.
    Read leniently, as before metrics were typed: a missing count is 0, a missing cost unpriced."""
    m = group["metrics"]
    return Row(
        label=label,
        cells=[label, *cells],
        scored=group["n_sessions"],
        errored=int(m.get("errored") or 0),
        excluded=sum(int(m.get(k) or 0) for k in ("abandoned", "running", "unjudged")),
        unreadable=int(m.get("unreadable_verdicts") or 0),
        agent_cost=money(agent_cost(m)),
        total_cost=money(m.get("cost_usd")),
        agent_cost_usd=agent_cost(m),
        cost_usd=m.get("cost_usd"),
        comparable=bool(group.get("comparable", True)),
        deviations=list(group.get("deviations") or []),
        unpriced=list(m.get("unpriced_models") or []),
        key=dict(group["key"]),
    )


def row_label(group: Group | ScoreGroup, setting: str = "") -> str:
    label = group_label(group)  # with its role when the run mixes them (metrics/roles.py)
    return f"{label} ({setting})" if setting else label


# ---- which sessions make a row: the settings a paper table varies or holds fixed ----


def session_settings(conn: Any, sessions: Sequence[ScoredSession]) -> dict[str, dict]:
    """Each session's episode config (prompting, ablation, k, mode) as stored on it."""
    from clarify_tui.store.scoring import session_configs

    return {sid: json.loads(config or "{}") for sid, config in session_configs(conn, [s.id for s in sessions]).items()}


def _setting(s: ScoredSession, config: dict) -> str:
    """What sets a session apart from its paper's main table, in words ("" = the main
    setting): its protocol's `setting_words` (InteractComp's mode, DiscoBench's ablation)."""
    return registry.get(s.protocol).setting_words(config)


def build_tables(
    sessions: Sequence[ScoredSession],
    settings: dict[str, dict],
    by: str = "run",
    bootstrap: int = DEFAULT_BOOTSTRAP,
    seed: int = 0,
    profile_k: float | None = None,
) -> list[PaperTable]:
    """Every paper table the selection has sessions for, in the papers' order (IC, DiscoBench, CTS)."""
    if by not in ("run", "agent"):
        raise UsageError("--by must be run or agent")
    tables: list[PaperTable] = []
    by_protocol: dict[str, list[ScoredSession]] = {}
    for s in sessions:
        by_protocol.setdefault(s.protocol, []).append(s)
    options = ScoreOptions(profile_k=profile_k, bootstrap=bootstrap, seed=seed)
    for name in registry.in_report_order():  # each protocol's own tables (its spec's `paper_tables`)
        if (members := by_protocol.get(name)) and (build := registry.get(name).paper_tables) is not None:
            tables += build(members, settings, by, options)
    for table in tables:
        add_footnotes(table)
    return tables


DAGGER = "†"


def add_footnotes(table: PaperTable) -> None:
    """What a paper table cannot show, under it: each row's sessions (scored, errored,
    excluded), the cost of every role beside the agent's, and † on every row whose numbers
    are not comparable with the paper's, with its deviations in words."""
    counts = "; ".join(f"{r.label} {r.scored} scored, {r.errored} errored, {r.excluded} excluded" for r in table.rows)
    table.notes.append(
        f"Sessions: {counts}. Errored (infrastructure failures) and excluded (abandoned, "
        "interrupted, unjudged) sessions are in no number above."
    )
    if any(r.unreadable for r in table.rows):
        counts = "; ".join(f"{r.label} {r.unreadable}" for r in table.rows)
        table.notes.append(
            f"Unreadable grader replies (empty, a refusal, no yes or no), scored wrong as the paper "
            f"reads them; so many of the wrong answers are the grader's: {counts}."
        )
    if table.agent_cost_only:
        costs = "; ".join(f"{r.label} {r.total_cost}" for r in table.rows)
        table.notes.append(
            f"Cost($) prices the agent under test only, as the paper; all roles (agent, user "
            f"simulator, judge): {costs}."
        )
    unpriced = sorted({m for r in table.rows for m in r.unpriced})
    if unpriced:
        table.notes.append(
            f"Unpriced (no price in clarify.toml [prices] or genai-prices; their cost is unknown, "
            f"not $0): {', '.join(unpriced)}."
        )
    for r in table.rows:
        if r.comparable and not r.deviations:
            continue
        if not r.cells[table.label_at].endswith(DAGGER):
            r.cells[table.label_at] += f" {DAGGER}"
        why = "; ".join(r.deviations) or "a setting the paper did not use"
        note = f"{DAGGER} {r.label}: not comparable with the paper ({why})."
        if note not in table.notes:
            table.notes.append(note)


def partition_by_setting(
    sessions: Sequence[ScoredSession], settings: dict[str, dict]
) -> dict[str, list[ScoredSession]]:
    parts: dict[str, list[ScoredSession]] = {}
    for s in sessions:
        parts.setdefault(_setting(s, settings.get(s.id, {})), []).append(s)
    return dict(sorted(parts.items(), key=lambda kv: kv[0] != ""))  # the main setting first
