"""The papers' main tables (`clarify-tui report`), built from the score groups.

Why a module of its own: `score` prints every metric we compute, in our units; a paper's
table is a fixed selection in the paper's units and order, so that a row of ours can be
pasted under the paper's rows. The numbers are the metrics module's (`score_sessions`),
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

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from clarify_tui.metrics.options import DEFAULT_BOOTSTRAP
from clarify_tui.protocols.cts.metrics import is_orig
from clarify_tui.metrics.records import ScoredSession
from clarify_tui.metrics.report import ScoreGroup, score_sessions
from clarify_tui.metrics.table_rows import group_label

NA = "–"  # the papers' empty cell
ORIG = "orig"  # the CTS baseline's row label (paper 001 Table 2)


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


def _row(label: str, cells: list[str], group: ScoreGroup) -> Row:
    m = group["metrics"]
    return Row(
        label=label, cells=[label, *cells], scored=group["n_sessions"], errored=int(m.get("errored") or 0),
        excluded=sum(int(m.get(k) or 0) for k in ("abandoned", "running", "unjudged")),
        unreadable=int(m.get("unreadable_verdicts") or 0),
        agent_cost=money(agent_cost(m)), total_cost=money(m.get("cost_usd")),
        agent_cost_usd=agent_cost(m), cost_usd=m.get("cost_usd"),
        comparable=bool(group.get("comparable", True)), deviations=list(group.get("deviations") or []),
        unpriced=list(m.get("unpriced_models") or []), key=dict(group["key"]),
    )


def _label(group: ScoreGroup, setting: str = "") -> str:
    label = group_label(group)  # with its role when the run mixes them (metrics/roles.py)
    return f"{label} ({setting})" if setting else label


# ---- which sessions make a row: the settings a paper table varies or holds fixed ----


def session_settings(conn: Any, sessions: Sequence[ScoredSession]) -> dict[str, dict]:
    """Each session's episode config (prompting, ablation, k, mode) as stored on it."""
    out: dict[str, dict] = {}
    ids = [s.id for s in sessions]
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        marks = ", ".join("?" for _ in chunk)
        for sid, config in conn.execute(f"SELECT id, config FROM sessions WHERE id IN ({marks})", chunk):
            out[sid] = json.loads(config or "{}")
    return out


def _setting(s: ScoredSession, config: dict) -> str:
    """What sets a session apart from the paper's main table, in words ("" = the main
    setting): InteractComp's mode (Table 2 is `full`), DiscoBench's ablation (Table 4)."""
    if s.protocol == "interactcomp":
        mode = config.get("interactcomp_mode") or "full"
        return "" if mode == "full" else mode
    if s.protocol == "discobench":
        ablation = config.get("ablation") or "none"
        return "" if ablation == "none" else f"ablation: {ablation}"
    return ""


def build_tables(
    sessions: Sequence[ScoredSession],
    settings: dict[str, dict],
    by: str = "run",
    bootstrap: int = DEFAULT_BOOTSTRAP,
    seed: int = 0,
    profile_k: float | None = None,
) -> list[PaperTable]:
    """Every paper table the selection has sessions for, in the order IC, DiscoBench, CTS."""
    if by not in ("run", "agent"):
        raise ValueError("--by must be run or agent")
    tables: list[PaperTable] = []
    ic = [s for s in sessions if s.protocol == "interactcomp"]
    if ic:
        tables.append(interactcomp_table(ic, settings, by))
    disco = [s for s in sessions if s.protocol == "discobench"]
    if disco:
        tables.append(discobench_table(disco, settings, by, profile_k))
    cts = [s for s in sessions if s.protocol == "cts"]
    if cts:
        tables += cts_tables(cts, settings, by, bootstrap, seed)
    for table in tables:
        add_footnotes(table)
    return tables


DAGGER = "†"


