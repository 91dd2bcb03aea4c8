"""An unpriced cost is not zero in any file we write (issue 23, "Cost as the papers count
it"): `export --format interactcomp-csv` leaves the harness's `cost` column empty (pandas'
NaN, what the harness's `df["cost"].max()` reads as unknown, core/benchmark.py:61) and
counts the model under test alone, as the harness's column does (run_benchmark.py:103-105);
its import reads an empty cell back as unpriced; `report --format csv` and the jsonl
export leave it empty / null. Models on a loopback OpenAI server."""

from __future__ import annotations

import csv
import importlib.util
import io
import json
import math

import pytest

from clarify_tui.cli import main
from clarify_tui.exporters.jsonl import judgment_record
from clarify_tui.importers import import_harness
from clarify_tui.metrics.paper_tables import agent_cost
from clarify_tui.store import Store
from tests.servers import FakeOpenAI, interactcomp_router

PRICED_AGENT, LOCAL_AGENT, LOCAL_USER, JUDGE = "gpt-4o", "my-local-agent", "my-local-model", "my-grader"


def _run(tmp_path, monkeypatch, agent: str, name: str):
    toml = tmp_path / "clarify.toml"
    toml.write_text(f'[prices."{JUDGE}"]\ninput_per_mtok = 1.0\noutput_per_mtok = 2.0\n', encoding="utf-8")
    path = tmp_path / f"{name}.db"
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
                    f"openai:{agent}",
                    "--user",
                    f"openai:{LOCAL_USER}",
                    "--judge",
                    f"openai:{JUDGE}",
                    "--config",
                    str(toml),
                    "--db",
                    str(path),
                    "--run",
                    name,
                    "--limit",
                    "3",
                ]
            )
            == 0
        )
    return path


@pytest.fixture
def priced(tmp_path, monkeypatch):
    """The agent has a price (genai-prices); the user simulator's model has none."""
    return _run(tmp_path, monkeypatch, PRICED_AGENT, "p")


@pytest.fixture
def unpriced(tmp_path, monkeypatch):
    """The agent under test is a local model with no price."""
    return _run(tmp_path, monkeypatch, LOCAL_AGENT, "u")


def _harness_csv(capsys, db, out=None) -> tuple[list[dict], str]:
    capsys.readouterr()
    argv = ["export", "--db", str(db), "--format", "interactcomp-csv"]
    assert main([*argv, "--out", str(out)] if out else argv) == 0
    captured = capsys.readouterr()
    text = out.read_text(encoding="utf-8") if out else captured.out
    return list(csv.DictReader(io.StringIO(text))), captured.err


def _metrics(capsys, db) -> dict:
    capsys.readouterr()
    assert main(["score", "--db", str(db), "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)["groups"][0]["metrics"]


def test_the_harness_cost_column_is_the_agent_running_total_and_ignores_the_unpriced_user(priced, capsys):
    """The harness's column is its test model's LLM alone (run_benchmark.py:103-105; the
    responder's LLM is its own, :42): an unpriced user simulator does not make it unknown."""
    rows, err = _harness_csv(capsys, priced)
    m = _metrics(capsys, priced)
    assert m["cost_usd"] is None and m["agent_cost_usd"] > 0  # every role's: unknown; the agent's: known
    costs = [float(r["cost"]) for r in rows]
    assert len(costs) == 3 and costs == sorted(costs) and costs[0] > 0
    assert max(costs) == pytest.approx(m["agent_cost_usd"])  # what the harness reads as the total
    assert "empty" not in err


def test_an_unpriced_agent_leaves_the_harness_cost_column_empty_never_0(unpriced, capsys, tmp_path):
    out = tmp_path / "u.csv"
    rows, err = _harness_csv(capsys, unpriced, out)
    assert len(rows) == 3 and [r["cost"] for r in rows] == ["", "", ""]
    assert f"the cost column is empty (unknown, not $0): no price for {LOCAL_AGENT}" in err

    # imported again, each session's cost (on its first agent step) is unpriced, not $0
    store = Store(tmp_path / "back.db")
    import_harness(store, out, "demo", run="back")
    firsts = [next(st for st in store.steps(s.id) if st.actor == "agent") for s in store.sessions()]
    assert len(firsts) == 3 and all(st.cost_usd is None for st in firsts)
    m = _metrics(capsys, tmp_path / "back.db")
    assert m["agent_cost_usd"] is None and m["unpriced_models"]
    if importlib.util.find_spec(
        "pandas"
    ):  # how the harness reads its CSV (core/benchmark.py:46-61); not a test dependency
        import pandas

        assert math.isnan(pandas.read_csv(out)["cost"].max())  # its total: unknown, not $0


def test_report_csv_leaves_an_unpriced_cost_empty(unpriced, capsys):
    capsys.readouterr()
    assert main(["report", "--db", str(unpriced), "--format", "csv"]) == 0
    block = capsys.readouterr().out.split("\n\n")[0]
    [row] = list(csv.DictReader(io.StringIO(block)))
    assert row["agent_cost_usd"] == "" and row["cost_usd"] == ""  # never 0.00
    assert row["Cost($)"] == "unpriced"  # the paper's cell says it in words


def test_a_fallback_agent_cost_and_a_judgment_cost_stay_unknown():
    assert agent_cost({"tokens_by_role": {"agent": {"cost_usd": None}}}) is None
    assert agent_cost({"tokens_by_role": {"agent": {"cost_usd": 0.5}}}) == 0.5
    unpriced = {
        "id": 1,
        "judge": "openai:local",
        "kind": "answer",
        "verdict": {"correct": True, "usage": {"tokens_in": 10, "tokens_out": 1, "cost_usd": None}},
    }
    assert judgment_record(unpriced)["cost_usd"] is None
    assert judgment_record({**unpriced, "verdict": {"correct": True}})["cost_usd"] == 0.0  # a rule judge: no call


def test_one_empty_cost_cell_in_a_harness_file_makes_every_task_cost_unknown(tmp_path):
    """The per-task costs are differences of the running total: with one total unknown they
    would charge its calls to another task, so all are unknown; a bad cell is still refused."""
    from pathlib import Path

    from clarify_tui.importers import ImportFileError

    fixtures = Path(__file__).parent / "fixtures" / "harness"
    with (fixtures / "results.csv").open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    answered = [r for r in rows if r["predicted_answer"] != "Error"]
    answered[1]["cost"] = ""
    path = tmp_path / "gap.csv"
    with path.open("w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    store = Store(tmp_path / "gap.db")
    import_harness(store, path, fixtures / "tasks.jsonl")
    completed = [s for s in store.sessions() if s.status == "completed"]
    assert completed and all(
        next(st for st in store.steps(s.id) if st.actor == "agent").cost_usd is None for s in completed
    )
    answered[1]["cost"] = "-1"
    with path.open("w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    with pytest.raises(ImportFileError, match="cost"):
        import_harness(Store(tmp_path / "bad.db"), path, fixtures / "tasks.jsonl")
