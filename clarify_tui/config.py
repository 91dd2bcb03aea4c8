"""Settings for the real services: OpenAI-compatible models, Tavily and Serper search.

Why pydantic models with a docstring per field: `clarify.toml` is hand-written, so a typo
must fail loudly (extra fields are forbidden) and every knob must say what it does.

Precedence, lowest to highest: built-in defaults (the papers' sampling settings) <
`clarify.toml` < environment (OPENAI_BASE_URL, TAVILY_BASE_URL, SERPER_BASE_URL) < a role's own section
in `clarify.toml` (e.g. a judge on another endpoint) < command-line overrides.

API keys are never part of a Config: a config names the *environment variable* holding a
key (`api_key_env`), and the key is read only when a client is built, so dumping,
logging or storing a Config can never leak one.
"""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

from clarify_tui.errors import UsageError

CONFIG_FILE_NAME = "clarify.toml"
AGENT_ARGS_ENV = "CLARIFY_AGENT_ARGS"  # a JSON object: a py: agent's arguments (play --agent-arg sets it)
Role = Literal["agent", "user", "judge", "deep_search"]
ROLES: tuple[Role, ...] = ("agent", "user", "judge", "deep_search")


class ConfigError(UsageError):
    """The configuration is unusable (bad clarify.toml, missing API key)."""


def _http_url(value: str | None) -> str | None:
    """A server root must be an http(s) URL with a host: "notaurl" used to be retried for
    30 s as a connection failure of every call; now it is refused before the run."""
    if value is None:
        return None
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"{value!r} is not an http:// or https:// URL with a host (e.g. http://localhost:8000/v1)")
    return value


