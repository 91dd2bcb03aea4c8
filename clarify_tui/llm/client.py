"""One chat-completion call, done properly: limited, retried, timed, costed.

Why a wrapper: every LLM component needs the same things — a per-endpoint concurrency
limit, retries with exponential backoff on 408/409/429/5xx, connection errors, timeouts
and 200s whose body is not a chat completion (counted, with the last cause, on the
step), one error type when retries run out
(`BackendError`), and a `Usage` with tokens, cost, latency and model for each call.

SDK clients and semaphores belong to an event loop, so they are made lazily, one per
running loop; nothing connects at import or build time.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import random
import re
import time
import weakref
from dataclasses import dataclass, field
from typing import Any

import openai

from clarify_tui.breaker import Breaker
from clarify_tui.config import Config, EndpointConfig, RoleConfig
from clarify_tui.errors import BackendError
from clarify_tui.llm.pricing import call_cost
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


_O_SERIES = re.compile(r"o\d")


def is_reasoning_model(model: str) -> bool:
    """o-series and gpt-5 models take no `top_p` and want `max_completion_tokens`: the
    InteractComp reference omits one and sends the other for them (core/engine/async_llm.py:
    212-221, names containing "o3" or "gpt-5"); we also cover o1, o4-mini, ... by name."""
    name = model.lower()
    return "o3" in name or "gpt-5" in name or bool(_O_SERIES.match(name.rsplit("/", 1)[-1]))


@dataclass
class Completion:
    text: str
    usage: Usage


@dataclass
class Endpoint:
    """An OpenAI-compatible server; the roles that use it share its concurrency limit and
    its circuit breaker (breaker.py: a batch run stops when it is down, docs/runs.md)."""

    base_url: str | None
    limits: list[int] = field(default_factory=list)
    _semaphores: weakref.WeakKeyDictionary = field(default_factory=weakref.WeakKeyDictionary)
    breaker: Breaker = field(init=False)

    def __post_init__(self) -> None:
        self.breaker = Breaker("model call", self.base_url or "the OpenAI API")

    @property
    def down(self) -> str | None:
        return self.breaker.down

    def semaphore(self) -> asyncio.Semaphore:
        """This loop's limiter, sized by the smallest limit any sharing role configured.
        A limit that changed since (a second run in the same process pinned a smaller one)
        makes a new limiter: one loop can serve several runs (an event loop kept alive
        across `asyncio.run` calls by nest_asyncio, as Jupyter and Inspect apply it), and a
        run must never go out with the previous run's limit."""
        loop = asyncio.get_running_loop()
        limit = min(self.limits or [32])
        held = self._semaphores.get(loop)
        if held is None or held[0] != limit:
            held = self._semaphores[loop] = (limit, asyncio.Semaphore(limit))
        return held[1]


_ENDPOINTS: dict[tuple[str | None, str], Endpoint] = {}


