"""One session as Inspect sees a sample: its messages, the events `inspect view` lists in
the sample's transcript, and its token usage (exporters/inspect_eval.py writes the log).

Why events and not only messages: the viewer's Transcript tab shows a sample's events
(model calls, tool calls, info), and its token counts come from the sample's
`model_usage`. Mapping, one stored step at a time:
- an agent step is a model call (`ModelEvent`: the messages so far in, the agent's own
  output and its move as a tool call out, the step's tokens) and the move run as a tool
  (`ToolEvent`: search, ask, visit, clarify, answer, with what came back). The prompt
  itself is not stored, so the call's input is the conversation as the transcript has it.
  A person playing the agent made no model call: only the tool call.
- a user step is an `InfoEvent` (source `user`): the question and the reply (CTS: each
  answer, then the rewrite); a judge step an `InfoEvent` (source `judge`) with its verdict.
  A user or judge that called a model also gets a `ModelEvent` under its role.
- the sample's score is a final `ScoreEvent`; an errored session an `ErrorEvent`.
Usage: `model_usage` is keyed by the model that answered (the role's spec when the step
names none), `role_usage` by role: `agent` (the model under test), `deep_search` (CTS's
fixed deep searcher), `user`, `judge`. An unpriced call leaves the cost unknown (None),
never $0, as `score` counts it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from clarify_tui.models import ActionKind, Session, Step
from clarify_tui.protocols import registry


@dataclass
class Transcript:
    """What one session becomes in an Inspect sample."""

    messages: list[Any] = field(default_factory=list)
    events: list[Any] = field(default_factory=list)
    model_usage: dict[str, Any] = field(default_factory=dict)
    role_usage: dict[str, Any] = field(default_factory=dict)


def _fixes_deep_search(session: Session) -> bool:
    """Its protocol hands the search phase to a fixed deep searcher (CTS's `--deep-search`)."""
    return "deep_search" in registry.get(session.protocol).run_flags


def step_role(session: Session, step: Step, searching: bool) -> str:
    """Who made the step: the actor, but in CTS with a fixed deep searcher its search phase
    (after the rewrite, or all of `k=0`) is the deep searcher's, not the clarifier's."""
    if step.actor == "agent" and session.config.deep_search and searching and _fixes_deep_search(session):
        return "deep_search"
    return step.actor


def role_spec(session: Session, role: str) -> str:
    return {
        "agent": session.agent,
        "user": session.user,
        "judge": session.judge,
        "deep_search": session.config.deep_search or session.agent,
    }.get(role, role)


def add_usage(a: Any, b: Any) -> Any:
    """Inspect's ModelUsage sum, but an unknown cost stays unknown (None), never dropped."""
    from inspect_ai.model import ModelUsage

    if a is None:
        return b
    return ModelUsage(
        input_tokens=a.input_tokens + b.input_tokens,
        output_tokens=a.output_tokens + b.output_tokens,
        total_tokens=a.total_tokens + b.total_tokens,
        total_cost=None if a.total_cost is None or b.total_cost is None else a.total_cost + b.total_cost,
    )


def _usage(step: Step) -> Any:
    from inspect_ai.model import ModelUsage

    return ModelUsage(
        input_tokens=step.tokens_in,
        output_tokens=step.tokens_out,
        total_tokens=step.tokens_in + step.tokens_out,
        total_cost=step.cost_usd,
    )


def _called_a_model(step: Step) -> bool:
    return bool(step.model or step.tokens_in or step.tokens_out)


def _when(step: Step) -> datetime:
    return datetime.fromisoformat(step.created_at)


def _reply(step: Step) -> str:
    obs = step.observation
    if obs.hits:
        return "\n".join(f"{h.title}: {h.content} ({h.url})" for h in obs.hits)
    if obs.items:
        return "\n".join(obs.items)
    return obs.error or obs.text


def _arguments(step: Step) -> dict[str, Any]:
    action = step.action
    args: dict[str, Any] = {"items": action.items} if action.kind == ActionKind.clarify else {"text": action.text}
    if action.confidence is not None:
        args["confidence"] = action.confidence
    return args


def build(session: Session, steps: list[Step], question: str) -> Transcript:
    """The session's messages, events and usage, in step order."""
    from inspect_ai.event import ErrorEvent, InfoEvent, ModelEvent, ToolEvent
    from inspect_ai.model import (
        ChatCompletionChoice,
        ChatMessageAssistant,
        ChatMessageTool,
        ChatMessageUser,
        GenerateConfig,
        ModelOutput,
    )
    from inspect_ai.tool import ToolCall, ToolCallError

    out = Transcript(messages=[ChatMessageUser(content=question)])
    elapsed = 0.0  # seconds into the sample: each event's working_start
    searching = session.config.k == 0
    last_question = ""
    for step in steps:
        role = step_role(session, step, searching)
        spec = step.model or role_spec(session, role)
        when, took = _when(step), step.latency_ms / 1000
        timing = dict(timestamp=when, working_start=round(elapsed, 3))
        if _called_a_model(step):
            usage = _usage(step)
            out.model_usage[spec] = add_usage(out.model_usage.get(spec), usage)
            out.role_usage[role] = add_usage(out.role_usage.get(role), usage)
        if step.actor == "agent":
            action, call_id = step.action, f"{session.id}-{step.index}"
            last_question = action.text if action.kind == ActionKind.ask else last_question
            call = ToolCall(id=call_id, function=action.kind.value, arguments=_arguments(step))
            said = ChatMessageAssistant(content=action.raw or "", model=spec, tool_calls=[call])
            if session.mode != "human_agent":
                output = ModelOutput(
                    model=spec,
                    choices=[ChatCompletionChoice(message=said, stop_reason="tool_calls")],
                    usage=_usage(step),
                    time=took,
                )
                out.events.append(
                    ModelEvent(
                        model=spec,
                        role=None if role == "agent" else role,
                        input=list(out.messages),
                        tools=[],
                        tool_choice="auto",
                        config=GenerateConfig(),
                        output=output,
                        error=step.error,
                        completed=when + timedelta(seconds=took),
                        working_time=took,
                        **timing,
                    )
                )
            reply = _reply(step) or "(nothing)"
            error = ToolCallError("unknown", step.observation.error) if step.observation.error else None
            answered = ChatMessageTool(content=reply, tool_call_id=call_id, function=action.kind.value, error=error)
            out.messages += [said, answered]
            out.events.append(
                ToolEvent(
                    id=call_id,
                    function=action.kind.value,
                    arguments=call.arguments,
                    result=reply,
                    error=error,
                    message_id=answered.id,
                    **timing,
                )
            )
        else:
            info = _info(session, step, last_question)
            if _called_a_model(step):  # what it was given in words (the question asked), what it said
                said_to = ChatMessageUser(
                    content=str(info.get("question") or step.action.text or step.action.kind.value)
                )
                said_back = step.action.raw or str(info.get("reply") or info.get("verdict") or step.action.text)
                output = ModelOutput.from_content(model=spec, content=said_back)
                output.usage = _usage(step)
                out.events.append(
                    ModelEvent(
                        model=spec,
                        role=role,
                        input=[said_to],
                        tools=[],
                        tool_choice="none",
                        config=GenerateConfig(),
                        output=output,
                        working_time=took,
                        **timing,
                    )
                )
            out.events.append(InfoEvent(source=step.actor, data=info, **timing))
            if step.action.kind == ActionKind.rewrite:
                searching = True
        elapsed += took
    if session.status == "errored":
        from inspect_ai.log import EvalError

        text = session.error or "errored"
        out.events.append(
            ErrorEvent(
                error=EvalError(message=text.splitlines()[0], traceback=text, traceback_ansi=text),
                working_start=round(elapsed, 3),
            )
        )
    return out


def _info(session: Session, step: Step, last_question: str) -> dict[str, Any]:
    """A user's reply or a judge's verdict, in words and with the step's recorded data."""
    action, obs = step.action, step.observation
    if step.actor == "user" and action.kind == ActionKind.rewrite:
        return {"rewrite": action.text}
    if step.actor == "user" and registry.get(session.protocol).user_step == "question":  # the answer in obs
        return {"question": action.text, "reply": obs.text, **obs.data}
    if step.actor == "user":
        return {"question": last_question, "reply": action.text, **obs.data}
    return {step.actor: action.text, "verdict": obs.text or obs.error or "", **obs.data}
