"""Work queues: items people (or another simulator) answer one at a time, outside any session.

Two kinds use them (docs/audit.md):
- `audit`: one item per ask an agent made in a run; the answer is what the auditor would have
  replied, blind to the simulator's reply.
- `labels`: one item per decision point (a step where the agent searched or answered instead of
  asking); the answer is `ask`, `act` or `unsure`, blind to the session's outcome.

An item's id is `"{session_id}:{step_index}"` in both kinds, so answers from several queues (a
person's queue, another simulator, an imported file) line up on the step they concern. Items
and answers never touch the sessions and steps tables: nothing here changes a baseline score.

Payloads and answers (JSON; the contract between the builders, the screens and the reports):
- audit item: {"kind": "audit", "protocol", "task_id", "language", "question" (the task's
  question), "ask" (the agent's clarifying question), "before": [{"ask", "reply"}] (the earlier
  exchanges of that session, as the simulator saw them), "user_sees": [{"label", "text"}] (exactly
  what the protocol lets the simulator see: InteractComp's context, DiscoBench's checkpoint target
  and clue rule, CTS's intent query), "reply": {"type": "choice", "choices": [...]} or
  {"type": "text"}}. Never the simulator's reply to this ask.
  audit answer: {"reply": text, "class": one of the choices or null (free text)}.
- labels item: {"kind": "labels", "protocol", "task_id", "language", "question", "steps":
  [{"index", "actor", "kind", "text"}] (what the agent had seen before the decision, nothing
  hidden), "decision": {"index", "kind", "text"}}. Never the session's outcome.
  labels answer: {"label": "ask" | "act" | "unsure", "note": text or null}.

A person's answer is never overwritten: `record_answer` keeps the first answer an annotator
gave to an item and says so (False) when another comes. Why a module of its own: the Store
runs the sessions' queries; these tables have their own life (created by `audit`/`labels`,
played by `play --queue`/`serve --queue`, merged with the rest).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal

from clarify_tui.errors import UsageError
from clarify_tui.store.work_rows import WorkAnswer, WorkItem, WorkQueue, _answer, _item, _queue

if TYPE_CHECKING:
    from clarify_tui.store import Store

QueueKind = Literal["audit", "labels"]
KINDS: tuple[str, ...] = ("audit", "labels")
Source = Literal["person", "simulator", "import"]

TABLES = {
    "work_queues": (
        '"name" TEXT PRIMARY KEY',
        '"kind" TEXT',
        '"run" TEXT',
        '"per_item" INTEGER',
        '"config" TEXT',
        '"created_at" TEXT',
    ),
    "work_items": (
        '"queue" TEXT',
        '"item_id" TEXT',
        '"position" INTEGER',
        '"session_id" TEXT',
        '"step_idx" INTEGER',
        '"payload" TEXT',
        'PRIMARY KEY ("queue", "item_id")',
    ),
    "work_answers": (
        '"queue" TEXT',
        '"item_id" TEXT',
        '"annotator" TEXT',
        '"source" TEXT',
        '"answer" TEXT',
        '"created_at" TEXT',
        'PRIMARY KEY ("queue", "item_id", "annotator")',
    ),
}


# how many answers the item `i` has (`next_item`, `progress`)
_ANSWERS_OF_ITEM = '(SELECT COUNT(*) FROM "work_answers" a WHERE a."queue" = i."queue" AND a."item_id" = i."item_id")'


def item_id(session_id: str, step_idx: int) -> str:
    return f"{session_id}:{step_idx}"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def create_tables(conn: sqlite3.Connection) -> None:
    for table, cols in TABLES.items():
        conn.execute(f'CREATE TABLE IF NOT EXISTS "{table}" (\n   ' + ",\n   ".join(cols) + "\n)")


def queue_kind(conn: sqlite3.Connection, name: str) -> str | None:
    """The kind of the work queue `name` on a bare connection (play and serve ask before any
    Store is opened), or None: no work tables, no such queue."""
    if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'work_queues'").fetchone():
        return None
    row = conn.execute('SELECT "kind" FROM "work_queues" WHERE "name" = ?', [name]).fetchone()
    return row[0] if row else None


class WorkQueues:
    """The work-queue queries of one Store (its connection and its write lock)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        if not store.readonly:
            with store._writing(), store.conn:
                create_tables(store.conn)

    def _has_tables(self) -> bool:
        return bool(self.store.conn.execute("SELECT 1 FROM sqlite_master WHERE name='work_queues'").fetchone())

    def _rows(self, sql: str, params: Iterable[Any] = ()) -> Iterator[dict]:
        if not self._has_tables():  # a read-only file from before work queues: none
            return iter(())
        return self.store._rows(sql, params)

    # ---- queues ----------------------------------------------------------------------

    def create_queue(
        self, name: str, kind: QueueKind, run: str, per_item: int = 1, config: dict | None = None
    ) -> WorkQueue:
        """The queue `name`, created if new. Creating it again with the same kind and run
        resumes it (its items and answers stay); another kind or run is refused."""
        if kind not in KINDS:
            raise UsageError(f"unknown work-queue kind {kind!r} (known: {', '.join(KINDS)})")
        if per_item < 1:
            raise UsageError("answers per item must be at least 1")
        existing = self.queue(name)
        if existing is not None:
            if (existing.kind, existing.run) != (kind, run):
                raise UsageError(
                    f"queue '{name}' already exists ({existing.kind} queue of run '{existing.run}'): "
                    "pick another --queue name"
                )
            return existing
        with self.store._writing():
            self.store._insert(
                "work_queues",
                {
                    "name": name,
                    "kind": kind,
                    "run": run,
                    "per_item": per_item,
                    "config": json.dumps(config or {}, sort_keys=True),
                    "created_at": _now(),
                },
            )
        queue = self.queue(name)
        assert queue is not None
        return queue

    def queue(self, name: str) -> WorkQueue | None:
        for row in self._rows('SELECT * FROM "work_queues" WHERE "name" = ?', [name]):
            return _queue(row)
        return None

    def _named(self, name: str) -> WorkQueue:
        """The queue named `name`; a UsageError naming it when there is none."""
        if (q := self.queue(name)) is None:
            raise UsageError(f"no work queue named '{name}'")
        return q

    def queues(self, run: str | None = None, kind: str | None = None) -> list[WorkQueue]:
        where, params = _where(run=run, kind=kind)
        return [
            _queue(r) for r in self._rows(f'SELECT * FROM "work_queues"{where} ORDER BY "created_at", "name"', params)
        ]

    # ---- items -----------------------------------------------------------------------

    def add_items(self, queue: str, items: Iterable[tuple[str, int, dict[str, Any]]]) -> int:
        """Add `(session_id, step_idx, payload)` items at the end of `queue`; an item already
        there is kept as it is (resuming a queue adds nothing twice). Returns how many were new."""
        added = 0
        with self.store._writing(), self.store.conn:
            start = self.store.conn.execute(
                'SELECT COALESCE(MAX("position"), -1) + 1 FROM "work_items" WHERE "queue" = ?', [queue]
            ).fetchone()[0]
            for session_id, step_idx, payload in items:
                cursor = self.store.conn.execute(
                    'INSERT OR IGNORE INTO "work_items" ("queue", "item_id", "position", "session_id", "step_idx", '
                    '"payload") VALUES (?, ?, ?, ?, ?, ?)',
                    [queue, item_id(session_id, step_idx), start + added, session_id, step_idx, json.dumps(payload)],
                )
                added += cursor.rowcount
        return added

    def items(self, queue: str) -> list[WorkItem]:
        return [
            _item(r) for r in self._rows('SELECT * FROM "work_items" WHERE "queue" = ? ORDER BY "position"', [queue])
        ]

    def item(self, queue: str, item: str) -> WorkItem:
        for row in self._rows('SELECT * FROM "work_items" WHERE "queue" = ? AND "item_id" = ?', [queue, item]):
            return _item(row)
        raise UsageError(f"queue '{queue}' has no item {item}")

    def next_item(self, queue: str, annotator: str) -> WorkItem | None:
        """The first item (in queue order) this annotator has not answered and that has fewer
        answers than the queue wants; None when there is nothing left for them."""
        q = self._named(queue)
        for row in self._rows(
            'SELECT i.* FROM "work_items" i WHERE i."queue" = ? '
            'AND NOT EXISTS (SELECT 1 FROM "work_answers" a WHERE a."queue" = i."queue" '
            'AND a."item_id" = i."item_id" AND a."annotator" = ?) '
            f"AND {_ANSWERS_OF_ITEM} < ? "
            'ORDER BY i."position" LIMIT 1',
            [queue, annotator, q.per_item],
        ):
            return _item(row)
        return None

    # ---- answers ---------------------------------------------------------------------

    def record_answer(
        self, queue: str, item: str, annotator: str, answer: dict[str, Any], source: Source = "person"
    ) -> bool:
        """Store an annotator's answer to an item. The first answer stays: a second one from
        the same annotator is not written (False), so nothing a person gave is overwritten."""
        if not annotator:
            raise UsageError("an answer needs an annotator name")
        with self.store._writing(), self.store.conn:
            cursor = self.store.conn.execute(
                'INSERT OR IGNORE INTO "work_answers" ("queue", "item_id", "annotator", "source", "answer", "created_at") '
                "VALUES (?, ?, ?, ?, ?, ?)",
                [queue, item, annotator, source, json.dumps(answer, ensure_ascii=False), _now()],
            )
        return cursor.rowcount == 1

    def write_all(
        self,
        queues: Iterable[tuple[str, str, str, dict]],
        items: Iterable[tuple[str, str, int, dict]],
        answers: Iterable[tuple[str, str, str, dict]],
        source: Source = "import",
    ) -> list[dict | None]:
        """Queues `(name, kind, run, config)`, items `(queue, session_id, step_idx, payload)`
        and answers `(queue, item_id, annotator, answer)` in one transaction: all or nothing
        (an imported file). Existing queues and items stay; an answer already stored for its
        annotator is kept. Per answer: None when written, else the answer that was kept."""
        now, conn, kept = _now(), self.store.conn, []
        with self.store._writing(), conn:
            for name, kind, run, config in queues:
                conn.execute(
                    'INSERT OR IGNORE INTO "work_queues" ("name", "kind", "run", "per_item", "config", "created_at") '
                    "VALUES (?, ?, ?, 1, ?, ?)",
                    [name, kind, run, json.dumps(config, sort_keys=True), now],
                )
            for queue, session_id, step_idx, payload in items:
                position = conn.execute(
                    'SELECT COALESCE(MAX("position"), -1) + 1 FROM "work_items" WHERE "queue" = ?', [queue]
                ).fetchone()[0]
                conn.execute(
                    'INSERT OR IGNORE INTO "work_items" ("queue", "item_id", "position", "session_id", "step_idx", '
                    '"payload") VALUES (?, ?, ?, ?, ?, ?)',
                    [
                        queue,
                        item_id(session_id, step_idx),
                        position,
                        session_id,
                        step_idx,
                        json.dumps(payload, ensure_ascii=False),
                    ],
                )
            for queue, item, annotator, answer in answers:
                stored = conn.execute(
                    'SELECT "answer" FROM "work_answers" WHERE "queue" = ? AND "item_id" = ? AND "annotator" = ?',
                    [queue, item, annotator],
                ).fetchone()
                if stored is not None:
                    kept.append(json.loads(stored[0]))
                    continue
                conn.execute(
                    'INSERT INTO "work_answers" ("queue", "item_id", "annotator", "source", "answer", "created_at") '
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    [queue, item, annotator, source, json.dumps(answer, ensure_ascii=False), now],
                )
                kept.append(None)
        return kept

    def answers(self, queue: str | None = None, run: str | None = None, kind: str | None = None) -> list[WorkAnswer]:
        """Answers of one queue, or of every queue of `run` (and `kind`), oldest first."""
        where, params = _where(**{"q.name": queue, "q.run": run, "q.kind": kind})
        return [
            _answer(r)
            for r in self._rows(
                'SELECT a.* FROM "work_answers" a JOIN "work_queues" q ON q."name" = a."queue"'
                f'{where} ORDER BY a."created_at", a."queue", a."item_id", a."annotator"',
                params,
            )
        ]

    def hidden_shown(self, annotator: str, protocol: str, task_id: str) -> tuple[str, str] | None:
        """(queue, kind) of the first work item of this task that was on `annotator`'s screen
        (answered, begun or shown: store/work_drafts.py) and showed them hidden information,
        or None: an audit item (what the user knows), or a labels item whose trajectory holds
        a user's reply (the simulator's words from it: a DiscoBench clue, a "yes"). Read by
        sessions_ops.seen_hidden: their later play of the task as the agent is informed."""
        have = {r[0] for r in self.store.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        touched = " UNION ".join(
            f'SELECT "queue", "item_id", "annotator" FROM "{t}"'
            for t in ("work_answers", "work_drafts", "work_shown")
            if t in have
        )
        for row in self._rows(
            f'SELECT a."queue", q."kind" FROM ({touched}) a JOIN "work_queues" q ON q."name" = a."queue" '
            'JOIN "work_items" i ON i."queue" = a."queue" AND i."item_id" = a."item_id" WHERE a."annotator" = ? '
            "AND json_extract(i.\"payload\", '$.protocol') = ? AND json_extract(i.\"payload\", '$.task_id') = ? "
            "AND (q.\"kind\" = 'audit' OR EXISTS (SELECT 1 FROM json_each(i.\"payload\", '$.steps') e "
            "WHERE json_extract(e.value, '$.actor') = 'user')) "
            'ORDER BY q."kind", q."created_at", a."queue" LIMIT 1',
            [annotator, protocol, task_id],
        ):
            return row["queue"], row["kind"]
        return None

    def progress(self, queue: str) -> dict[str, int]:
        """items, answers, and items with as many answers as the queue wants."""
        q = self._named(queue)
        counts = [
            r["n"]
            for r in self._rows(
                f'SELECT {_ANSWERS_OF_ITEM} AS n FROM "work_items" i WHERE i."queue" = ?',
                [queue],
            )
        ]
        return {
            "items": len(counts),
            "answers": sum(counts),
            "complete": sum(1 for n in counts if n >= q.per_item),
        }


def _where(**filters: Any) -> tuple[str, list[Any]]:
    parts, params = [], []
    for column, value in filters.items():
        if value is not None:
            quoted = ".".join(f'"{p}"' for p in column.split("."))
            parts.append(f"{quoted} = ?")
            params.append(value)
    return (" WHERE " + " AND ".join(parts) if parts else ""), params
