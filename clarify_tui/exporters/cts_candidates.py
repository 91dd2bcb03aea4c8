"""CTS sessions as a Clarify-Then-Search candidate file (JSON Lines), the file the release's
`eval_gold.py` reads with `--gold_b`, one object per completed cts session (errored,
running and abandoned sessions are left out: they have no deep-search answer), a task
counted once per run, role and player as `score` counts it (exporters/counted.py).

The release does not document the candidate fields; the task id and the deep-search
answer are what nugget scoring needs, the rest is the clarification trace. Every field
and where it comes from:

| field | from |
|---|---|
| id | the task id (the release's query id) |
| run | the session's run |
| system | the session's agent spec |
| k | result.k (the clarification budget) |
| orig | result.orig (no clarification) |
| blurred_query | the task's blurred (underspecified) query |
| questions | result.questions (the clarifier's k questions; [] for orig) |
| answers | result.answers (the user answerer's replies, `unknown` when unanswerable) |
| rewritten_query | result.rewritten (q̂; the blurred query for orig) |
| answer | result.answer (ŷ, the deep-search answer that is scored) |
| coverage | result.coverage as [{"id", "coverage"}] (full / partial / none per gold nugget) |
| restore_score | result.restore_score (0-100) |

`clarify-tui import --format cts-candidates` reads this file back into the same sessions.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import IO

from clarify_tui.exporters.counted import counted_once
from clarify_tui.results import CTSResult
from clarify_tui.store import Store

FIELDS = (
    "id",
    "run",
    "system",
    "k",
    "orig",
    "blurred_query",
    "questions",
    "answers",
    "rewritten_query",
    "answer",
    "coverage",
    "restore_score",
)


def candidate_record(session, task) -> dict:
    r = session.result
    if not isinstance(r, CTSResult):
        raise TypeError(f"session {session.id} is a {session.protocol} session, not cts")
    return {
        "id": task.id,
        "run": session.run,
        "system": session.agent,
        "k": r.k,
        "orig": r.orig,
        "blurred_query": task.cts.blurred_query if task.cts else task.question,
        "questions": list(r.questions),
        "answers": list(r.answers),
        "rewritten_query": r.rewritten,
        "answer": r.answer,
        "coverage": [{"id": c.id, "coverage": c.coverage} for c in r.coverage],
        "restore_score": r.restore_score,
    }


def export_cts_candidates(store: Store, runs: Iterable[str] | None, out: IO[str], include_hidden: bool = False) -> int:
    """Returns how many candidates (sessions) were written."""
    written = 0
    for session in counted_once(store.sessions(runs=runs, protocol="cts", status="completed"), "cts-candidates"):
        if session.result.answer is None:
            continue
        record = candidate_record(session, store.task_for(session.id))
        out.write(json.dumps(record, ensure_ascii=False) + "\n")
        written += 1
    return written
