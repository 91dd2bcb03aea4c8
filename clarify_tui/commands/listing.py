"""Listings that read well anywhere (`sessions`, `datasets`, `queue status`, ...).

`--format table` on a terminal: a rich table that keeps each row on one line, showing
the columns that matter most first and naming the ones that did not fit; piped or
redirected (not a terminal): plain aligned columns, never wrapped, whatever the width.
`--format csv` and `--format json`: every column, for scripts.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections.abc import Sequence
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

FORMATS = ("table", "csv", "json")
GAP = 2  # spaces between plain columns
CELL_CAP = 40  # a terminal table's long cells are cut to this many characters (…)


def add_format(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--format",
        default="table",
        choices=FORMATS,
        help="table (a terminal table; plain columns when piped), csv or json",
    )


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        return ", ".join(_text(v) for v in value)
    return " ".join(str(value).split())  # one line: a note's newlines never break a row


def console(out: IO[str] | None = None) -> Console:
    """A rich Console for a report: the terminal's width on a terminal; piped or
    redirected, wide enough that no table wraps (a file has no width)."""
    from rich.console import Console

    out = out or sys.stdout
    return Console(file=out, width=None if out.isatty() else 10_000)


def plain(rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> str:
    """Aligned columns, every cell whole, nothing wrapped (for files and pipes)."""
    cells = [[_text(r.get(c)) for c in columns] for r in rows]
    widths = [max([len(c)] + [len(row[i]) for row in cells]) for i, c in enumerate(columns)]
    lines = [(" " * GAP).join(h.ljust(w) for h, w in zip(columns, widths)).rstrip()]
    lines += [(" " * GAP).join(v.ljust(w) for v, w in zip(row, widths)).rstrip() for row in cells]
    return "\n".join(lines) + "\n"


def fitting(rows: Sequence[dict[str, Any]], columns: Sequence[str], width: int) -> list[str]:
    """The leading columns (priority order) whose natural widths fit `width` with a table's borders."""
    shown: list[str] = []
    used = 1
    for c in columns:
        natural = min(CELL_CAP, max([len(c)] + [len(_text(r.get(c))) for r in rows]))
        if shown and used + natural + 3 > width:
            break  # priority order: a later, narrower column never displaces this one
        shown.append(c)
        used += natural + 3
    return shown


def emit(
    rows: Sequence[dict[str, Any]],
    columns: Sequence[str],
    fmt: str = "table",
    *,
    title: str | None = None,
    out: IO[str] | None = None,
    empty: str = "nothing to list",
) -> None:
    """Print `rows` (dicts keyed by column) in `fmt`; `columns` in priority order."""
    out = out or sys.stdout
    if fmt == "json":
        json.dump([{c: r.get(c) for c in columns} for r in rows], out, ensure_ascii=False, indent=2)
        out.write("\n")
        return
    if fmt == "csv":
        writer = csv.DictWriter(out, fieldnames=list(columns), lineterminator="\n", extrasaction="ignore")
        writer.writeheader()
        for r in rows:
            writer.writerow({c: _text(r.get(c)) for c in columns})
        return
    if not out.isatty():
        if title:
            out.write(title + "\n")
        out.write(plain(rows, columns) if rows else empty + "\n")
        return
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console(file=out)
    if not rows:
        console.print(f"[yellow]{empty}[/yellow]")
        return
    shown = fitting(rows, columns, console.width)
    hidden = [c for c in columns if c not in shown]
    caption = f"not shown at this width: {', '.join(hidden)} (--format csv has every column)" if hidden else None
    table = Table(title=title, caption=caption, title_justify="left", caption_justify="left")
    for c in shown:
        table.add_column(c, no_wrap=True, overflow="ellipsis", max_width=CELL_CAP)
    for r in rows:
        table.add_row(*(Text(_text(r.get(c))) for c in shown))  # cells are data, never markup
    console.print(table)
