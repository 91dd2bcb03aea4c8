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
from clarify_tui.results import EpisodeState, OwnResult, OwnState, SessionResult

DIALECT = "https://json-schema.org/draft/2020-12/schema"
UNTAGGED = (
    " The `protocol` tag is not stored: a result is its session's protocol (the `protocol`"
    " column / `session.protocol` of an export); a state snapshot's protocol part is told by"
    " its shape. Keys not listed here are kept as they are; keys an older row lacks read as"
    " their default."
)
INSTALLED = (
    " An installed protocol's (docs/protocols.md) is its own model, tagged with its name:"
    " `OwnResult`/`OwnState` list what every one holds, and its own keys are kept."
)
SCHEMAS: dict[str, tuple[Any, str, str]] = {
    "result": (
        SessionResult,
        "Session result",
        "What a finished session holds (`sessions.result`, an export's `session.result`), per"
        " protocol; `{}` until the session ends." + UNTAGGED + INSTALLED,
    ),
    "state": (
        EpisodeState,
        "Step state",
        "The episode's counters and the protocol's state after a step (`steps.state`, an"
        " export's `steps[].state`)." + UNTAGGED + INSTALLED,
    ),
}
OWN = {"result": OwnResult, "state": OwnState}


def schema(name: str) -> dict[str, Any]:
    model, title, description = SCHEMAS[name]
    generated = TypeAdapter(model).json_schema()
    generated.pop("title", None)
    return {"$schema": DIALECT, "title": title, "description": description, **_with_installed(generated, OWN[name])}


def _with_installed(generated: dict[str, Any], own: type) -> dict[str, Any]:
    """The built-ins' `oneOf` becomes an `anyOf` that also admits an installed protocol's
    model: untagged, a stored value matches more than one built-in, and `oneOf` refused it."""
    defs = generated.setdefault("$defs", {})
    defs[own.__name__] = {k: v for k, v in TypeAdapter(own).json_schema().items() if k != "$defs"}
    defs = dict(sorted(defs.items()))

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(v) for v in node]
        if not isinstance(node, dict):
            return node
        if "oneOf" in node and all("$ref" in m for m in node["oneOf"]):
            node = {("anyOf" if k == "oneOf" else k): v for k, v in node.items()}
            node["anyOf"] = [*node["anyOf"], {"$ref": f"#/$defs/{own.__name__}"}]
        return {k: walk(v) for k, v in node.items()}

    return walk(generated | {"$defs": defs})


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
