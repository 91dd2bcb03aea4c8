"""How an agent's own history is written into its prompt.

The format follows the InteractComp harness's memory (`[Round i]`, `Action: name
(param: value)`, `Observation: …`) and its search observation lines (`1. title — snippet
(src: url)`). Only the AgentView is rendered, so hidden task fields cannot get in.
Invalid turns are not memory: their feedback is shown once as the last observation.
"""

from __future__ import annotations

from clarify_tui.agent_view import AgentView, ViewTurn
from clarify_tui.models import ActionKind, Observation, SearchHit

PAGE_CHARS = 6000  # a visited page is cut to this many characters in the prompt


def observation_text(obs: Observation) -> str:
    if obs.error:
        return f"Error: {obs.error}"
    if obs.hits:
        return hit_lines(obs.hits)
    if obs.items:
        return "\n".join(obs.items)
    text = obs.text or ""
    return text if len(text) <= PAGE_CHARS else text[:PAGE_CHARS] + " …[truncated]"


def hit_lines(hits: list[SearchHit]) -> str:
    """Search hits as the InteractComp harness shows them (core/action.py:126-131)."""
    return "\n".join(f"{i}. {hit.title} — {hit.content} (src: {hit.url})" for i, hit in enumerate(hits, 1))


def action_text(turn: ViewTurn) -> str:
    action = turn.action
    if action.kind == ActionKind.search:
        props = f"query: {action.text}"
    elif action.kind == ActionKind.ask:
        props = f"question: {action.text}"
    elif action.kind == ActionKind.visit:
        props = f"url: {action.text}"
    elif action.kind == ActionKind.answer:
        props = f"answer: {action.text}"
        if action.confidence is not None:
            props += f", confidence: {action.confidence:g}"
    elif action.kind == ActionKind.clarify:
        props = "questions: " + " | ".join(action.items)
    else:
        props = action.text
    return f"{action.kind.value} ({props})"


def memory(view: AgentView) -> str:
    lines: list[str] = []
    rounds = [t for t in view.history if t.action.kind != ActionKind.invalid]
    for index, turn in enumerate(rounds, 1):
        lines.append(f"[Round {index}]")
        lines.append(f"    Action: {action_text(turn)}")
        lines.append(f"Observation: {observation_text(turn.observation)}")
    return "\n".join(lines) if lines else "(empty)"


def last_turn(view: AgentView) -> tuple[str, str]:
    """(last action name, last observation) for the act prompt; feedback if it was invalid."""
    if not view.history:
        return "", ""
    turn = view.history[-1]
    if turn.action.kind == ActionKind.invalid:
        return "invalid", turn.observation.text or turn.action.text
    return turn.action.kind.value, observation_text(turn.observation)


def round_info(view: AgentView) -> str:
    return f"{min(view.rounds_used + 1, view.max_rounds)}/{view.max_rounds}"


def question_block(view: AgentView) -> str:
    """The question, plus the hidden context only in the full_with_context ablation."""
    if view.context:
        return f"{view.question}\n\n## Context\n{view.context}"
    return view.question
