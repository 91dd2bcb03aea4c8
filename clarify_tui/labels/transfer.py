"""`labels import FILE.jsonl` and `labels export`: labels collected elsewhere (a
crowdsourcing platform, another tool) in and out, one label a line:

    {"session_id": "...", "step": 3, "annotator": "ann", "label": "ask", "note": "vague"}

`step` is the step's `index` in `clarify-tui export --format jsonl`, which is the stored step
index (exporters/jsonl.py writes `Step.index`, the `steps.idx` column), so it is used as it
is; it must be one of the session's decision points (points.py). `note` may be left out.

The whole file is read and checked before anything is written, and written in one
transaction: a malformed line is one error naming the file and the line, and nothing of the
file is stored. The labels go to a labels queue of the session's run named
`import:<file name>` (`import:<file name>:<run>` when the file spans several runs), as answers
with source `import`. Importing the same file again adds nothing; a line whose annotator
already labelled that point differently in that queue is reported and the first label kept
(a person's answer is never overwritten, store/work.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from clarify_tui.errors import UsageError
from clarify_tui.labels.points import item_payload, points_of
from clarify_tui.models import Session, Step
from clarify_tui.store import Store
from clarify_tui.store.work import WorkAnswer, item_id

LABELS = ("ask", "act", "unsure")
KEYS = ("session_id", "step", "annotator", "label", "note")


@dataclass(frozen=True)
class Line:
    where: str  # FILE:LINE
    session_id: str
    step: int
    annotator: str
    label: str
    note: str | None


@dataclass
class ImportResult:
    lines: int = 0
    added: int = 0
    unchanged: int = 0  # already stored, the same label
    kept: list[str] = field(default_factory=list)  # already stored with another label: the first kept
    queues: dict[str, int] = field(default_factory=dict)  # queue -> labels added


def _parse(where: str, text: str) -> Line:
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{where}: not JSON ({exc.msg}); nothing was imported") from None
    if not isinstance(obj, dict):
        raise UsageError(f"{where}: a line must be a JSON object {{{', '.join(KEYS)}}}; nothing was imported")
    missing = [k for k in KEYS[:4] if k not in obj]
    if missing:
        raise UsageError(f"{where}: missing {', '.join(missing)}; nothing was imported")
    sid, step, annotator, label, note = (obj.get(k) for k in KEYS)
    if not isinstance(sid, str) or not sid:
        raise UsageError(f"{where}: session_id must be a session id (a string); nothing was imported")
    if isinstance(step, bool) or not isinstance(step, int):
        raise UsageError(
            f"{where}: step must be an integer (the step's index in the JSONL export); nothing was imported"
        )
    if not isinstance(annotator, str) or not annotator.strip():
        raise UsageError(f"{where}: annotator must be a non-empty string; nothing was imported")
    if label not in LABELS:
        raise UsageError(f"{where}: label {label!r} is not one of {', '.join(LABELS)}; nothing was imported")
    if note is not None and not isinstance(note, str):
        raise UsageError(f"{where}: note must be text or null; nothing was imported")
    return Line(where, sid, step, annotator.strip(), label, note)


def read_lines(path: Path) -> list[Line]:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path}: not UTF-8 text ({exc.reason}); nothing was imported") from None
    return [_parse(f"{path}:{n}", raw) for n, raw in enumerate(text.splitlines(), 1) if raw.strip()]


def _check(store: Store, lines: list[Line]) -> dict[tuple[str, int], tuple[Session, list[Step], Any]]:
    """Each line's session and decision point, or the first line that names neither."""
    by_id = {s.id: s for s in store.sessions()}
    sessions: dict[str, tuple[Session, list[Step], dict[int, Any]] | None] = {}
    points: dict[tuple[str, int], tuple[Session, list[Step], Any]] = {}
    seen: dict[tuple[str, int, str], Line] = {}
    for line in lines:
        if line.session_id not in sessions:
            found = by_id.get(line.session_id)
            if found is not None:
                steps = store.steps(found.id)
                sessions[line.session_id] = (found, steps, {p.step: p for p in points_of(found, steps)})
            else:
                sessions[line.session_id] = None
        entry = sessions[line.session_id]
        if entry is None:
            raise UsageError(f"{line.where}: no session '{line.session_id}' in {store.path}; nothing was imported")
        session, steps, by_step = entry
        if session.counterfactual:
            raise UsageError(f"{line.where}: session {line.session_id} is a what-if fork; label the run's own sessions")
        if line.step not in by_step:
            known = ", ".join(str(s) for s in sorted(by_step)) or "none"
            raise UsageError(
                f"{line.where}: step {line.step} of session {line.session_id} is no decision point (a search or an "
                f"answer of the agent; this session's: {known}); nothing was imported"
            )
        key = (line.session_id, line.step, line.annotator)
        if (first := seen.get(key)) is not None and (first.label, first.note) != (line.label, line.note):
            raise UsageError(
                f"{line.where}: {line.annotator} labelled step {line.step} of session {line.session_id} already on "
                f"{first.where}, differently; nothing was imported"
            )
        seen.setdefault(key, line)
        points[(line.session_id, line.step)] = (session, steps, by_step[line.step])
    return points


