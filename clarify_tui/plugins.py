"""A researcher's own backends: `py:` objects loaded from a file, a module or an entry
point, and `http://` servers, for every role (agent, user, judge, CTS deep search).

Why one module: loading, the one-line errors of a bad spec, the file hash a run records
(so `--resume` refuses a changed file) and the HTTP call with timeouts and retries are the
same whatever the role; the roles' adapters (agents/custom.py, backends.py) only say which
methods exist and what they return.

Spec forms (docs/agents.md): `py:path/to/file.py:NAME`, `py:package.module:NAME`,
`py:ENTRY_POINT` (group `clarify_tui.agents`), `http://HOST:PORT/PATH`.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib
import importlib.util
import inspect
import json
import random
import sys
import time
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clarify_tui.backend_spec import BackendSpec
from clarify_tui.breaker import Breaker, shown_url
from clarify_tui.errors import BackendError, UsageError

ENTRY_POINT_GROUP = "clarify_tui.agents"


class PluginSpecError(UsageError):
    """A `py:` or `http://` spec that cannot be used: one line naming what is wrong."""


@dataclass(frozen=True)
class Target:
    """Where a `py:` spec points: a file or a module, and the NAME in it (or an entry point)."""

    spec: str
    file: Path | None = None
    module: str | None = None
    name: str | None = None
    entry_point: str | None = None


def parse_py(spec: str) -> Target:
    body = spec.removeprefix("py:")
    if ":" not in body:
        if not body:
            raise PluginSpecError(f"'{spec}': give py:FILE.py:NAME, py:package.module:NAME or py:ENTRY_POINT")
        return Target(spec, entry_point=body)
    where, _, name = body.rpartition(":")
    if not name.isidentifier():
        raise PluginSpecError(f"'{spec}': '{name}' is not a Python name (py:FILE.py:NAME or py:package.module:NAME)")
    if where.endswith(".py") or "/" in where or "\\" in where:
        return Target(spec, file=Path(where), name=name)
    return Target(spec, module=where, name=name)


def entry_points() -> dict[str, Any]:
    """Installed packages' agents (`[project.entry-points."clarify_tui.agents"]`), by name."""
    from importlib.metadata import entry_points as found

    return {ep.name: ep for ep in found(group=ENTRY_POINT_GROUP)}


def _module_file(module: str) -> Path | None:
    try:
        found = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    return Path(found.origin) if found is not None and found.origin and found.has_location else None


def source_file(spec: str) -> Path | None:
    """The file a `py:` spec runs (None for http: or what cannot be found)."""
    if not BackendSpec.parse(spec).is_py:
        return None
    target = parse_py(spec)
    if target.file is not None:
        return target.file if target.file.is_file() else None
    if target.module is not None:
        return _module_file(target.module)
    ep = entry_points().get(target.entry_point or "")
    return _module_file(ep.value.partition(":")[0]) if ep is not None else None


def file_sha256(spec: str | None) -> str | None:
    """The sha256 of the file a `py:` spec runs: recorded on the run, compared by --resume."""
    path = source_file(spec) if spec else None
    if path is None:
        return None
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _import_file(target: Target) -> Any:
    path = target.file
    assert path is not None
    if not path.is_file():
        raise PluginSpecError(f"'{target.spec}': no such file {path}")
    name = "clarify_user_" + hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:12]
    if name in sys.modules:
        return sys.modules[name]
    loader_spec = importlib.util.spec_from_file_location(name, path)
    if loader_spec is None or loader_spec.loader is None:
        raise PluginSpecError(f"'{target.spec}': {path} cannot be imported as Python")
    module = importlib.util.module_from_spec(loader_spec)
    sys.modules[name] = module
    try:
        loader_spec.loader.exec_module(module)
    except BaseException as exc:
        del sys.modules[name]
        raise PluginSpecError(f"'{target.spec}': importing {path} failed: {_one_line(exc)}") from None
    return module


def _import_module(target: Target) -> Any:
    assert target.module is not None
    try:
        return importlib.import_module(target.module)
    except ModuleNotFoundError as exc:
        if exc.name and target.module.startswith(exc.name):
            raise PluginSpecError(
                f"'{target.spec}': no module named '{target.module}' (a file path must end in .py)"
            ) from None
        raise PluginSpecError(f"'{target.spec}': importing {target.module} failed: {_one_line(exc)}") from None
    except BaseException as exc:
        raise PluginSpecError(f"'{target.spec}': importing {target.module} failed: {_one_line(exc)}") from None


