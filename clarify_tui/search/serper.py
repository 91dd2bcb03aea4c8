"""Google search through Serper (`--search serper`), as the InteractComp reference searches.

Why: the reference harness searches Google's top 5 organic results through Serper
(core/engine/search.py:38-72 of github:FoundationAgents/InteractComp): POST `/search`
with `{"q": query}` and the key in the `X-API-KEY` header; each `organic` item's title,
link and snippet. We send the same request and keep the first `max_results` (5 by
default, its `max_results_per_query`). `SERPER_BASE_URL` points it at a compatible
endpoint. Unlike the reference (which turns a failed request into a one-hit "Search
error" result, :57-59), a failure is retried (429, 5xx, connection errors, timeouts) and
then raised as BackendError: the session is errored, or under `--compat reference` the
agent is shown "Search failed". After `stop_after_failures` such failures in a row the
endpoint is down (breaker.py) and a batch run stops (docs/runs.md "Dead endpoints"). The
key lives only in this object, never in a Config or the database. Serper fetches no
pages: `visit` returns None.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from typing import Any

import httpx

from clarify_tui.breaker import Breaker
from clarify_tui.config import SerperConfig
from clarify_tui.errors import BackendError
from clarify_tui.models import SearchHit, Usage
from clarify_tui.search.base import SearchResult
from clarify_tui.search.retrying import retrying as retry_policy

DEFAULT_BASE_URL = "https://google.serper.dev"


class _Retry(Exception):
    """A transient failure worth another try, with its cause in words."""


def _is_transient(exc: BaseException) -> bool:
    return isinstance(exc, _Retry | httpx.TransportError)


class SerperSearch:
    """A SearchBackend over Serper's Google /search."""

    spec = "serper"

    def __init__(self, settings: SerperConfig, api_key: str | None, base_url: str | None) -> None:
        self.settings = settings
        self.base_url = (base_url or DEFAULT_BASE_URL).rstrip("/")
        self._api_key = api_key
        self._per_loop: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self.cache_params: dict[str, Any] = {}  # the request is the query alone
        self.breaker = Breaker("serper call", self.base_url, settings.stop_after_failures)

    def __repr__(self) -> str:  # never show the key
        return f"SerperSearch(base_url={self.base_url!r})"

    def _state(self) -> tuple[httpx.AsyncClient, asyncio.Semaphore]:
        if not self._api_key:
            raise BackendError(f"serper needs an API key ({self.settings.api_key_env} is not set)")
        loop = asyncio.get_running_loop()
        state = self._per_loop.get(loop)
        if state is None:
            client = httpx.AsyncClient(timeout=self.settings.timeout)
            state = self._per_loop[loop] = (client, asyncio.Semaphore(self.settings.max_concurrency))
        return state

    async def aclose(self) -> None:
        """Close this loop's HTTP client."""
        state = self._per_loop.pop(asyncio.get_running_loop(), None)
        if state is not None:
            await state[0].aclose()

    async def _post(self, client: httpx.AsyncClient, query: str) -> dict[str, Any]:
        response = await client.post(
            f"{self.base_url}/search",
            json={"q": query},
            headers={"X-API-KEY": self._api_key or "", "Content-Type": "application/json"},
        )
        if response.status_code == 429 or response.status_code >= 500:
            raise _Retry(f"HTTP {response.status_code}")
        if response.status_code >= 400:
            raise BackendError(f"HTTP {response.status_code}: {response.text[:200]}")
        try:
            data = response.json()
        except ValueError as exc:
            raise _Retry(f"invalid JSON in a {response.status_code} response") from exc
        if not isinstance(data, dict):
            raise _Retry(f"not a search response: {str(data)[:200]}")
        return data

    async def search(self, query: str, max_results: int = 5) -> SearchResult:
        client, semaphore = self._state()
        s = self.settings
        retrying = retry_policy(s, _is_transient)
        where = f"serper search {query!r} at {self.base_url}"
        async with semaphore:
            self.breaker.check(f"{where}: ")  # down: the run is stopping (runner.RunStopped)
            started = time.perf_counter()
            try:
                async for attempt in retrying:
                    with attempt:
                        data = await self._post(client, query)
            except BackendError as exc:  # a 4xx: ours, not counted by the breaker
                raise BackendError(f"{where} failed: {exc}") from exc
            except (_Retry, httpx.HTTPError) as exc:
                attempts = retrying.statistics.get("attempt_number", 1)
                cause = (
                    str(exc)
                    if isinstance(exc, _Retry)
                    else f"timed out after {s.timeout:g}s"
                    if isinstance(exc, httpx.TimeoutException)
                    else f"{type(exc).__name__}: {exc}"
                )
                self.breaker.failed(cause)
                raise BackendError(f"{where} failed after {attempts} attempt(s): {cause}") from exc
            self.breaker.answered()
            latency_ms = (time.perf_counter() - started) * 1000
        organic = data.get("organic") or []
        hits = [  # search.py:64-70
            SearchHit(
                title=str(item.get("title", "Untitled")),
                url=str(item.get("link", "")),
                content=str(item.get("snippet", "")),
            )
            for item in organic[:max_results]
            if isinstance(item, dict)
        ]
        usage = Usage(latency_ms=latency_ms, cost_usd=s.cost_per_search, model="serper")
        return SearchResult(query=query, hits=hits, usage=usage)

    async def visit(self, url: str) -> str | None:
        """Serper's /search fetches no pages."""
        return None
