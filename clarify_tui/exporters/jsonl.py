"""Full sessions as JSON Lines: the session row, the task snapshot as used, every step."""

from __future__ import annotations

import json
from typing import IO, Iterable

from clarify_tui.store import Store


def session_record(store: Store, session, steps) -> dict:
    return {
        "session": session.model_dump(mode="json"),
        "task": store.task_for(session.id).model_dump(mode="json"),
        "steps": [
            {
                "index": s.index,
                "actor": s.actor,
                "action": s.action.kind.value,
                "input": s.action.model_dump(mode="json"),
                "output": s.observation.model_dump(mode="json"),
                "tokens_in": s.tokens_in,
                "tokens_out": s.tokens_out,
                "cost_usd": s.cost_usd,
                "latency_ms": s.latency_ms,
                "model": s.model,
                "error": s.error,
                "created_at": s.created_at,
            }
            for s in steps
        ],
    }


def export_jsonl(store: Store, runs: Iterable[str] | None, out: IO[str]) -> None:
    sessions = store.sessions(runs=runs)
    steps = store.steps_by_session()
    for session in sessions:
        record = session_record(store, session, steps.get(session.id, []))
        out.write(json.dumps(record, ensure_ascii=False) + "\n")
