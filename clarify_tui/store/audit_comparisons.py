"""The simulator audit's free-text comparisons (audit/compare.py): one verdict per (queue, item,
annotator), whether the run's judge found the auditor's answer equivalent to the simulator's.
Kept so a report reads them without calling a model; `merge` carries them with the answers
they judge (campaign/merge_work.py): judged again, a model may not say the same."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from clarify_tui.store import Store

TABLE = "audit_comparisons"
Key = tuple[str, str, str]  # queue, item id, annotator


def _exists(store: Store) -> bool:
    return bool(store.conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", [TABLE]).fetchone())


def create(store: Store) -> None:
    with store._writing(), store.conn:
        store.conn.execute(
            f'CREATE TABLE IF NOT EXISTS "{TABLE}" ("queue" TEXT, "item_id" TEXT, "annotator" TEXT, '
            '"same" INTEGER, "judge" TEXT, PRIMARY KEY ("queue", "item_id", "annotator"))'
        )


def read(store: Store) -> dict[Key, tuple[bool, str]]:
    """(queue, item, annotator) -> (same as the simulator, the judge that said so)."""
    if not _exists(store):
        return {}
    return {
        (r["queue"], r["item_id"], r["annotator"]): (bool(r["same"]), r["judge"])
        for r in store._rows(f'SELECT * FROM "{TABLE}"')
    }


def record(store: Store, key: Key, same: bool, judge: str) -> None:
    """The first verdict stays (a rerun never judges twice)."""
    with store._writing(), store.conn:
        store.conn.execute(f'INSERT OR IGNORE INTO "{TABLE}" VALUES (?, ?, ?, ?, ?)', [*key, int(same), judge])
