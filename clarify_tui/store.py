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
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import sqlite3
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator

from clarify_tui import db_errors, lease
from clarify_tui.errors import StoreError

if TYPE_CHECKING:  # imported where used: opening a store builds no pydantic models (the TUI's first paint)
    import sqlite_utils

    from clarify_tui.models import Session, Step, Task

SCHEMA_VERSION = 1

# The tables as sqlite-utils created them before (same column types, same quoting), so old
# and new files look alike to every reader, merge included.
_TABLES = {
    "meta": ('"key" TEXT PRIMARY KEY', '"value" TEXT'),
    "runs": ('"name" TEXT PRIMARY KEY', '"created_at" TEXT', '"benchmark" TEXT', '"dataset" TEXT', '"agent" TEXT',
             '"user" TEXT', '"search" TEXT', '"judge" TEXT', '"config" TEXT', '"provenance" TEXT', '"deviations" TEXT',
             '"run_id" TEXT'),
    "tasks": ('"key" TEXT PRIMARY KEY', '"task_id" TEXT', '"protocol" TEXT', '"data" TEXT'),
    "sessions": ('"id" TEXT PRIMARY KEY', '"run" TEXT', '"task_id" TEXT', '"task_key" TEXT', '"protocol" TEXT',
                 '"agent" TEXT', '"user" TEXT', '"search" TEXT', '"search_cache" TEXT', '"judge" TEXT',
                 '"mode" TEXT', '"annotator" TEXT', '"status" TEXT', '"error" TEXT', '"config" TEXT',
                 '"result" TEXT', '"parent_id" TEXT', '"fork_step" INTEGER', '"note" TEXT', '"created_at" TEXT',
                 '"finished_at" TEXT', '"counterfactual" TEXT', '"epoch" INTEGER'),
    "steps": ('"session_id" TEXT', '"idx" INTEGER', '"actor" TEXT', '"kind" TEXT', '"input" TEXT',
              '"action" TEXT', '"output" TEXT', '"tokens_in" INTEGER', '"tokens_out" INTEGER', '"cost_usd" REAL',
              '"latency_ms" REAL', '"model" TEXT', '"error" TEXT', '"state" TEXT', '"created_at" TEXT',
              '"retries" INTEGER', '"retry_cause" TEXT', 'PRIMARY KEY ("session_id", "idx")'),
    "judgments": ('"id" INTEGER PRIMARY KEY', '"session_id" TEXT', '"judge" TEXT', '"kind" TEXT', '"verdict" TEXT',
                  '"created_at" TEXT'),
}
# columns added after the first release: older files lack them
_ADDED_COLUMNS = {"sessions": (("search_cache", "TEXT"), ("counterfactual", "TEXT"), ("epoch", "INTEGER")),
                  "steps": (("retries", "INTEGER"), ("retry_cause", "TEXT")),
                  "runs": (("provenance", "TEXT"), ("deviations", "TEXT"),  # deviations: JSON list (deviations.py)
                           ("run_id", "TEXT"))}
_INDEXES = {"idx_sessions_run_task_id": ("sessions", '"run", "task_id"'),
            "idx_judgments_session_id": ("judgments", '"session_id"')}


