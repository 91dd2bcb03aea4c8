"""The Clarify-Then-Search release: a queries CSV paired by id with a gold-nugget JSONL.

Where the files are found (`locate_release`):
  * the unzipped release folder: `data/hard_518_queries.csv` and
    `data/gold_public_hard518.jsonl` below it (also `release/data/...`, or the folder itself);
  * either file, with its sibling in the same folder (by the release name, or the only
    `*.csv` / `*gold*.jsonl` there).

What is accepted, since the release does not document exact column names (header
matching ignores case, spaces and hyphens):
  * CSV id column: id, qid, query_id, queryid, idx, index, uid, sample_id, item_id, or an
    unnamed first column (a pandas index);
  * intent query: fused_query, fused, intent_query, clear_query, oq;
  * underspecified query: blurred_query, blurred, blur_query, bq;
  * optional domain: domain, category;
  * gold record id: the same id names; nuggets under `nuggets` or `gold.nuggets`;
  * nugget: `id` (or nugget_id), `text`, `weight` (integer 1-3), `source_ids` (a list, or
    one id); integer ids are read as strings.
Gold fields outside the Task format (query_intent, reference_urls, unsupported_claims,
notes, must_cover, missing_evidence) are read past: only nuggets are scored.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from clarify_tui.models import Protocol, Task
from clarify_tui.tasks.language import detect_language
from clarify_tui.tasks.problems import Loc, Problems, field_path
from clarify_tui.tasks.sourced import Sourced
from clarify_tui.tasks.textfile import Record, read_lines, read_records

QUERIES_NAME = "hard_518_queries.csv"
GOLD_NAME = "gold_public_hard518.jsonl"
ID_NAMES = ("id", "qid", "query_id", "queryid", "idx", "index", "uid", "sample_id", "item_id")
FUSED_NAMES = ("fused_query", "fused", "intent_query", "clear_query", "oq")
BLURRED_NAMES = ("blurred_query", "blurred", "blur_query", "bq")
DOMAIN_NAMES = ("domain", "category")
NUGGET_ID_NAMES = ("id", "nugget_id")


def is_gold_record(record: dict[str, Any]) -> bool:
    gold = record.get("gold")
    return "nuggets" in record or (isinstance(gold, dict) and "nuggets" in gold)


def locate_release(path: Path, problems: Problems) -> tuple[Path, Path] | None:
    """(queries csv, gold jsonl) for a release folder or either file, else a problem."""
    if path.is_dir():
        for folder in (path / "data", path / "release" / "data", path):
            if (folder / QUERIES_NAME).is_file() and (folder / GOLD_NAME).is_file():
                return folder / QUERIES_NAME, folder / GOLD_NAME
        csv_path = _sibling(path, QUERIES_NAME, "*.csv")
        gold_path = _sibling(path, GOLD_NAME, "*gold*.jsonl")
        if csv_path and gold_path:
            return csv_path, gold_path
        problems.add(
            path,
            None,
            None,
            f"not a Clarify-Then-Search release folder: expected data/{QUERIES_NAME} and data/{GOLD_NAME}",
        )
        return None
    if path.suffix.lower() == ".csv":
        gold_path = _sibling(path.parent, GOLD_NAME, "*gold*.jsonl")
        if gold_path is None:
            problems.add(path, None, None, f"no gold file beside it (expected {GOLD_NAME})")
            return None
        return path, gold_path
    csv_path = _sibling(path.parent, QUERIES_NAME, "*.csv")
    if csv_path is None:
        problems.add(path, None, None, f"no queries CSV beside it (expected {QUERIES_NAME})")
        return None
    return csv_path, path


def _sibling(folder: Path, name: str, pattern: str) -> Path | None:
    if (folder / name).is_file():
        return folder / name
    found = sorted(p for p in folder.glob(pattern) if p.is_file())
    return found[0] if len(found) == 1 else None


def load_release(
    csv_path: Path, gold_path: Path, problems: Problems, gold: list[Record] | None = None
) -> list[Sourced]:
    """Pair query rows with gold records by id; `gold` skips re-reading an already parsed file."""
    rows = _read_queries(csv_path, problems)
    if gold is None:
        gold = read_records(gold_path, problems)
    golds = _read_gold(gold_path, gold, problems)
    if rows is None or not gold:
        return []  # an unreadable file is reported once, not as a missing partner per row
    tasks: list[Sourced] = []
    for qid, row in rows.items():
        gold_record = golds.pop(qid, None)
        if gold_record is None:
            problems.add(csv_path, row.line, row.id_column, f"no gold record with id {qid!r} in {gold_path.name}")
            continue
        if gold_record.nuggets is None:
            continue  # its problems are reported already
        task = _task(qid, row, gold_record, csv_path, gold_path, problems)
        if task is not None:
            tasks.append(task)
    for qid, gold_record in golds.items():
        problems.add(gold_path, gold_record.line, "id", f"no query row with id {qid!r} in {csv_path.name}")
    return tasks


def read_gold_file(path: Path, records: list[Record], problems: Problems, canary: str | None = None) -> list[Sourced]:
    """A gold JSONL file named as the dataset: its release's queries CSV is found beside it."""
    located = locate_release(path, problems)
    return load_release(*located, problems, gold=records) if located else []


