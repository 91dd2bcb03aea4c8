"""The people's columns of `clarify-tui report --labels` / `--audit` (issue 33; docs/labels.md,
docs/audit.md): numbers no paper has, so they are added after a table is built, as the
what-if columns are (whatif_columns.py), from the very objects `labels --run RUN --format
json` and `audit --format json` print, only rescaled and formatted here.

One group of columns each, on the main tables whose rows are runs. A run without labels (or
audit answers) shows the table's empty cell with a footnote saying so, never 0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from clarify_tui.metrics.paper_tables import NA, PaperTable

Summaries = Mapping[str, Mapping[str, Any] | None]  # run -> its summary, None: no data

LABELS_SPAN = "Should it have asked (labels)"
LABELS = ["labels", "annotators", "κ", "κ 95% CI", "needed ask", "AUC vs flips", "AUC 95% CI"]
AUDIT_SPAN = "Simulator audit"
AUDIT = ["asks audited", "agreement", "κ", "κ 95% CI", "flips", "Δ acc.", "Δ 95% CI"]


def _num(value: Any, digits: int, scale: float = 1.0, sign: bool = False) -> str:
    if value is None:
        return NA
    return f"{scale * value:{'+' if sign else ''}.{digits}f}"


def _ci(ci: Sequence[float] | None, digits: int, scale: float = 1.0) -> str:
    return NA if not ci else f"[{scale * ci[0]:.{digits}f}, {scale * ci[1]:.{digits}f}]"


def label_cells(s: Mapping[str, Any] | None) -> list[str]:
    """labels, annotators, kappa and its CI, the share of points needing an ask (percent, as
    the tables print rates), auc_vs_flips and its CI."""
    if not s or not s.get("n_labels"):
        return [NA] * len(LABELS)
    needed = s["needed_ask"]["share"]
    return [
        str(s["n_labels"]),
        str(len(s["annotators"])),
        _num(s["kappa"], 3),
        _ci(s["kappa_ci95"], 3),
        _num(needed, 1, 100),
        _num(s["auc_vs_flips"], 2),
        _ci(s["auc_vs_flips_ci95"], 2),
    ]


def _flips(value: Any) -> str:
    if isinstance(value, Mapping):  # by direction, as `whatif` counts them: the changed ones
        return str(sum(int(n) for k, n in value.items() if k != "unchanged"))
    return NA if value is None else str(value)


def audit_cells(s: Mapping[str, Any] | None, digits: int, restore: bool) -> list[str]:
    """asks audited, agreement (percent), kappa and its CI, flips, and the accuracy shift
    with its CI (accuracy points; CTS: restore score)."""
    if not s or not s.get("asks"):
        return [NA] * len(AUDIT)
    shift = s.get("accuracy_shift") or {}
    scale = 1 if restore else 100
    return [
        str(s["asks"]),
        _num(s.get("agreement"), 1, 100),
        _num(s.get("kappa"), 3),
        _ci(s.get("kappa_ci95"), 3),
        _flips(s.get("flips")),
        _num(shift.get("delta"), digits, scale, sign=True),
        _ci(shift.get("ci95"), digits, scale) if shift.get("ci95") or not shift.get("note") else "no CI: 1 task",
    ]


def _tables(tables: Sequence[PaperTable]) -> list[PaperTable]:
    return [t for t in tables if t.whatif_digits is not None]  # the main tables, a row per run


def add_labels(tables: Sequence[PaperTable], summaries: Summaries, bootstrap: int, seed: int) -> None:
    for t in _tables(tables):
        t.columns += LABELS
        t.spans.append((LABELS_SPAN, len(LABELS)))
        t.prefixed.add(LABELS_SPAN)
        t.notes.append(
            f"{LABELS_SPAN}: people's labels of the run's decision points (clarify-tui labels; docs/labels.md): "
            "labels and annotators counted once per point and person; κ = Cohen's (two people on every point) "
            f"or Fleiss' kappa over ask / act / unsure, 95% CI = percentile bootstrap over points ({bootstrap} "
            f"resamples, seed {seed}); needed ask = % of labelled points whose labels are more than half ask; "
            "AUC vs flips = how well a point's share of ask labels ranks the points where the whatif ask fork "
            f"turned the outcome better, 95% CI bootstrap over those points; {NA} = none."
        )
        for row in t.rows:
            run = str(row.key.get("run"))
            summary = summaries.get(run)
            row.cells += label_cells(summary)
            if not summary or not summary.get("n_labels"):
                t.notes.append(f"{LABELS_SPAN}: no labels for run {run}.")
            elif summary.get("auc_vs_flips") is None:
                t.notes.append(f"{LABELS_SPAN}: {run} AUC vs flips {NA}: no whatif ask fork with both outcomes.")


def add_audit(tables: Sequence[PaperTable], summaries: Summaries) -> None:
    for t in _tables(tables):
        digits = t.whatif_digits if t.whatif_digits is not None else 2
        t.columns += AUDIT
        t.spans.append((AUDIT_SPAN, len(AUDIT)))
        t.prefixed.add(AUDIT_SPAN)
        unit = "restore score" if t.whatif_restore else "accuracy points"
        t.notes.append(
            f"{AUDIT_SPAN}: the run's asks answered again blind by an auditor (clarify-tui audit; docs/audit.md): "
            f"agreement in %, κ with its 95% CI, flips = forks from the disagreements whose outcome changed, "
            f"Δ acc. = the change in {unit} if the auditor's replies were the truth (paired bootstrap CI); "
            f"{NA} = none."
        )
        for row in t.rows:
            run = str(row.key.get("run"))
            summary = summaries.get(run)
            row.cells += audit_cells(summary, digits, t.whatif_restore)
            if not summary or not summary.get("asks"):
                t.notes.append(f"{AUDIT_SPAN}: no audit answers for run {run}.")
            elif summary.get("auditor"):
                t.notes.append(_whose(run, summary))


def _whose(run: str, summary: Mapping[str, Any]) -> str:
    """Which audit the row's numbers are (a run may have a simulator's and people's): the one
    covering most asks, as `audit --format json` puts at its top."""
    audits = summary.get("audits") or []
    head: Mapping[str, Any] = next((a for a in audits if a.get("queue") == summary["auditor"]), {})
    who = head.get("auditor") or summary["auditor"]
    if who == "people":
        who = f"people ({', '.join(head.get('annotators') or [])})"
    more = f"; the one of its {len(audits)} audits covering most asks (clarify-tui audit --run {run} shows each)"
    return f"{AUDIT_SPAN}: {run}: auditor {who}, queue {summary['auditor']}{more if len(audits) > 1 else ''}."
