"""Full sessions as JSON Lines: enough to re-score every number of `clarify-tui score`
without our database (`clarify-tui score --from-export FILE`).

One line per session, in the database's order (created_at, id):

- `session`: the session row (its `result` is the engine's own verdicts);
- `provenance`: its run's provenance (clarify_tui/provenance.py: version, command, each
  role's resolved settings, prompt and dataset sha256; null for sessions of no recorded run);
- `task`: the task snapshot as used (docs/scoring.md: hidden fields of an encrypted
  release stay encrypted unless `include_hidden`);
- `steps`: every step with its actor, tokens, cost and latency;
- `judgments`: every stored re-judging verdict (`clarify-tui judge`), oldest first: id,
  judge spec, kind, the verdict as stored (answer verdict or nugget coverage, with its
  usage), its tokens, cost, latency and time;
- `score_inputs`: which verdict each metric of `score` reads for this session, under the
  default selection (latest judgment of any judge) and under `--judge SPEC` for every
  judge that judged it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import IO, Any

from clarify_tui.metrics.records import from_session
from clarify_tui.metrics.report import is_counted
from clarify_tui.protocols import registry
from clarify_tui.store import Store


def session_record(
    store: Store,
    session,
    steps,
    judgments: list[dict] | None = None,
    include_hidden: bool = False,
    provenance: dict | None = None,
    duplicate_of: str | None = None,
) -> dict:
    """`duplicate_of`: the session scored in this one's place (metrics/once.py)."""
    judgments = store.judgments(session.id) if judgments is None else judgments
    return {
        "session": session.model_dump(mode="json"),
        "provenance": provenance,
        "task": store.task_record(session.id, include_hidden=include_hidden),
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
        "judgments": [judgment_record(j) for j in judgments],
        "score_inputs": score_inputs(session, steps, judgments, duplicate_of),
    }


def judgment_record(row: dict) -> dict:
    usage = row["verdict"].get("usage") or {}
    return {
        "id": row["id"],
        "judge": row["judge"],
        "kind": row["kind"],
        "verdict": row["verdict"],
        "tokens_in": int(usage.get("tokens_in") or 0),
        "tokens_out": int(usage.get("tokens_out") or 0),
        "cost_usd": _judgment_cost(usage),
        "latency_ms": usage.get("latency_ms"),  # null for verdicts stored before it was recorded
        "created_at": row.get("created_at"),
    }


def _judgment_cost(usage: dict) -> float | None:
    """A verdict's dollars: 0 when it made no model call (a rule judge), null when its
    model had no price (llm/pricing.py), never 0 for that."""
    cost = usage.get("cost_usd", 0.0)
    return None if cost is None else float(cost)


def _selection(
    session, steps, judgments: list[dict], judge: str | None, duplicate_of: str | None = None
) -> dict[str, Any]:
    scored = from_session(session, steps, judgments, judge=judge)
    protocol = str(session.protocol)
    verdicts = {kind: {"judgment": None, "judge": session.judge} for kind in _kinds(protocol)}
    verdicts.update(scored.inputs)
    counted = is_counted(scored) and duplicate_of is None
    excluded = None
    if duplicate_of is not None:
        excluded = "duplicate"  # the task is scored by the session `duplicate_of` (metrics/once.py)
    elif not counted:
        excluded = session.status if session.status != "completed" else "unjudged"
    out = {"judged_by": scored.judged_by, "scored": counted, "excluded_as": excluded, "verdicts": verdicts}
    if duplicate_of is not None:
        out["duplicate_of"] = duplicate_of
    return out


def _kinds(protocol: str) -> list[str]:
    return sorted({kind for kind in metric_inputs(protocol).values() if kind != "engine"})


def score_inputs(session, steps, judgments: list[dict], duplicate_of: str | None = None) -> dict:
    """Which verdict each metric reads: `verdicts` maps a judgment kind to the judgment id
    used (null: the engine's own verdict in session.result); `metrics` maps each metric to
    that kind ("engine": result fields no judgment replaces)."""
    specs = sorted({j["judge"] for j in judgments} | {session.judge})
    return {
        "default": {"judge": None, **_selection(session, steps, judgments, None, duplicate_of)},
        "by_judge": {spec: _selection(session, steps, judgments, spec, duplicate_of) for spec in specs},
        "metrics": metric_inputs(str(session.protocol)),
    }


def export_jsonl(store: Store, runs: Iterable[str] | None, out: IO[str], include_hidden: bool = False) -> int:
    """Every session of `runs`, one JSON line each; returns how many were written."""
    from clarify_tui.metrics.once import count_once

    sessions = store.sessions(runs=runs)
    baseline = [s for s in sessions if not s.counterfactual]  # `whatif` forks are never scored as the baseline
    duplicate_of = {d.left_out.id: d.kept.id for d in count_once(baseline)[1]}
    steps = store.steps_by_session()
    judgments = store.judgments_by_session()
    provenances = store.run_provenances()
    for session in sessions:
        record = session_record(
            store,
            session,
            steps.get(session.id, []),
            judgments.get(session.id, []),
            include_hidden=include_hidden,
            provenance=provenances.get(session.run),
            duplicate_of=duplicate_of.get(session.id),
        )
        out.write(json.dumps(record, ensure_ascii=False) + "\n")
    return len(sessions)


def metric_inputs(protocol: str) -> dict[str, str]:
    """Metric -> the judgment kind it reads, as the protocol's spec says ({} for no protocol)."""
    return dict(registry.get(protocol).metric_inputs) if protocol in registry.names() else {}