def read_folder(path: Path, problems: Problems) -> list[Sourced]:
    """A release folder, or its queries CSV: the gold file is found beside it."""
    located = locate_release(path, problems)
    return load_release(*located, problems) if located else []


@dataclass(frozen=True)
class _Row:
    line: int
    id_column: str
    fused: str
    blurred: str
    domain: str


@dataclass(frozen=True)
class _Gold:
    line: int
    prefix: str  # "nuggets" or "gold.nuggets": where this record keeps them
    nuggets: list[dict[str, Any]] | None  # None when any nugget was bad (already reported)


def _norm(header: str) -> str:
    return header.strip().lower().replace(" ", "_").replace("-", "_")


def _find(headers: list[str], names: tuple[str, ...]) -> int | None:
    normalized = [_norm(h) for h in headers]
    for name in names:
        if name in normalized:
            return normalized.index(name)
    return None


def _read_queries(path: Path, problems: Problems) -> dict[str, _Row] | None:
    lines = read_lines(path, problems)
    if lines is None:
        return None
    reader = csv.reader(line.text + "\n" for line in lines)
    try:
        headers = next(reader)
    except csv.Error as err:
        problems.add(path, 1, None, f"not CSV: {err}")
        return None
    columns: dict[str, int] = {}
    missing = False
    for role, names in (("id", ID_NAMES), ("fused", FUSED_NAMES), ("blurred", BLURRED_NAMES)):
        index = _find(headers, names)
        if index is None and role == "id" and headers and not headers[0].strip():
            index = 0  # unnamed first column: a pandas index
        if index is None:
            problems.add(
                path,
                1,
                names[0],
                f"no {names[0]} column (accepted names: {', '.join(names)}; found: {', '.join(headers)})",
            )
            missing = True
        else:
            columns[role] = index
    if missing:
        return None
    domain_index = _find(headers, DOMAIN_NAMES)
    rows: dict[str, _Row] = {}
    first_line: dict[str, int] = {}
    start = reader.line_num + 1
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            break
        except csv.Error as err:
            problems.add(path, reader.line_num, None, f"not CSV: {err}")
            break
        line, start = start, reader.line_num + 1
        if not any(c.strip() for c in cells):
            continue
        if len(cells) != len(headers):
            problems.add(path, line, None, f"row has {len(cells)} cells, the header has {len(headers)}")
            continue
        qid = cells[columns["id"]].strip()
        fused = cells[columns["fused"]].strip()
        blurred = cells[columns["blurred"]].strip()
        bad = False
        for role, value in (("id", qid), ("fused", fused), ("blurred", blurred)):
            if not value:
                problems.add(path, line, headers[columns[role]], "empty")
                bad = True
        if qid in first_line:
            problems.add(path, line, headers[columns["id"]], f"duplicate id {qid!r} (first on line {first_line[qid]})")
            continue
        if bad:
            continue
        first_line[qid] = line
        domain = cells[domain_index].strip() if domain_index is not None else ""
        rows[qid] = _Row(line, headers[columns["id"]], fused, blurred, domain)
    return rows


