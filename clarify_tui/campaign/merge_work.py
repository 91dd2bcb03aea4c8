"""Merging the work queues (store/work.py: audit and labelling queues, their items and the
answers people gave) as part of `clarify-tui merge`.

An answer is a person's work: none is dropped. How rows are matched:
- queues by name. The same name for the same kind and run (after the run renames of
  run_identity.py) is one queue; the same name for another kind or run is another queue,
  kept apart as NAME~2 (reported), with its items and answers;
- items by (queue, item id); an item is derived from its session, so the first copy is kept;
- answers by (queue, item, annotator). Copies that agree are one answer. Copies that
  disagree are reported with every file's answer; the one already in the output, else the
  earliest (then by content), is kept, as `record_answer` keeps a person's first answer;
- drafts (store/work_drafts.py: a half-typed reply or note, a person's work) by (queue, item,
  annotator). Copies that differ: the one with the most typed text is kept (drafts carry no
  time; a draft only grows as the person types), then the output's, then the earliest by
  content; every other copy is reported with its full text, so no typed word is lost;
- shown marks (`work_shown`: what made a later agent session "informed") by (queue, item,
  annotator), the earliest kept: losing one would count an informed session in a baseline;
- the audit's free-text verdicts (`audit_comparisons`: the run's judge on a CTS answer, which
  may have cost a model call and may not come out the same twice) by (queue, item,
  annotator), carried only from a file whose answer is the one the output kept.
Rows are taken in time order (then content), so the output does not depend on the order
of the arguments.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from clarify_tui import db_errors
from clarify_tui.store import merging as files
from clarify_tui.store.work import create_tables

OUTPUT = "(output)"
_TABLES = ("work_queues", "work_items", "work_answers")
_PERSONAL = ("work_drafts", "work_shown")  # store/work_drafts.py; created in the output when an input has them
_VERDICTS = "audit_comparisons"  # store/audit_comparisons.py
_KEY = ("queue", "item_id", "annotator")


@dataclass
class WorkMerge:
    added: dict[str, int] = field(default_factory=dict)
    renamed: list[str] = field(default_factory=list)  # queue name clashes kept apart
    conflicts: list[str] = field(default_factory=list)  # an annotator's differing answers to one item
    drafts: list[str] = field(default_factory=list)  # an annotator's differing drafts of one item, the other text


def _rows(conn: sqlite3.Connection, table: str) -> list[dict]:
    conn.row_factory = sqlite3.Row
    return files.all_rows(conn, table) if table in files.tables(conn) else []


def _order(found: tuple[str, dict]) -> tuple:
    row = found[1]
    return (str(row.get("created_at") or ""), json.dumps(row, sort_keys=True, default=str))


def _insert(dest: sqlite3.Connection, table: str, row: dict) -> int:
    return files.insert(dest, table, row, ignore=True)


def _free(name: str, taken: dict) -> str:
    n = 2
    while f"{name}~{n}" in taken:
        n += 1
    return f"{name}~{n}"


def _answer_text(raw: str | None) -> str:
    try:
        answer = json.loads(raw or "{}")
    except json.JSONDecodeError:
        return str(raw)
    return json.dumps(answer, sort_keys=True, ensure_ascii=False)


def merge_work(
    dest: sqlite3.Connection, sources: dict[str, sqlite3.Connection], runs_as: dict[str, dict[str, str]]
) -> WorkMerge:
    """Copy the work tables of `sources` into `dest` (inside the caller's transaction)."""
    out = WorkMerge()
    create_tables(dest)
    read: dict[str, dict[str, list[dict]]] = {}
    for name, conn in sources.items():
        with db_errors.translated(Path(name)):
            read[name] = {t: _rows(conn, t) for t in (*_TABLES, *_PERSONAL, _VERDICTS)}
    taken = {r["name"]: (r["kind"], r["run"]) for r in _rows(dest, "work_queues")}
    as_name: dict[tuple[str, str], str] = {}  # (file, queue) -> its name in the output
    queues = [(f, q) for f, tables in read.items() for q in tables["work_queues"]]
    for f, q in sorted(queues, key=_order):
        row = {**q, "run": runs_as.get(f, {}).get(q["run"], q["run"])}
        ident = (row["kind"], row["run"])
        name = row["name"]
        if name in taken and taken[name] != ident:
            same = [n for n, i in taken.items() if i == ident and n.split("~")[0] == name]
            new = same[0] if same else _free(name, taken)
            if not same:
                out.renamed.append(
                    f"{f}: {row['kind']} queue '{name}' of run '{row['run']}' merged as '{new}' (the name holds "
                    f"a {taken[name][0]} queue of run '{taken[name][1]}')"
                )
            name = new
        as_name[(f, q["name"])] = name
        if name not in taken:
            taken[name] = ident
            out.added["work_queues"] = out.added.get("work_queues", 0) + _insert(
                dest, "work_queues", {**row, "name": name}
            )
    items = [(f, i) for f, tables in read.items() for i in tables["work_items"]]
    for f, item in sorted(items, key=lambda found: (found[1].get("position") or 0, _order(found))):
        row = {**item, "queue": as_name.get((f, item["queue"]), item["queue"])}
        out.added["work_items"] = out.added.get("work_items", 0) + _insert(dest, "work_items", row)
    _merge_answers(dest, read, as_name, out)
    _merge_drafts(dest, read, as_name, out)
    shown = [
        (f, {**r, "queue": as_name.get((f, r["queue"]), r["queue"])}) for f, t in read.items() for r in t["work_shown"]
    ]
    for _, row in sorted(shown, key=lambda found: (str(found[1].get("shown_at") or ""), _order(found))):
        out.added["work_shown"] = out.added.get("work_shown", 0) + files.insert(
            dest, "work_shown", row, ignore=True, key=_KEY
        )
    _merge_verdicts(dest, read, as_name, out)
    return out


def _merge_verdicts(dest: sqlite3.Connection, read: dict, as_name: dict, out: WorkMerge) -> None:
    """A file's judge verdicts on the answers the output kept as that file has them."""
    kept = {tuple(r[k] for k in _KEY): _answer_text(r["answer"]) for r in _rows(dest, "work_answers")}
    for f, tables in sorted(read.items()):
        theirs = {
            (as_name.get((f, r["queue"]), r["queue"]), r["item_id"], r["annotator"]): _answer_text(r["answer"])
            for r in tables["work_answers"]
        }
        for r in tables[_VERDICTS]:
            key = (as_name.get((f, r["queue"]), r["queue"]), r["item_id"], r["annotator"])
            if key in kept and theirs.get(key) == kept[key]:
                row = {**r, "queue": key[0]}
                out.added[_VERDICTS] = out.added.get(_VERDICTS, 0) + files.insert(
                    dest, _VERDICTS, row, ignore=True, key=_KEY
                )


def _typed(raw: str | None) -> int:
    """How much a person typed or picked in a draft (its values' characters)."""
    try:
        draft = json.loads(raw or "{}")
    except json.JSONDecodeError:
        return len(str(raw))
    values = draft.values() if isinstance(draft, dict) else [draft]
    return sum(len(v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)) for v in values if v)


