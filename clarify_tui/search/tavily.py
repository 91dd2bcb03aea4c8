"""Tavily web search (`--search tavily`), with retries and a concurrency limit.

Retries use tenacity (exponential backoff with jitter) on what can pass: 429, 5xx,
connection errors and timeouts. Bad keys and bad requests fail at once. When retries run
out the caller gets BackendError, and the engine marks the session errored; after
`stop_after_failures` such calls in a row the endpoint is down (breaker.py) and a batch
run stops (docs/runs.md "Dead endpoints").
Page visits go through Tavily's /extract. The key lives only inside the SDK client.
"""

from __future__ import annotations

import asyncio
import json
import time
import weakref
from typing import Any

import httpx
from tavily import AsyncTavilyClient
from tavily.errors import BadRequestError, ForbiddenError, InvalidAPIKeyError, UsageLimitExceededError
from tavily.errors import TimeoutError as TavilyTimeout

from clarify_tui.breaker import Breaker
from clarify_tui.config import TavilyConfig
from clarify_tui.errors import BackendError
from clarify_tui.models import SearchHit, Usage
from clarify_tui.search.base import SearchResult
from clarify_tui.search.retrying import retrying as retry_policy


def is_transient(exc: BaseException) -> bool:
    """Worth another try: rate limit, server error, network trouble, timeout."""
    if isinstance(exc, UsageLimitExceededError | TavilyTimeout | httpx.TransportError):
        return True
    return isinstance(exc, httpx.HTTPStatusError) and exc.response.status_code >= 500


def _describe(exc: BaseException) -> str:
    if isinstance(exc, httpx.HTTPStatusError):
        return f"HTTP {exc.response.status_code}"
    if isinstance(exc, UsageLimitExceededError):
        return f"HTTP 429 (rate or usage limit) {exc}".strip()
    if isinstance(exc, InvalidAPIKeyError):
        return "invalid API key (HTTP 401)"
    if isinstance(exc, ForbiddenError | BadRequestError):
        return f"{type(exc).__name__}: {exc}"
    return f"{type(exc).__name__}: {exc}"


class TavilySearch:
    """A SearchBackend over Tavily's /search and /extract."""

    spec = "tavily"

    def __init__(self, settings: TavilyConfig, api_key: str | None, base_url: str | None) -> None:
        self.settings = settings
        self.base_url = base_url
        self._api_key = api_key
        self._per_loop: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        # what else shapes the results, for the search cache's key
        self.cache_params = {"search_depth": settings.search_depth, "topic": settings.topic}
        self.breaker = Breaker("tavily call", base_url or "https://api.tavily.com", settings.stop_after_failures)

    def __repr__(self) -> str:  # never show the key
        return f"TavilySearch(base_url={self.base_url!r})"

    def _state(self) -> tuple[AsyncTavilyClient, asyncio.Semaphore]:
        if not self._api_key:
            raise BackendError(f"tavily needs an API key ({self.settings.api_key_env} is not set)")
        loop = asyncio.get_running_loop()
        state = self._per_loop.get(loop)
        if state is None:
            client = AsyncTavilyClient(api_key=self._api_key, api_base_url=self.base_url)
            state = self._per_loop[loop] = (client, asyncio.Semaphore(self.settings.max_concurrency))
        return state

    async def aclose(self) -> None:
        """Close this loop's HTTP client."""
        state = self._per_loop.pop(asyncio.get_running_loop(), None)
        if state is not None:
            await state[0].close()

    async def _call(self, what: str, call) -> tuple[dict[str, Any], float]:
        client, semaphore = self._state()
        s = self.settings
        retrying = retry_policy(s, is_transient)
        where = f"tavily {what} at {self.base_url or 'https://api.tavily.com'}"
        async with semaphore:
            self.breaker.check(f"{where}: ")  # down: the run is stopping (runner.RunStopped)
            started = time.perf_counter()
            try:
                async for attempt in retrying:
                    with attempt:
                        response = await call(client)
            except (
                UsageLimitExceededError,
                InvalidAPIKeyError,
                ForbiddenError,
                BadRequestError,
                TavilyTimeout,
                httpx.HTTPError,
                json.JSONDecodeError,
            ) as exc:
                attempts = retrying.statistics.get("attempt_number", 1)
                if is_transient(exc) or isinstance(exc, json.JSONDecodeError):
                    self.breaker.failed(_describe(exc))
                raise BackendError(f"{where} failed after {attempts} attempt(s): {_describe(exc)}") from exc
            self.breaker.answered()
            return response, (time.perf_counter() - started) * 1000

    async def search(self, query: str, max_results: int = 5) -> SearchResult:
        s = self.settings
        response, latency_ms = await self._call(
            f"search {query!r}",
            lambda c: c.search(
                query, search_depth=s.search_depth, topic=s.topic, max_results=max_results, timeout=s.timeout
            ),
        )
        hits = [
            SearchHit(
                title=str(r.get("title") or ""),
                url=str(r.get("url") or ""),
                content=str(r.get("content") or ""),
                score=float(r.get("score") or 0.0),
            )
            for r in response.get("results", [])
        ]
        usage = Usage(latency_ms=latency_ms, cost_usd=s.cost_per_search, model="tavily")
        return SearchResult(query=query, hits=hits[:max_results], usage=usage)

    async def visit(self, url: str) -> str | None:
        response, _ = await self._call(f"extract {url!r}", lambda c: c.extract([url], timeout=self.settings.timeout))
        for result in response.get("results", []):
            if result.get("raw_content"):
                return str(result["raw_content"])
        return None
