"""Record / replay cache for any search backend, in the sessions' SQLite file.

Why: Tavily is a black box whose results drift from day to day (DiscoBench appendix H);
caching the raw responses turns "re-derive the same web view" into "replay a fixed
snippet log". Entries are keyed by backend, normalised query (or url) and the parameters
that shape the result, and can be exported to / imported from JSONL so a run can be
replayed on a machine with no Tavily key.

Modes: `record` uses the cache and fills it on a miss; `replay` uses only the cache (a miss
is a CacheMissError naming the query); `off` passes straight through.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import sqlite3
import threading
import unicodedata
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from clarify_tui.atomic_write import atomic_output
from clarify_tui.errors import BackendError, UsageError
from clarify_tui.models import SearchHit, Usage, now_iso
from clarify_tui.search.base import SearchBackend, SearchResult

if TYPE_CHECKING:
    import sqlite_utils

    # The cache speaks plain sqlite3 (a `run` never imports sqlite-utils, which imports
    # pandas whenever it is installed); callers may hand in either.
    Db = sqlite3.Connection | sqlite_utils.Database

CacheMode = Literal["record", "replay", "off"]
TABLE = "search_cache"
_COLUMNS = ("key", "kind", "backend", "query", "params", "response", "created_at")


class CacheMissError(BackendError):
    """Replay mode met a query (or url) that the cache does not hold."""


def normalise_query(text: str) -> str:
    """Unicode NFKC, case-folded, whitespace collapsed: 'Hornussen  Rules' == 'hornussen rules'."""
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text)).strip().casefold()


def cache_key(kind: str, backend: str, query: str, params: dict[str, Any]) -> str:
    subject = normalise_query(query) if kind == "search" else query.strip()  # urls keep their case
    blob = json.dumps([kind, backend, subject, params], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode()).hexdigest()


# The table sqlite-utils created before (`table.create(..., pk="key")`), column for column.
_CREATE = f"""CREATE TABLE IF NOT EXISTS [{TABLE}] (
   [key] TEXT PRIMARY KEY,
   [kind] TEXT,
   [backend] TEXT,
   [query] TEXT,
   [params] TEXT,
   [response] TEXT,
   [created_at] TEXT
)"""
_INSERT = f"INSERT OR REPLACE INTO [{TABLE}] ({', '.join(f'[{c}]' for c in _COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))})"


def _conn(db: Db) -> sqlite3.Connection:
    return db if isinstance(db, sqlite3.Connection) else db.conn


def recorded(db: Db, backend: str) -> int:
    """How many responses of `backend` the database holds (0 when it has no cache table)."""
    try:
        return _conn(db).execute(f"SELECT COUNT(*) FROM [{TABLE}] WHERE backend = ?", [backend]).fetchone()[0]
    except sqlite3.OperationalError:  # no such table: nothing was ever recorded
        return 0


def counts(db: Db) -> list[tuple[str, int]]:
    """(backend, responses recorded) for each backend in the cache (`cache stats`)."""
    return _conn(db).execute(f"SELECT backend, COUNT(*) FROM [{TABLE}] GROUP BY backend").fetchall()


def ensure_table(db: Db) -> None:
    with _conn(db) as conn:
        conn.execute(_CREATE)


def _insert(db: Db, rows: list[dict[str, Any]]) -> None:
    with _conn(db) as conn:  # one transaction, committed (or rolled back) here
        conn.executemany(_INSERT, [tuple(row[c] for c in _COLUMNS) for row in rows])


class CachedSearch:
    """A SearchBackend in front of another one."""

    def __init__(
        self,
        backend: SearchBackend,
        db: Db,
        mode: CacheMode = "record",
        write_db: Db | None = None,
    ) -> None:
        """`write_db`: a connection of its own for filling the cache from a worker thread,
        so a database locked by another process never stalls the event loop (batch runs)."""
        if mode not in ("record", "replay", "off"):
            raise UsageError(f"search cache mode must be record, replay or off, not {mode!r}")
        self.backend = backend
        self.db = db
        self.mode = mode
        self.write_db = write_db
        self._write_lock = threading.Lock()
        self.spec = f"cache({backend.spec})"
        self._base_params: dict[str, Any] = dict(getattr(backend, "cache_params", {}) or {})
        ensure_table(db)

    def _lookup(self, key: str) -> dict[str, Any] | None:
        row = _conn(self.db).execute(f"select response from {TABLE} where key = ?", [key]).fetchone()
        return json.loads(row[0]) if row else None

    async def _fill(self, *entry: Any) -> None:
        if self.write_db is None:
            self._store(self.db, *entry)
        else:
            await asyncio.to_thread(self._store_locked, self.write_db, *entry)

    def close_write_db(self) -> None:
        """Close the write connection once no worker thread is inside it. A fill whose
        episode was cancelled (the run stopping on a full disk) still runs in its thread:
        closing the connection under it crashes the process (SIGSEGV in SQLite)."""
        with self._write_lock:
            if self.write_db is not None:
                self.write_db.close()

    def _store_locked(self, db: Db, *entry: Any) -> None:
        with self._write_lock:  # one writer thread at a time on the shared write connection
            self._store(db, *entry)

    def _store(self, db: Db, key: str, kind: str, query: str, params: dict[str, Any], response: Any) -> None:
        _insert(
            db,
            [
                {
                    "key": key,
                    "kind": kind,
                    "backend": self.backend.spec,
                    "query": query,
                    "params": json.dumps(params, sort_keys=True),
                    "response": json.dumps(response, ensure_ascii=False),
                    "created_at": now_iso(),
                },
            ],
        )

    def _miss(self, what: str, params: dict[str, Any]) -> CacheMissError:
        return CacheMissError(f"search cache miss in replay mode: backend {self.backend.spec}, {what}, params {params}")

    async def search(self, query: str, max_results: int = 5) -> SearchResult:
        if self.mode == "off":
            return await self.backend.search(query, max_results)
        params = {**self._base_params, "max_results": max_results}
        key = cache_key("search", self.backend.spec, query, params)
        cached = self._lookup(key)
        if cached is not None:
            hits = [SearchHit.model_validate(hit) for hit in cached["hits"]]
            return SearchResult(query=query, hits=hits, usage=Usage(model=self.backend.spec), cached=True)
        if self.mode == "replay":
            raise self._miss(f"query {query!r}", params)
        result = await self.backend.search(query, max_results)
        await self._fill(key, "search", query, params, {"hits": [h.model_dump() for h in result.hits]})
        return result

    async def visit(self, url: str) -> str | None:
        if self.mode == "off":
            return await self.backend.visit(url)
        key = cache_key("visit", self.backend.spec, url.strip(), self._base_params)
        cached = self._lookup(key)
        if cached is not None:
            return cached["text"]
        if self.mode == "replay":
            raise self._miss(f"url {url!r}", self._base_params)
        text = await self.backend.visit(url)
        await self._fill(key, "visit", url.strip(), self._base_params, {"text": text})
        return text


def export_cache(db: Db, path: Path, protect: Iterable[Path] = ()) -> int:
    """Write every cached response to `path` as JSONL (one entry a line); returns the count.
    `path` is replaced only when complete, and never when it is one of `protect` (the database)."""
    ensure_table(db)
    count = 0
    with atomic_output(Path(path), protect=protect) as out:
        cursor = _conn(db).execute(f"select {', '.join(_COLUMNS)} from {TABLE} order by created_at, key")
        for row in cursor:
            entry = dict(zip(_COLUMNS, row, strict=True))
            entry["params"] = json.loads(entry["params"])
            entry["response"] = json.loads(entry["response"])
            out.write(json.dumps(entry, ensure_ascii=False) + "\n")
            count += 1
    return count


def import_cache(db: Db, path: Path, rows: list[dict] | None = None) -> int:
    """Load a JSONL export (entries replace same-key ones); returns the count. `rows`: the
    file as `read_cache_file` read it (the command reads it before opening the database,
    so a bad file creates nothing)."""
    ensure_table(db)
    rows = read_cache_file(path) if rows is None else rows
    if rows:
        _insert(db, rows)
    return len(rows)


def read_cache_file(path: Path) -> list[dict]:
    """The rows of a JSONL export, or ValueError naming the file and line.

    The key of each entry is recomputed from its content, so an edited or foreign file
    cannot file a response under another query's key.
    """
    rows = []
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        at = exc.object[: exc.start].count(b"\n") + 1
        raise UsageError(f"{path}:{at}: not UTF-8 (byte 0x{exc.object[exc.start]:02x}); save it as UTF-8") from exc
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from exc
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
            kind, backend, query, params = entry["kind"], entry["backend"], entry["query"], entry["params"]
            response = entry["response"]
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise UsageError(f"{path}:{number}: not a search cache entry ({exc})") from exc
        except RecursionError:  # 100,000 nested brackets
            raise UsageError(f"{path}:{number}: not a search cache entry (nested too deeply)") from None
        if kind not in ("search", "visit") or not isinstance(params, dict):
            raise UsageError(f"{path}:{number}: not a search cache entry (kind {kind!r})")
        rows.append(
            {
                "key": cache_key(kind, backend, query, params),
                "kind": kind,
                "backend": backend,
                "query": query,
                "params": json.dumps(params, sort_keys=True),
                "response": json.dumps(response, ensure_ascii=False),
                "created_at": entry.get("created_at") or now_iso(),
            }
        )
    return rows