def _merge_drafts(dest: sqlite3.Connection, read: dict, as_name: dict, out: WorkMerge) -> None:
    versions: dict[tuple[str, str, str], list[tuple[str, dict]]] = {}
    for r in _rows(dest, "work_drafts"):
        versions.setdefault((r["queue"], r["item_id"], r["annotator"]), []).append((OUTPUT, r))
    for f, tables in read.items():
        for r in tables["work_drafts"]:
            row = {**r, "queue": as_name.get((f, r["queue"]), r["queue"])}
            versions.setdefault((row["queue"], row["item_id"], row["annotator"]), []).append((f, row))
    for (queue, item, annotator), found in versions.items():
        ranked = sorted(found, key=lambda v: (-_typed(v[1]["draft"]), v[0] != OUTPUT, _order(v)))
        kept_file, kept = ranked[0]
        others = [(f, r) for f, r in ranked[1:] if _answer_text(r["draft"]) != _answer_text(kept["draft"])]
        if others:
            every = "; ".join(f"{f}: {_answer_text(r['draft'])}" for f, r in others)
            out.drafts.append(
                f"queue '{queue}', item {item}, {annotator}: kept {kept_file}'s {_answer_text(kept['draft'])}; "
                f"not kept: {every}"
            )
        if kept_file == OUTPUT:
            continue
        here = any(f == OUTPUT for f, _ in found)
        out.added["work_drafts"] = out.added.get("work_drafts", 0) + files.insert(
            dest, "work_drafts", kept, ignore=True, key=_KEY, replace=here
        )


def _merge_answers(dest: sqlite3.Connection, read: dict, as_name: dict, out: WorkMerge) -> None:
    versions: dict[tuple[str, str, str], list[tuple[str, dict]]] = {}
    for r in _rows(dest, "work_answers"):
        versions.setdefault((r["queue"], r["item_id"], r["annotator"]), []).append((OUTPUT, r))
    for f, tables in read.items():
        for r in tables["work_answers"]:
            row = {**r, "queue": as_name.get((f, r["queue"]), r["queue"])}
            versions.setdefault((row["queue"], row["item_id"], row["annotator"]), []).append((f, row))
    for (queue, item, annotator), found in versions.items():
        answers = {_answer_text(r["answer"]) for _, r in found}
        if len(answers) > 1:
            every = "; ".join(f"{f}: {_answer_text(r['answer'])}" for f, r in sorted(found, key=_order))
            out.conflicts.append(f"queue '{queue}', item {item}, {annotator}: {every}")
        if any(f == OUTPUT for f, _ in found):
            continue  # the output's answer stays
        _, first = sorted(found, key=_order)[0]
        out.added["work_answers"] = out.added.get("work_answers", 0) + _insert(dest, "work_answers", first)
