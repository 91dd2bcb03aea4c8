"""A native tool-calling agent: the OpenAI chat API with search / ask / answer (and CTS's
clarify) as `tools`, the way most agents are built today. A second baseline beside the
papers' text prompts (`openai:MODEL`), written only against docs/agents.md.

    clarify-tui run --benchmark interactcomp --agent py:examples/tool_agent.py:ToolAgent \\
        --agent-arg model=gpt-4o-mini

Any OpenAI-compatible server: `base_url` (or OPENAI_BASE_URL) and OPENAI_API_KEY. Each turn
is rebuilt from the view (the agent keeps no state between turns), offering only the tools
`view.allowed` permits. A server or network failure raises AgentUnavailable (the session is
errored, counted apart); a reply with no usable tool call is the model's own failure
(scored wrong).
"""

from __future__ import annotations

import json
import os

import openai

from clarify_tui import Action, AgentUnavailable, AgentView, Usage

TOOLS = {
    "search": ("Search the web.", {"query": {"type": "string"}}, ["query"]),
    "ask": ("Ask the user one clarifying question.", {"question": {"type": "string"}}, ["question"]),
    "answer": (
        "Give your answer (ends this checkpoint or the task).",
        {"answer": {"type": "string"}, "confidence": {"type": "number", "description": "0-100"}},
        ["answer"],
    ),
    "clarify": (
        "Ask the user all your clarifying questions at once.",
        {"questions": {"type": "array", "items": {"type": "string"}}},
        ["questions"],
    ),
}
SYSTEM = (
    "You answer questions that may be ambiguous. Use the tools: search the web, ask the user a "
    "clarifying question when the question is ambiguous, and answer when you are sure. Always call a tool."
)


def tool(name: str) -> dict:
    description, properties, required = TOOLS[name]
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": required},
        },
    }


def messages(view: AgentView) -> list[dict]:
    """The conversation so far, from the view: each past action as a tool call and what
    came back as its result."""
    task = view.question
    if view.phase == "clarify":
        task += f"\n\nAsk exactly {view.k} clarifying question(s) with the clarify tool."
    if view.checkpoints:
        task += f"\n\nThe question has {view.checkpoints} steps; answer step {view.checkpoint} now."
    if view.notice:
        task += f"\n\n{view.notice}"
    out: list[dict] = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": task}]
    for i, turn in enumerate(view.history):
        a = turn.action
        args = {
            "search": {"query": a.text},
            "ask": {"question": a.text},
            "clarify": {"questions": a.items},
            "answer": {"answer": a.text, "confidence": a.confidence},
        }.get(a.kind.value, {"text": a.text})
        call_id = f"call_{i}"
        out.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": a.kind.value, "arguments": json.dumps(args)},
                    }
                ],
            }
        )
        obs = turn.observation
        result = obs.error or obs.text
        if obs.hits:
            result = "\n".join(f"{h.title}: {h.content} ({h.url})" for h in obs.hits)
        out.append({"role": "tool", "tool_call_id": call_id, "content": result or "(nothing)"})
    return out


class ToolAgent:
    def __init__(
        self, model: str = "gpt-4o-mini", base_url: str | None = None, temperature: float = 0.0, seed: int | None = None
    ) -> None:
        self.model, self.temperature, self.seed = model, temperature, seed
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL")
        self._client: openai.AsyncOpenAI | None = None

    def client(self) -> openai.AsyncOpenAI:
        if self._client is None:
            self._client = openai.AsyncOpenAI(
                base_url=self.base_url, api_key=os.environ.get("OPENAI_API_KEY") or "no-key"
            )
        return self._client

    async def act(self, view: AgentView) -> Action:
        names = [k.value for k in view.allowed if k.value in TOOLS]
        extra = {"seed": self.seed} if self.seed is not None else {}
        try:
            reply = await self.client().chat.completions.create(
                model=self.model,
                messages=messages(view),
                tools=[tool(n) for n in names],  # type: ignore[arg-type]
                tool_choice="required",
                temperature=self.temperature,
                **extra,
            )
        except (
            openai.APIConnectionError,
            openai.APITimeoutError,
            openai.RateLimitError,
            openai.InternalServerError,
            openai.AuthenticationError,
        ) as exc:
            raise AgentUnavailable(f"{type(exc).__name__}: {exc}") from exc
        message = reply.choices[0].message
        if not message.tool_calls:
            raise ValueError(f"the model called no tool: {(message.content or '')[:200]!r}")
        call = message.tool_calls[0].function
        args = json.loads(call.arguments or "{}")
        if call.name == "search":
            action = Action.search(args["query"])
        elif call.name == "ask":
            action = Action.ask(args["question"])
        elif call.name == "clarify":
            action = Action.clarify(list(args["questions"]))
        elif call.name == "answer":
            action = Action.answer(str(args["answer"]), args.get("confidence"))
        else:
            raise ValueError(f"the model called an unknown tool {call.name!r}")
        action.raw = f"{call.name}({call.arguments})"
        if reply.usage is not None:
            action.usage = Usage(
                tokens_in=reply.usage.prompt_tokens, tokens_out=reply.usage.completion_tokens, model=reply.model
            )
        return action

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None
