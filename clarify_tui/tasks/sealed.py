"""Tasks from an encrypted release stay encrypted at rest.

The InteractComp release encrypts its text fields so that the benchmark does not leak
into training data. A task loaded from such a release carries its canary (`seal_task`);
wherever it is written — the tasks table, `export --format jsonl` — its sealed fields
(question, domain, gold answer and aliases, hidden context and distractors) are written
encrypted with the release's own scheme and canary, and the JSON carries a `sealed`
block naming the scheme, the canary and the fields. Reading it back (`open_task`)
decrypts in memory and seals the Task again, so re-saving it keeps it encrypted. Only
`export --include-hidden` writes the plaintext.

Tasks not from an encrypted release are stored as they are.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from clarify_tui.errors import UsageError
from clarify_tui.models import Task
from clarify_tui.protocols.interactcomp.tasks import decrypt_field, encrypt_field

SCHEME = "interactcomp-release"  # Base64(UTF-8 XOR SHA-256(canary) repeated): protocols/interactcomp/tasks.py
SEALED_KEY = "sealed"
# Field paths: a dotted path to a string, or to a list of strings.
SEALED_FIELDS = (
    "question",
    "domain",
    "answer.text",
    "answer.aliases",
    "interactcomp.context",
    "interactcomp.distractors",
)


def seal_task(task: Task, canary: str) -> Task:
    """Mark a task as coming from an encrypted release with this canary (in memory only)."""
    task._canary = canary
    return task


def canary_of(task: Task) -> str | None:
    return getattr(task, "_canary", None)


def _apply(data: dict[str, Any], path: str, fn) -> bool:
    *parents, leaf = path.split(".")
    node: Any = data
    for name in parents:
        node = node.get(name) if isinstance(node, dict) else None
        if node is None:
            return False
    if not isinstance(node, dict) or node.get(leaf) is None:
        return False
    value = node[leaf]
    node[leaf] = [fn(v) for v in value] if isinstance(value, list) else fn(value)
    return True


def sealed_dict(task: Task) -> dict[str, Any]:
    """The task as JSON-ready data, with its sealed fields encrypted when it has a canary."""
    data = task.model_dump(mode="json")
    canary = canary_of(task)
    if canary is None:
        return data
    fields = [p for p in SEALED_FIELDS if _apply(data, p, lambda v: encrypt_field(v, canary))]
    data[SEALED_KEY] = {"scheme": SCHEME, "canary": canary, "fields": fields}
    return data


def sealed_json(task: Task) -> str:
    return json.dumps(sealed_dict(task), ensure_ascii=False, separators=(",", ":"))


def open_dict(data: dict[str, Any]) -> Task:
    """A Task from stored or exported data, decrypting sealed fields in memory."""
    seal = data.get(SEALED_KEY)
    if seal is None:
        return Task.model_validate(data)
    if seal.get("scheme") != SCHEME:
        raise UsageError(f"task {data.get('id')!r} is sealed with an unknown scheme {seal.get('scheme')!r}")
    plain = copy.deepcopy({k: v for k, v in data.items() if k != SEALED_KEY})  # the caller's data stays sealed
    canary = seal["canary"]
    for path in seal.get("fields") or []:
        _apply(plain, path, lambda v: decrypt_field(v, canary))
    return seal_task(Task.model_validate(plain), canary)


def open_task(text: str) -> Task:
    return open_dict(json.loads(text))
