"""Every deviation named, per score group (issue 31): sampling other than the paper's
(agent temperature / top_p, the responder's temperature), `--max-rounds` other than the
protocol's, `--task-attempts 1` on InteractComp, a CTS "fixed" deep search that is the
clarifier's own model, each in `score` and in `report`; an imported reference-harness CSV
is comparable (it searched through Serper, as the paper); its $0 cost is unpriced; the
token rows say they sum every role."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from clarify_tui.cli import main
from clarify_tui.deviations import Setting, deviations
from clarify_tui.models import EpisodeConfig
from tests.conftest import IC
from tests.servers import FakeOpenAI, interactcomp_router

FIXTURES = Path(__file__).parent / "fixtures" / "harness"


def _dataset(tmp_path, task) -> str:
    path = tmp_path / f"{task.protocol.value}.jsonl"
    path.write_text(task.model_dump_json() + "\n", encoding="utf-8")
    return str(path)


def groups(capsys, db) -> list[dict]:
    capsys.readouterr()
    assert main(["score", "--db", str(db), "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)["groups"]


@pytest.fixture
def openai_env(monkeypatch):
    with FakeOpenAI(interactcomp_router(0.0)) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        yield server


def test_agent_and_responder_sampling_other_than_the_papers_is_named(openai_env, tmp_path, capsys):
    db = tmp_path / "t.db"
    base = [
        "run",
        "--benchmark",
        "interactcomp",
        "--dataset",
        _dataset(tmp_path, IC),
        "--agent",
        "openai:a",
        "--user",
        "openai:u",
        "--judge",
        "openai:j",
        "--db",
        str(db),
    ]
    assert main([*base, "--run", "paper"]) == 0
    assert (
        main(
            [
                *base,
                "--run",
                "hot",
                "--set",
                "agent.temperature=0.2",
                "--set",
                "agent.top_p=0.5",
                "--set",
                "user.temperature=0.3",
            ]
        )
        == 0
    )
    err = " ".join(capsys.readouterr().err.split())
    assert (
        "agent temperature: 0.2, the paper used 0.6 (paper 003 §4.1, line 303; the reference's exp_config.yaml)" in err
    )  # the run's banner
    by_run = {g["key"]["run"]: g for g in groups(capsys, db)}
    hot, paper = by_run["hot"]["deviations"], by_run["paper"]["deviations"]
    assert (
        "agent temperature: 0.2, the paper used 0.6 (paper 003 §4.1, line 303; the reference's exp_config.yaml)" in hot
    )
    assert "agent top_p: 0.5, the paper used 0.95 (paper 003 §4.1, line 303; the reference's exp_config.yaml)" in hot
    assert "responder temperature: 0.3, the paper used 1.0 (paper 003 A.3, line 713)" in hot
    assert not any("temperature" in line or "top_p" in line for line in paper)


def test_max_rounds_other_than_the_protocols_is_named_in_score_and_in_report(tmp_path, capsys):
    db = tmp_path / "r.db"
    data = _dataset(tmp_path, IC)
    common = [
        "run",
        "--benchmark",
        "interactcomp",
        "--dataset",
        data,
        "--agent",
        "scripted:direct-guess",
        "--db",
        str(db),
    ]
    assert main([*common, "--run", "five", "--max-rounds", "5"]) == 0
    assert main([*common, "--run", "ten", "--max-rounds", "10"]) == 0
    line = "max rounds: 5, the protocol plays 10 (the reference harness's exp_config.yaml)"
    by_run = {g["key"]["run"]: g for g in groups(capsys, db)}
    assert line in by_run["five"]["deviations"]
    assert not any(d.startswith("max rounds") for d in by_run["ten"]["deviations"])
    assert main(["report", "--db", str(db), "--run", "five"]) == 0
    assert line in " ".join(capsys.readouterr().out.split())


def test_a_single_task_attempt_on_interactcomp_is_named(tmp_path, capsys):
    db = tmp_path / "a.db"
    assert (
        main(
            [
                "run",
                "--benchmark",
                "interactcomp",
                "--dataset",
                _dataset(tmp_path, IC),
                "--agent",
                "scripted:direct-guess",
                "--db",
                str(db),
                "--run",
                "once",
                "--task-attempts",
                "1",
            ]
        )
        == 0
    )
    [group] = groups(capsys, db)
    assert (
        "task attempts: 1, the reference harness plays a failing task up to 3 times "
        "(core/benchmark.py:106, stop_after_attempt(3))"
    ) in group["deviations"]


def test_a_cts_fixed_deep_search_that_is_the_clarifiers_own_model_is_named(tmp_path, capsys):
    from tests.conftest import CTS

    agent = tmp_path / "clarifier.py"
    agent.write_text(
        "class Agent:\n    async def act(self, view):\n        return {'type': 'answer', 'text': 'x'}\n",
        encoding="utf-8",
    )
    db = tmp_path / "c.db"
    spec = f"py:{agent}:Agent"
    base = ["run", "--benchmark", "cts", "--dataset", _dataset(tmp_path, CTS), "--agent", spec, "--db", str(db)]
    assert main([*base, "--deep-search", spec, "--run", "own"]) == 0
    assert main([*base, "--deep-search", "scripted:direct-guess", "--run", "fixed"]) == 0
    by_run = {g["key"]["run"]: g["deviations"] for g in groups(capsys, db)}
    own = [d for d in by_run["own"] if d.startswith("deep search")]
    assert own == [
        f"deep search: {spec}, the clarifier's own model, the paper kept the deep-search backend "
        "(WebDancer) fixed and apart from the clarifier (paper 001 line 203)"
    ]
    assert not any(d.startswith("deep search") for d in by_run["fixed"])
    # the same model under both spellings
    same = Setting(benchmark="cts", agent="openai:m", config=EpisodeConfig(deep_search="openai/m"))
    assert any("the clarifier's own model" in d for d in deviations(same))


def test_an_imported_reference_harness_csv_is_comparable_and_its_zero_cost_unpriced(tmp_path, capsys):
    db = tmp_path / "i.db"
    assert (
        main(
            [
                "import",
                "--db",
                str(db),
                "--format",
                "interactcomp-harness",
                "--dataset",
                str(FIXTURES / "tasks.jsonl"),
                str(FIXTURES / "results.csv"),
            ]
        )
        == 0
    )
    [group] = groups(capsys, db)
    assert group["comparable"] is True and group["deviations"] == []  # it is the reference, through Serper
    assert group["metrics"]["agent_cost_usd"] > 0
    # the same file with every running total $0: the harness's price for a model it does not know
    with (FIXTURES / "results.csv").open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    free = tmp_path / "free.csv"
    with free.open("w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n")
        w.writeheader()
        w.writerows({**r, "cost": "0.0"} for r in rows)
    db2 = tmp_path / "free.db"
    assert (
        main(
            [
                "import",
                "--db",
                str(db2),
                "--format",
                "interactcomp-harness",
                "--dataset",
                str(FIXTURES / "tasks.jsonl"),
                str(free),
            ]
        )
        == 0
    )
    [group] = groups(capsys, db2)
    assert group["metrics"]["agent_cost_usd"] is None and group["metrics"]["cost_usd"] is None
    assert main(["report", "--db", str(db2)]) == 0
    assert "unpriced" in capsys.readouterr().out


def test_the_token_rows_say_they_sum_every_role(tmp_path, capsys):
    db = tmp_path / "k.db"
    assert (
        main(
            [
                "run",
                "--benchmark",
                "interactcomp",
                "--agent",
                "scripted:direct-guess",
                "--db",
                str(db),
                "--run",
                "k",
                "--limit",
                "1",
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert main(["score", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "tokens in, all roles" in out and "tokens out, all roles" in out


def test_score_from_an_export_names_the_sampling_its_provenance_records(openai_env, tmp_path, capsys):
    db = tmp_path / "e.db"
    assert (
        main(
            [
                "run",
                "--benchmark",
                "interactcomp",
                "--dataset",
                _dataset(tmp_path, IC),
                "--agent",
                "openai:a",
                "--db",
                str(db),
                "--run",
                "hot",
                "--set",
                "agent.temperature=0.2",
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert main(["export", "--db", str(db), "--format", "jsonl"]) == 0
    export = tmp_path / "e.jsonl"
    export.write_text(capsys.readouterr().out, encoding="utf-8")
    assert main(["score", "--from-export", str(export), "--format", "json"]) == 0
    [group] = json.loads(capsys.readouterr().out)["groups"]
    assert any(d.startswith("agent temperature: 0.2, the paper used 0.6") for d in group["deviations"])