def _one_line(exc: BaseException) -> str:
    where = ""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is not None:
        where = f" ({Path(tb.tb_frame.f_code.co_filename).name}:{tb.tb_lineno})"
    if isinstance(exc, SyntaxError) and exc.lineno:
        where = f" ({Path(exc.filename or '?').name}:{exc.lineno})"
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {text}{where}"


def check_spec(
    spec: str, args: dict[str, Any] | None = None, *, needs: tuple[str, ...] = ("act",), role: str = "agent"
) -> None:
    """What load_object refuses, found without making the object (a constructor may load a
    model: the TUI makes it once, when the screen opens): the file, NAME, an import error,
    a class without the methods, arguments its signature does not take. What a factory
    returns is checked when it is called."""
    found = _find(spec)
    args = {k: v for k, v in (args or {}).items() if k != "__seed__"}
    if callable(found) and (inspect.isclass(found) or not any(hasattr(found, n) for n in needs)):
        try:
            inspect.signature(found).bind(**args)
        except TypeError as exc:
            raise PluginSpecError(
                f"'{spec}': could not make {getattr(found, '__name__', found)} with {_show_args(args)}: {exc}"
            ) from None
        except ValueError:  # no signature to read (a builtin): it is checked when made
            pass
    elif args:
        raise PluginSpecError(
            f"'{spec}': arguments {_show_args(args)} given, but it names an instance, not a class or factory"
        )
    if inspect.isclass(found) and not any(callable(getattr(found, n, None)) for n in needs):
        raise PluginSpecError(
            f"'{spec}': {found.__name__} is not {'an' if role[0] in 'aeiou' else 'a'} {role} "
            f"(no {' / '.join(needs)} method)"
        )
    if not callable(found) and not any(callable(getattr(found, n, None)) for n in needs):
        raise PluginSpecError(
            f"'{spec}': {type(found).__name__} is not {'an' if role[0] in 'aeiou' else 'a'} "
            f"{role} (no {' / '.join(needs)} method)"
        )


def _find(spec: str) -> Any:
    """The object NAME of a `py:` spec (or its entry point), not yet made."""
    target = parse_py(spec)
    if target.entry_point is not None:
        eps = entry_points()
        ep = eps.get(target.entry_point)
        if ep is None:
            known = ", ".join(sorted(eps)) or "none installed"
            raise PluginSpecError(
                f"'{spec}': no entry point '{target.entry_point}' in group "
                f"{ENTRY_POINT_GROUP} ({known}); or give py:FILE.py:NAME"
            )
        try:
            return ep.load()
        except BaseException as exc:
            raise PluginSpecError(f"'{spec}': loading entry point {ep.value} failed: {_one_line(exc)}") from None
    module = _import_file(target) if target.file is not None else _import_module(target)
    if not hasattr(module, target.name or ""):
        public = sorted(
            n
            for n, v in vars(module).items()
            if not n.startswith("_")
            and (inspect.isclass(v) or inspect.isfunction(v))
            and getattr(v, "__module__", None) == module.__name__
        )  # its own, not imports
        where = target.file or target.module
        raise PluginSpecError(
            f"'{spec}': {where} has no '{target.name}'" + (f" (it has: {', '.join(public[:12])})" if public else "")
        )
    return getattr(module, target.name or "")


def load_object(
    spec: str, args: dict[str, Any] | None = None, *, needs: tuple[str, ...] = ("act",), role: str = "agent"
) -> Any:
    """The object a `py:` spec names: NAME is a class (made with `args` as keyword
    arguments), a factory (called with them) or an instance; it must have one of `needs`."""
    found = _find(spec)
    args = dict(args or {})
    seed = args.pop("__seed__", None)  # run --seed: passed on only to what takes a `seed` argument
    if seed is not None and "seed" not in args and callable(found) and _takes(found, "seed"):
        args["seed"] = seed
    obj = found
    if inspect.isclass(found) or (callable(found) and not any(hasattr(found, n) for n in needs)):
        try:
            obj = found(**(args or {}))
        except TypeError as exc:
            raise PluginSpecError(
                f"'{spec}': could not make {getattr(found, '__name__', found)} with {_show_args(args)}: {exc}"
            ) from None
        except BaseException as exc:
            raise PluginSpecError(
                f"'{spec}': making {getattr(found, '__name__', found)} failed: {_one_line(exc)}"
            ) from None
    elif args:
        raise PluginSpecError(
            f"'{spec}': arguments {_show_args(args)} given, but it names an instance, not a class or factory"
        )
    if not any(callable(getattr(obj, n, None)) for n in needs):
        raise PluginSpecError(
            f"'{spec}': {type(obj).__name__} is not {'an' if role[0] in 'aeiou' else 'a'} "
            f"{role} (no {' / '.join(needs)} method)"
        )
    return obj


