"""The InteractComp reference harness's own wordings and readings, for faithful runs.

Source: github:FoundationAgents/InteractComp at commit 737d0e7 ("Add ask_only mode");
each rule cites its file and line there. The protocol wordings (question prefixes,
feedback, action order) are always used; the two readings (`responder_reading`,
`grader_reading`) by default (`--compat paper`, and `reference`), so that the numbers are
the paper's, though the harness reads "I don't know." as *no* and any reply containing
"yes" as correct; `--compat strict` reads replies our way (`llm/yesno.py`). See compat.py.
"""

from __future__ import annotations

from clarify_tui.models import ActionKind

# run_benchmark.py:46-56: the action list of each mode, in the order the harness
# prints them under "## Available actions" and in its invalid-action feedback.
_ORDER = {
    frozenset({ActionKind.answer}): (ActionKind.answer,),
    frozenset({ActionKind.search, ActionKind.answer}): (ActionKind.search, ActionKind.answer),
    frozenset({ActionKind.ask, ActionKind.answer}): (ActionKind.ask, ActionKind.answer),
}
_FULL_ORDER = (ActionKind.answer, ActionKind.search, ActionKind.ask)

# agent.py:88 and :197/:212: the task is skipped when the consecutive invalid outputs
# of one round exceed 3, i.e. on the 4th.
MAX_INVALID_RETRIES = 3
NO_ANSWER = "No Answer"  # agent.py:136-148: a final-round reply that is not an answer


def action_order(allowed: list[ActionKind]) -> list[ActionKind]:
    """The allowed actions in the harness's order for that action space."""
    order = _ORDER.get(frozenset(allowed), _FULL_ORDER)
    return [kind for kind in order if kind in allowed]


def invalid_feedback(allowed: list[ActionKind]) -> str:
    """agent.py:208-210."""
    names = ", ".join(kind.value for kind in action_order(allowed))
    return f"Invalid action. Please choose from: {names}." if names else "Invalid action."


def early_answer_feedback(required: int, asks: int) -> str:
    """agent.py:190-193: forced_ask refuses an answer before `required` asks."""
    return f"Answer is not allowed before {required} asks. Asks so far: {asks}/{required}. Please use ask or search."


def harness_question(question: str, mode: str, context: str | None, forced_asks: int) -> str:
    """The question as the harness gives it to the agent (run_benchmark.py:71-85):
    full_with_context puts the hidden context before it, forced_ask a constraints line."""
    if mode == "full_with_context" and context:
        question = f"CONTEXT:\n{context}\n\nQUESTION:\n{question}"
    if mode == "forced_ask":
        constraints = (
            f"Constraints: You must perform at least {forced_asks} ask actions before answering. "
            f"Early answers will be rejected. The final round must answer."
        )
        question = f"{constraints}\n\nQUESTION:\n{question}"
    return question


_YES_WORDS = {"yes", "y", "sure", "correct", "true", "是", "是的", "对", "对的", "正确"}
_NO_WORDS = {"no", "n", "false", "incorrect", "不是", "不对", "否", "错误"}
_UNKNOWN_WORDS = {"idk", "i don't know", "i dont know", "不知道", "不清楚", "无法确定", "信息不足"}


def responder_reading(reply: str | None) -> str:
    """responder.py:48-66: the first line only, exact words, then substrings in the
    order yes, no, don't know (so "I don't know." is *no*, "not sure" is *no*)."""
    if not reply:
        return "i don't know"
    lines = reply.strip().lower().splitlines()
    first = lines[0].strip() if lines else ""
    if first in _YES_WORDS:
        return "yes"
    if first in _NO_WORDS:
        return "no"
    if first in _UNKNOWN_WORDS:
        return "i don't know"
    if "yes" in first:
        return "yes"
    if "no" in first:
        return "no"
    return "i don't know"


def grader_reading(reply: str | None) -> bool:
    """benchmark.py:143-148: correct when "yes" occurs anywhere in the reply."""
    return "yes" in (reply or "").strip().lower()
