"""A researcher's own agent: a Python object (`py:`) or a server (`http://`), held to
the engine's contract (docs/agents.md).

Why an adapter: the engine awaits `act(view) -> Action` and records what it costs; a
researcher's object may be sync or async and may fail. An exception it raises (or a reply
that is no Action) is *the agent's* failure (AgentFailed: scored wrong, shown with its
message); `AgentUnavailable` or a transport failure after retries is infrastructure
(BackendError: the session is errored, counted apart).
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import logging
import threading
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from clarify_tui.agent_view import AgentView
from clarify_tui.errors import AgentFailed, BackendError
from clarify_tui.models import Action, Usage
from clarify_tui.plugins import HttpJson, _NotJson, call, load_object

log = logging.getLogger(__name__)


def as_action(value: Any, who: str) -> Action:
    """An agent's return value as an Action (an Action, or its JSON as a dict)."""
    if isinstance(value, Action):
        return value
    if isinstance(value, dict):
        try:
            return Action.model_validate(value)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first.get("loc", ())) or "action"
            raise AgentFailed(
                f"{who} returned an invalid Action ({where}: {first.get('msg')}): {value!r}"[:400]
            ) from None
    if isinstance(value, _NotJson):
        raise AgentFailed(f"{who} returned a body that is not JSON ({value.text[:200]!r}), not an Action")
    raise AgentFailed(f"{who} returned {type(value).__name__} {repr(value)[:200]}, not an Action")


def priced(action: Action, config: Any = None) -> Action:
    """The agent's Usage with a cost: its own when it gave one; else priced from its model
    and tokens as a model call is (clarify.toml [prices], then genai-prices; None when
    neither prices the model); tokens with no model are unpriced (None), never $0."""
    usage = action.usage
    if usage is None or "cost_usd" in usage.model_fields_set or not (usage.tokens_in or usage.tokens_out):
        return action
    from clarify_tui.llm.pricing import call_cost

    usage.cost_usd = call_cost(config, usage.model, usage.tokens_in, usage.tokens_out) if usage.model else None
    return action


def _in_thread(fn: Callable[..., Any], *args: Any) -> asyncio.Future:
    """`fn(*args)` in a daemon thread of its own, as a future of this loop. Not the loop's
    default executor: asyncio.run joins its threads on exit, so an `act` past its time limit
    (which no one can stop) would hold the run open; a daemon thread does not."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future = loop.create_future()
    context = contextvars.copy_context()

    def settle(value: Any, error: BaseException | None) -> None:
        if future.done():  # given up on (the time limit): the result is not used
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(value)

    def work() -> None:
        try:
            value, error = context.run(fn, *args), None
        except BaseException as exc:  # handed to the awaiting episode, which decides
            value, error = None, exc
        try:
            loop.call_soon_threadsafe(settle, value, error)
        except RuntimeError:  # the loop closed while this act ran: nobody is waiting
            pass

    threading.Thread(target=work, name="clarify-agent-act", daemon=True).start()
    return future


async def _act(obj: Any, view: AgentView) -> Any:
    """`obj.act(view)`: awaited when it is `async def`; a plain `def act` runs in a thread,
    so a slow one does not hold up the run's other episodes (their event loop). Several
    episodes may be in it at once: a plain `act` must be thread-safe (docs/agents.md)."""
    method = obj.act
    if inspect.iscoroutinefunction(method) or inspect.iscoroutinefunction(getattr(method, "__call__", None)):  # noqa: B004 (an object's async __call__)
        value = await method(view)
    else:
        value = await _in_thread(method, view)
    return await value if inspect.isawaitable(value) else value


class PyAgent:
    """`py:FILE.py:NAME`, `py:package.module:NAME` or `py:ENTRY_POINT`.

    Each `act` has the agents' time limit (`agent.timeout`, else `[openai] timeout`; None:
    none): past it the session errors as an agent server's timeout does. A plain `def act`
    cannot be stopped: its thread is left to finish, its result unused."""

    def __init__(
        self,
        spec: str,
        args: dict[str, Any] | None = None,
        obj: Any = None,
        config: Any = None,
        timeout: float | None = None,
    ) -> None:
        self.spec = spec
        self.obj = obj if obj is not None else load_object(spec, args, needs=("act",), role="agent")
        self.config = config  # prices an own Usage that has tokens but no cost
        self.timeout = timeout

    async def act(self, view: AgentView) -> Action:
        try:
            value = await asyncio.wait_for(_act(self.obj, view), self.timeout)
        except TimeoutError:
            raise BackendError(
                f"agent {self.spec} did not act within {self.timeout:g} s on task {view.task_id} "
                f"(the agents' time limit: --set agent.timeout=SECONDS)"
            ) from None
        except BackendError:  # AgentUnavailable, or our own client failing for good
            raise
        except Exception as exc:
            # one line on stderr naming the log file, the traceback in it: the researcher debugs from there
            log.warning("agent %s raised on task %s (scored wrong)", self.spec, view.task_id, exc_info=True)
            raise AgentFailed(f"agent raised {type(exc).__name__}: {exc}"[:500]) from exc
        action = as_action(value, "agent")
        return priced(action.model_copy(deep=True) if action is value else action, self.config)

    async def aclose(self) -> None:
        close = getattr(self.obj, "aclose", None)
        if close is not None:
            await call(self.obj, "aclose")


class HttpAgent:
    """`http://HOST:PORT/PATH`: each turn POSTs the AgentView's JSON, reads an Action's."""

    def __init__(
        self, spec: str, *, timeout: float = 120.0, max_retries: int = 4, config: Any = None, stop_after: int = 0
    ) -> None:
        self.spec = spec
        self.http = HttpJson(spec, timeout=timeout, max_retries=max_retries, stop_after=stop_after, call="agent call")
        self.config = config  # prices an own Usage that has tokens but no cost

    async def act(self, view: AgentView) -> Action:
        data, retries, cause, latency = await self.http.post(view.model_dump(mode="json"))
        action = priced(as_action(data, f"agent at {self.spec}"), self.config)
        usage = action.usage or Usage()
        usage.latency_ms = usage.latency_ms or latency
        usage.retries, usage.retry_cause = usage.retries + retries, cause or usage.retry_cause
        action.usage = usage
        return action

    async def aclose(self) -> None:
        await self.http.aclose()
