"""`report --sweep FILE`: a sweep's matrix as the papers lay out a comparison: a row per
agent (and per other setting the sweep varies), a column group per benchmark.

Why built from the paper tables: each benchmark's cells are exactly its own table's
(metrics/paper_tables.py: the same metrics, units, footnotes and comparability marks),
only rearranged; a column empty in every row (DiscoBench's Guided half when no cell ran
guided) is left out. What-if columns come along as their own groups.
"""

from __future__ import annotations

from collections.abc import Sequence

from clarify_tui.metrics.paper_tables import DAGGER, NA, PaperTable, Row
from clarify_tui.sweep.cells import Cell

TITLES = {
    "interactcomp": "InteractComp",
    "discobench": "DiscoBench",
    "cts-k1": "CTS k=1",
    "cts-k23": "CTS k=2,3",
    "cts-delta": "CTS Δ vs. orig",
}


def _title(key: str) -> str:
    return TITLES.get(key, key)


def _groups(t: PaperTable) -> list[tuple[str, list[int], bool]]:
    """(group title, column indexes, what-if) of one paper table's value columns: its own
    columns in one group per table, each always-prefixed span (what-if) in a group of its own."""
    spanned = sum(w for _, w in t.spans)
    at = len(t.columns) - spanned
    main = [i for i in range(at) if i != t.label_at]
    extra: list[tuple[str, list[int], bool]] = []
    for title, width in t.spans:
        columns = list(range(at, at + width))
        if title in t.prefixed:
            extra.append((f"{_title(t.key)} {title}", columns, True))
        else:
            main += columns
        at += width
    return [(_title(t.key), main, False), *extra]


def sweep_table(name: str, cells: Sequence[Cell], tables: Sequence[PaperTable]) -> PaperTable:
    """One table: rows = the cells' `row` (agent and varied settings), a group per benchmark table."""
    by_run = {c.name: c for c in cells}
    order = list(dict.fromkeys(c.row for c in cells))
    found: dict[str, dict[str, Row]] = {}  # table key -> row label -> its source row
    for t in tables:
        for r in t.rows:
            cell = by_run.get(str(r.key.get("run")))
            if cell is not None:
                found.setdefault(t.key, {})[cell.row] = r
    rows_seen = [label for label in order if any(label in rows for rows in found.values())]
    columns = ["Agent"]
    spans: list[tuple[str, int]] = []
    prefixed: set[str] = set()
    cells_of: dict[str, list[str]] = {label: [label] for label in rows_seen}
    marked: set[str] = set()
    notes: list[str] = []
    for t in tables:
        rows = found.get(t.key)
        if not rows:
            continue
        for title, indexes, _whatif in _groups(t):
            # drop what no row of the sweep fills (the other prompting's half, say)
            kept = [i for i in indexes if any(r.cells[i] not in (NA, "") for r in rows.values())]
            if not kept:
                continue
            headers = [t.columns[i] for i in kept]
            if len(set(headers)) < len(headers):  # a table's own halves: name them (Neutral Acc.)
                headers = [f"{_span_of(t, i)} {t.columns[i]}" for i in kept]
            columns += headers
            spans.append((title, len(kept)))
            prefixed.add(title)  # every column says its benchmark ("InteractComp: Acc.")
            for label in rows_seen:
                source = rows.get(label)
                cells_of[label] += [source.cells[i] if source else NA for i in kept]
                if source is not None and source.cells[t.label_at].endswith(DAGGER):
                    marked.add(label)
        notes += [n for n in t.notes if n not in notes]
    out_rows = []
    for label in rows_seen:
        row_cells = cells_of[label]
        if label in marked:
            row_cells[0] += f" {DAGGER}"
        out_rows.append(Row(label=label, cells=row_cells))
    caption = (
        f"Sweep {name}: a row per agent (and per other setting the sweep varies), a column group per "
        "benchmark; each group is that benchmark's paper table (see `clarify-tui report`)"
    )
    cell_note = "Cells: " + "; ".join(c.name for c in cells if any(c.row == label for label in rows_seen)) + "."
    return PaperTable(
        key="sweep",
        caption=caption,
        columns=columns,
        rows=out_rows,
        spans=spans,
        notes=[cell_note, *notes],
        prefixed=prefixed,
    )


def _span_of(t: PaperTable, index: int) -> str:
    at = len(t.columns) - sum(w for _, w in t.spans)
    for title, width in t.spans:
        if at <= index < at + width:
            return title
        at += width
    return ""
