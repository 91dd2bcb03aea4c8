"""clarify.toml, environment and overrides; per-role endpoints; keys stay out of configs."""

from __future__ import annotations

import pytest
from pydantic import BaseModel
from servers import FakeOpenAI, Script, chat

from clarify_tui import config as config_module
from clarify_tui.config import Config, ConfigError, load_config
from clarify_tui.models import Answer
from clarify_tui.services import build_agent, build_judge

TOML = """
[openai]
base_url = "http://file-default/v1"
max_concurrency = 4

[judge]
base_url = "http://judge-host/v1"
api_key_env = "JUDGE_KEY"
temperature = 0.0

[agent]
temperature = 0.3

[prices."gpt-4o"]
input_per_mtok = 2.5
output_per_mtok = 10.0
"""


def test_file_then_environment_then_overrides(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "clarify.toml").write_text(TOML, encoding="utf-8")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    cfg = load_config()
    assert cfg.openai.base_url == "http://file-default/v1" and cfg.agent.temperature == 0.3

    monkeypatch.setenv("OPENAI_BASE_URL", "http://from-env/v1")
    cfg = load_config(overrides={"agent": {"temperature": 0.9}})
    assert cfg.openai.base_url == "http://from-env/v1"  # the environment beats the file…
    assert cfg.judge.base_url == "http://judge-host/v1"  # …but a role's own endpoint is kept
    assert cfg.agent.temperature == 0.9  # command-line overrides win
    assert cfg.openai.max_concurrency == 4


def test_prices_match_exactly_or_by_longest_prefix(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text(TOML + '\n[prices."gpt-4o-mini"]\ninput_per_mtok = 0.15\n', encoding="utf-8")
    cfg = load_config(path, environ={})
    assert cfg.cost("gpt-4o", 1_000_000, 100_000) == pytest.approx(3.5)
    assert cfg.cost("gpt-4o-2024-08-06", 1_000_000, 0) == pytest.approx(2.5)
    assert cfg.cost("gpt-4o-mini-2024", 1_000_000, 0) == pytest.approx(0.15)
    assert cfg.cost("llama-3", 1_000_000, 1_000_000) is None  # no price of its own: unpriced, never $0 (issue 23)


@pytest.mark.parametrize(
    "text, complaint",
    [
        ('[openai]\napi_key = "sk-in-a-file"\n', "api_key"),  # keys never live in the config
        ("[agent]\ntemprature = 0.5\n", "temprature"),
        ("[judge]\ntemperature = 7\n", "temperature"),
        ('search_cache = "sometimes"\n', "search_cache"),
        ("[openai\n", "clarify.toml"),
    ],
)
def test_bad_files_are_config_errors_that_say_what(tmp_path, text, complaint):
    path = tmp_path / "clarify.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=complaint):
        load_config(path, environ={})


def test_a_named_file_must_exist(tmp_path):
    with pytest.raises(ConfigError, match="not found"):
        load_config(tmp_path / "missing.toml")


def test_every_field_is_documented():
    models = [
        obj
        for obj in vars(config_module).values()
        if isinstance(obj, type)
        and issubclass(obj, BaseModel)
        and obj.__module__ == config_module.__name__
        and not obj.__name__.startswith("_")
    ]
    assert len(models) >= 5
    for model in models:
        for name, field in model.model_fields.items():
            assert field.description, f"{model.__name__}.{name} has no docstring"


def test_missing_key_without_a_server_is_a_config_error(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        build_agent("gpt-4o", Config())


async def test_judge_on_another_endpoint_with_its_own_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-agent-key")
    monkeypatch.setenv("JUDGE_KEY", "sk-judge-key")
    with FakeOpenAI(Script(chat("yes"))) as agent_host, FakeOpenAI(Script(chat("yes"))) as judge_host:
        cfg = Config.model_validate(
            {
                "openai": {"base_url": agent_host.base_url},
                "judge": {"base_url": judge_host.base_url, "api_key_env": "JUDGE_KEY"},
            }
        )
        verdict = await build_judge("judge-m", cfg).equivalent("q", "Hornussen", Answer(text="Hornussen"))
        assert verdict.correct
        assert agent_host.requests == []
        [request] = judge_host.requests
        assert request.headers["authorization"] == "Bearer sk-judge-key"
        assert build_agent("agent-m", cfg).client.endpoint.base_url == agent_host.base_url


async def test_a_local_server_needs_no_key(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with FakeOpenAI(Script(chat("no"))) as host:
        judge = build_judge("local-model", Config.model_validate({"openai": {"base_url": host.base_url}}))
        assert (await judge.equivalent("q", "Baseball", Answer(text="Hornussen"))).correct is False
