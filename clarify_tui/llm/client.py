"""One chat-completion call, done properly: limited, retried, timed, costed.

Why a wrapper: every LLM component needs the same things — a per-endpoint concurrency
limit, the openai SDK's retry machinery (exponential backoff on 408/409/429/5xx,
connection errors and timeouts), one error type when retries run out
(`BackendError`), and a `Usage` with tokens, cost, latency and model for each call.

SDK clients and semaphores belong to an event loop, so they are made lazily, one per
running loop; nothing connects at import or build time.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
import weakref
from dataclasses import dataclass, field
from typing import Any

import openai

from clarify_tui.config import Config, EndpointConfig, RoleConfig
from clarify_tui.errors import BackendError
from clarify_tui.models import Usage

log = logging.getLogger(__name__)

# The papers' sampling settings per call purpose: (temperature, top_p); None = not sent.
PAPER_SAMPLING: dict[str, tuple[float | None, float | None]] = {
    "interactcomp.agent": (0.6, 0.95),  # InteractComp 4.1
    "interactcomp.responder": (1.0, None),  # InteractComp A.3
    "grader": (0.0, None),  # InteractComp A.4 (answer equivalence, all protocols)
    "cts.clarifier": (0.0, None),  # CTS 5.1: deterministic decoding
    "cts.answerer": (0.0, None),  # CTS 5.1: UA temperature 0
    "cts.rewriter": (0.0, None),  # CTS 5.1
    "cts.judge": (0.0, None),  # CTS 4.4.1
    "discobench.judge": (0.0, None),  # our choice: judges are deterministic
}


@dataclass
class Completion:
    text: str
    usage: Usage


@dataclass
class Endpoint:
    """An OpenAI-compatible server; the roles that use it share its concurrency limit."""

    base_url: str | None
    limits: list[int] = field(default_factory=list)
    _semaphores: weakref.WeakKeyDictionary = field(default_factory=weakref.WeakKeyDictionary)

    def semaphore(self) -> asyncio.Semaphore:
        """This loop's limiter, sized by the smallest limit any sharing role configured."""
        loop = asyncio.get_running_loop()
        sem = self._semaphores.get(loop)
        if sem is None:
            sem = self._semaphores[loop] = asyncio.Semaphore(min(self.limits or [32]))
        return sem


_ENDPOINTS: dict[tuple[str | None, str], Endpoint] = {}


def endpoint_for(base_url: str | None, api_key: str, limit: int) -> Endpoint:
    """The shared Endpoint for a server and key (the key enters only as a digest)."""
    digest = hashlib.sha256(api_key.encode()).hexdigest()[:16]
    endpoint = _ENDPOINTS.setdefault((base_url, digest), Endpoint(base_url))
    endpoint.limits.append(limit)
    return endpoint


class ChatClient:
    """Chat completions for one role and model against one endpoint."""

    def __init__(
        self,
        *,
        model: str,
        role: str,
        api_key: str,
        endpoint: Endpoint,
        settings: RoleConfig,
        defaults: EndpointConfig,
        config: Config,
    ) -> None:
        self.model = model
        self.role = role
        self.endpoint = endpoint
        self.settings = settings
        self.timeout = settings.timeout or defaults.timeout
        self.max_retries = settings.max_retries if settings.max_retries is not None else defaults.max_retries
        self._config = config
        self._api_key = api_key
        self._clients: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def __repr__(self) -> str:  # never show the key
        return f"ChatClient(role={self.role!r}, model={self.model!r}, base_url={self.endpoint.base_url!r})"

    def _client(self) -> openai.AsyncOpenAI:
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            client = openai.AsyncOpenAI(
                api_key=self._api_key,
                base_url=self.endpoint.base_url,
                timeout=self.timeout,
                max_retries=self.max_retries,
            )
            self._clients[loop] = client
        return client

    async def aclose(self) -> None:
        """Close this loop's HTTP client (call before the loop ends to free sockets)."""
        client = self._clients.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await client.close()

    def _params(self, purpose: str) -> dict[str, Any]:
        paper_t, paper_p = PAPER_SAMPLING.get(purpose, (None, None))
        s = self.settings
        params: dict[str, Any] = {}
        temperature = s.temperature if s.temperature is not None else paper_t
        top_p = s.top_p if s.top_p is not None else paper_p
        if temperature is not None:
            params["temperature"] = temperature
        if top_p is not None:
            params["top_p"] = top_p
        if s.max_tokens is not None:
            params[s.max_tokens_param] = s.max_tokens
        if s.reasoning_effort is not None:
            params["reasoning_effort"] = s.reasoning_effort
        return params

    async def complete(self, messages: list[dict[str, str]], purpose: str) -> Completion:
        """One chat completion; BackendError once the SDK's retries are exhausted.

        The request goes through the SDK's generic `post` (its retries, timeouts and
        errors) with `cast_to=object`, which skips typed request transformation and
        response models: that halves the client's CPU per call, which is what limits
        throughput at high concurrency. We read the few fields we need ourselves.
        """
        client = self._client()
        body = {"model": self.model, "messages": messages, **self._params(purpose)}
        async with self.endpoint.semaphore():
            started = time.perf_counter()
            try:
                data = await client.post("/chat/completions", body=body, cast_to=object)
            except openai.APIStatusError as exc:
                retried = exc.status_code in (408, 409, 429) or exc.status_code >= 500
                what = f"HTTP {exc.status_code}: {exc.message}"
                raise BackendError(self._describe(what, retried)) from exc
            except openai.APITimeoutError as exc:
                raise BackendError(self._describe(f"timed out after {self.timeout:g}s", True)) from exc
            except openai.APIConnectionError as exc:
                raise BackendError(self._describe(f"connection failed: {exc.__cause__ or exc}", True)) from exc
            latency_ms = (time.perf_counter() - started) * 1000
        text, tokens_in, tokens_out = self._read(data)
        usage = Usage(
            tokens_in=tokens_in,
            tokens_out=tokens_out,
            cost_usd=self._config.cost(self.model, tokens_in, tokens_out),
            latency_ms=latency_ms,
            model=self.model,
        )
        log.debug("%s %s %s: %d in, %d out, %.0f ms", self.role, self.model, purpose, tokens_in, tokens_out, latency_ms)
        return Completion(text=text, usage=usage)

    def _read(self, data: Any) -> tuple[str, int, int]:
        """(content, prompt tokens, completion tokens) from a chat.completion body."""
        try:
            message = data["choices"][0]["message"]
        except (KeyError, IndexError, TypeError) as exc:
            raise BackendError(self._describe(f"not a chat completion: {str(data)[:200]}")) from exc
        text = message.get("content") if isinstance(message, dict) else None
        usage = data.get("usage") or {}
        return (
            text if isinstance(text, str) else "",
            int(usage.get("prompt_tokens") or 0),
            int(usage.get("completion_tokens") or 0),
        )

    def _describe(self, what: str, retried: bool = False) -> str:
        where = self.endpoint.base_url or "the OpenAI API"
        tries = f" (after {self.max_retries} retries)" if retried and self.max_retries else ""
        return f"{self.role} model {self.model} at {where}: {what}{tries}"
