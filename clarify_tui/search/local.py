"""Offline search: SQLite FTS5 with BM25 over the bundled corpus, Tavily-shaped results.

Limits: lexical matching only (no synonyms, no stemming); Chinese is matched through
character bigrams, so a one-character Chinese query matches nothing. The index is built
in memory at the first search, not when the backend is made: tokenising the bundled
corpus (Chinese documents load OpenCC) costs ~80 ms of CPU, which every browser visitor
of a campaign paid before its first screen although nobody searches in the first second
(benchmarks/bench_visitors.py).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path

from clarify_tui.errors import UsageError
from clarify_tui.models import SearchHit
from clarify_tui.paths import corpus_dir
from clarify_tui.search.base import SearchResult
from clarify_tui.text import tokens

TITLE_WEIGHT = 3.0
CONTENT_WEIGHT = 1.0


class CorpusError(UsageError):
    """A corpus file line that is not a valid document."""


def load_corpus(folder: Path | None = None) -> list[dict]:
    folder = folder or corpus_dir()
    docs: list[dict] = []
    for path in sorted(folder.glob("*.jsonl")):
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                doc = json.loads(line)
            except json.JSONDecodeError as exc:
                raise CorpusError(f"{path}:{lineno}: not JSON ({exc.msg})") from exc
            missing = [f for f in ("id", "title", "url", "content") if not doc.get(f)]
            if missing:
                raise CorpusError(f"{path}:{lineno}: missing field(s) {', '.join(missing)}")
            docs.append(doc)
    return docs


class LocalSearch:
    """BM25 search over an in-memory FTS5 index of the corpus documents."""

    spec = "local"

    def __init__(self, docs: list[dict] | None = None) -> None:
        self.docs = load_corpus() if docs is None else docs
        self._by_url = {d["url"]: d for d in self.docs}
        self._db: sqlite3.Connection | None = None
        self._building = threading.Lock()

    def _index(self) -> sqlite3.Connection:
        """The FTS5 index, built on first use (once, whichever thread asks first)."""
        with self._building:
            if self._db is None:
                db = sqlite3.connect(":memory:", check_same_thread=False)
                db.execute("CREATE VIRTUAL TABLE docs USING fts5(title, content, tokenize='unicode61')")
                db.executemany(
                    "INSERT INTO docs(rowid, title, content) VALUES (?, ?, ?)",
                    [
                        (i, " ".join(tokens(d["title"])), " ".join(tokens(d["content"])))
                        for i, d in enumerate(self.docs)
                    ],
                )
                self._db = db
            return self._db

    def search_sync(self, query: str, max_results: int = 5) -> list[SearchHit]:
        terms = sorted(set(tokens(query)))
        if not terms:
            return []
        match = " OR ".join('"' + t.replace('"', "") + '"' for t in terms)
        rows = (
            self._index()
            .execute(
                f"SELECT rowid, bm25(docs, {TITLE_WEIGHT}, {CONTENT_WEIGHT}) AS rank FROM docs "
                "WHERE docs MATCH ? ORDER BY rank LIMIT ?",
                (match, max_results),
            )
            .fetchall()
        )
        hits = []
        for rowid, rank in rows:
            doc = self.docs[rowid]
            hits.append(SearchHit(title=doc["title"], url=doc["url"], content=doc["content"], score=round(-rank, 4)))
        return hits

    async def search(self, query: str, max_results: int = 5) -> SearchResult:
        return SearchResult(query=query, hits=self.search_sync(query, max_results))

    async def visit(self, url: str) -> str | None:
        doc = self._by_url.get(url)
        return doc["content"] if doc else None