def _takes(func: Any, name: str) -> bool:
    try:
        return name in inspect.signature(func).parameters
    except (TypeError, ValueError):
        return False


def _show_args(args: dict[str, Any] | None) -> str:
    return "no arguments" if not args else "arguments " + ", ".join(f"{k}={v!r}" for k, v in args.items())


async def call(obj: Any, method: str, *args: Any) -> Any:
    """`obj.method(*args)`, awaited if it is a coroutine (a plain `def` is accepted too)."""
    result = getattr(obj, method)(*args)
    if inspect.isawaitable(result):
        result = await result
    return result


def parse_args(items: list[str], flag: str = "--agent-arg") -> dict[str, Any]:
    """`KEY=VALUE` items to a dict, the values read as TOML (`n=3`, `t=0.2`, `x=true`) or
    else as plain strings."""
    import tomllib

    out: dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip().isidentifier():
            raise UsageError(f"{flag} expects KEY=VALUE with a Python name as KEY, got '{item}'")
        try:
            out[key.strip()] = tomllib.loads(f"v = {raw}")["v"]
        except tomllib.TOMLDecodeError:
            out[key.strip()] = raw
    return out


# ---- http ------------------------------------------------------------------------------


def check_url(url: str) -> None:
    """Refuse an `http://` spec no request can reach (no host, a port that is no number)
    before the run: each call used to fail and be retried with backoff, every session errored."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is no number or out of range
    except ValueError as exc:
        raise PluginSpecError(f"'{url}': not a usable URL ({exc})") from None
    if not parts.hostname:
        raise PluginSpecError(f"'{url}': no host (give http://HOST:PORT/PATH)")


class HttpJson:
    """POST JSON, read JSON: one client per event loop, the LLM calls' timeout and retry
    rules (408/409/429/5xx, connection errors and timeouts are retried with backoff; when
    they run out the call raises BackendError, an infrastructure failure)."""

    def __init__(
        self, url: str, *, timeout: float = 120.0, max_retries: int = 4, stop_after: int = 0, call: str = "backend call"
    ) -> None:
        check_url(url)
        self.url = url
        self.timeout = timeout
        self.max_retries = max_retries
        # as a model endpoint's: `stop_after` calls in a row out of retries stop the run (docs/runs.md)
        self.breaker = Breaker(call, url, stop_after)
        self._clients: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def _client(self):
        import httpx

        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            client = self._clients[loop] = httpx.AsyncClient(timeout=self.timeout)
        return client

    async def aclose(self) -> None:
        loop = asyncio.get_running_loop()
        client = self._clients.pop(loop, None)
        if client is not None:
            await client.aclose()

    async def post(self, body: Any) -> tuple[Any, int, str | None, float]:
        """The reply's JSON, the retries made, the last retry's cause and the latency (ms)."""
        import httpx

        self.breaker.check(f"{shown_url(self.url)}: ")  # down: the run is stopping (runner.RunStopped)
        causes: list[str] = []
        t0 = time.perf_counter()
        while True:
            try:
                response = await self._client().post(self.url, json=body)
            except httpx.TimeoutException:
                cause = f"timed out after {self.timeout:g} s"
            except httpx.HTTPError as exc:
                cause = f"{type(exc).__name__}: {exc}"
            else:
                status = response.status_code
                if status < 300:
                    try:
                        data = response.json()
                    except (json.JSONDecodeError, UnicodeDecodeError):
                        data = _NotJson(response.text[:200])
                    latency = (time.perf_counter() - t0) * 1000
                    self.breaker.answered()
                    return data, len(causes), causes[-1] if causes else None, latency
                cause = f"HTTP {status}: {response.text[:200]}"
                if status not in (408, 409, 429) and status < 500:
                    raise BackendError(f"{self.url}: {cause}")
            causes.append(cause)
            if len(causes) > self.max_retries:
                self.breaker.failed(cause)
                raise BackendError(f"{self.url}: {cause} (after {self.max_retries} retries)")
            await asyncio.sleep(_backoff(len(causes)))


def _backoff(attempt: int) -> float:
    """The wait before retry `attempt`: 0.5 s doubling to 8 s, with jitter (as the OpenAI client's)."""
    return min(0.5 * 2 ** (attempt - 1), 8.0) * (1 - 0.25 * random.random())


@dataclass
class _NotJson:
    """A 2xx reply whose body is not JSON (the agent's own failure, not a transport one)."""

    text: str
