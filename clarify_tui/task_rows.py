"""What the task picker shows of a task (protocol, id, domain, language, question), read
from a dataset in our own Task JSONL format without building the models.

Why: the workbench's first paint is the picker, and building `Task`s needs pydantic
(importing it and our models costs ~0.12 s of a 0.5 s budget). The picker draws these rows
first; the app then loads and validates the real tasks (`tasks.collection.load_all`) right
after the first paint, and a task opens only once it has been validated, so a malformed
line still ends in the loader's error naming its file and line.

`quick_rows` is a preview, never a judgement: whenever a file is not plainly Task records
carrying every shown field (another format, a missing `language`, anything odd), it
returns None and the caller loads the tasks the strict way before painting. It imports
nothing of clarify_tui but `paths`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clarify_tui.protocols import registry

DEMO = "demo"
# The protocols' names in the order `load_all` reads the demo's files (the registry's list;
# it imports no pydantic, so `play` opens the TUI fast).
PROTOCOL_NAMES = registry.names()


@dataclass(frozen=True)
class TaskRow:
    protocol: str
    id: str
    domain: str
    language: str
    question: str

    @property
    def key(self) -> str:
        """The picker's row key (ids may repeat across protocols)."""
        return f"{self.protocol}:{self.id}"


def row_of(task: Any) -> TaskRow:
    """The row of a loaded `models.Task`."""
    return TaskRow(task.protocol.value, task.id, task.domain, task.language, task.question)


def quick_rows(dataset: str | Path = DEMO, benchmark: str | None = None) -> list[TaskRow] | None:
    """The rows `load_all(dataset, benchmark)` will give if the dataset is valid, or None
    when they cannot be told cheaply (then load the tasks instead)."""
    if str(dataset) == DEMO:
        from clarify_tui.paths import demo_dir

        names = [benchmark] if benchmark else list(PROTOCOL_NAMES)
        if any(name not in PROTOCOL_NAMES for name in names):
            return None
        files: list[tuple[Path, str | None]] = [(demo_dir() / f"{name}.jsonl", name) for name in names]
    elif benchmark is None and str(dataset).lower().endswith(".jsonl"):
        files = [(Path(dataset), None)]
    else:
        return None
    rows: list[TaskRow] = []
    for path, protocol in files:
        found = _file_rows(path, protocol)
        if found is None:
            return None
        rows += found
    if not rows or len({r.id for r in rows}) != len(rows):  # empty or duplicate ids: the loader says what is wrong
        return None
    return rows


def _file_rows(path: Path, protocol: str | None) -> list[TaskRow] | None:
    try:
        text = path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    rows = []
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            return None
        row = _row(record, protocol)
        if row is None:
            return None
        rows.append(row)
    return rows


def _row(record: Any, protocol: str | None) -> TaskRow | None:
    if not isinstance(record, dict):
        return None
    task_id, kind = record.get("id"), record.get("protocol")
    question, domain, language = record.get("question"), record.get("domain", ""), record.get("language")
    if not (
        isinstance(kind, str) and isinstance(question, str) and isinstance(domain, str) and isinstance(language, str)
    ):
        return None
    if not isinstance(task_id, (str, int)) or isinstance(task_id, bool) or str(task_id) == "" or not question:
        return None
    if kind not in PROTOCOL_NAMES or (protocol and kind != protocol):
        return None
    return TaskRow(kind, str(task_id), domain, language, question)
