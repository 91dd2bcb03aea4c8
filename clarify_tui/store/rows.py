"""How a session, a step and a task become table rows, and rows become models again.

Why apart from the Store: these are pure functions of one model or one row (no
connection, no lock), the part of the Store a new field touches; the Store only runs the
queries. The models are imported on first use: opening a store builds no pydantic models
(the TUI's first paint).
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

from clarify_tui.redaction import redact

if TYPE_CHECKING:
    from clarify_tui.models import Session, Step, Task


def task_key(task: Task) -> str:
    """The snapshot key: protocol, id and a hash of the content actually used."""
    digest = hashlib.sha256(task.model_dump_json().encode()).hexdigest()[:16]
    return f"{task.protocol.value}:{task.id}:{digest}"


def session_row(session: Session) -> dict[str, Any]:
    """The sessions row of `session`, without its task_key (the Store knows it)."""
    row = session.model_dump(mode="json")
    row["error"] = redact(row["error"])  # a server's 401 may quote the key it was sent (redaction.py)
    row["config"] = json.dumps(row["config"])
    row["result"] = json.dumps(row["result"])
    row["counterfactual"] = json.dumps(row["counterfactual"]) if row["counterfactual"] else None
    row["protocol"] = session.protocol.value
    return row


def session_from_row(row: dict) -> Session:
    from clarify_tui.models import Session

    row = dict(row)
    row.pop("task_key", None)
    row["config"] = json.loads(row["config"] or "{}")
    row["result"] = json.loads(row["result"] or "{}")
    if row.get("counterfactual"):
        row["counterfactual"] = json.loads(row["counterfactual"])
    return Session.model_validate({k: v for k, v in row.items() if v is not None})


def step_row(session_id: str, step: Step) -> dict[str, Any]:
    return {
        "session_id": session_id,
        "idx": step.index,
        "actor": step.actor,
        "kind": step.action.kind.value,
        "input": step.action.summary(),
        "action": step.action.model_dump_json(),
        "output": redact(step.observation.model_dump_json()),
        "tokens_in": step.tokens_in,
        "tokens_out": step.tokens_out,
        "cost_usd": step.cost_usd,
        "latency_ms": step.latency_ms,
        "model": step.model,
        "error": redact(step.error),
        "state": json.dumps(step.state.stored()),
        "created_at": step.created_at,
        "retries": step.retries,
        "retry_cause": redact(step.retry_cause),
    }


def step_from_row(r: dict) -> Step:
    from clarify_tui.models import Action, Observation, Step
    from clarify_tui.results import EpisodeState

    return Step(
        index=r["idx"],
        actor=r["actor"],
        action=Action.model_validate_json(r["action"]),
        observation=Observation.model_validate_json(r["output"]),
        tokens_in=r["tokens_in"] or 0,
        tokens_out=r["tokens_out"] or 0,
        cost_usd=r["cost_usd"],  # NULL: an unpriced model's call
        latency_ms=r["latency_ms"] or 0.0,
        model=r["model"],
        error=r["error"],
        state=EpisodeState.model_validate_json(r["state"] or "{}"),
        created_at=r["created_at"],
        retries=r.get("retries") or 0,
        retry_cause=r.get("retry_cause"),
    )


def field_text(value: Any) -> Any:
    """A run row's field as stored: dicts and lists as JSON."""
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    return value
