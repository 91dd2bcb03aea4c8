"""Merge annotators' databases into one: `clarify-tui merge A.db B.db ... --out ALL.db`.

What is merged, and how it is matched:
- tasks by their snapshot key (protocol, id and content digest), copied as stored (sealed
  hidden fields stay sealed). All inputs must hold the same release: a task id whose
  content digests differ between two files stops the merge before anything is written;
- sessions by id with their steps. A session found identical (row and every step) in
  several files is taken once; one whose versions differ is a conflict: it is reported
  and not merged (a version already in the output stays as it is);
- judgments with their session, matched by content (session, judge, kind, verdict, time),
  since their integer ids are only local, and written in time order (created_at, then
  content) so the output does not depend on the order of the arguments; runs by name,
  except that independent runs sharing a name are kept apart (run_identity.py: the later
  one is renamed NAME~2 and reported; `pool=True` pools them); the search cache by its
  key; campaign definitions by run. Claims and run leases are live state, not merged;
- work queues (audit and labelling queues, their items, people's answers, their unsent
  drafts and what was shown to whom): merge_work.py; no answer or draft is dropped, and an
  annotator's differing answers (or drafts) of one item are reported.

The output is written in one transaction, so merging the same files again changes nothing.
Input files are opened read-only.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from clarify_tui import db_errors
from clarify_tui.atomic_write import remove_leftovers, temporary_name
from clarify_tui.campaign.merge_work import merge_work
from clarify_tui.campaign.run_identity import OUTPUT, Rename, plan_renames, run_copies
from clarify_tui.errors import UsageError
from clarify_tui.store import merging as files

# table -> primary key columns (None: matched by every column but the local integer id)
KEYED = {"tasks": ("key",), "runs": ("name",), "search_cache": ("key",), "campaigns": ("run",)}


class ReleaseMismatch(UsageError):
    """Two inputs hold different contents for the same task id."""


@dataclass
class MergeReport:
    added: dict[str, int] = field(default_factory=dict)  # table -> rows written
    present: int = 0  # sessions already in the output (or another input), identical
    conflicts: dict[str, list[str]] = field(default_factory=dict)  # session id -> files
    renamed: list[Rename] = field(default_factory=list)  # independent runs kept apart
    queues_renamed: list[str] = field(default_factory=list)  # work queues of one name kept apart
    answer_conflicts: list[str] = field(default_factory=list)  # an annotator's differing answers to one item
    draft_conflicts: list[str] = field(default_factory=list)  # differing drafts of one item: the text not kept

    def add(self, table: str, n: int = 1) -> None:
        self.added[table] = self.added.get(table, 0) + n


def open_readonly(path: Path) -> sqlite3.Connection:
    """`path` opened read-only; any problem is one line naming `path` (not the --db)."""
    return files.open_input(path)


def session_version(
    conn: sqlite3.Connection, session_id: str, runs_as: dict[str, str] | None = None
) -> tuple[dict, list[dict], str]:
    """The session row (its run renamed by `runs_as`), its steps, and a digest of both
    (NULL columns ignored, so files from before a column was added compare equal)."""
    row = files.session(conn, session_id)
    assert row is not None, session_id  # an id the file listed
    row["run"] = (runs_as or {}).get(row["run"], row["run"])
    steps = files.steps(conn, session_id)
    blob = json.dumps([_set(row), [_set(s) for s in steps]], sort_keys=True, default=str)
    return row, steps, hashlib.sha256(blob.encode()).hexdigest()


def _set(row: dict) -> dict:
    return {k: v for k, v in row.items() if v is not None}


def check_release(sources: dict[str, sqlite3.Connection]) -> None:
    """Every task id has the same content digest in every file that holds it."""
    seen: dict[tuple[str, str], tuple[str, frozenset]] = {}
    for name, conn in sources.items():
        by_task: dict[tuple[str, str], set[str]] = {}
        for key, task_id, protocol in files.task_keys(conn):
            by_task.setdefault((protocol, task_id), set()).add(key)
        for task, keys in by_task.items():
            first = seen.setdefault(task, (name, frozenset(keys)))
            if first[1] != keys:
                raise ReleaseMismatch(
                    f"{first[0]} and {name} hold different contents for {task[0]} task {task[1]} "
                    f"(digests {_digests(first[1])} vs {_digests(keys)}): they are not the same release of the "
                    "tasks, so their sessions cannot be scored together; nothing was merged"
                )


def _digests(keys) -> str:
    return "/".join(sorted(k.rsplit(":", 1)[-1][:8] for k in keys))


def merge(inputs: list[Path], out: Path, pool: bool = False) -> MergeReport:
    """Merge `inputs` into `out` (created if missing); see the module docstring.
    `pool`: copies of a run name are one run even when they are independent runs."""
    if out.is_dir():
        raise UsageError(f"--out {out} is a directory; give the merged database's file name")
    if out.resolve() in {p.resolve() for p in inputs}:
        raise UsageError(f"--out {out} is also an input; write the merge to a new file")
    sources: dict[str, sqlite3.Connection] = {}
    try:
        for p in inputs:
            sources[str(p)] = open_readonly(p)
        existing = {OUTPUT: open_readonly(out)} if out.exists() else {}
        try:
            check_release({**existing, **sources})
            copies = {}
            for name, conn in {**existing, **sources}.items():
                with db_errors.translated(out if name == OUTPUT else Path(name)):
                    copies[name] = run_copies(name, conn)
            renames = plan_renames(copies, pool)
        finally:
            for conn in existing.values():
                conn.close()
        # a new output is built beside it and renamed into place when complete (atomic_write's
        # rule for every file we write): a merge that fails leaves no half-made database
        remove_leftovers(out)  # a merge killed mid-write (kill -9) left its temporary database
        target = out if out.exists() else temporary_name(out)
        try:
            with db_errors.translated(out):
                _create_schema(target)
            dest = files.open_output(target)
            try:
                with db_errors.translated(out):  # errors reading an input name that input (StoreError passes)
                    with files.writing(dest, one_file=target != out):
                        report = _merge_into(dest, sources, renames)
            finally:
                dest.close()
            if target != out:
                os.replace(target, out)
        except BaseException:
            if target != out:
                for suffix in ("", "-wal", "-shm", "-journal"):
                    Path(f"{target}{suffix}").unlink(missing_ok=True)
            raise
        return report
    finally:
        for conn in sources.values():
            conn.close()


def _create_schema(out: Path) -> None:
    """The output's tables (before our own connection opens it: see claims.ClaimBook)."""
    import sqlite_utils

    from clarify_tui.search.cache import ensure_table
    from clarify_tui.store import Store
    from clarify_tui.store.claims import connect

    Store(out).close()
    db = sqlite_utils.Database(str(out))
    ensure_table(db)
    db.close()
    connect(out).close()