BaseUrl = Annotated[str | None, AfterValidator(_http_url)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


class EndpointConfig(_Strict):
    """An OpenAI-compatible server shared by every role that does not override it."""

    base_url: BaseUrl = None
    """Server root, e.g. `http://localhost:8000/v1`. None: the OpenAI API (or OPENAI_BASE_URL)."""
    api_key_env: str = "OPENAI_API_KEY"
    """Name of the environment variable that holds the key (the key itself never goes here)."""
    timeout: float = Field(default=120.0, gt=0)
    """Seconds before one HTTP attempt is abandoned (then retried)."""
    max_retries: int = Field(default=4, ge=0)
    """Retries on 408/409/429/5xx, connection errors and timeouts, with exponential backoff."""
    max_concurrency: int = Field(default=32, ge=1)
    """Requests in flight at once against this endpoint (roles sharing it share the limit)."""
    stop_after_failures: int = Field(default=5, ge=0)
    """A batch run stops when this many model calls in a row ran out of retries on one
    endpoint (timeouts, refused connections, 5xx): a server that accepts and never answers
    would otherwise cost timeout x retries per task. 0: never stop (docs/runs.md)."""


class RoleConfig(_Strict):
    """Per-role sampling settings and optional endpoint overrides. None = the default."""

    base_url: BaseUrl = None
    """Use another server for this role (e.g. the judge elsewhere than the agent)."""
    api_key_env: str | None = None
    """Environment variable with this role's key when it uses another server."""
    temperature: float | None = Field(default=None, ge=0, le=2)
    """None: the paper's setting for the call (InteractComp agent 0.6, responder 1.0,
    grader 0.0; CTS clarifier, answerer, rewriter and judge 0)."""
    top_p: float | None = Field(default=None, gt=0, le=1)
    """None: the paper's setting (InteractComp agents 0.95), else not sent."""
    max_tokens: int | None = Field(default=None, ge=1)
    """Cap on generated tokens per call; None leaves it to the server."""
    max_tokens_param: Literal["max_tokens", "max_completion_tokens"] = "max_tokens"
    """Which request field carries `max_tokens` (newer OpenAI models want the second; o-series
    and gpt-5 models always get `max_completion_tokens` and no `top_p`, as the InteractComp
    reference sends them)."""
    reasoning_effort: Literal["minimal", "low", "medium", "high"] | None = None
    """Sent as `reasoning_effort` for reasoning models; None: not sent."""
    seed: int | None = None
    """Sent as `seed` (the server's best-effort determinism); None: not sent. Recorded in
    the run's provenance with the other settings."""
    timeout: float | None = Field(default=None, gt=0)
    """Per-attempt timeout for this role; None: the endpoint's."""
    max_retries: int | None = Field(default=None, ge=0)
    """Retries for this role; None: the endpoint's."""
    max_concurrency: int | None = Field(default=None, ge=1)
    """Concurrency limit of this role's endpoint; None: the endpoint's."""
    parse_retries: int = Field(default=2, ge=0)
    """Judges: extra calls when the model's output cannot be parsed (CTS 4.4.1)."""
    args: dict[str, Any] = Field(default_factory=dict)
    """`py:` backends: keyword arguments for the class or factory (`[agent.args]`; `--agent-arg KEY=VALUE` wins)."""


class DeepSearchConfig(RoleConfig):
    """CTS's fixed deep-search agent: the role's settings plus, optionally, its spec."""

    spec: str | None = None
    """The deep-search agent when `--deep-search` is not given (scripted:POLICY or openai:MODEL)."""


class Price(_Strict):
    """What a model costs, in US dollars per million tokens."""

    input_per_mtok: float = Field(default=0.0, ge=0)
    """Dollars per million prompt tokens."""
    output_per_mtok: float = Field(default=0.0, ge=0)
    """Dollars per million completion tokens (reasoning tokens included)."""


class TavilyConfig(_Strict):
    """The Tavily search API."""

    base_url: BaseUrl = None
    """API root; None: TAVILY_BASE_URL if set, else https://api.tavily.com."""
    api_key_env: str = "TAVILY_API_KEY"
    """Name of the environment variable holding the Tavily key."""
    search_depth: Literal["basic", "advanced", "fast", "ultra-fast"] = "basic"
    """Tavily's `search_depth` (advanced costs two credits)."""
    topic: Literal["general", "news", "finance"] = "general"
    """Tavily's `topic`."""
    timeout: float = Field(default=60.0, gt=0, le=120)
    """Seconds per attempt (Tavily caps it at 120)."""
    max_retries: int = Field(default=4, ge=0)
    """Retries on 429, 5xx, connection errors and timeouts (tenacity, exponential backoff)."""
    backoff_initial: float = Field(default=0.5, ge=0)
    """First backoff wait in seconds; doubles per retry up to `backoff_max`."""
    backoff_max: float = Field(default=8.0, ge=0)
    """Longest backoff wait in seconds."""
    max_concurrency: int = Field(default=8, ge=1)
    """Tavily requests in flight at once."""
    stop_after_failures: int = Field(default=5, ge=0)
    """A batch run stops when this many tavily calls in a row ran out of retries (timeouts,
    refused connections, 5xx; not a 4xx): as `[openai] stop_after_failures`, the same
    default. 0: never stop (docs/runs.md "Dead endpoints")."""
    cost_per_search: float = Field(default=0.0, ge=0)
    """Dollars charged per search (recorded as the search's cost; 0 = not tracked)."""


class SerperConfig(_Strict):
    """Google search through Serper (`--search serper`), as the InteractComp reference."""

    base_url: str | None = None
    """API root; None: SERPER_BASE_URL if set, else https://google.serper.dev."""
    api_key_env: str = "SERPER_API_KEY"
    """Name of the environment variable holding the Serper key."""
    timeout: float = Field(default=30.0, gt=0)
    """Seconds per attempt (the reference's default request timeout)."""
    max_retries: int = Field(default=4, ge=0)
    """Retries on 429, 5xx, connection errors and timeouts (tenacity, exponential backoff)."""
    backoff_initial: float = Field(default=0.5, ge=0)
    """First backoff wait in seconds; doubles per retry up to `backoff_max`."""
    backoff_max: float = Field(default=8.0, ge=0)
    """Longest backoff wait in seconds."""
    max_concurrency: int = Field(default=8, ge=1)
    """Serper requests in flight at once."""
    stop_after_failures: int = Field(default=5, ge=0)
    """A batch run stops when this many serper calls in a row ran out of retries (timeouts,
    refused connections, 5xx; not a 4xx): as `[openai] stop_after_failures`, the same
    default. 0: never stop (docs/runs.md "Dead endpoints")."""
    cost_per_search: float = Field(default=0.0, ge=0)
    """Dollars charged per search (recorded as the search's cost; 0 = not tracked)."""


class Config(_Strict):
    """Everything `clarify.toml` can set. Keys come from the environment only."""

    openai: EndpointConfig = Field(default_factory=EndpointConfig)
    """The default OpenAI-compatible endpoint."""
    agent: RoleConfig = Field(default_factory=RoleConfig)
    """The agent under test (`--agent openai:MODEL`)."""
    user: RoleConfig = Field(default_factory=RoleConfig)
    """The user simulator (`--user openai:MODEL`)."""
    judge: RoleConfig = Field(default_factory=RoleConfig)
    """The judge (`--judge openai:MODEL`)."""
    deep_search: DeepSearchConfig = Field(default_factory=DeepSearchConfig)
    """CTS's fixed deep-search agent (`--deep-search SPEC` or `spec` here; paper 001 keeps WebDancer fixed)."""
    tavily: TavilyConfig = Field(default_factory=TavilyConfig)
    """Tavily search (`--search tavily`)."""
    serper: SerperConfig = Field(default_factory=SerperConfig)
    """Google search through Serper (`--search serper`)."""
    search_cache: Literal["record", "replay", "off"] = "record"
    """record: use and fill the cache; replay: cache only (a miss is an error); off."""
    prices: dict[str, Price] = Field(default_factory=dict)
    """Model name (or a prefix of it) -> price; wins over the prices genai-prices ships.
    A model priced by neither is unpriced: its cost is null, never 0 (llm/pricing.py)."""
    seed: int | None = None
    """`run --seed N`: sent as `seed` to every model call whose role sets none, and given to a `py:` backend whose class or factory takes a `seed` argument; None: not sent."""

    def role(self, role: Role) -> RoleConfig:
        return getattr(self, role)

    def price(self, model: str) -> Price | None:
        """The exact entry, else the longest key that prefixes the model name."""
        if model in self.prices:
            return self.prices[model]
        prefixes = [k for k in self.prices if model.startswith(k)]
        return self.prices[max(prefixes, key=len)] if prefixes else None

    def cost(self, model: str, tokens_in: int, tokens_out: int) -> float | None:
        """Dollars at this config's own price for the model; None when it has none."""
        price = self.price(model)
        if price is None:
            return None
        return (tokens_in * price.input_per_mtok + tokens_out * price.output_per_mtok) / 1e6


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _read_toml(file: Path) -> dict[str, Any]:
    """The file's TOML; any reason it cannot be read is one line naming the file."""
    try:
        return tomllib.loads(file.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{file}: {exc}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{file} is not UTF-8 text (byte {exc.start}: {exc.reason}); save it as UTF-8") from exc
    except OSError as exc:
        raise ConfigError(f"cannot read config {file}: {exc.strerror or exc}") from exc


def load_config(
    path: str | Path | None = None,
    overrides: dict[str, Any] | None = None,
    environ: dict[str, str] | None = None,
) -> Config:
    """Read `path` (default: ./clarify.toml if present), apply env vars, then overrides.

    `overrides` is a nested dict as the CLI builds it, e.g. `{"judge": {"temperature": 0}}`.
    """
    env = os.environ if environ is None else environ
    data: dict[str, Any] = {}
    file = Path(path) if path is not None else Path.cwd() / CONFIG_FILE_NAME  # `judge --config` gives a str
    if file.is_dir():
        raise ConfigError(f"cannot read config {file}: it is a directory")
    if path is not None and not file.is_file():
        raise ConfigError(f"config file not found: {file}")
    if file.is_file():
        data = _read_toml(file)
    if env.get("OPENAI_BASE_URL"):
        data = _merge(data, {"openai": {"base_url": env["OPENAI_BASE_URL"]}})
    if env.get("TAVILY_BASE_URL"):
        data = _merge(data, {"tavily": {"base_url": env["TAVILY_BASE_URL"]}})
    if env.get("SERPER_BASE_URL"):
        data = _merge(data, {"serper": {"base_url": env["SERPER_BASE_URL"]}})
    if env.get(AGENT_ARGS_ENV):  # `play --agent-arg`: the TUI builds its agent from specs, not from a Config
        try:
            data = _merge(data, {"agent": {"args": json.loads(env[AGENT_ARGS_ENV])}})
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{AGENT_ARGS_ENV}: not JSON ({exc})") from None
    data = _merge(data, overrides or {})
    try:
        return Config.model_validate(data)
    except ValidationError as exc:
        where = _source(tuple(exc.errors()[0]["loc"]), overrides or {}, env) or (
            file if file.is_file() else "configuration"
        )
        raise ConfigError(f"{where}: {_one_line(exc)}") from exc


_ENV_FIELDS = {
    ("openai", "base_url"): "OPENAI_BASE_URL",
    ("tavily", "base_url"): "TAVILY_BASE_URL",
    ("serper", "base_url"): "SERPER_BASE_URL",
    ("agent", "args"): AGENT_ARGS_ENV,
}


def _source(loc: tuple, overrides: dict[str, Any], env: Any) -> str | None:
    """Which input set the field at `loc` when not clarify.toml: `--set` (the highest) or an
    environment variable; None: the file. So a bad `--set` value is not blamed on the file."""
    node: Any = overrides
    for part in loc:
        if not isinstance(node, dict) or part not in node:
            break
        node = node[part]
    else:
        return "--set"
    name = _ENV_FIELDS.get(tuple(loc[:2]))
    return name if name and env.get(name) else None


def _one_line(exc: ValidationError) -> str:
    """The first problem as `section.field: message`, and how many more there are."""
    errors = exc.errors()
    first = errors[0]
    field = ".".join(str(part) for part in first["loc"]) or "(top level)"
    message = str(first["msg"]).removeprefix("Value error, ")
    more = f" (and {len(errors) - 1} more problem(s))" if len(errors) > 1 else ""
    return f"{field}: {message}{more}"
