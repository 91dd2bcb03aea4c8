"""The real-service backends built from a Config: the CLI's `openai:MODEL`, `tavily` and `serper`.

Keys are read from the environment variables the config names, here and nowhere else,
and handed straight to the SDK clients; a missing key is a ConfigError before any run.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from clarify_tui import redaction
from clarify_tui.agents.llm import LLMAgent
from clarify_tui.config import Config, ConfigError, Role
from clarify_tui.judges.llm import LLMJudge
from clarify_tui.llm.client import ChatClient, endpoint_for
from clarify_tui.search.serper import SerperSearch
from clarify_tui.search.tavily import TavilySearch
from clarify_tui.users.llm import LLMUser

# A local OpenAI-compatible server (vLLM, llama.cpp, …) often wants no key, but the SDK
# insists on one; this stands in when a custom base_url is set and no key is.
NO_KEY = "no-key"


def _model_name(model: str) -> str:
    name = model.removeprefix("openai:").strip()
    if not name:
        raise ConfigError("an openai backend needs a model name: openai:MODEL")
    return name


def chat_client(role: Role, model: str, config: Config, environ: Mapping[str, str] | None = None) -> ChatClient:
    env = os.environ if environ is None else environ
    settings = config.role(role)
    base_url = settings.base_url or config.openai.base_url
    key_env = settings.api_key_env or config.openai.api_key_env
    api_key = env.get(key_env) or ""
    redaction.register(api_key)
    if not api_key:
        if base_url is None:
            raise ConfigError(f"--{role} openai:{model} needs an API key: set {key_env}")
        api_key = NO_KEY
    limit = settings.max_concurrency or config.openai.max_concurrency
    return ChatClient(
        model=_model_name(model),
        role=role,
        api_key=api_key,
        endpoint=endpoint_for(base_url, api_key, limit, config.openai.stop_after_failures),
        settings=settings,
        defaults=config.openai,
        config=config,
    )


def build_agent(model: str, config: Config) -> LLMAgent:
    return LLMAgent(chat_client("agent", model, config))


def build_deep_search(model: str, config: Config) -> LLMAgent:
    """CTS's fixed deep-search agent (`--deep-search openai:MODEL`, `[deep_search]` in clarify.toml)."""
    return LLMAgent(chat_client("deep_search", model, config))


def build_user(model: str, config: Config) -> LLMUser:
    return LLMUser(chat_client("user", model, config))


def build_judge(model: str, config: Config) -> LLMJudge:
    return LLMJudge(chat_client("judge", model, config))


def build_search(
    config: Config,
    environ: Mapping[str, str] | None = None,
    cache_mode: str | None = None,
    spec: str = "tavily",
) -> TavilySearch | SerperSearch:
    """Tavily or Serper (`spec`); wrap it in search.cache.CachedSearch to record or replay.

    In replay mode (`cache_mode`, else `config.search_cache`) no key is needed: the cache
    answers and the service is never called.
    """
    env = os.environ if environ is None else environ
    settings = config.serper if spec == "serper" else config.tavily
    key_env = settings.api_key_env
    api_key = env.get(key_env) or None
    redaction.register(api_key)
    if api_key is None and (cache_mode or config.search_cache) != "replay":
        raise ConfigError(f"--search {spec} needs an API key: set {key_env} (or replay a cache)")
    if spec == "serper":
        return SerperSearch(config.serper, api_key=api_key, base_url=config.serper.base_url)
    return TavilySearch(config.tavily, api_key=api_key, base_url=config.tavily.base_url)
