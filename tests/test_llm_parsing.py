"""Finding the action in a model's text: bare, fenced, embedded, or not there at all."""

from __future__ import annotations

import pytest

from clarify_tui.llm.actions import (
    ActionParseError,
    invalid_feedback,
    parse_action,
    parse_confidence,
    parse_questions,
)
from clarify_tui.llm.parsing import find_json
from clarify_tui.models import ActionKind

ALL = [ActionKind.search, ActionKind.ask, ActionKind.answer]


@pytest.mark.parametrize(
    "text",
    [
        '{"action": "search", "params": {"query": "Hornussen rules"}}',
        'I will search.\n```json\n{"action": "search", "params": {"query": "Hornussen rules"}}\n```',
        '```\n{"action": "search", "params": {"query": "Hornussen rules"}}\n```',
        'Thought: need facts. Action: {"action": "search", "params": {"query": "Hornussen rules"}} done',
        '{"action": "search", "query": "Hornussen rules"}',
        '{"action": "SEARCH", "params": {"query": "  Hornussen rules "}}',
        '{"action": "search", "params": {"query": ["Hornussen rules", "Swiss sport"]}}',
        '<think>maybe {"action": "answer", "params": {"answer": "x"}}</think>'
        '{"action": "search", "params": {"query": "Hornussen rules"}}',
        'Example: {"foo": 1}. Mine: {"action": "search", "params": {"query": "Hornussen rules"}}',
    ],
)
def test_search_action_shapes(text: str) -> None:
    action = parse_action(text, ALL)
    assert action.kind == ActionKind.search
    assert action.text == "Hornussen rules"


def test_answer_with_confidence_and_alias_names() -> None:
    answer = parse_action('{"action": "answer", "params": {"answer": "Hornussen", "confidence": "85%"}}', ALL)
    assert (answer.kind, answer.text, answer.confidence) == (ActionKind.answer, "Hornussen", 85.0)
    ask = parse_action('{"action": "interact", "params": {"question": "Is it Swiss?"}}', ALL)
    assert (ask.kind, ask.text) == (ActionKind.ask, "Is it Swiss?")


def test_answer_tag_fallback_only_when_answer_is_allowed() -> None:
    text = "I have enough.\n<answer>Matcha prices rose 20% in 2023.</answer>"
    assert parse_action(text, [ActionKind.search, ActionKind.answer]).text == "Matcha prices rose 20% in 2023."
    with pytest.raises(ActionParseError):
        parse_action(text, [ActionKind.search])


@pytest.mark.parametrize(
    "text, reason",
    [
        ("I think the answer is baseball.", "no JSON action"),
        ('{"action": "search", "params": {"query": "x"', "no JSON action"),  # broken JSON
        ("{'action': 'search', 'params': {'query': 'x'}}", "no JSON action"),  # python, not JSON
        ('{"action": "google", "params": {"query": "x"}}', "unknown action"),
        ('{"action": "ask", "params": {"question": ""}}', "needs a non-empty"),
        ('{"action": "answer", "params": {}}', "needs a non-empty"),
        ('{"query": "x"}', 'no "action"'),
    ],
)
def test_unusable_output(text: str, reason: str) -> None:
    with pytest.raises(ActionParseError, match=reason):
        parse_action(text, ALL)


def test_action_not_allowed_now() -> None:
    with pytest.raises(ActionParseError, match="not available"):
        parse_action('{"action": "ask", "params": {"question": "Is it Swiss?"}}', [ActionKind.answer])


def test_feedback_is_the_harness_text() -> None:
    assert invalid_feedback(ALL) == "Invalid action. Please choose from: search, ask, answer."


@pytest.mark.parametrize(
    "value, expected",
    [
        (85, 85.0),
        ("85", 85.0),
        ("85%", 85.0),
        ("85/100", 85.0),
        (150, 100.0),
        ("high", None),
        (None, None),
        (True, None),
    ],
)
def test_confidence(value, expected) -> None:
    assert parse_confidence(value) == expected


def test_questions_array() -> None:
    assert parse_questions('["Which region?", "Which year?"]', 2) == ["Which region?", "Which year?"]
    assert parse_questions('Here:\n```json\n["你想了解哪个地区？"]\n```', 1) == ["你想了解哪个地区？"]
    with pytest.raises(ActionParseError, match="exactly 2"):
        parse_questions('["Which region?"]', 2)
    with pytest.raises(ActionParseError, match="no JSON array"):
        parse_questions("1. Which region?\n2. Which year?", 2)


def test_find_json_returns_first_accepted_value() -> None:
    text = 'a {"x": 1} b {"y": 2} c [1, 2]'
    assert find_json(text, dict) == {"x": 1}
    assert find_json(text, dict, accept=lambda v: "y" in v) == {"y": 2}
    assert find_json(text, list) == [1, 2]
    assert find_json("nothing here", dict) is None
