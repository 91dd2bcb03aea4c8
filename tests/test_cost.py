"""Cost as the papers count it (issue 23): the agent under test's dollars beside every
role's, priced by clarify.toml's [prices] first, then genai-prices' bundled snapshot (no
fetch); an unpriced model's cost is null in JSON, "unpriced" in tables, never $0, and the
group lists it. Tokens come from the loopback OpenAI server's reported usage."""

from __future__ import annotations

import csv
import io
import json
import socket

import pytest
from genai_prices import Usage as PriceUsage
from genai_prices import calc_price

from clarify_tui.cli import main
from clarify_tui.llm.pricing import call_cost
from clarify_tui.store import Store
from tests.servers import FakeOpenAI, interactcomp_router

AGENT, USER, JUDGE = "gpt-4o", "my-local-model", "my-grader"


@pytest.fixture
def db(tmp_path, monkeypatch):
    toml = tmp_path / "clarify.toml"
    toml.write_text(f'[prices."{JUDGE}"]\ninput_per_mtok = 1.0\noutput_per_mtok = 2.0\n', encoding="utf-8")
    path = tmp_path / "c.db"
    with FakeOpenAI(interactcomp_router(0.0)) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        assert (
            main(
                [
                    "run",
                    "--benchmark",
                    "interactcomp",
                    "--agent",
                    f"openai:{AGENT}",
                    "--user",
                    f"openai:{USER}",
                    "--judge",
                    f"openai:{JUDGE}",
                    "--config",
                    str(toml),
                    "--db",
                    str(path),
                    "--run",
                    "c",
                    "--limit",
                    "2",
                ]
            )
            == 0
        )
    return path


def score(capsys, db) -> dict:
    capsys.readouterr()
    assert main(["score", "--db", str(db), "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)["groups"][0]["metrics"]


def tokens(db, actor: str) -> tuple[int, int]:
    store = Store(db)
    steps = [st for s in store.sessions(runs=["c"]) for st in store.steps(s.id) if st.actor == actor]
    return sum(st.tokens_in for st in steps), sum(st.tokens_out for st in steps)


def test_agent_cost_from_genai_prices_beside_a_null_total_with_the_unpriced_model(db, capsys):
    m = score(capsys, db)
    tin, tout = tokens(db, "agent")
    assert tin and tout  # the server's reported usage
    expected = float(calc_price(PriceUsage(input_tokens=tin, output_tokens=tout), model_ref=AGENT).total_price)
    assert m["agent_cost_usd"] == pytest.approx(expected)
    assert m["tokens_by_role"]["agent"]["cost_usd"] == pytest.approx(expected)
    # the user simulator's model has no price: its cost and the total are null, never 0
    assert m["tokens_by_role"]["user"]["cost_usd"] is None
    assert m["cost_usd"] is None and m["cost_usd_total"] is None
    assert m["unpriced_models"] == [USER]
    # the judge is priced by clarify.toml's [prices]
    jin, jout = tokens(db, "judge")
    assert m["tokens_by_role"]["judge"]["cost_usd"] == pytest.approx((jin * 1.0 + jout * 2.0) / 1e6)


def test_tables_say_unpriced_and_show_the_agent_cost(db, capsys):
    capsys.readouterr()
    assert main(["score", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "unpriced" in out and "unpriced (no price in clarify.toml [prices] or genai-prices" in out
    assert main(["report", "--db", str(db)]) == 0
    report = capsys.readouterr().out
    tin, tout = tokens(db, "agent")
    agent = float(calc_price(PriceUsage(input_tokens=tin, output_tokens=tout), model_ref=AGENT).total_price)
    assert f"| {agent:.2f} |" in report  # Cost($): the agent under test
    assert "all roles (agent, user simulator, judge): c unpriced." in report
    assert (
        f"Unpriced (no price in clarify.toml [prices] or genai-prices; their cost is unknown, not $0): {USER}."
        in report
    )


def test_csv_leaves_an_unpriced_cost_empty(db, capsys):
    capsys.readouterr()
    assert main(["score", "--db", str(db), "--format", "csv"]) == 0
    header, row = capsys.readouterr().out.splitlines()[-2:]
    cells = dict(zip(header.split(","), row.split(",")))
    assert cells["cost_usd"] == "" and cells["unpriced_models"] == USER and float(cells["agent_cost_usd"]) > 0
    assert main(["export", "--db", str(db), "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert rows and all(r["cost_usd"] == "" for r in rows)  # every session called the unpriced user model


def test_prices_come_from_the_bundled_snapshot_with_no_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("pricing opened a network connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    assert call_cost(None, "gpt-4o-mini", 1_000_000, 0) == pytest.approx(0.15)
    assert call_cost(None, "surely-no-such-model-xyz", 10, 10) is None


def test_whatif_extra_cost_is_unknown_when_a_fork_called_an_unpriced_model():
    from clarify_tui.whatif_results import _total_cost

    assert _total_cost([0.25, 0.5]) == 0.75
    assert _total_cost([0.25, None]) is None  # never counted as $0