def task_key(task: Task) -> str:
    """The snapshot key: protocol, id and a hash of the content actually used."""
    digest = hashlib.sha256(task.model_dump_json().encode()).hexdigest()[:16]
    return f"{task.protocol.value}:{task.id}:{digest}"


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
            self.conn.execute(f'INSERT INTO "{table}" ({names}) VALUES ({marks}) '
                              f"ON CONFLICT ({conflict}) DO UPDATE SET {updates}", list(row.values()))

    def _insert(self, table: str, row: dict, ignore: bool = False) -> None:
        names = ", ".join(f'"{k}"' for k in row)
        marks = ", ".join("?" for _ in row)
        with self.conn:
            self.conn.execute(f'INSERT{" OR IGNORE" if ignore else ""} INTO "{table}" ({names}) VALUES ({marks})',
                              list(row.values()))

    def _check_version(self) -> None:
        """Refuse, before anything is written, a newer schema, another application's
        database, and (for readers) a file with no tables at all."""
        why = db_errors.foreign(self.conn, self.path)
        if why:
            raise StoreError(why)
        if self._existing and not self.conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchone():
            raise StoreError(f"{self.path} holds no clarify-tui data (an empty file); nothing was changed, pass --db FILE")
        version = db_errors.schema_version(self.conn)
        if version is not None and version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} has schema version {version}; this clarify-tui knows {SCHEMA_VERSION}. "
                "Upgrade clarify-tui (nothing was changed)."
            )

    @contextlib.contextmanager
    def _writing(self) -> Iterator[None]:
        """Serialise this process's writes; a sqlite problem becomes one StoreError line."""
        with self._lock, db_errors.translated(self.path):
            yield

    # ---- schema ----------------------------------------------------------------------

    def _create_schema(self) -> None:
        conn = self.conn
        for table, columns in _TABLES.items():
            conn.execute(f'CREATE TABLE IF NOT EXISTS "{table}" (\n   ' + ",\n   ".join(columns) + "\n)")
        for table, added in _ADDED_COLUMNS.items():
            have = self._columns(table)
            for column, kind in added:
                if column not in have:
                    try:
                        conn.execute(f'ALTER TABLE "{table}" ADD COLUMN "{column}" {kind}')
                    except sqlite3.OperationalError as exc:  # another process opening the file added it first
                        if "duplicate column name" not in str(exc):
                            raise
        # written on every writable open: a file another process holds locked fails here, at once
        self._upsert("meta", {"key": "schema_version", "value": str(SCHEMA_VERSION)}, pk=("key",))
        lease.ensure_table(conn)
        for name, (table, indexed) in _INDEXES.items():
            conn.execute(f'CREATE INDEX IF NOT EXISTS "{name}"\n    ON "{table}" ({indexed})')
        conn.commit()

    def _columns(self, table: str) -> set[str]:
        return {row[1] for row in self.conn.execute(f'PRAGMA table_info("{table}")')}

    # ---- writing (the engine's StepSink) ----------------------------------------------

    def save_task(self, task: Task) -> str:
        from clarify_tui.tasks.sealed import sealed_json

        key = task_key(task)
        with self._writing():
            self._insert(
                "tasks", {"key": key, "task_id": task.id, "protocol": task.protocol.value, "data": sealed_json(task)},
                ignore=True,
            )
        return key

    def ensure_run(self, name: str, **fields: Any) -> None:
        from clarify_tui.models import now_iso

        import uuid

        # run_id: tells this run from an independent one of the same name (campaign/run_identity.py);
        # kept on --resume, since the row is only written once
        row = {"name": name, "created_at": now_iso(), "run_id": uuid.uuid4().hex,
               **{k: _text(v) for k, v in fields.items()}}
        with self._writing():
            self._insert("runs", row, ignore=True)

    def start_session(self, session: Session, task: Task) -> None:
        key = self.save_task(task)
        self._write_session(session, key)

    def add_step(self, session: Session, step: Step) -> None:
        row = {
            "session_id": session.id,
            "idx": step.index,
            "actor": step.actor,
            "kind": step.action.kind.value,
            "input": step.action.summary(),
            "action": step.action.model_dump_json(),
            "output": step.observation.model_dump_json(),
            "tokens_in": step.tokens_in,
            "tokens_out": step.tokens_out,
            "cost_usd": step.cost_usd,
            "latency_ms": step.latency_ms,
            "model": step.model,
            "error": step.error,
            "state": json.dumps(step.state.stored()),
            "created_at": step.created_at,
            "retries": step.retries,
            "retry_cause": step.retry_cause,
        }
        with self._writing():
            self._upsert("steps", row, pk=("session_id", "idx"))

    def finish_session(self, session: Session) -> None:
        self._write_session(session)

    def update_session(self, session: Session) -> None:
        self._write_session(session)

    def _write_session(self, session: Session, task_key_: str | None = None) -> None:
        row = session.model_dump(mode="json")
        row["config"] = json.dumps(row["config"])
        row["result"] = json.dumps(row["result"])
        row["counterfactual"] = json.dumps(row["counterfactual"]) if row["counterfactual"] else None
        row["protocol"] = session.protocol.value
        with self._writing():
            if task_key_ is None:
                existing = self.conn.execute("SELECT task_key FROM sessions WHERE id=?", [session.id]).fetchone()
                task_key_ = existing[0] if existing else None
            row["task_key"] = task_key_
            self._upsert("sessions", row, pk=("id",))

    def add_judgment(self, session_id: str, judge: str, kind: str, verdict: dict) -> None:
        from clarify_tui.models import now_iso

        with self._writing():
            self._insert("judgments", {"session_id": session_id, "judge": judge, "kind": kind,
                                       "verdict": json.dumps(verdict), "created_at": now_iso()})

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
    ) -> list[Session]:
        where, params = [], []
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
        return [self._session(row) for row in self._rows(sql, params)]

    def session(self, session_id: str) -> Session:
        rows = list(self._rows("SELECT * FROM sessions WHERE id = ? OR id LIKE ?", [session_id, session_id + "%"]))
        if not rows:
            raise KeyError(f"no session '{session_id}' in {self.path}")
        if len(rows) > 1:
            raise KeyError(f"'{session_id}' matches {len(rows)} sessions; give more of the id")
        return self._session(rows[0])

    @staticmethod
    def _session(row: dict) -> Session:
        from clarify_tui.models import Session

        row = dict(row)
        row.pop("task_key", None)
        row["config"] = json.loads(row["config"] or "{}")
        row["result"] = json.loads(row["result"] or "{}")
        if row.get("counterfactual"):
            row["counterfactual"] = json.loads(row["counterfactual"])
        return Session.model_validate({k: v for k, v in row.items() if v is not None})

    def steps(self, session_id: str) -> list[Step]:
        rows = self._rows("SELECT * FROM steps WHERE session_id = ? ORDER BY idx", [session_id])
        return [self._step(r) for r in rows]

    def steps_by_session(self, session_ids: Iterable[str] | None = None) -> dict[str, list[Step]]:
        """All steps grouped by session, in one query (metrics over thousands of sessions)."""
        out: dict[str, list[Step]] = {}
        for r in self._rows("SELECT * FROM steps ORDER BY session_id, idx"):
            out.setdefault(r["session_id"], []).append(self._step(r))
        if session_ids is not None:
            wanted = set(session_ids)
            out = {k: v for k, v in out.items() if k in wanted}
        return out

    def step_counts(self) -> dict[str, int]:
        """How many steps each session has, without reading them (the sessions lists)."""
        return dict(self.conn.execute("SELECT session_id, COUNT(*) FROM steps GROUP BY session_id").fetchall())

    @staticmethod
    def _step(r: dict) -> Step:
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

    def run_names(self) -> list[str]:
        return [r["run"] for r in self._rows("SELECT DISTINCT run FROM sessions ORDER BY run")]

    # ---- one writer per run (see lease.py) ------------------------------------------

    def acquire_run(self, run: str, stale_after: float = lease.STALE_AFTER_S, take_over: bool = False) -> lease.Lease:
        """Become the run's only writer, or RunLeaseError naming the live holder."""
        with self._writing():
            return lease.acquire(self.conn, run, stale_after, take_over)

    def heartbeat_run(self, held: lease.Lease) -> bool:
        with self._writing():
            return lease.heartbeat(self.conn, held)

    def release_run(self, held: lease.Lease) -> None:
        with self._writing():
            lease.release(self.conn, held)

    def retry_totals(self, run: str) -> tuple[int, int, dict[str, int]]:
        """(retries, steps that needed them, retries by last cause) over a run's live sessions."""
        rows = self.conn.execute(
            "SELECT st.retries, st.retry_cause FROM steps st JOIN sessions s ON s.id = st.session_id "
            "WHERE s.run = ? AND s.status != 'superseded' AND st.retries > 0", [run]
        ).fetchall()
        causes: dict[str, int] = {}
        for count, cause in rows:
            key = re.split(r":| \(", cause or "unknown")[0][:60]
            causes[key] = causes.get(key, 0) + count
        return sum(r[0] for r in rows), len(rows), causes

    def set_run_provenance(self, name: str, provenance: dict) -> None:
        """Record what produced the run (clarify_tui/provenance.py) on its row."""
        with self._writing(), self.conn:
            self.conn.execute('UPDATE runs SET "provenance" = ? WHERE name = ?', [json.dumps(provenance), name])

    def run_provenances(self) -> dict[str, dict]:
        """Each run's recorded provenance (runs made before it was recorded have none)."""
        if "provenance" not in self._columns("runs"):  # an older file opened read-only
            return {}
        rows = self.conn.execute('SELECT name, provenance FROM runs WHERE provenance IS NOT NULL').fetchall()
        return {name: json.loads(text) for name, text in rows}

    def run_row(self, name: str) -> dict | None:
        """The run's spec as first recorded (benchmark, dataset, agent, ..., config)."""
        rows = list(self._rows("SELECT * FROM runs WHERE name = ?", [name]))
        return rows[0] if rows else None

    def close(self) -> None:
        self.conn.close()


def _text(value: Any) -> Any:
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    return value