_RUN_COLUMN = {"runs": "name", "campaigns": "run"}


def _merge_into(
    dest: sqlite3.Connection, sources: dict[str, sqlite3.Connection], renames: Sequence[Rename] = ()
) -> MergeReport:
    report = MergeReport(renamed=list(renames))
    runs_as: dict[str, dict[str, str]] = {}
    for r in renames:
        runs_as.setdefault(r.source, {})[r.old] = r.new
    for table in KEYED:
        found_rows = []
        for name, conn in sources.items():
            with db_errors.translated(Path(name)):  # a read error names its file (inside: the output's)
                if table in files.tables(conn):
                    found_rows += [(name, row) for row in files.all_rows(conn, table)]
        for name, row in sorted(found_rows, key=lambda found: _row_order(found[1])):
            if (column := _RUN_COLUMN.get(table)) is not None:
                row[column] = runs_as.get(name, {}).get(row[column], row[column])
            report.add(table, files.insert(dest, table, row, ignore=True, key=KEYED[table]))
    # sessions: every version of every id, across the output and the inputs
    versions: dict[str, dict[str, tuple[dict, list[dict], str]]] = {}
    for name, conn in sources.items():
        with db_errors.translated(Path(name)):
            for sid in files.session_ids(conn):
                versions.setdefault(sid, {})[name] = session_version(conn, sid, runs_as.get(name))
    for sid, found in versions.items():
        digests = {digest for _, _, digest in found.values()}
        here = files.has_session(dest, sid)
        kept = session_version(dest, sid)[2] if here else None
        if len(digests) > 1 or (kept is not None and digests != {kept}):
            report.conflicts[sid] = sorted(found) + (["(output)"] if kept and kept not in digests else [])
            continue
        name = next(iter(found))
        row, steps, digest = found[name]
        if kept is None:
            files.insert(dest, "sessions", row)
            for step in steps:
                files.insert(dest, "steps", step)
            report.add("sessions")
            report.add("steps", len(steps))
        else:
            report.present += 1
        judgments = []
        for n in found:
            with db_errors.translated(Path(n)):
                judgments += files.judgments(sources[n], sid)
        for judgment in sorted(judgments, key=_judgment_order):
            report.add("judgments", files.insert_judgment(dest, judgment))
    work = merge_work(dest, sources, runs_as)
    for table, count in work.added.items():
        report.add(table, count)
    report.queues_renamed, report.answer_conflicts = work.renamed, work.conflicts
    report.draft_conflicts = work.drafts
    return report


def _row_order(row: dict) -> tuple:
    """Rows of one key in several files: the earliest (then by content) is kept, whatever
    the order of the inputs (a pooled run's row, a search cached twice)."""
    return (str(row.get("created_at") or ""), json.dumps(row, sort_keys=True, default=str))


def _judgment_order(j: dict) -> tuple:
    """Time order, then content: the same output ids whatever the order of the inputs."""
    return (j.get("created_at") or "", str(j.get("judge")), str(j.get("kind")), str(j.get("verdict")), j.get("id") or 0)
