"""Clarify-Then-Search's tables in `clarify-tui report` (paper 001, Tables 2, 3 and 6), from the score groups
(metrics/paper_tables.py: the rows, footnotes and renderers every table shares)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from clarify_tui.metrics.model import metrics_as
from clarify_tui.metrics.options import ScoreOptions
from clarify_tui.metrics.paper_tables import NA, PaperTable, Row, make_row, num, row_label
from clarify_tui.metrics.records import ScoredSession
from clarify_tui.metrics.report import score_groups
from clarify_tui.protocols.cts.metric_model import CTSMetrics
from clarify_tui.protocols.cts.metrics import is_orig

ORIG = "orig"  # the baseline's row label (paper 001 Table 2)


def paper_tables(
    sessions: Sequence[ScoredSession], settings: dict[str, dict], by: str, options: ScoreOptions
) -> list[PaperTable]:
    """Table 2 (k = 1), Table 6 (k = 2, 3) and Table 3 (Δ with its CI). With --by agent the
    orig sessions make one `orig` row whatever agent ran them (the paper's baseline)."""
    bootstrap, seed = options.bootstrap, options.seed
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
        groups = score_groups(clarified.get(k, []) + origs, by=by, bootstrap=bootstrap, seed=seed).groups
        typed = [(g, metrics_as(g, CTSMetrics)) for g in groups]
        base = [(g, m) for g, m in typed if m.n_orig and not m.n_clarified]
        rest = [(g, m) for g, m in typed if not (m.n_orig and not m.n_clarified)]
        rows = []
        for g, m in base + rest:
            delta = m.delta_vs_orig
            in_rest = (g, m) in rest
            mean = num(m.restore_score_mean, 3)
            if in_rest and delta:
                mean += f" ({delta.mean:+.3f})"
            row = make_row(row_label(g), [mean, num(m.restore_score_p50, 3), num(m.restore_score_p90, 3)], g)
            rows.append(row)
            if in_rest:
                lo_hi = delta.ci95 if delta else None
                ci = f"[{lo_hi[0]:.3f}, {lo_hi[1]:.3f}]" if lo_hi else NA
                d_row = make_row(row_label(g), [f"{delta.mean:+.3f}" if delta else NA, ci], g)
                deltas.append((k, d_row))
        main[k] = rows
    tables = []
    if 1 in main:
        tables.append(
            PaperTable(
                key="cts-k1",
                caption="Clarify-Then-Search (paper 001, Table 2): restore_score_100 at k = 1; "
                "Δ = mean difference vs. orig",
                columns=["System", "mean (Δ)", "p50", "p90"],
                rows=main[1],
                whatif_digits=3,
                whatif_restore=True,
            )
        )
    multi = [k for k in budgets if k in (2, 3)]
    if multi:
        rows = []
        for k in multi:
            for row in main[k]:
                rows.append(dataclasses.replace(row, cells=[str(k), *row.cells], label=f"{row.label} (k = {k})"))
        tables.append(
            PaperTable(
                key="cts-k23",
                caption="Clarify-Then-Search (paper 001, Table 6): restore_score_100 at k = 2, 3; "
                "Δ = mean difference vs. orig",
                columns=["k", "System", "mean (Δ)", "p50", "p90"],
                rows=rows,
                label_at=1,
                whatif_digits=3,
                whatif_restore=True,
            )
        )
    if deltas:
        with_k = any(k != 1 for k, _ in deltas)
        rows = [
            dataclasses.replace(r, cells=[str(k), *r.cells], label=f"{r.label} (k = {k})") if with_k else r
            for k, r in deltas
        ]
        tables.append(
            PaperTable(
                key="cts-delta",
                caption=f"Clarify-Then-Search (paper 001, Table 3): mean improvement over orig with paired "
                f"bootstrap 95% CIs ({bootstrap} resamples, seed {seed})",
                columns=(["k"] if with_k else []) + ["System", "mean Δ vs. orig", "95% CI"],
                rows=rows,
                label_at=1 if with_k else 0,
            )
        )
    return tables
