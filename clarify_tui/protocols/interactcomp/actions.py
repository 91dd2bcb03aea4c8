"""InteractComp model output -> Action, by the reference harness's rules (the default).

The harness (github:FoundationAgents/InteractComp, core/agent.py:294-335) takes the
whole reply as JSON, else the first ```json fenced object, else everything from the
first `{` to the last `}`; the name is `action` (or `name`), compared exactly; the
arguments are `params` and nothing else. It then calls the action with `**params`, so a
missing or unexpected parameter is a Python TypeError that crashes the task
(action.py:87, :119, :161): we return the action with `call_error` set and the engine
ends the task scored 0. `--actions lenient` uses clarify_tui.llm.actions instead.
"""

from __future__ import annotations

import json
import re
from typing import Any

from clarify_tui.llm.actions import ActionParseError, parse_action, parse_confidence
from clarify_tui.models import Action, ActionKind
from clarify_tui.protocols.interactcomp.reference import NO_ANSWER, invalid_feedback

_FENCED = re.compile(r"```(?:json)?\s*(\{[\s\S]*?\})\s*```", re.IGNORECASE)
_BRACES = re.compile(r"(\{[\s\S]*\})")
# The keyword parameters each action's __call__ accepts (core/action.py:87, :119, :161).
_REQUIRED = {"ask": {"question"}, "search": {"query"}, "answer": {"answer", "confidence"}}
_EXTRA_OK = {"answer"}  # AnswerAction.__call__ takes **kwargs; ask and search do not
_TEXT = {"ask": "question", "search": "query", "answer": "answer"}


def _object(text: str) -> dict[str, Any] | None:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def reference_parse(text: str | None) -> tuple[str, dict[str, Any]]:
    """(name, params) as agent.py:304-335 reads them; ("", {}) when nothing parses."""
    text = text or ""
    data = _object(text)
    if data is None and (m := _FENCED.search(text)):
        data = _object(m.group(1))
    if data is None and (m := _BRACES.search(text)):
        data = _object(m.group(1))
    if not data:
        return "", {}
    params = data.get("params") or {}
    return str(data.get("action") or data.get("name") or ""), params if isinstance(params, dict) else {}


def _call_error(name: str, params: dict[str, Any]) -> str | None:
    """Why `name(**params)` would raise in the harness, or None when the call works."""
    required = _REQUIRED[name]
    missing = sorted(required - params.keys())
    extra = sorted(params.keys() - required) if name not in _EXTRA_OK else []
    if missing or extra:
        parts = [f"missing {missing}" if missing else "", f"unexpected {extra}" if extra else ""]
        return f"{name}() called with params {sorted(params)}: " + ", ".join(p for p in parts if p)
    if name == "answer" and not isinstance(params["answer"], str):
        return f"answer() needs a string answer, got {type(params['answer']).__name__}"
    return None


def _executed(kind: ActionKind, params: dict[str, Any], raw: str) -> Action:
    name = kind.value
    error = _call_error(name, params)
    value = params.get(_TEXT[name], "")
    if kind == ActionKind.answer:
        text = value.strip() if isinstance(value, str) else str(value)  # action.py:164
        given = params.get("confidence")  # run_benchmark.py:95: str(confidence or 0)
        action = Action.answer(text, parse_confidence(given) if given else 0.0)
    else:
        action = Action(kind=kind, text=value if isinstance(value, str) else str(value))
    action.raw, action.call_error = raw, error
    return action


def reference_action(text: str | None, allowed: list[ActionKind]) -> Action:
    """The action the harness would take from this reply; invalid ones carry its feedback."""
    raw = text or ""
    name, params = reference_parse(raw)
    if allowed == [ActionKind.answer]:
        # The final round (agent.py:112-148): one call; an answer is executed, anything
        # else becomes its params' "answer", or "No Answer", and is graded.
        if name == "answer":
            return _executed(ActionKind.answer, params, raw)
        content = params.get("answer") or ""
        # a string, not the answer action's dict: its confidence stays 0 (run_benchmark.py:90, :99-100)
        action = Action.answer(content if isinstance(content, str) else str(content), 0.0)
        if not content:
            action.text = NO_ANSWER
        action.raw = raw
        return action
    name = name.strip()  # agent.py:202-215: exact names of the mode's actions
    kinds = {kind.value: kind for kind in allowed}
    if name not in kinds:
        return Action(kind=ActionKind.invalid, text=invalid_feedback(allowed), raw=raw)
    return _executed(kinds[name], params, raw)


def lenient_action(text: str | None, allowed: list[ActionKind]) -> Action:
    """Our forgiving parser (aliases, flat params, <answer> tags), with the reference's
    feedback wording and its "No Answer" for an unusable final-round reply."""
    try:
        action = parse_action(text or "", allowed)
    except ActionParseError:
        if allowed == [ActionKind.answer]:
            action = Action.answer(NO_ANSWER)
        else:
            action = Action(kind=ActionKind.invalid, text=invalid_feedback(allowed))
    action.raw = text
    return action