def add_footnotes(table: PaperTable) -> None:
    """What a paper table cannot show, under it: each row's sessions (scored, errored,
    excluded), the cost of every role beside the agent's, and † on every row whose numbers
    are not comparable with the paper's, with its deviations in words."""
    counts = "; ".join(f"{r.label} {r.scored} scored, {r.errored} errored, {r.excluded} excluded" for r in table.rows)
    table.notes.append(f"Sessions: {counts}. Errored (infrastructure failures) and excluded (abandoned, "
                       "interrupted, unjudged) sessions are in no number above.")
    if any(r.unreadable for r in table.rows):
        counts = "; ".join(f"{r.label} {r.unreadable}" for r in table.rows)
        table.notes.append(f"Unreadable grader replies (empty, a refusal, no yes or no), scored wrong as the paper "
                           f"reads them; so many of the wrong answers are the grader's: {counts}.")
    if table.key == "interactcomp":
        costs = "; ".join(f"{r.label} {r.total_cost}" for r in table.rows)
        table.notes.append(f"Cost($) prices the agent under test only, as the paper; all roles (agent, user "
                           f"simulator, judge): {costs}.")
    unpriced = sorted({m for r in table.rows for m in r.unpriced})
    if unpriced:
        table.notes.append(f"Unpriced (no price in clarify.toml [prices] or genai-prices; their cost is unknown, "
                           f"not $0): {', '.join(unpriced)}.")
    for r in table.rows:
        if r.comparable and not r.deviations:
            continue
        if not r.cells[table.label_at].endswith(DAGGER):
            r.cells[table.label_at] += f" {DAGGER}"
        why = "; ".join(r.deviations) or "a setting the paper did not use"
        note = f"{DAGGER} {r.label}: not comparable with the paper ({why})."
        if note not in table.notes:
            table.notes.append(note)


def _partition(sessions: Sequence[ScoredSession], settings: dict[str, dict]) -> dict[str, list[ScoredSession]]:
    parts: dict[str, list[ScoredSession]] = {}
    for s in sessions:
        parts.setdefault(_setting(s, settings.get(s.id, {})), []).append(s)
    return dict(sorted(parts.items(), key=lambda kv: kv[0] != ""))  # the main setting first


def interactcomp_table(sessions: Sequence[ScoredSession], settings: dict[str, dict], by: str) -> PaperTable:
    rows = []
    for setting, members in _partition(sessions, settings).items():
        for g in score_sessions(members, by=by)["groups"]:
            m = g["metrics"]
            acc = pct(m.get("accuracy"))
            if m.get("accuracy") is not None and m.get("accuracy_std") is not None:
                acc += f" (± {pct(m['accuracy_std'])})"
            cells = [num(m.get("rounds")), pct(m.get("interaction_rate")), acc, pct(m.get("calibration_error"))]
            row = _row(_label(g, setting), cells, g)
            row.cells.append(row.agent_cost)
            rows.append(row)
    return PaperTable(
        key="interactcomp",
        caption="InteractComp (paper 003, Table 2): Round = mean rounds; IR = % of rounds that interact; "
                "Acc. = accuracy % (± std over runs); C.E. = calibration error × 100 (5 bins); "
                "Cost($) = the agent under test",
        columns=["Model", "Round", "IR", "Acc.", "C.E.", "Cost($)"],
        spans=[("Interaction", 2), ("Performance", 2), ("Cost", 1)],
        rows=rows,
    )


DISCO_KEYS = ("accuracy", "checkpoint_pass_rate", "detection_accuracy", "detection_f1", "ce_a", "ce_b")
DISCO_HEADERS = ["Acc.", "CP", "Det.", "Det. F1", "CE-A", "CE-B", "Ask"]
PROMPTINGS = ("neutral", "guided")


def discobench_table(
    sessions: Sequence[ScoredSession], settings: dict[str, dict], by: str, profile_k: float | None = None
) -> PaperTable:
    """Neutral and Guided side by side, as the paper: one row per run (its prompting's half
    filled) or per agent (both halves when it ran under both)."""
    rows: dict[str, Row] = {}
    halves: dict[str, dict[str, ScoreGroup]] = {}
    for setting, members in _partition(sessions, settings).items():
        for prompting in PROMPTINGS:
            part = [s for s in members if (settings.get(s.id, {}).get("prompting") or "neutral") == prompting]
            if not part:
                continue
            for g in score_sessions(part, by=by, profile_k=profile_k)["groups"]:
                label = _label(g, setting)
                halves.setdefault(label, {})[prompting] = g
    for label, half in halves.items():
        cells: list[str] = []
        for prompting in PROMPTINGS:
            one = half.get(prompting)
            if one is None:
                cells += [NA] * len(DISCO_HEADERS)
                continue
            m = one["metrics"]
            cells += [pct(m.get(k), 1) for k in DISCO_KEYS] + [num(m.get("ask_turns"))]
        groups = list(half.values())
        row = _row(label, cells, groups[0])
        for g in groups[1:]:  # an agent under both promptings: both halves' counts and costs
            other = _row(label, [], g)
            row.scored += other.scored
            row.errored += other.errored
            row.excluded += other.excluded
            row.unreadable += other.unreadable
            row.comparable = row.comparable and other.comparable
            row.deviations += [d for d in other.deviations if d not in row.deviations]
            row.unpriced += [u for u in other.unpriced if u not in row.unpriced]
            row.agent_cost = _add_money(row.agent_cost, other.agent_cost)
            row.total_cost = _add_money(row.total_cost, other.total_cost)
        rows[label] = row
    n = len(DISCO_HEADERS)
    return PaperTable(
        key="discobench",
        caption="DiscoBench (paper 000, Table 2): Acc. = end-to-end accuracy %; CP = checkpoint pass rate %; "
                "Det. = ambiguity detection accuracy %, Det. F1 %; CE-A, CE-B = clarification evaluation %; "
                "Ask = mean clarification turns",
        columns=["Model", *(f"{h}" for h in DISCO_HEADERS), *(f"{h}" for h in DISCO_HEADERS)],
        spans=[("Neutral", n), ("Guided", n)],
        rows=list(rows.values()),
    )