def _read_gold(path: Path, records: list[Record], problems: Problems) -> dict[str, _Gold]:
    golds: dict[str, _Gold] = {}
    for line, record in records:
        id_key = next((k for k in ID_NAMES if k in record), None)
        qid = record.get(id_key) if id_key else None
        if id_key is None:
            problems.add(path, line, "id", f"missing (accepted names: {', '.join(ID_NAMES)})")
            continue
        if isinstance(qid, bool) or not isinstance(qid, int | str) or not str(qid).strip():
            problems.add(path, line, id_key, "must be a non-empty string or an integer")
            continue
        qid = str(qid).strip()
        if qid in golds:
            problems.add(path, line, id_key, f"duplicate id {qid!r} (first on line {golds[qid].line})")
            continue
        # a record with bad nuggets still pairs, so its query row is not also reported
        prefix, nuggets = _nuggets(path, line, record, problems) or ("", None)
        golds[qid] = _Gold(line, prefix, nuggets)
    return golds


def _nuggets(
    path: Path, line: int, record: dict[str, Any], problems: Problems
) -> tuple[str, list[dict[str, Any]]] | None:
    """(field prefix, nuggets as Task dicts), or None after reporting every bad nugget."""
    if "nuggets" in record:
        prefix, raw = "nuggets", record["nuggets"]
    elif isinstance(record.get("gold"), dict) and "nuggets" in record["gold"]:
        prefix, raw = "gold.nuggets", record["gold"]["nuggets"]
    else:
        problems.add(path, line, "nuggets", "missing (looked for nuggets and gold.nuggets)")
        return None
    if not isinstance(raw, list) or not raw:
        problems.add(path, line, prefix, "must be a non-empty list of nuggets")
        return None
    nuggets: list[dict[str, Any]] = []
    seen: set[str] = set()
    ok = True
    for i, item in enumerate(raw):
        where = f"{prefix}[{i}]"
        if not isinstance(item, dict):
            problems.add(path, line, where, "must be an object with id, text, weight")
            ok = False
            continue
        nugget = _nugget(path, line, where, item, problems)
        if nugget is None:
            ok = False
        elif nugget["id"] in seen:
            problems.add(path, line, f"{where}.id", f"duplicate nugget id {nugget['id']!r}")
            ok = False
        else:
            seen.add(nugget["id"])
            nuggets.append(nugget)
    return (prefix, nuggets) if ok else None


def _nugget(path: Path, line: int, where: str, item: dict[str, Any], problems: Problems) -> dict[str, Any] | None:
    ok = True
    id_key = next((k for k in NUGGET_ID_NAMES if k in item), None)
    nid = item.get(id_key) if id_key else None
    if nid is None or isinstance(nid, bool) or not isinstance(nid, int | str) or not str(nid).strip():
        problems.add(path, line, f"{where}.id", "missing or empty (required)")
        ok = False
    weight = item.get("weight")
    if "weight" not in item:
        problems.add(path, line, f"{where}.weight", "missing (required)")
        ok = False
    elif isinstance(weight, bool) or not isinstance(weight, int | float) or weight not in (1, 2, 3):
        problems.add(path, line, f"{where}.weight", f"nugget weight must be 1, 2 or 3 (got {weight!r})")
        ok = False
    sources = item.get("source_ids", [])
    if isinstance(sources, str | int) and not isinstance(sources, bool):
        sources = [sources]
    if not isinstance(sources, list) or not all(isinstance(s, str | int) for s in sources):
        problems.add(path, line, f"{where}.source_ids", "must be a list of source ids")
        ok = False
    if not ok or weight is None:
        return None
    return {
        "id": str(nid).strip(),
        "text": item.get("text"),
        "weight": int(weight),
        "source_ids": [str(s) for s in sources],
    }


def _task(qid: str, row: _Row, gold: _Gold, csv_path: Path, gold_path: Path, problems: Problems) -> Sourced | None:
    data = {
        "id": qid,
        "protocol": Protocol.cts.value,
        "question": row.blurred,
        "domain": row.domain,
        "language": detect_language(row.blurred, row.fused),
        "cts": {
            "blurred_query": row.blurred,
            "fused_query": row.fused,
            "intent_slots": {},
            "nuggets": gold.nuggets,
        },
    }

    def locate(loc: Loc) -> tuple[str, int | None, str | None]:
        if loc[:2] == ("cts", "nuggets"):
            return str(gold_path), gold.line, gold.prefix + (field_path(loc[2:]) or "")
        return str(csv_path), row.line, field_path(loc)

    try:
        return Sourced(Task.model_validate(data), str(csv_path), row.line)
    except ValidationError as err:
        problems.add_validation_error(err, locate)
        return None
