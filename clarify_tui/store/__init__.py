"""SQLite store: every session, its task snapshot and every step, written through as
they happen so a crash loses at most the step in flight.

Its own paths (schema, writes, reads) use sqlite3 directly: sqlite-utils imports pandas,
numpy and dateutil whenever they are installed, which cost the workbench's first paint
about half a second. `Store.db` still offers sqlite-utils over the same connection, imported
on first use, for what it is good at (the search cache, merging, ad-hoc queries).

Opening a Store creates the file and schema; nothing happens at import time.
API keys never reach it: only specs (e.g. `openai:gpt-4o`) and model names are stored.
A bad file (see db_errors) is refused with a StoreError before anything is written;
`readonly=True` opens an existing file without writing (score on a read-only copy).

The file's shape (tables, added columns, version checks) is `store/schema.py`; how a
session, a step and a task become rows and back is `store/rows.py`; this module runs the
queries and serialises the writes.
"""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clarify_tui import db_errors, lease
from clarify_tui.errors import NotFound
from clarify_tui.store import run_leases, schema
from clarify_tui.store.rows import field_text, session_from_row, session_row, step_from_row, step_row, task_key
from clarify_tui.store.schema import SCHEMA_VERSION

if TYPE_CHECKING:  # imported where used: opening a store builds no pydantic models (the TUI's first paint)
    import sqlite_utils

    from clarify_tui.models import Session, Step, Task
    from clarify_tui.store.work import WorkQueues

__all__ = ["SCHEMA_VERSION", "Store", "task_key"]


