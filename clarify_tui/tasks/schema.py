"""The published JSON Schema of our Task format (data/schema/task.schema.json).

DiscoBench data is unpublished, so people write tasks by hand in our format; the schema
lets their editors check them. It is generated from the pydantic model so the two cannot
drift (a test compares the committed file with `schema_text()`).

Regenerate with: python -m clarify_tui.tasks.schema
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from clarify_tui.atomic_write import write_text
from clarify_tui.models import Task
from clarify_tui.paths import data_dir

DIALECT = "https://json-schema.org/draft/2020-12/schema"


def task_schema() -> dict[str, Any]:
    return {"$schema": DIALECT, **Task.model_json_schema()}


def schema_text() -> str:
    return json.dumps(task_schema(), indent=2, ensure_ascii=False) + "\n"


def schema_path() -> Path:
    return data_dir() / "schema" / "task.schema.json"


def write_schema(path: Path | None = None) -> Path:
    """Write the schema (default: data/schema/task.schema.json) and return where."""
    target = path or schema_path()
    target.parent.mkdir(parents=True, exist_ok=True)
    write_text(target, schema_text())
    return target


if __name__ == "__main__":
    print(write_schema(Path(sys.argv[1]) if len(sys.argv) > 1 else None))
