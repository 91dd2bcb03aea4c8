"""The published JSON Schemas of what a researcher's agent receives and returns
(docs/agent_view.schema.json, docs/action.schema.json), generated from the models so an
HTTP agent in any language is written against the same contract as a Python one. A test
compares the committed files with `schema_text()`; the wheel ships them as
`clarify_tui/schemas/` (pyproject's force-include).

Regenerate with: python -m clarify_tui.agent_schema
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Literal

from pydantic import TypeAdapter

from clarify_tui.agent_view import AgentView
from clarify_tui.models import Action

DIALECT = "https://json-schema.org/draft/2020-12/schema"
DOCS = Path(__file__).resolve().parent.parent / "docs"
# name -> (model, title, description, mode): the view as we send it, the action as we read it
SCHEMAS: dict[str, tuple[Any, str, str, Literal["serialization", "validation"]]] = {
    "agent_view": (
        AgentView,
        "AgentView",
        "What an agent is shown each turn (the body an HTTP agent receives). Hidden task fields"
        " (context but in the full_with_context ablation, clues, intent queries, gold answers,"
        " nuggets, checkpoint targets) are never in it.",
        "serialization",
    ),
    "action": (
        Action,
        "Action",
        'What an agent returns: {"kind": "search", "text": QUERY}, {"kind": "ask",'
        ' "text": QUESTION}, {"kind": "answer", "text": ANSWER, "confidence": 80},'
        ' {"kind": "clarify", "items": [Q1, Q2]} or {"kind": "visit", "text": URL}.',
        "validation",
    ),
}


def schema(name: str) -> dict[str, Any]:
    model, title, description, mode = SCHEMAS[name]
    generated = TypeAdapter(model).json_schema(mode=mode)
    generated.pop("title", None)
    generated.pop("description", None)
    return {"$schema": DIALECT, "title": title, "description": description, **generated}


def schema_text(name: str) -> str:
    return json.dumps(schema(name), indent=2, ensure_ascii=False) + "\n"


def write_schemas(folder: Path | None = None) -> list[Path]:
    written = []
    for name in SCHEMAS:
        target = (folder or DOCS) / f"{name}.schema.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(schema_text(name), encoding="utf-8")
        written.append(target)
    return written


if __name__ == "__main__":
    for path in write_schemas(Path(sys.argv[1]) if len(sys.argv) > 1 else None):
        print(path)
