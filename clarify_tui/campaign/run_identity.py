"""Which copies of a run name across merged files are one run, and what the others are called.

Why: run names are chosen by people, so two independent runs are often both called `r1`.
Merged blindly they pool, and every task is scored twice. Each run gets a `run_id` when it
starts (Store.ensure_run). Copies of a run name found in several files are the *same run*
when any of these hold:

- they carry the same run id (one run, copied or resumed on another machine);
- neither has a run id (files from before run ids) and their `runs` rows are identical,
  or there is no `runs` row in either;
- they share a session id (one file is a copy of the other, grown since);
- every session of the run in both files was played by a named annotator: a human
  campaign split across annotators' files pools (docs/campaigns.md);
- the user passed `merge --pool`.

Otherwise they are independent runs: the one already in the output (else the one that
started first, by its runs row's created_at, then its earliest session, then its id) keeps
the name, the others become `NAME~2`, `NAME~3`, ... (a name no input or the output uses),
and the merge reports each rename. A copy whose run id or sessions the output already
holds under some name is merged under that name, so merging the same files again writes
nothing new. The choice depends on the files' contents, not on the order of the arguments.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import dataclass

from clarify_tui.store import merging as files

OUTPUT = "(output)"


@dataclass
class RunCopy:
    source: str  # an input file, or OUTPUT
    run: str
    run_id: str | None
    row_digest: str | None  # the runs row without its run id (None: no row)
    session_ids: frozenset[str]
    human: bool  # every session has a named annotator
    started: str  # when the run started (runs row, else its earliest session)

    @property
    def identity(self) -> str:
        return self.run_id or self.row_digest or ""


@dataclass(frozen=True)
class Rename:
    source: str
    old: str
    new: str
    why: str


def run_copies(source: str, conn: sqlite3.Connection) -> dict[str, RunCopy]:
    """Every run name of one file (runs rows and sessions' run names) as a RunCopy."""
    rows: dict[str, dict] = {}
    for r in files.run_rows(conn):
        rows[r["name"]] = r
    sessions: dict[str, list[tuple[str, str | None, str | None]]] = {}
    for sid, run, annotator, created in files.session_runs(conn):
        sessions.setdefault(run, []).append((sid, annotator, created))
    out = {}
    for name in set(rows) | set(sessions):
        row, mine = rows.get(name), sessions.get(name, [])
        plain = {k: v for k, v in (row or {}).items() if k != "run_id" and v is not None}
        out[name] = RunCopy(
            source=source,
            run=name,
            run_id=(row or {}).get("run_id"),
            row_digest=hashlib.sha256(json.dumps(plain, sort_keys=True, default=str).encode()).hexdigest()
            if row
            else None,
            session_ids=frozenset(s for s, _, _ in mine),
            human=bool(mine) and all(a for _, a, _ in mine),
            started=str((row or {}).get("created_at") or min((c or "" for _, _, c in mine), default="")),
        )
    return out


def same_run(a: RunCopy, b: RunCopy) -> bool:
    if a.run_id and b.run_id:
        if a.run_id == b.run_id:
            return True
    elif not a.run_id and not b.run_id and a.row_digest == b.row_digest:
        return True
    return bool(a.session_ids & b.session_ids) or (a.human and b.human)


def _families(copies: list[RunCopy], pool: bool) -> list[list[RunCopy]]:
    """Copies joined into runs (union of `same_run` pairs; all of them with `pool`)."""
    families: list[list[RunCopy]] = []
    for c in copies:
        joined = [f for f in families if pool or any(same_run(c, other) for other in f)]
        merged = [c, *(x for f in joined for x in f)]
        families = [f for f in families if not any(f is j for j in joined)] + [merged]
    return families


def plan_renames(by_source: dict[str, dict[str, RunCopy]], pool: bool = False) -> list[Rename]:
    """The renames that keep independent runs apart (see the module docstring)."""
    output = by_source.get(OUTPUT, {})
    taken = {name for copies in by_source.values() for name in copies}
    names: dict[str, list[RunCopy]] = {}
    for copies in by_source.values():
        for c in copies.values():
            names.setdefault(c.run, []).append(c)
    renames: list[Rename] = []
    for name in sorted(names):
        families = _families(names[name], pool)
        if len(families) < 2:
            continue
        families.sort(
            key=lambda f: (
                not any(c.source == OUTPUT for c in f),
                min(c.started for c in f),
                min(c.identity for c in f),
            )
        )
        keeper = families[0]
        for family in families[1:]:
            new = _known_name(family, output) or _free(name, taken)
            taken.add(new)
            if new == name:
                continue
            ids = sorted(
                {c.identity[:8] for c in keeper if c.identity} | {c.identity[:8] for c in family if c.identity}
            )
            why = f"run '{name}' of {_files(family)} is not the run '{name}' of {_files(keeper)}" + (
                f" (run ids {', '.join(ids)})" if ids else " (no shared run id or session)"
            )
            renames += [Rename(c.source, name, new, why) for c in family if c.source != OUTPUT]
    return renames


def _known_name(family: list[RunCopy], output: dict[str, RunCopy]) -> str | None:
    """The output's name for this run, when it already holds it (a repeated merge)."""
    for c in output.values():
        if any(
            c.run != f.run and ((c.run_id and c.run_id == f.run_id) or c.session_ids & f.session_ids) for f in family
        ):
            return c.run
    return None


def _free(name: str, taken: set[str]) -> str:
    k = 2
    while f"{name}~{k}" in taken:
        k += 1
    return f"{name}~{k}"


def _files(family: list[RunCopy]) -> str:
    return ", ".join(sorted({c.source for c in family}))
