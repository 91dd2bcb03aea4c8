"""The published JSON Schemas of a session's result and of a step's state snapshot
(docs/result.schema.json, docs/state.schema.json), generated from the models in
results.py so the docs cannot drift from them (a test compares the committed files with
`schema_text()`), as tasks/schema.py does for tasks.

Regenerate with: python -m clarify_tui.results_schema
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from clarify_tui.atomic_write import write_text
from clarify_tui.paths import docs_dir
from clarify_tui.results import EpisodeState, SessionResult

DIALECT = "https://json-schema.org/draft/2020-12/schema"
UNTAGGED = (
    " The `protocol` tag is not stored: a result is its session's protocol (the `protocol`"
    " column / `session.protocol` of an export); a state snapshot's protocol part is told by"
    " its shape. Keys not listed here are kept as they are; keys an older row lacks read as"
    " their default."
)
SCHEMAS: dict[str, tuple[Any, str, str]] = {
    "result": (
        SessionResult,
        "Session result",
        "What a finished session holds (`sessions.result`, an export's `session.result`), per"
        " protocol; `{}` until the session ends." + UNTAGGED,
    ),
    "state": (
        EpisodeState,
        "Step state",
        "The episode's counters and the protocol's state after a step (`steps.state`, an"
        " export's `steps[].state`)." + UNTAGGED,
    ),
}


def schema(name: str) -> dict[str, Any]:
    model, title, description = SCHEMAS[name]
    generated = TypeAdapter(model).json_schema()
    generated.pop("title", None)
    return {"$schema": DIALECT, "title": title, "description": description, **generated}


def schema_text(name: str) -> str:
    return json.dumps(schema(name), indent=2, ensure_ascii=False) + "\n"


def schema_path(name: str) -> Path:
    return docs_dir() / f"{name}.schema.json"


def write_schemas(folder: Path | None = None) -> list[Path]:
    """Write every schema (default: into docs/) and return where."""
    written = []
    for name in SCHEMAS:
        target = (folder or docs_dir()) / f"{name}.schema.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        write_text(target, schema_text(name))
        written.append(target)
    return written


if __name__ == "__main__":
    for path in write_schemas(Path(sys.argv[1]) if len(sys.argv) > 1 else None):
        print(path)