def _add_money(a: str, b: str) -> str:
    if "unpriced" in (a, b):
        return "unpriced"
    if NA in (a, b):
        return a if b == NA else b
    return f"{float(a) + float(b):.2f}"


def cts_tables(
    sessions: Sequence[ScoredSession], settings: dict[str, dict], by: str, bootstrap: int, seed: int
) -> list[PaperTable]:
    """Table 2 (k = 1), Table 6 (k = 2, 3) and Table 3 (Δ with its CI). With --by agent the
    orig sessions make one `orig` row whatever agent ran them (the paper's baseline)."""
    origs = [s for s in sessions if is_orig(s)]
    if by == "agent":
        origs = [dataclasses.replace(s, agent=ORIG) for s in origs]
    clarified: dict[int, list[ScoredSession]] = {}
    for s in sessions:
        if not is_orig(s):
            clarified.setdefault(int(settings.get(s.id, {}).get("k") or 1), []).append(s)
    budgets = sorted(clarified) or [1]
    main: dict[int, list[Row]] = {}
    deltas: list[tuple[int, Row]] = []
    for k in budgets:
        groups = score_sessions(clarified.get(k, []) + origs, by=by, bootstrap=bootstrap, seed=seed)["groups"]
        base = [g for g in groups if g["metrics"].get("n_orig") and not g["metrics"].get("n_clarified")]
        rest = [g for g in groups if g not in base]
        rows = []
        for g in base + rest:
            m = g["metrics"]
            delta = m.get("delta_vs_orig") or None
            mean = num(m.get("restore_score_mean"), 3)
            if g in rest and delta:
                mean += f" ({delta['mean']:+.3f})"
            row = _row(_label(g), [mean, num(m.get("restore_score_p50"), 3), num(m.get("restore_score_p90"), 3)], g)
            rows.append(row)
            if g in rest:
                lo_hi = (delta or {}).get("ci95")
                ci = f"[{lo_hi[0]:.3f}, {lo_hi[1]:.3f}]" if lo_hi else NA
                d_row = _row(_label(g), [f"{delta['mean']:+.3f}" if delta else NA, ci], g)
                deltas.append((k, d_row))
        main[k] = rows
    tables = []
    if 1 in main:
        tables.append(PaperTable(
            key="cts-k1",
            caption="Clarify-Then-Search (paper 001, Table 2): restore_score_100 at k = 1; "
                    "Δ = mean difference vs. orig",
            columns=["System", "mean (Δ)", "p50", "p90"], rows=main[1],
        ))
    multi = [k for k in budgets if k in (2, 3)]
    if multi:
        rows = []
        for k in multi:
            for row in main[k]:
                rows.append(dataclasses.replace(row, cells=[str(k), *row.cells], label=f"{row.label} (k = {k})"))
        tables.append(PaperTable(
            key="cts-k23",
            caption="Clarify-Then-Search (paper 001, Table 6): restore_score_100 at k = 2, 3; "
                    "Δ = mean difference vs. orig",
            columns=["k", "System", "mean (Δ)", "p50", "p90"], rows=rows, label_at=1,
        ))
    if deltas:
        with_k = any(k != 1 for k, _ in deltas)
        rows = [dataclasses.replace(r, cells=[str(k), *r.cells], label=f"{r.label} (k = {k})") if with_k else r
                for k, r in deltas]
        tables.append(PaperTable(
            key="cts-delta",
            caption=f"Clarify-Then-Search (paper 001, Table 3): mean improvement over orig with paired "
                    f"bootstrap 95% CIs ({bootstrap} resamples, seed {seed})",
            columns=(["k"] if with_k else []) + ["System", "mean Δ vs. orig", "95% CI"], rows=rows,
            label_at=1 if with_k else 0,
        ))
    return tables
