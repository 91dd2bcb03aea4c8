"""Turning a model's text into an Action the protocol allows right now.

The InteractComp harness expects `{"action": NAME, "params": {...}}` somewhere in the
reply. We accept that shape (also flat `{"action": "search", "query": ...}`), a few
spellings of the names, and for answers the `<answer>…</answer>` tag that deep-search
agents (WebDancer, CTS 5.2) emit. Anything else is an ActionParseError whose message
says what was wrong; the agent turns it into the paper's corrective feedback.
"""

from __future__ import annotations

import math
import re
from typing import Any

from clarify_tui.llm.parsing import find_json, strip_reasoning
from clarify_tui.models import Action, ActionKind

_ALIASES = {
    "search": ActionKind.search,
    "web_search": ActionKind.search,
    "ask": ActionKind.ask,
    "interact": ActionKind.ask,  # the InteractComp paper's name for ask (section 3.1)
    "ask_user": ActionKind.ask,
    "answer": ActionKind.answer,
    "final_answer": ActionKind.answer,
    "visit": ActionKind.visit,
    "browse": ActionKind.visit,
}
_PARAM = {
    ActionKind.search: ("query", "q", "queries"),
    ActionKind.ask: ("question", "query"),
    ActionKind.answer: ("answer", "response"),
    ActionKind.visit: ("url", "urls"),
}
_ANSWER_TAG = re.compile(r"<answer>(.*?)(?:</answer>|$)", re.DOTALL | re.IGNORECASE)
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


class ActionParseError(ValueError):
    """The model output holds no usable action; the message says why."""


def invalid_feedback(allowed: list[ActionKind]) -> str:
    """The InteractComp harness's corrective feedback for an unusable action."""
    names = ", ".join(kind.value for kind in allowed)
    return f"Invalid action. Please choose from: {names}." if names else "Invalid action."


def parse_confidence(value: Any) -> float | None:
    """0-100 from 85, "85", "85%", "85/100"; None when absent or unreadable."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        number = float(value)
    else:
        match = _NUMBER.search(str(value))
        if not match:
            return None
        number = float(match.group())
    if math.isnan(number):
        return None
    return min(100.0, max(0.0, number))


def _text_param(params: dict[str, Any], names: tuple[str, ...]) -> str | None:
    for name in names:
        value = params.get(name)
        if isinstance(value, list) and value and isinstance(value[0], str):
            value = value[0]  # WebDancer-style query lists: one query per action here
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            text = str(value).strip()
            if text:
                return text
    return None


def _looks_like_action(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("action") or value.get("name"), str)


def parse_action(text: str, allowed: list[ActionKind]) -> Action:
    """The action in `text` if it is one of `allowed`; raises ActionParseError otherwise."""
    data = find_json(text, dict, accept=_looks_like_action)
    if data is None:
        tag = _ANSWER_TAG.search(strip_reasoning(text))
        if tag and tag.group(1).strip() and ActionKind.answer in allowed:
            return Action.answer(tag.group(1).strip())
        if find_json(text, dict) is not None:
            raise ActionParseError('the JSON object has no "action" name')
        raise ActionParseError("no JSON action object found")
    name = str(data.get("action") or data.get("name")).strip().lower()
    kind = _ALIASES.get(name)
    if kind is None:
        raise ActionParseError(f"unknown action {name!r}")
    if kind not in allowed:
        raise ActionParseError(f"action {name!r} is not available now")
    params = data.get("params", data.get("parameters", data.get("arguments")))
    if not isinstance(params, dict):
        params = {k: v for k, v in data.items() if k not in ("action", "name")}
    value = _text_param(params, _PARAM[kind])
    if value is None:
        raise ActionParseError(f"action {name!r} needs a non-empty {_PARAM[kind][0]!r}")
    if kind == ActionKind.answer:
        return Action.answer(value, parse_confidence(params.get("confidence")))
    return Action(kind=kind, text=value)


def final_output_answer(text: str | None) -> str | None:
    """CTS's candidate answer from a deep-search agent's final-round output that is no answer
    action (paper 001 §4.3, §5.2: extracted from the final output "by parsing the <answer>
    tag when present, with robust fallbacks"): the tag's text (also unclosed), else the
    output itself, reasoning blocks dropped; None when it is a tool call or any other JSON
    (not an answer in words) or empty."""
    if not text or not text.strip():
        return None
    try:
        action = parse_action(text, [ActionKind.search, ActionKind.visit, ActionKind.answer])
    except ActionParseError:
        if find_json(text, dict) is not None:
            return None
        return strip_reasoning(text).strip() or None
    return action.text if action.kind == ActionKind.answer else None


def parse_questions(text: str, k: int) -> list[str]:
    """CTS Prompt A's output: a JSON array of exactly k question strings."""
    items = find_json(text, list, accept=lambda v: all(isinstance(i, str) for i in v))
    if items is None:
        raise ActionParseError("no JSON array of question strings found")
    questions = [q.strip() for q in items if q.strip()]
    if len(questions) != k:
        raise ActionParseError(f"expected exactly {k} questions, got {len(questions)}")
    return questions
