"""Drafts of work-queue answers: what a person has typed or picked and not yet sent (and
which items were shown to whom: `mark_shown`).

Why: an answer is written the moment it is sent (store/work.py), but a half-typed reply or
note lives only in the screen until then. `play --queue` / `serve --queue` keep it here
while the person types, so quitting, a closed browser tab or a crash loses nothing: the
item comes back with its draft. A draft is never an answer; sending the answer drops it.
Its own table beside the work tables, so nothing a report reads ever sees a draft.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from clarify_tui.store import Store

TABLE = "work_drafts"


def _table(store: Store) -> None:
    store.conn.execute(
        f'CREATE TABLE IF NOT EXISTS "{TABLE}" ("queue" TEXT, "item_id" TEXT, "annotator" TEXT, "draft" TEXT, '
        'PRIMARY KEY ("queue", "item_id", "annotator"))'
    )


def save_draft(store: Store, queue: str, item: str, annotator: str, draft: dict[str, Any]) -> None:
    """Keep `draft` (replacing the last one); an empty draft (nothing picked or typed) is dropped."""
    if not any(draft.values()):
        drop_draft(store, queue, item, annotator)
        return
    with store._writing(), store.conn:
        _table(store)
        store.conn.execute(
            f'INSERT OR REPLACE INTO "{TABLE}" ("queue", "item_id", "annotator", "draft") VALUES (?, ?, ?, ?)',
            [queue, item, annotator, json.dumps(draft, ensure_ascii=False)],
        )


def draft(store: Store, queue: str, item: str, annotator: str) -> dict[str, Any]:
    """The draft kept for this annotator's item ({} when none)."""
    if not store.conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", [TABLE]).fetchone():
        return {}
    row = store.conn.execute(
        f'SELECT "draft" FROM "{TABLE}" WHERE "queue" = ? AND "item_id" = ? AND "annotator" = ?',
        [queue, item, annotator],
    ).fetchone()
    return json.loads(row[0]) if row else {}


def drop_draft(store: Store, queue: str, item: str, annotator: str) -> None:
    with store._writing(), store.conn:
        _table(store)
        store.conn.execute(
            f'DELETE FROM "{TABLE}" WHERE "queue" = ? AND "item_id" = ? AND "annotator" = ?',
            [queue, item, annotator],
        )


SHOWN = "work_shown"


def mark_shown(store: Store, queue: str, item: str, annotator: str) -> None:
    """A work item was put on this person's screen, answered or not. An audit item shows what
    the task's user knows; a labels item may hold the user's replies. `sessions_ops.seen_hidden`
    reads it (store/work.py `hidden_shown`): their later play of the task as the agent is informed.
    A table of its own beside the drafts, for the same reason: no report reads it."""
    with store._writing(), store.conn:
        store.conn.execute(
            f'CREATE TABLE IF NOT EXISTS "{SHOWN}" ("queue" TEXT, "item_id" TEXT, "annotator" TEXT, '
            '"shown_at" TEXT, PRIMARY KEY ("queue", "item_id", "annotator"))'
        )
        store.conn.execute(
            f'INSERT OR IGNORE INTO "{SHOWN}" ("queue", "item_id", "annotator", "shown_at") '
            "VALUES (?, ?, ?, strftime('%Y-%m-%dT%H:%M:%S', 'now'))",
            [queue, item, annotator],
        )
