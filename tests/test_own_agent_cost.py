"""An own agent's cost (issue 31, item 4): a Usage with a model and tokens but no cost is
priced as a model call is (clarify.toml [prices], then genai-prices); tokens with no model
are unpriced (null, "unpriced"), never $0; a cost the agent gives is kept. The cost reaches
InteractComp's Cost($) column as an `openai:` agent's does."""

from __future__ import annotations

import json

import pytest

from clarify_tui.cli import main
from tests.servers import LoopbackServer, Reply

AGENT = """
from clarify_tui import Action, Usage

class Priced:        # 1M tokens in, 1M out of a model clarify.toml prices at $2 + $8
    def act(self, view):
        return Action(kind="answer", text="Hornussen", confidence=80,
                      usage=Usage(model="my-model", tokens_in=1_000_000, tokens_out=1_000_000))

class NoModel:
    def act(self, view):
        return Action(kind="answer", text="Hornussen", confidence=80, usage=Usage(tokens_in=500, tokens_out=50))

class OwnCost:
    def act(self, view):
        return Action(kind="answer", text="Hornussen", confidence=80,
                      usage=Usage(model="my-model", tokens_in=1_000_000, tokens_out=0, cost_usd=0.25))
"""


@pytest.fixture
def setup(tmp_path):
    (tmp_path / "agent.py").write_text(AGENT, encoding="utf-8")
    toml = tmp_path / "clarify.toml"
    toml.write_text('[prices."my-model"]\ninput_per_mtok = 2.0\noutput_per_mtok = 8.0\n', encoding="utf-8")
    return tmp_path, toml


def agent_cost(tmp_path, toml, agent, capsys):
    db = str(tmp_path / "c.db")
    assert (
        main(
            [
                "run",
                "--benchmark",
                "interactcomp",
                "--agent",
                agent,
                "--db",
                db,
                "--run",
                "r",
                "--limit",
                "2",
                "--config",
                str(toml),
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert main(["score", "--db", db, "--format", "json"]) == 0
    [group] = json.loads(capsys.readouterr().out)["groups"]
    assert main(["report", "--db", db, "--format", "csv"]) == 0
    header, row = capsys.readouterr().out.splitlines()[:2]
    cost_column = dict(zip(header.split(","), row.split(",")))["Cost($)"]
    return group["metrics"], cost_column


def test_a_usage_with_model_and_tokens_is_priced_and_reaches_the_cost_column(setup, capsys):
    tmp_path, toml = setup
    m, column = agent_cost(tmp_path, toml, f"py:{tmp_path / 'agent.py'}:Priced", capsys)
    assert m["agent_cost_usd"] == pytest.approx(20.0)  # 2 sessions x ($2 + $8)
    assert column == "20.00"


def test_tokens_without_a_model_are_unpriced_never_zero(setup, capsys):
    tmp_path, toml = setup
    m, column = agent_cost(tmp_path, toml, f"py:{tmp_path / 'agent.py'}:NoModel", capsys)
    assert m["agent_cost_usd"] is None and m["unpriced_models"] == ["(unknown model)"]
    assert column == "unpriced"


def test_a_cost_the_agent_gives_is_kept(setup, capsys):
    tmp_path, toml = setup
    m, column = agent_cost(tmp_path, toml, f"py:{tmp_path / 'agent.py'}:OwnCost", capsys)
    assert m["agent_cost_usd"] == pytest.approx(0.5)


def test_an_http_agents_usage_is_priced_too(setup, capsys):
    tmp_path, toml = setup
    body = {
        "kind": "answer",
        "text": "Hornussen",
        "confidence": 80,
        "usage": {"model": "my-model", "tokens_in": 500_000, "tokens_out": 0},
    }
    with LoopbackServer(lambda _req: Reply(body=body)) as server:
        m, column = agent_cost(tmp_path, toml, server.url + "/act", capsys)
    assert m["agent_cost_usd"] == pytest.approx(2.0)