def queue_names(path: Path, runs: Iterable[str]) -> dict[str, str]:
    runs = sorted(set(runs))
    base = f"import:{path.name}"
    return {run: base if len(runs) == 1 else f"{base}:{run}" for run in runs}


def import_labels(store: Store, path: Path) -> ImportResult:
    """Import `path` (see the module docstring); all of it or nothing."""
    lines = read_lines(path)
    if not lines:
        raise UsageError(f"{path}: no labels in it (one JSON object a line); nothing was imported")
    points = _check(store, lines)
    names = queue_names(path, (s.run for s, _, _ in points.values()))
    work = store.work
    for run, name in names.items():
        q = work.queue(name)
        if q is not None and (q.kind, q.run) != ("labels", run):
            raise UsageError(
                f"queue '{name}' already holds a {q.kind} queue of run '{q.run}': rename {path.name} and import it "
                "again; nothing was imported"
            )
    payloads = {key: item_payload(store, *value) for key, value in points.items()}
    result = ImportResult(lines=len(lines))
    answers = []
    for line in lines:
        session = points[(line.session_id, line.step)][0]
        answer = {"label": line.label, "note": line.note}
        answers.append((names[session.run], item_id(line.session_id, line.step), line.annotator, answer))
    kept = work.write_all(  # one transaction: all of the file or nothing
        [(name, "labels", run, {"source": "import", "file": path.name}) for run, name in names.items()],
        [(names[session.run], sid, step, payloads[(sid, step)]) for (sid, step), (session, _, _) in points.items()],
        answers,
    )
    for line, (name, _, _, answer), stored in zip(lines, answers, kept):
        if stored is None:
            result.added += 1
            result.queues[name] = result.queues.get(name, 0) + 1
        elif stored == answer:
            result.unchanged += 1
        else:
            result.kept.append(
                f"{line.where}: {line.annotator} labelled step {line.step} of session {line.session_id} "
                f"{stored.get('label')} before; that label is kept"
            )
    return result


def first_answers(answers: Iterable[WorkAnswer]) -> tuple[list[WorkAnswer], list[str]]:
    """One label per (point, annotator): their first (answers come oldest first), whichever
    queue it came through; and a line for each later one that disagrees with it."""
    kept: dict[tuple[str, str], WorkAnswer] = {}
    differing = []
    for a in answers:
        key = (a.item_id, a.annotator)
        if key not in kept:
            kept[key] = a
        elif kept[key].answer.get("label") != a.answer.get("label"):
            differing.append(
                f"{a.annotator} labelled step {a.step_idx} of session {a.session_id} "
                f"{kept[key].answer.get('label')} in queue '{kept[key].queue}' and {a.answer.get('label')} in "
                f"'{a.queue}': the first is counted"
            )
    return list(kept.values()), differing


def export_labels(store: Store, run: str | None, out: IO[str]) -> tuple[int, list[str]]:
    """Write the labels (of `run`, or every run) in the import format; returns the count and
    the disagreeing duplicates left out."""
    answers, differing = first_answers(store.work.answers(run=run, kind="labels"))
    for a in answers:
        record = {
            "session_id": a.session_id,
            "step": a.step_idx,
            "annotator": a.annotator,
            "label": a.answer.get("label"),
            "note": a.answer.get("note"),
        }
        out.write(json.dumps(record, ensure_ascii=False) + "\n")
    return len(answers), differing
