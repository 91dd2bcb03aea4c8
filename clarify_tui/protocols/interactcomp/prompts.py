"""InteractComp agent prompts rendered exactly as the reference harness renders them.

github:FoundationAgents/InteractComp core/agent.py: the system prompt lists the mode's
actions in its order (:104-106), or only answer in the final round (:114); the memory is
its LinearMemory text (:48-63), whose first entry holds the user's question and, once
taken, the first action (:125-129, :246-256), so round 1 shows `User: …` over an empty
`    Action:  ()`; "Last action" names the last action in memory and, right after an
invalid output, the observation is the harness's feedback instead (:156-162); a search
with no hits reads "No results" (core/action.py:125-131). Only the AgentView is rendered:
`view.question` already carries the harness's forced_ask / full_with_context prefixes.
"""

from __future__ import annotations

from clarify_tui.agent_view import AgentView, ViewTurn
from clarify_tui.llm.prompts import render_verbatim, verbatim
from clarify_tui.llm.render import hit_lines
from clarify_tui.models import ActionKind
from clarify_tui.protocols.interactcomp.reference import action_order

_ACTION_TEXT = {
    ActionKind.answer: "action_answer_confidence",
    ActionKind.search: "action_search",
    ActionKind.ask: "action_ask_yesno",
}
ACTION_PROMPTS = tuple(_ACTION_TEXT.values())  # the prompt files an InteractComp model agent is sent
_PARAM = {ActionKind.search: "query", ActionKind.ask: "question", ActionKind.answer: "answer"}


def actions_text(allowed: list[ActionKind]) -> str:
    return "\n\n".join(verbatim(_ACTION_TEXT[kind]) for kind in action_order(allowed))


def _rounds(view: AgentView) -> list[ViewTurn]:
    """The turns that entered memory: executed actions, not invalid or refused outputs."""
    return [t for t in view.history if t.action.kind != ActionKind.invalid and not t.observation.error]


def observation_text(turn: ViewTurn) -> str:
    obs = turn.observation
    if turn.action.kind == ActionKind.search:
        if obs.data.get("search_failed"):
            return "Search failed"
        return hit_lines(obs.hits[:5]) if obs.hits else "No results"
    return obs.text


def memory(view: AgentView) -> str:
    lines = ["[Round 1]", f"User: {view.question}"]
    rounds = _rounds(view)
    if not rounds:
        return "\n".join(lines + ["    Action:  ()", "Observation: "])
    for index, turn in enumerate(rounds, 1):
        if index > 1:
            lines.append(f"[Round {index}]")
        props = f"{_PARAM[turn.action.kind]}: {turn.action.text}" if turn.action.kind in _PARAM else ""
        lines.append(f"    Action: {turn.action.kind.value} ({props})")
        lines.append(f"Observation: {observation_text(turn)}")
    return "\n".join(lines)


def last_turn(view: AgentView) -> tuple[str, str]:
    rounds = _rounds(view)
    last_action = rounds[-1].action.kind.value if rounds else ""
    if view.history and view.history[-1] not in rounds:
        return last_action, view.history[-1].observation.text or view.history[-1].action.text
    return last_action, observation_text(rounds[-1]) if rounds else ""


def round_info(view: AgentView) -> str:
    return f"{min(view.rounds_used + 1, view.max_rounds)}/{view.max_rounds}"


def prompts(view: AgentView) -> tuple[str, str]:
    """(system, user) for this round: the act prompt, or the final-round prompt."""
    system = render_verbatim("interactcomp_system", actions=actions_text(view.allowed), question=view.question)
    if view.allowed == [ActionKind.answer]:
        user = render_verbatim(
            "interactcomp_final_round", round_info=round_info(view), memory=memory(view), question=view.question
        )
    else:
        last_action, last_observation = last_turn(view)
        user = render_verbatim(
            "interactcomp_act",
            memory=memory(view),
            last_action=last_action,
            last_observation=last_observation,
            question=view.question,
            round_info=round_info(view),
        )
    return system, user
