"""The paper tables of `metrics/paper_tables.py` as text a paper or a notebook takes as is:
markdown (a caption, a pipe table, footnotes), LaTeX (booktabs `table` with the header
groups as `\\multicolumn`s and the footnotes under the tabular) and csv (one block per
table, with the counts and comparability as columns instead of footnotes).

Why here and not in metrics: these are output formats, like the other exporters; the
numbers are already the formatted cells of the table.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

from clarify_tui.metrics.paper_tables import PaperTable


def unique_headers(t: PaperTable, sep: str) -> list[str]:
    """The column titles for a one-row header: where a title repeats (DiscoBench's Neutral
    and Guided halves), its group's name goes in front ("Neutral: Acc."), as it always
    does for the groups in `t.prefixed` (the what-if columns: "What-if ask: forks")."""
    header = list(t.columns)
    repeated = {h for h in header if header.count(h) > 1}
    at = len(header) - sum(width for _, width in t.spans)
    for title, width in t.spans:
        if title in t.prefixed or repeated & set(header[at : at + width]):
            header[at : at + width] = [f"{title}{sep}{h}" for h in header[at : at + width]]
        at += width
    return header


def markdown(tables: Sequence[PaperTable]) -> str:
    parts = []
    for t in tables:
        lines = [f"**{t.caption}**", ""]
        header = unique_headers(t, ": ")
        lines.append("| " + " | ".join(_md(h) for h in header) + " |")
        lines.append("|" + "|".join(":---" if i <= t.label_at else "---:" for i in range(len(header))) + "|")
        for r in t.rows:
            lines.append("| " + " | ".join(_md(c) for c in r.cells) + " |")
        if t.notes:
            lines.append("")
            lines += [_md(n) + "  " for n in t.notes[:-1]] + [_md(t.notes[-1])]
        parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"


def _md(text: str) -> str:
    return text.replace("|", "\\|")


_LATEX = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "±": r"$\pm$",
    "Δ": r"$\Delta$",
    "→": r"$\rightarrow$",
    "κ": r"$\kappa$",
    "†": r"$^\dagger$",
    "×": r"$\times$",
    "–": "--",
}


def _tex(text: str) -> str:
    return "".join(_LATEX.get(ch, ch) for ch in text)


def latex(tables: Sequence[PaperTable]) -> str:
    """One `table` environment per paper table (needs \\usepackage{booktabs})."""
    parts = []
    for t in tables:
        align = "l" * (t.label_at + 1) + "r" * (len(t.columns) - t.label_at - 1)
        lines = [
            r"\begin{table}[t]",
            r"\centering",
            rf"\caption{{{_tex(t.caption)}}}",
            rf"\begin{{tabular}}{{{align}}}",
            r"\toprule",
        ]
        if t.spans:
            lead = len(t.columns) - sum(width for _, width in t.spans)
            cells = [""] * lead + [rf"\multicolumn{{{w}}}{{c}}{{{_tex(title)}}}" for title, w in t.spans]
            lines.append(" & ".join(cells) + r" \\")
            rules, at = [], lead + 1
            for _, w in t.spans:
                rules.append(rf"\cmidrule(lr){{{at}-{at + w - 1}}}")
                at += w
            lines.append(" ".join(rules))
        lines.append(" & ".join(_tex(c) for c in t.columns) + r" \\")
        lines.append(r"\midrule")
        for r in t.rows:
            lines.append(" & ".join(_tex(c) for c in r.cells) + r" \\")
        lines += [r"\bottomrule", r"\end{tabular}"]
        if t.notes:
            lines.append(r"\par\smallskip\footnotesize")
            lines += [_tex(n) + r"\par" for n in t.notes]
        lines.append(r"\end{table}")
        parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"


def _dollars(value: float | None) -> str:
    """A csv cost column: empty when unpriced (docs/scoring.md: null in JSON, empty in csv),
    never 0; the paper's own Cost($) cell says "unpriced"."""
    return "" if value is None else f"{value:.2f}"


def csv_text(tables: Sequence[PaperTable]) -> str:
    """One block per table (a header row, then its rows), blocks apart by an empty line.
    The header is `table`, the paper's columns (a group's name in front of its columns),
    then scored, errored, excluded, agent_cost_usd, cost_usd (empty when unpriced), comparable, deviations."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for i, t in enumerate(tables):
        if i:
            out.write("\n")
        header = unique_headers(t, " ")
        writer.writerow(
            [
                "table",
                *header,
                "scored",
                "errored",
                "excluded",
                "agent_cost_usd",
                "cost_usd",
                "comparable",
                "deviations",
            ]
        )
        for r in t.rows:
            writer.writerow(
                [
                    t.key,
                    *r.cells,
                    r.scored,
                    r.errored,
                    r.excluded,
                    _dollars(r.agent_cost_usd),
                    _dollars(r.cost_usd),
                    str(r.comparable and not r.deviations).lower(),
                    "; ".join(r.deviations),
                ]
            )
    return out.getvalue()
