"""Free-text replies (CTS) compared through the run's judge, each comparison made once.

A CTS answer has no class, so an auditor agrees with the simulator when the run's judge says
the auditor's answer is equivalent to the simulator's (`judge.equivalent`, the simulator's
reply as the gold answer, the clarifying question as the question). The verdicts are kept in
their own table so a report (`audit_summary`) reads them without calling a model, and a
rerun never asks again."""

from __future__ import annotations

from typing import Any

from clarify_tui.store import Store
from clarify_tui.task_model import Answer

TABLE = "audit_comparisons"
UNKNOWN = "unknown"


def _create(store: Store) -> None:
    with store._writing(), store.conn:
        store.conn.execute(
            f'CREATE TABLE IF NOT EXISTS "{TABLE}" ("queue" TEXT, "item_id" TEXT, "annotator" TEXT, '
            '"same" INTEGER, "judge" TEXT, PRIMARY KEY ("queue", "item_id", "annotator"))'
        )


def stored(store: Store) -> dict[tuple[str, str, str], tuple[bool, str]]:
    """(queue, item, annotator) -> (same as the simulator, the judge that said so)."""
    if not store.conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", [TABLE]).fetchone():
        return {}
    return {
        (r["queue"], r["item_id"], r["annotator"]): (bool(r["same"]), r["judge"])
        for r in store._rows(f'SELECT * FROM "{TABLE}"')
    }


def _record(store: Store, key: tuple[str, str, str], same: bool, judge: str) -> None:
    with store._writing(), store.conn:
        store.conn.execute(f'INSERT OR IGNORE INTO "{TABLE}" VALUES (?, ?, ?, ?, ?)', [*key, int(same), judge])


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
    from clarify_tui.backends import close_backends, make_judge

    if not todo:
        return 0
    _create(store)
    done = stored(store)
    judges: dict[str, Any] = {}
    made = 0
    try:
        for key, spec, question, simulator, auditor in todo:
            if key in done:
                continue
            if spec not in judges:
                judges[spec] = make_judge(spec, config)
            _record(store, key, await compare(judges[spec], question, simulator, auditor), spec)
            made += 1
    finally:
        await close_backends(*judges.values())
    return made
