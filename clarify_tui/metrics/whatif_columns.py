"""The what-if columns of `clarify-tui report --whatif` (docs/whatif.md).

Why a module of its own: the paper tables print the papers' numbers; the what-if columns
are ours (no paper has them), so they are added after the table is built, from the very
objects `whatif --format json` prints (`whatif_results.summarize`), only rescaled and formatted
here: nothing is recomputed. One group of columns per intervention (`ask`, `answer`),
never mixed; a run without forks shows the table's empty cell, never 0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from clarify_tui.metrics.paper_tables import NA, PaperTable, Row

# The columns go on the main tables, whose rows are runs (a table's `whatif_digits`; CTS
# Table 3, Δ vs orig, repeats Table 2's runs and has none).
BINARY = ["forks", "forked tasks", "W→R", "R→W", "Δ", "95% CI"]
CTS = ["forks", "forked tasks", "improved", "worsened", "Δ", "95% CI"]

Summaries = Mapping[str, Mapping[str, Mapping[str, Any]]]  # run -> intervention -> whatif summary


def span(intervention: str) -> str:
    return f"What-if {intervention}"


def cells(summary: Mapping[str, Any] | None, digits: int, cts: bool) -> list[str]:
    """forks, the forked tasks (Δ's denominator), the two flip counts, Δ and its CI; all
    empty when the run has no forks. Binary protocols print Δ in accuracy points (the
    tables' percent), CTS in restore score."""
    if not summary or not summary["forks"]:
        return [NA] * len(BINARY)
    flips = summary["flips"]
    up, down = (flips["improved"], flips["worsened"]) if cts else (flips["wrong_to_right"], flips["right_to_wrong"])
    voa = summary["value_of_asking"]
    scale = 1 if cts else 100
    if voa["delta"] is None:  # every fork errored: nothing scored
        return [str(summary["forks"]), "0", NA, NA, NA, NA]
    ci = voa["ci95"]
    ci_text = NA if not ci else f"[{scale * ci[0]:.{digits}f}, {scale * ci[1]:.{digits}f}]"
    return [
        str(summary["forks"]),
        str(voa["tasks"]),
        str(up),
        str(down),
        f"{scale * voa['delta']:+.{digits}f}",
        ci_text,
    ]


def _note(intervention: str, cts: bool, bootstrap: int, seed: int) -> str:
    verb = "asked" if intervention == "ask" else "answered"
    head = (
        f"{span(intervention)}: what if it had {verb} (clarify-tui whatif, intervention {intervention}): "
        f"forks = the run's forks stored in RUN-whatif, which no other column counts; forked tasks = the "
        f"tasks with a scored fork; "
    )
    if cts:
        body = (
            "improved / worsened = forks whose restore_score_100 rose / fell against their parent; "
            "Δ = the mean over the forked tasks of each task's mean (fork - parent) restore score"
        )
    else:
        body = (
            "W→R / R→W = forks whose outcome turned from wrong to right / right to wrong against their parent; "
            f"Δ = value of {'asking' if intervention == 'ask' else 'answering'} in accuracy points, the mean "
            "over the forked tasks of each task's mean (fork - parent)"
        )
    return (
        f"{head}{body}; 95% CI = paired bootstrap over the forked tasks ({bootstrap} resamples, seed {seed}); "
        f"{NA} = no forks."
    )


def _over_note(t: PaperTable, intervention: str, summaries: Summaries) -> None:
    """Δ beside a run's accuracy is over its forked tasks only: say how many, per run."""
    parts = []
    for row in t.rows:
        summary = summaries.get(str(row.key.get("run")), {}).get(intervention)
        voa = (summary or {}).get("value_of_asking") or {}
        if voa.get("delta") is not None:
            parts.append(
                f"{row.key.get('run')} over {voa['tasks']} forked task{'s' * (voa['tasks'] != 1)} "
                f"(of {row.scored} scored)"
            )
    if parts:
        t.notes.append(
            f"{span(intervention)}: Δ is over the forked tasks only, not the run's every task, so it is "
            f"no change of the run's own score: {'; '.join(parts)}."
        )


def add_whatif(tables: Sequence[PaperTable], summaries: Summaries, bootstrap: int, seed: int) -> None:
    """Append the what-if columns to each main table with runs as rows, one group per
    intervention the table's runs have forks for (`ask` always), with a footnote saying
    what they count and one naming each run's errored forks."""
    for t in tables:
        if t.whatif_digits is None:
            continue
        cts = t.whatif_restore
        runs = [str(r.key.get("run")) for r in t.rows]
        found = {i for run in runs for i in summaries.get(run, {})}
        for intervention in sorted(found | {"ask"}, key=lambda i: (i != "ask", i)):
            t.columns += CTS if cts else BINARY
            t.spans.append((span(intervention), len(BINARY)))
            t.prefixed.add(span(intervention))
            t.notes.append(_note(intervention, cts, bootstrap, seed))
            for row in t.rows:
                summary = summaries.get(str(row.key.get("run")), {}).get(intervention)
                row.cells += cells(summary, t.whatif_digits, cts)
                _errored_note(t, row, intervention, summary)
            _over_note(t, intervention, summaries)


def _errored_note(t: PaperTable, row: Row, intervention: str, summary: Mapping[str, Any] | None) -> None:
    n = int((summary or {}).get("forks_errored") or 0)
    note = (
        f"{span(intervention)}: {row.key.get('run')} {n} fork(s) errored (infrastructure failures), "
        "counted in forks and in no other number."
    )
    if n and note not in t.notes:
        t.notes.append(note)
