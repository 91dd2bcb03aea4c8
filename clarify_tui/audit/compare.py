"""Free-text replies (CTS) compared through the run's judge, each comparison made once.

A CTS answer has no class, so an auditor agrees with the simulator when the run's judge says
the auditor's answer is equivalent to the simulator's (`judge.equivalent`, the simulator's
reply as the gold answer, the clarifying question as the question). The verdicts are kept in
their own table so a report (`audit_summary`) reads them without calling a model, and a
rerun never asks again."""

from __future__ import annotations

from typing import Any

from clarify_tui.store import Store, audit_comparisons
from clarify_tui.task_model import Answer

UNKNOWN = "unknown"


def stored(store: Store) -> dict[tuple[str, str, str], tuple[bool, str]]:
    """(queue, item, annotator) -> (same as the simulator, the judge that said so)."""
    return audit_comparisons.read(store)


async def compare(judge: Any, question: str, simulator: str, auditor: str) -> bool:
    """Equivalent answers; two "unknown"s agree without a call, one "unknown" never does."""
    a, b = (simulator or "").strip(), (auditor or "").strip()
    if UNKNOWN in (a.casefold(), b.casefold()) or not a or not b:
        return a.casefold() == b.casefold()
    verdict = await judge.equivalent(question, b, Answer(text=a), benchmark="cts")
    return bool(verdict.correct)


async def compare_missing(
    store: Store, todo: list[tuple[tuple[str, str, str], str, str, str, str]], config: Any
) -> int:
    """Judge each (key, judge spec, question, simulator's reply, auditor's reply) not yet
    judged, recording each verdict as it comes (a crash loses at most the one in flight)."""
    from clarify_tui.backend_spec import RoleSpecs
    from clarify_tui.backends import build_backends, close_backends

    if not todo:
        return 0
    audit_comparisons.create(store)
    done = stored(store)
    judges: dict[str, Any] = {}
    made = 0
    try:
        for key, spec, question, simulator, auditor in todo:
            if key in done:
                continue
            if spec not in judges:
                judges[spec] = build_backends(RoleSpecs.of(judge=spec), config).judge
            audit_comparisons.record(store, key, await compare(judges[spec], question, simulator, auditor), spec)
            made += 1
    finally:
        await close_backends(*judges.values())
    return made
