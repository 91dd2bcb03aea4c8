"""Backend specs (strings on the command line and in config) to backend objects.

agent: scripted:<policy> | openai:MODEL | human;  user: rule | openai:MODEL | human;
search: local | tavily | serper;  judge: rule | openai:MODEL.  Offline specs need no key.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from clarify_tui.agents.scripted import POLICIES, ScriptedAgent
from clarify_tui.search.cache import CachedSearch, CacheMode

if TYPE_CHECKING:
    import sqlite_utils

    from clarify_tui.agents.base import Agent
    from clarify_tui.config import Config
    from clarify_tui.judges.base import Judge
    from clarify_tui.search.base import SearchBackend
    from clarify_tui.users.base import UserSimulator


class SpecError(ValueError):
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


def make_agent(spec: str, config: Config | None = None) -> Agent:
    kind, _, arg = spec.partition(":")
    if kind == "scripted":
        if arg not in POLICIES:
            raise SpecError(f"unknown scripted agent '{arg}'; choose one of: {', '.join(POLICIES)}")
        return ScriptedAgent(arg)
    if kind == "openai":
        if not arg:
            raise SpecError("openai agent needs a model: openai:MODEL")
        return _services().build_agent(arg, _config(config))
    if kind == "human":
        from clarify_tui.agents.human import HumanAgent

        return HumanAgent()
    raise SpecError(f"unknown agent spec '{spec}' (scripted:POLICY, openai:MODEL or human)")


def make_deep_search(spec: str | None, config: Config | None = None) -> Agent | None:
    """CTS's fixed deep-search agent: scripted:POLICY (its search phase) or openai:MODEL
    (its own `[deep_search]` settings); None when not given (the agent under test searches)."""
    if not spec:
        return None
    kind, _, arg = spec.partition(":")
    if kind == "scripted":
        return make_agent(spec)
    if kind == "openai":
        if not arg:
            raise SpecError("openai deep search needs a model: openai:MODEL")
        return _services().build_deep_search(arg, _config(config))
    raise SpecError(f"unknown deep-search spec '{spec}' (scripted:POLICY or openai:MODEL)")


def make_user(spec: str, config: Config | None = None) -> UserSimulator:
    kind, _, arg = spec.partition(":")
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
    raise SpecError(f"unknown user spec '{spec}' (rule, openai:MODEL or human)")


def make_judge(spec: str, config: Config | None = None) -> Judge:
    kind, _, arg = spec.partition(":")
    if kind == "rule":
        from clarify_tui.judges.rule import RuleJudge

        return RuleJudge()
    if kind == "openai":
        if not arg:
            raise SpecError("openai judge needs a model: openai:MODEL")
        return _services().build_judge(arg, _config(config))
    raise SpecError(f"unknown judge spec '{spec}' (rule or openai:MODEL)")


@lru_cache(maxsize=1)
def _local_search():
    from clarify_tui.search.local import LocalSearch

    return LocalSearch()


def make_search(
    spec: str,
    config: Config | None = None,
    db: sqlite_utils.Database | None = None,
    cache_mode: CacheMode = "off",
    write_db: sqlite_utils.Database | None = None,
) -> SearchBackend:
    """A search backend, behind the record/replay cache when a database is given.

    A stored session's spec may read "cache(local)": the backend behind the cache.
    """
    if spec.startswith("cache(") and spec.endswith(")"):
        spec = spec[len("cache(") : -1]
    if spec == "local":
        backend = _local_search()
    elif spec in ("tavily", "serper"):
        backend = _services().build_search(_config(config), cache_mode=cache_mode, spec=spec)
    else:
        raise SpecError(f"unknown search spec '{spec}' (local, tavily or serper)")
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