def endpoint_for(base_url: str | None, api_key: str, limit: int, stop_after: int = 0) -> Endpoint:
    """The shared Endpoint for a server and key (the key enters only as a digest)."""
    digest = hashlib.sha256(api_key.encode()).hexdigest()[:16]
    endpoint = _ENDPOINTS.setdefault((base_url, digest), Endpoint(base_url))
    endpoint.limits.append(limit)
    endpoint.breaker.stop_after = stop_after
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
                max_retries=0,  # complete() retries, counting them
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
        reasoning = is_reasoning_model(self.model)
        temperature = s.temperature if s.temperature is not None else paper_t
        top_p = s.top_p if s.top_p is not None else paper_p
        if temperature is not None:
            params["temperature"] = temperature
        if top_p is not None and not reasoning:
            params["top_p"] = top_p
        if s.max_tokens is not None:
            params["max_completion_tokens" if reasoning else s.max_tokens_param] = s.max_tokens
        if s.reasoning_effort is not None:
            params["reasoning_effort"] = s.reasoning_effort
        seed = s.seed if s.seed is not None else self._config.seed  # the role's own, else run --seed
        if seed is not None:
            params["seed"] = seed
        return params

    def request_params(self, purpose: str) -> dict[str, Any]:
        """The sampling parameters a call for `purpose` sends (a run's provenance records them)."""
        return self._params(purpose)

    async def complete(self, messages: list[dict[str, str]], purpose: str) -> Completion:
        """One chat completion, retried on transient faults; BackendError when they run out.

        The request goes through the SDK's generic `post` (its timeouts and errors) with
        `cast_to=object`, which skips typed request transformation and response models:
        that halves the client's CPU per call, which is what limits throughput at high
        concurrency. We read the few fields we need ourselves.

        Retries are ours, not the SDK's, so they can be counted and their last cause kept
        on the step (`Usage.retries`, `Usage.retry_cause`), and so a 200 whose body is not
        a chat completion (invalid JSON from a proxy) is retried like a 502. Backoff as
        the SDK's: 0.5 s doubling to 8 s with jitter, or the server's retry-after.
        """
        self.endpoint.breaker.check(self._describe(""))  # down: the run is stopping (runner.RunStopped)
        client = self._client()
        body = {"model": self.model, "messages": messages, **self._params(purpose)}
        started = time.perf_counter()
        causes: list[str] = []
        while True:
            try:
                async with self.endpoint.semaphore():
                    data = await self._post(client, body)
                text, tokens_in, tokens_out = self._read(data)
                break
            except _Transient as fault:
                causes.append(fault.cause)
                if len(causes) > self.max_retries:
                    self.endpoint.breaker.failed(fault.cause)
                    raise BackendError(self._describe(fault.cause, len(causes) - 1)) from fault.__cause__
                await asyncio.sleep(fault.wait if fault.wait is not None else _backoff(len(causes)))
            except openai.APIStatusError as exc:  # 4xx other than 408/409/429: retrying will not help
                raise BackendError(self._describe(f"HTTP {exc.status_code}: {exc.message}", len(causes))) from exc
        self.endpoint.breaker.answered()
        latency_ms = (time.perf_counter() - started) * 1000
        usage = Usage(
            tokens_in=tokens_in,
            tokens_out=tokens_out,
            cost_usd=call_cost(self._config, self.model, tokens_in, tokens_out),
            latency_ms=latency_ms,
            model=self.model,
            retries=len(causes),
            retry_cause=causes[-1] if causes else None,
        )
        log.debug(
            "%s %s %s: %d in, %d out, %.0f ms, %d retries",
            self.role,
            self.model,
            purpose,
            tokens_in,
            tokens_out,
            latency_ms,
            len(causes),
        )
        return Completion(text=text, usage=usage)

    def _read(self, data: Any) -> tuple[str, int, int]:
        """(content, prompt tokens, completion tokens) from a chat.completion body."""
        try:
            message = data["choices"][0]["message"]
        except (KeyError, IndexError, TypeError) as exc:
            raise _Transient(f"not a chat completion: {str(data)[:200]}") from exc
        text = message.get("content") if isinstance(message, dict) else None
        usage = data.get("usage") or {}
        return (
            text if isinstance(text, str) else "",
            int(usage.get("prompt_tokens") or 0),
            int(usage.get("completion_tokens") or 0),
        )

    def _describe(self, what: str, retries: int = 0) -> str:
        where = self.endpoint.base_url or "the OpenAI API"
        tries = f" (after {retries} retries)" if retries else ""
        return f"{self.role} model {self.model} at {where}: {what}{tries}"

    async def _post(self, client: openai.AsyncOpenAI, body: dict) -> Any:
        """One attempt; transient faults become _Transient with their cause in words."""
        try:
            return await client.post("/chat/completions", body=body, cast_to=object)
        except openai.APIStatusError as exc:
            if exc.status_code in (408, 409, 429) or exc.status_code >= 500:
                raise _Transient(f"HTTP {exc.status_code}: {exc.message}", _retry_after(exc.response)) from exc
            raise
        except openai.APITimeoutError as exc:
            raise _Transient(f"timed out after {self.timeout:g}s") from exc
        except openai.APIConnectionError as exc:
            raise _Transient(f"connection failed: {_root_cause(exc)}") from exc
        except ValueError as exc:  # a 200 whose body is not JSON (json.JSONDecodeError)
            raise _Transient(f"invalid JSON in a 200 response ({exc})") from exc


class _Transient(Exception):
    """A fault worth another attempt: 408/409/429/5xx, timeout, connection, bad body."""

    def __init__(self, cause: str, wait: float | None = None) -> None:
        super().__init__(cause)
        self.cause = cause
        self.wait = wait


def _backoff(attempt: int) -> float:
    return min(0.5 * 2 ** (attempt - 1), 8.0) * (1 - 0.25 * random.random())


def _retry_after(response: Any) -> float | None:
    """The server's retry-after-ms / retry-after (seconds), when sane (0-60 s)."""
    headers = getattr(response, "headers", None) or {}
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        raw = headers.get(name)
        if raw is None:
            continue
        try:
            value = float(raw) / scale
        except (TypeError, ValueError):
            continue
        if 0 <= value <= 60:
            return value
    return None


def _root_cause(exc: BaseException) -> str:
    """The innermost error with something to say ('ConnectError: [Errno 111] Connection refused')."""
    best = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    seen = set()
    node = exc.__cause__ or exc.__context__
    while node is not None and id(node) not in seen:
        seen.add(id(node))
        if str(node):
            best = f"{type(node).__name__}: {node}"
        node = node.__cause__ or node.__context__
    return best
