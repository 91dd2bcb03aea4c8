"""Our own format: one `Task` (clarify_tui.models) per JSONL line, or a JSON array of them.

This is the only format for DiscoBench (its data is unpublished) and the bundled demo
sets; any protocol may use it. The JSON Schema is published as
data/schema/task.schema.json. Two conveniences: `protocol` may be left out when the
caller names the benchmark, and `language` is detected from the question when absent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from clarify_tui.models import Protocol, Task
from clarify_tui.tasks.language import detect_language
from clarify_tui.tasks.problems import Problems, field_path
from clarify_tui.tasks.sourced import Sourced
from clarify_tui.tasks.textfile import Record

PART_KEYS = tuple(p.value for p in Protocol)


def is_task_record(record: dict[str, Any]) -> bool:
    return "protocol" in record or any(isinstance(record.get(k), dict) for k in PART_KEYS)


def tasks_from_records(
    path: Path, records: list[Record], problems: Problems, protocol: Protocol | None = None
) -> list[Sourced]:
    tasks: list[Sourced] = []
    for line, record in records:
        data = dict(record)
        if "protocol" not in data and protocol is not None:
            data["protocol"] = protocol.value
        if "language" not in data and isinstance(data.get("question"), str):
            data["language"] = detect_language(data["question"])
        try:
            tasks.append(Sourced(Task.model_validate(data), str(path), line))
        except ValidationError as err:
            problems.add_validation_error(err, lambda loc: (str(path), line, field_path(loc)))  # noqa: B023 (called at once)
    return tasks
