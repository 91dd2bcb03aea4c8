"""Finding JSON in free-form model output.

Why not `json.loads(text)`: models wrap their JSON in prose, code fences, or a reasoning
block (`<think>…</think>`) that may itself contain example JSON. We look, in order, at
the bare text, each fenced block, then each balanced value in the text, and return the
first one the caller accepts.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

_THINK = re.compile(r"<think>.*?(?:</think>|$)", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_-]*)[ \t]*\n?(.*?)```", re.DOTALL)
_DECODER = json.JSONDecoder()


def strip_reasoning(text: str) -> str:
    """Drop `<think>` blocks (R1/Qwen-style reasoning) so only the final output is read."""
    return _THINK.sub("", text or "").strip()


def _candidates(text: str, opener: str):
    stripped = text.strip()
    yield stripped
    for match in _FENCE.finditer(text):
        yield match.group(2).strip()
    for index, char in enumerate(text):
        if char == opener:
            yield index


def find_json(text: str, kind: type = dict, accept: Callable[[Any], bool] | None = None) -> Any:
    """The first JSON value of type `kind` (dict or list) in `text` that `accept` likes.

    Returns None when there is none. Only valid JSON counts: broken JSON is not repaired,
    so the caller can tell the model its output was unusable.
    """
    body = strip_reasoning(text)
    opener = "{" if kind is dict else "["
    for candidate in _candidates(body, opener):
        try:
            if isinstance(candidate, int):
                value, _ = _DECODER.raw_decode(body, candidate)
            else:
                value = json.loads(candidate)
        except (json.JSONDecodeError, ValueError):
            continue
        if isinstance(value, kind) and (accept is None or accept(value)):
            return value
    return None