class Store:
    def __init__(self, path: str | Path, *, readonly: bool = False, existing: bool = False) -> None:
        """`existing`: the command only reads sessions (score, sessions, export, replay):
        a file holding none (0 bytes, an empty database) is refused, unchanged."""
        self.path = Path(path)
        self._existing = existing
        self.readonly = readonly
        memory = str(path) == ":memory:"
        if not memory:
            db_errors.preflight(self.path, readonly)
        self._lock = threading.RLock()
        with db_errors.translated(self.path):
            if not memory and not readonly:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            self.conn = db_errors.connect(path, readonly)
            self._db: sqlite_utils.Database | None = None
            self._work: WorkQueues | None = None
            # before WAL: a newer file is refused unchanged
            db_errors.retry_locked(self._check_version, also=("disk i/o error",))
            if not readonly:
                db_errors.retry_locked(lambda: self._prepare(memory))

    @property
    def db(self) -> sqlite_utils.Database:
        """sqlite-utils over this store's connection (imported on first use, see above)."""
        if self._db is None:
            import sqlite_utils

            self._db = sqlite_utils.Database(self.conn)
        return self._db

    @property
    def work(self) -> WorkQueues:
        """The audit and labelling queues of this file (store/work.py), tables made on first use."""
        if self._work is None:
            from clarify_tui.store.work import WorkQueues

            self._work = WorkQueues(self)
        return self._work

    def _prepare(self, memory: bool) -> None:
        if not memory and self.conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
            self.conn.execute("PRAGMA journal_mode=wal")
        self.conn.execute("PRAGMA synchronous=NORMAL")
        self._create_schema()

    def _rows(self, sql: str, params: Iterable[Any] = ()) -> Iterator[dict]:
        """Rows as dicts, column name to value."""
        cursor = self.conn.execute(sql, list(params))
        names = [d[0] for d in cursor.description]
        for row in cursor:
            yield dict(zip(names, row))

    def _upsert(self, table: str, row: dict, pk: tuple[str, ...]) -> None:
        """Insert the row, or update the given columns of the row with its primary key."""
        names = ", ".join(f'"{k}"' for k in row)
        marks = ", ".join("?" for _ in row)
        updates = ", ".join(f'"{k}" = excluded."{k}"' for k in row if k not in pk) or f'"{pk[0]}" = "{pk[0]}"'
        conflict = ", ".join(f'"{k}"' for k in pk)
        with self.conn:
            self.conn.execute(
                f'INSERT INTO "{table}" ({names}) VALUES ({marks}) ON CONFLICT ({conflict}) DO UPDATE SET {updates}',
                list(row.values()),
            )

    def _insert(self, table: str, row: dict, ignore: bool = False) -> None:
        names = ", ".join(f'"{k}"' for k in row)
        marks = ", ".join("?" for _ in row)
        with self.conn:
            self.conn.execute(
                f'INSERT{" OR IGNORE" if ignore else ""} INTO "{table}" ({names}) VALUES ({marks})', list(row.values())
            )

    def _check_version(self) -> None:
        schema.check(self.conn, self.path, self._existing)

    @contextlib.contextmanager
    def _writing(self) -> Iterator[None]:
        """Serialise this process's writes; a sqlite problem becomes one StoreError line."""
        with self._lock, db_errors.translated(self.path):
            yield

    # ---- schema ----------------------------------------------------------------------

    def _create_schema(self) -> None:
        schema.create(self.conn, self._columns)

    def _columns(self, table: str) -> set[str]:
        return schema.columns(self.conn, table)

    # ---- writing (the engine's StepSink) ----------------------------------------------

    def save_task(self, task: Task) -> str:
        from clarify_tui.tasks.sealed import sealed_json

        key = task_key(task)
        with self._writing():
            self._insert(
                "tasks",
                {"key": key, "task_id": task.id, "protocol": task.protocol.value, "data": sealed_json(task)},
                ignore=True,
            )
        return key

    def ensure_run(self, name: str, **fields: Any) -> None:
        import uuid

        from clarify_tui.models import now_iso

        # run_id: tells this run from an independent one of the same name (campaign/run_identity.py);
        # kept on --resume, since the row is only written once
        row = {
            "name": name,
            "created_at": now_iso(),
            "run_id": uuid.uuid4().hex,
            **{k: field_text(v) for k, v in fields.items()},
        }
        with self._writing():
            self._insert("runs", row, ignore=True)

    def start_session(self, session: Session, task: Task) -> None:
        key = self.save_task(task)
        self._write_session(session, key)

    def add_step(self, session: Session, step: Step) -> None:
        row = step_row(session.id, step)
        with self._writing():
            self._upsert("steps", row, pk=("session_id", "idx"))

    def finish_session(self, session: Session) -> None:
        self._write_session(session)

    def update_session(self, session: Session) -> None:
        self._write_session(session)

    def _write_session(self, session: Session, task_key_: str | None = None) -> None:
        row = session_row(session)
        with self._writing():
            if task_key_ is None:
                existing = self.conn.execute("SELECT task_key FROM sessions WHERE id=?", [session.id]).fetchone()
                task_key_ = existing[0] if existing else None
            row["task_key"] = task_key_
            self._upsert("sessions", row, pk=("id",))

    def add_judgment(self, session_id: str, judge: str, kind: str, verdict: dict) -> None:
        from clarify_tui.models import now_iso

        with self._writing():
            self._insert(
                "judgments",
                {
                    "session_id": session_id,
                    "judge": judge,
                    "kind": kind,
                    "verdict": json.dumps(verdict),
                    "created_at": now_iso(),
                },
            )

    def delete_session(self, session_id: str) -> None:
        with self._writing(), self.conn:
            self.conn.execute("DELETE FROM steps WHERE session_id=?", [session_id])
            self.conn.execute("DELETE FROM judgments WHERE session_id=?", [session_id])
            self.conn.execute("DELETE FROM sessions WHERE id=?", [session_id])

    # ---- reading ---------------------------------------------------------------------

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[sqlite3.Connection]:
        """Several reads that must agree (db_errors.snapshot); this process's writes wait
        meanwhile, since they share the connection (a write would end the transaction)."""
        with self._lock, db_errors.snapshot(self.conn) as conn:
            yield conn

    def sessions(
        self,
        runs: Iterable[str] | None = None,
        protocol: str | None = None,
        status: str | None = None,
        task_id: str | None = None,
        annotator: str | None = None,
    ) -> list[Session]:
        where, params = [], []
        for column, value in (("task_id", task_id), ("annotator", annotator)):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value)
        runs = list(runs or [])
        if runs:
            where.append(f"run IN ({', '.join('?' for _ in runs)})")
            params += runs
        if protocol:
            where.append("protocol = ?")
            params.append(protocol)
        if status:
            where.append("status = ?")
            params.append(status)
        sql = "SELECT * FROM sessions" + (" WHERE " + " AND ".join(where) if where else "")
        sql += " ORDER BY created_at, id"
        return [session_from_row(row) for row in self._rows(sql, params)]

    def session(self, session_id: str) -> Session:
        rows = list(self._rows("SELECT * FROM sessions WHERE id = ? OR id LIKE ?", [session_id, session_id + "%"]))
        if not rows:
            raise NotFound(f"no session '{session_id}' in {self.path}")
        if len(rows) > 1:
            raise NotFound(f"'{session_id}' matches {len(rows)} sessions; give more of the id")
        return session_from_row(rows[0])

    def steps(self, session_id: str) -> list[Step]:
        rows = self._rows("SELECT * FROM steps WHERE session_id = ? ORDER BY idx", [session_id])
        return [step_from_row(r) for r in rows]

    def steps_by_session(self, session_ids: Iterable[str] | None = None) -> dict[str, list[Step]]:
        """All steps grouped by session, in one query (metrics over thousands of sessions)."""
        out: dict[str, list[Step]] = {}
        for r in self._rows("SELECT * FROM steps ORDER BY session_id, idx"):
            out.setdefault(r["session_id"], []).append(step_from_row(r))
        if session_ids is not None:
            wanted = set(session_ids)
            out = {k: v for k, v in out.items() if k in wanted}
        return out

    def step_counts(self) -> dict[str, int]:
        """How many steps each session has, without reading them (the sessions lists)."""
        return dict(self.conn.execute("SELECT session_id, COUNT(*) FROM steps GROUP BY session_id").fetchall())

    def task_for(self, session_id: str) -> Task:
        row = self.conn.execute(
            "SELECT t.data FROM sessions s JOIN tasks t ON t.key = s.task_key WHERE s.id = ?", [session_id]
        ).fetchone()
        if not row:
            raise KeyError(f"no task snapshot for session {session_id}")
        from clarify_tui.tasks.sealed import open_task

        return open_task(row[0])  # an encrypted release's fields are decrypted in memory only

    def task_record(self, session_id: str, include_hidden: bool = False) -> dict:
        """The task snapshot for an export: as stored (encrypted release fields stay
        encrypted) unless `include_hidden`."""
        from clarify_tui.tasks.sealed import sealed_dict

        task = self.task_for(session_id)
        return task.model_dump(mode="json") if include_hidden else sealed_dict(task)

    def judgments(self, session_id: str) -> list[dict]:
        rows = self._rows("SELECT * FROM judgments WHERE session_id = ? ORDER BY id", [session_id])
        return [{**r, "verdict": json.loads(r["verdict"])} for r in rows]

    def judgments_by_session(self) -> dict[str, list[dict]]:
        """Every judgment grouped by session, in id order, in one query (an export)."""
        out: dict[str, list[dict]] = {}
        for r in self._rows("SELECT * FROM judgments ORDER BY id"):
            out.setdefault(r["session_id"], []).append({**r, "verdict": json.loads(r["verdict"])})
        return out

    def data_mark(self) -> tuple[int, int]:
        """Changes whenever the database does: rows this connection changed (`total_changes`)
        and commits by any other connection or process (`data_version`). A screen built
        ahead of its opening (F2, F3) reads the database again at the opening only then."""
        return self.conn.total_changes, self.conn.execute("PRAGMA data_version").fetchone()[0]

    def judged_by(self, judge: str) -> set[str]:
        """Ids of the sessions that hold a verdict of `judge` (`judge --resume` skips them)."""
        return {
            r["session_id"] for r in self._rows("SELECT DISTINCT session_id FROM judgments WHERE judge = ?", [judge])
        }

    def run_names(self) -> list[str]:
        return [r["run"] for r in self._rows("SELECT DISTINCT run FROM sessions ORDER BY run")]

    # ---- one writer per run (lease.py decides, run_leases.py writes) ------------------------------------------

    def acquire_run(self, run: str, stale_after: float = lease.STALE_AFTER_S, take_over: bool = False) -> lease.Lease:
        """Become the run's only writer, or RunLeaseError naming the live holder."""
        with self._writing():
            return run_leases.acquire(self.conn, run, stale_after, take_over)

    def heartbeat_run(self, held: lease.Lease) -> bool:
        with self._writing():
            return run_leases.heartbeat(self.conn, held)

    def release_run(self, held: lease.Lease) -> None:
        with self._writing():
            run_leases.release(self.conn, held)

    def retry_totals(self, run: str) -> tuple[int, int, dict[str, int]]:
        """(retries, steps that needed them, retries by last cause) over a run's live sessions."""
        rows = self.conn.execute(
            "SELECT st.retries, st.retry_cause FROM steps st JOIN sessions s ON s.id = st.session_id "
            "WHERE s.run = ? AND s.status != 'superseded' AND st.retries > 0",
            [run],
        ).fetchall()
        causes: dict[str, int] = {}
        for count, cause in rows:
            key = re.split(r":| \(", cause or "unknown")[0][:60]
            causes[key] = causes.get(key, 0) + count
        return sum(r[0] for r in rows), len(rows), causes

    def agent_step_errors(self, run: str) -> list[tuple[str, str, str]]:
        """(session id, task id, error) of every refused or failed agent step of a run's live
        sessions, in the order they were played (agent_faults.py)."""
        return self.conn.execute(
            "SELECT s.id, s.task_id, st.error FROM steps st JOIN sessions s ON s.id = st.session_id "
            "WHERE s.run = ? AND s.status != 'superseded' AND st.actor = 'agent' AND st.error IS NOT NULL "
            "AND st.error != '' ORDER BY s.created_at, s.id, st.idx",
            [run],
        ).fetchall()

    def set_run_provenance(self, name: str, provenance: dict) -> None:
        """Record what produced the run (clarify_tui/provenance.py) on its row."""
        with self._writing(), self.conn:
            self.conn.execute('UPDATE runs SET "provenance" = ? WHERE name = ?', [json.dumps(provenance), name])

    def run_provenances(self) -> dict[str, dict]:
        """Each run's recorded provenance (runs made before it was recorded have none)."""
        if "provenance" not in self._columns("runs"):  # an older file opened read-only
            return {}
        rows = self.conn.execute("SELECT name, provenance FROM runs WHERE provenance IS NOT NULL").fetchall()
        return {name: json.loads(text) for name, text in rows}

    def run_row(self, name: str) -> dict | None:
        """The run's spec as first recorded (benchmark, dataset, agent, ..., config)."""
        rows = list(self._rows("SELECT * FROM runs WHERE name = ?", [name]))
        return rows[0] if rows else None

    def close(self) -> None:
        self.conn.close()
