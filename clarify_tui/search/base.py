"""What a search backend is: Tavily-shaped results for a query, and page text for a url."""

from __future__ import annotations

from typing import Protocol as TypingProtocol

from pydantic import BaseModel, Field

from clarify_tui.models import SearchHit, Usage


class SearchResult(BaseModel):
    query: str
    hits: list[SearchHit] = Field(default_factory=list)
    usage: Usage | None = None
    cached: bool = False


class SearchBackend(TypingProtocol):
    spec: str

    async def search(self, query: str, max_results: int = 5) -> SearchResult: ...

    async def visit(self, url: str) -> str | None:
        """The page text for a url, or None when the backend cannot fetch it."""
        ...
