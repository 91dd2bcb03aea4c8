"""Backend specs (strings on the command line and in config) to backend objects.

agent: scripted:<policy> | openai:MODEL (openai/MODEL) | human | py:FILE.py:NAME |
py:package.module:NAME | py:ENTRY_POINT | http://HOST:PORT/PATH;  user: rule | openai:MODEL |
human | py:... | http://...;  search: local | tavily | serper;  judge: rule | openai:MODEL |
py:... | http://...  Offline specs need no key; `py:` and `http://` are a researcher's own
(plugins.py, docs/agents.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from clarify_tui.agents.scripted import POLICIES, ScriptedAgent
from clarify_tui.backend_spec import BackendSpec, RoleSpecs, normalize
from clarify_tui.errors import UsageError
from clarify_tui.search.cache import CachedSearch, CacheMode

Spec = str | BackendSpec

if TYPE_CHECKING:
    from clarify_tui.agents.base import Agent
    from clarify_tui.config import Config
    from clarify_tui.judges.base import Judge
    from clarify_tui.search.base import SearchBackend
    from clarify_tui.search.cache import Db
    from clarify_tui.users.base import UserSimulator


class SpecError(UsageError):
    """A backend spec that names nothing we have."""


def _services():
    """The real-service builders, imported on first use: the OpenAI and Tavily SDKs take
    about a second to import, which an offline run should not pay."""
    from clarify_tui import services

    return services


def _config(config: Config | None) -> Config:
    if config is not None:
        return config
    from clarify_tui.config import load_config

    return load_config()


__all__ = ["BackendSpec", "RoleSpecs", "normalize"]  # read here by callers from before backend_spec.py


def _custom_settings(role: str, config: Config | None) -> tuple[dict, float, int]:
    """A `py:`/`http://` backend's arguments, timeout and retries from the config (the
    role's own, else the endpoint's: the same rules as for LLM calls)."""
    cfg = _config(config)
    settings = cfg.role(role)  # type: ignore[arg-type]
    timeout = settings.timeout or cfg.openai.timeout
    retries = settings.max_retries if settings.max_retries is not None else cfg.openai.max_retries
    args = dict(settings.args)
    if cfg.seed is not None:
        args.setdefault("__seed__", cfg.seed)  # given as `seed` if the class or factory takes one (plugins.py)
    return args, timeout, retries


def agent_time_limit(config: Config | None, role: str = "agent") -> float:
    """Seconds an own agent's `act` may take: the role's `timeout`, else the endpoint's (as
    an `openai:` agent's call and an `http://` agent's attempt)."""
    return _custom_settings(role, config)[1]


def _custom_agent(spec: BackendSpec, config: Config | None, role: str = "agent") -> Agent:
    from clarify_tui.agents.custom import HttpAgent, PyAgent
    from clarify_tui.plugins import PluginSpecError

    cfg = _config(config)
    args, timeout, retries = _custom_settings(role, cfg)
    try:
        if spec.is_py:
            return PyAgent(spec.text, args, config=cfg, timeout=timeout)
        return HttpAgent(
            spec.text, timeout=timeout, max_retries=retries, config=cfg, stop_after=cfg.openai.stop_after_failures
        )
    except PluginSpecError as exc:
        raise SpecError(str(exc)) from None


def _custom_role(role: str, spec: BackendSpec, config: Config | None):
    from clarify_tui import custom_roles
    from clarify_tui.plugins import PluginSpecError

    args, timeout, retries = _custom_settings(role, config)
    try:
        return custom_roles.build(
            role,
            spec.text,
            args=args,
            timeout=timeout,
            max_retries=retries,
            stop_after=_config(config).openai.stop_after_failures,
        )
    except PluginSpecError as exc:
        raise SpecError(str(exc)) from None


def check_spec(role: str, spec: Spec, config: Config | None = None) -> None:
    """A `py:` spec of `role` (and its arguments) found and checked without making it
    (plugins.check_spec)."""
    spec = BackendSpec.parse(spec)
    if not spec.is_py:
        return
    args, _, _ = _custom_settings(role, config)
    from clarify_tui import custom_roles
    from clarify_tui.plugins import PluginSpecError
    from clarify_tui.plugins import check_spec as check

    needs = {
        "agent": ("act",),
        "user": tuple(custom_roles.USER_METHODS),
        "judge": tuple(m for m in custom_roles.JUDGE_METHODS if m != "grade_reference"),
    }[role]
    try:
        check(spec.text, args, needs=needs, role=role)
    except PluginSpecError as exc:
        raise SpecError(str(exc)) from None


_MAKERS_KINDS = {
    "agent": ("scripted", "openai", "human"),
    "user": ("rule", "openai", "human"),
    "judge": ("rule", "openai"),
    "deep_search": ("scripted", "openai"),
}


def check_known(role: str, spec: Spec) -> None:
    """SpecError if `spec` names nothing we have for `role`, found without making anything
    (no model client, no corpus): `play` checks its specs before the screen opens, which
    makes them later. A bad spec is handed to its maker, which raises the usual error."""
    spec = BackendSpec.parse(spec)
    kind, arg = spec.kind, spec.arg
    if spec.is_http:
        from clarify_tui.plugins import PluginSpecError, check_url

        try:
            check_url(spec.text)
        except PluginSpecError as exc:
            raise SpecError(str(exc)) from None
        return
    if spec.is_py:
        return  # found and checked by check_spec, with the role's arguments
    if role == "search":
        if spec.search_name not in ("local", "tavily", "serper"):
            make_search(spec)
        return
    fine = kind in _MAKERS_KINDS[role] and (kind != "openai" or bool(arg)) and (kind != "scripted" or arg in POLICIES)
    if not fine:
        maker = {"agent": make_agent, "user": make_user, "judge": make_judge, "deep_search": make_deep_search}[role]
        maker(spec)
        raise SpecError(f"unknown {role} spec '{spec}'")  # not reached: the maker refused it


def make_agent(spec: Spec, config: Config | None = None) -> Agent:
    spec = BackendSpec.parse(spec)
    kind, arg = spec.kind, spec.arg
    if spec.is_custom:
        return _custom_agent(spec, config)
    if kind == "scripted":
        if arg not in POLICIES:
            raise SpecError(f"unknown scripted agent '{arg}'; choose one of: {', '.join(POLICIES)}")
        return ScriptedAgent(arg, seed=config.seed if config is not None else None)
    if kind == "openai":
        if not arg:
            raise SpecError("openai agent needs a model: openai:MODEL")
        return _services().build_agent(arg, _config(config))
    if kind == "human":
        from clarify_tui.agents.human import HumanAgent

        return HumanAgent()
    raise SpecError(
        f"unknown agent spec '{spec}' (scripted:POLICY, openai:MODEL, human, py:FILE.py:NAME, "
        "py:package.module:NAME or http://HOST:PORT/PATH)"
    )


def make_deep_search(spec: Spec | None, config: Config | None = None) -> Agent | None:
    """CTS's fixed deep-search agent: scripted:POLICY (its search phase) or openai:MODEL
    (its own `[deep_search]` settings); None when not given (the agent under test searches)."""
    if not spec:
        return None
    spec = BackendSpec.parse(spec)
    kind, arg = spec.kind, spec.arg
    if kind == "scripted":
        return make_agent(spec)
    if spec.is_custom:  # a researcher's own deep searcher (its args: [deep_search.args])
        return _custom_agent(spec, config, role="deep_search")
    if kind == "openai":
        if not arg:
            raise SpecError("openai deep search needs a model: openai:MODEL")
        return _services().build_deep_search(arg, _config(config))
    raise SpecError(f"unknown deep-search spec '{spec}' (scripted:POLICY, openai:MODEL, py:... or http://...)")


def make_user(spec: Spec, config: Config | None = None) -> UserSimulator:
    spec = BackendSpec.parse(spec)
    kind, arg = spec.kind, spec.arg
    if spec.is_custom:
        return _custom_role("user", spec, config)
    if kind == "rule":
        from clarify_tui.users.rule import RuleUser

        return RuleUser()
    if kind == "openai":
        if not arg:
            raise SpecError("openai user needs a model: openai:MODEL")
        return _services().build_user(arg, _config(config))
    if kind == "human":
        from clarify_tui.users.human import HumanUser

        return HumanUser()
    raise SpecError(f"unknown user spec '{spec}' (rule, openai:MODEL, human, py:... or http://...)")


def make_judge(spec: Spec, config: Config | None = None) -> Judge:
    spec = BackendSpec.parse(spec)
    kind, arg = spec.kind, spec.arg
    if spec.is_custom:
        return _custom_role("judge", spec, config)
    if kind == "rule":
        from clarify_tui.judges.rule import RuleJudge

        return RuleJudge()
    if kind == "openai":
        if not arg:
            raise SpecError("openai judge needs a model: openai:MODEL")
        return _services().build_judge(arg, _config(config))
    raise SpecError(f"unknown judge spec '{spec}' (rule, openai:MODEL, py:... or http://...)")


@lru_cache(maxsize=1)
def _local_search():
    from clarify_tui.search.local import LocalSearch

    return LocalSearch()


def make_search(
    spec: Spec,
    config: Config | None = None,
    db: Db | None = None,
    cache_mode: CacheMode = "off",
    write_db: Db | None = None,
) -> SearchBackend:
    """A search backend, behind the record/replay cache when a database is given.

    A stored session's spec may read "cache(local)": the backend behind the cache.
    """
    name = BackendSpec.parse(spec).search_name
    if name == "local":
        backend = _local_search()
    elif name in ("tavily", "serper"):
        backend = _services().build_search(_config(config), cache_mode=cache_mode, spec=name)
    else:
        raise SpecError(f"unknown search spec '{name}' (local, tavily or serper)")
    if db is not None and cache_mode != "off":
        return CachedSearch(backend, db, cache_mode, write_db=write_db)
    return backend


async def close_backends(*backends) -> None:
    """Close network clients (LLM, Tavily) at the end of a run; offline backends have none."""
    for backend in backends:
        inner = getattr(backend, "backend", backend)  # a CachedSearch wraps its backend
        for obj in {id(backend): backend, id(inner): inner}.values():
            close = getattr(obj, "aclose", None)
            if close is not None:
                await close()


@dataclass
class Backends:
    """The backends one session (or a run's sessions) plays with; a role not asked for is None."""

    agent: Any = None
    user: Any = None
    judge: Any = None
    search: Any = None
    deep_search: Any = None  # CTS's fixed deep-search agent; None: the agent under test searches

    def made(self) -> list[Any]:
        return [b for b in (self.agent, self.deep_search, self.user, self.judge, self.search) if b is not None]

    async def aclose(self) -> None:
        await close_backends(*self.made())


def build_backends(
    specs: RoleSpecs,
    config: Config | None = None,
    *,
    agent: Any = None,
    user: Any = None,
    db: Db | None = None,
    cache_mode: CacheMode = "off",
    write_db: Db | None = None,
) -> Backends:
    """Every role of `specs` made from its parsed spec: the one place a run, a fork, a
    what-if, the TUI, a campaign and an import turn specs into backends. `agent`/`user`:
    an object already made takes the role's place (a person at the keyboard, the agent
    `api.run` was handed). The search goes behind the record/replay cache when `db` is
    given. Built in the order a run checks them (agent, deep search, user, judge, search),
    so a command line with two bad specs names the same one first as before."""
    out = Backends(agent=agent, user=user)
    if agent is None and specs.agent is not None:
        out.agent = make_agent(specs.agent, config)
    if specs.deep_search is not None:
        out.deep_search = make_deep_search(specs.deep_search, config)
    if user is None and specs.user is not None:
        out.user = make_user(specs.user, config)
    if specs.judge is not None:
        out.judge = make_judge(specs.judge, config)
    if specs.search is not None:
        out.search = make_search(specs.search, config, db=db, cache_mode=cache_mode, write_db=write_db)
    return out
