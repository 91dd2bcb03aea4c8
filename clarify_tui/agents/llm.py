"""An agent backed by any OpenAI-compatible model (`--agent openai:MODEL`).

Stateless between calls: each round rebuilds the prompt from the AgentView alone (the
InteractComp harness's system + act prompt scheme), so a stepped or forked session
resumes exactly. Output the protocol cannot use becomes an `invalid` action carrying
the corrective feedback; the engine shows it and applies the protocol's invalid limit.
A protocol's own prompts and parsing come from its roles (`registry.roles(name).llm`):
InteractComp's follow the reference harness (protocols/interactcomp/prompts.py, actions.py).
"""

from __future__ import annotations

from clarify_tui.agent_view import AgentView
from clarify_tui.llm import render
from clarify_tui.llm.actions import ActionParseError, invalid_feedback, parse_action, parse_questions
from clarify_tui.llm.client import ChatClient, Completion
from clarify_tui.llm.prompts import exists, template
from clarify_tui.llm.prompts import render as prompt
from clarify_tui.models import Action, ActionKind
from clarify_tui.protocols import registry
from clarify_tui.protocols.roles import LLMPlay

_LANGUAGES = {"zh": "Chinese", "en": "English"}


def _actions_text(view: AgentView) -> str:
    names: list[str] = []
    for kind in view.allowed:
        if kind == ActionKind.search:
            names.append("action_search")
        elif kind == ActionKind.ask:
            names.append("action_ask")
        elif kind == ActionKind.answer:
            # DiscoBench's per-checkpoint protocol says what an answer commits, and what a wrong one does
            names.append(
                ("action_answer_checkpoint_strict" if view.checkpoint_mode == "strict" else "action_answer_checkpoint")
                if view.checkpoints
                else "action_answer"
            )
        elif kind == ActionKind.visit:
            names.append("action_visit")
    return "\n\n".join(template(name).strip() for name in names)


class LLMAgent:
    """ReAct agent for InteractComp and DiscoBench; clarifier + deep search for CTS."""

    def __init__(self, client: ChatClient) -> None:
        self.client = client
        self.spec = f"openai:{client.model}"

    async def act(self, view: AgentView) -> Action:
        if view.phase == "clarify":  # CTS's clarify step (agent_view: only it has one)
            return await self._clarify(view)
        own = registry.roles(view.protocol.value).llm
        if own is not None:
            return await self._own(view, own)
        system, user = self._react_prompts(view)
        done = await self.client.complete(
            [{"role": "system", "content": system}, {"role": "user", "content": user}], f"{view.protocol.value}.agent"
        )
        try:
            action = parse_action(done.text, view.allowed)
        except ActionParseError:
            action = self._invalid(done, invalid_feedback(view.allowed))
        action.raw = done.text
        action.usage = done.usage
        return action

    async def aclose(self) -> None:
        await self.client.aclose()

    async def _own(self, view: AgentView, own: LLMPlay) -> Action:
        """The protocol's own prompts and reading of the reply (InteractComp: its reference
        harness's, protocols/interactcomp/roles.py)."""
        system, user = own.prompts(view)
        done = await self.client.complete(
            [{"role": "system", "content": system}, {"role": "user", "content": user}], f"{view.protocol.value}.agent"
        )
        action = own.read(done.text, view)
        action.usage = done.usage
        return action

    def _react_prompts(self, view: AgentView) -> tuple[str, str]:
        question = render.question_block(view)
        actions = _actions_text(view)
        last_action, last_observation = render.last_turn(view)
        notice = f"Notice: {view.notice}\n" if view.notice else ""
        fields = dict(
            memory=render.memory(view),
            last_action=last_action,
            last_observation=last_observation,
            notice=notice,
            question=question,
            round_info=render.round_info(view),
        )
        # a protocol's own system prompt for its prompting (DiscoBench's neutral or guided),
        # else CTS's deep searcher's: the generic ReAct searcher
        own = f"{view.protocol.value}_{'guided' if view.prompting == 'guided' else 'neutral'}"
        name = own if exists(own) else "cts_deep_search"
        return prompt(name, actions=actions, question=question), prompt("react_act", **fields)

    async def _clarify(self, view: AgentView) -> Action:
        """CTS Prompt A: k questions from the blurred query alone, as one JSON array."""
        text = prompt(
            "cts_clarifier",
            k=view.k,
            blurred_query=view.question,
            language=_LANGUAGES.get(view.language, view.language),
        )
        messages = [{"role": "user", "content": text}]
        previous = view.history[-1] if view.history else None
        if previous is not None and previous.action.kind == ActionKind.invalid:
            messages += [
                {"role": "assistant", "content": previous.action.raw or ""},
                {"role": "user", "content": previous.observation.text or previous.action.text},
            ]
        done = await self.client.complete(messages, "cts.clarifier")
        try:
            action = Action.clarify(parse_questions(done.text, view.k))
        except ActionParseError as exc:
            feedback = (
                f"Invalid output ({exc}). Output a single JSON array with exactly {view.k} "
                "clarification question strings."
            )
            action = self._invalid(done, feedback)
        action.raw = done.text
        action.usage = done.usage
        return action

    @staticmethod
    def _invalid(done: Completion, feedback: str) -> Action:
        return Action(kind=ActionKind.invalid, raw=done.text, text=feedback)
