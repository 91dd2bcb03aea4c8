"""`clarify-tui score` and `clarify-tui judge` through the real CLI on an engine-built database."""

from __future__ import annotations

import asyncio
import csv
import io
import json

import pytest

from clarify_tui.cli import main
from clarify_tui.models import Action, EpisodeConfig
from clarify_tui.store import Store
from tests.test_metrics import (
    C1,
    C2,
    DISCO,
    DISCO_SESSIONS,
    FULL,
    IC,
    IC_SESSIONS,
    NOTHING,
    REGION,
    YEAR,
    play,
)

IC_KEYS = {
    "accuracy",
    "rounds",
    "interaction_rate",
    "calibration_error",
    "tokens_in",
    "tokens_out",
    "cost_usd",
    "errored",
}
DISCO_KEYS = {
    "accuracy",
    "checkpoint_pass_rate",
    "detection_accuracy",
    "detection_precision",
    "detection_recall",
    "detection_f1",
    "ce_a",
    "ce_b",
    "ask_turns",
    "tool_turns",
    "tokens_in",
    "tokens_out",
    "errored",
    "profiles",
}
CTS_KEYS = {
    "restore_score_mean",
    "restore_score_p50",
    "restore_score_p90",
    "restore_score_min",
    "restore_score_max",
    "ua_unknown_rate",
    "cq_region_rate",
    "region_only_unknown_rate",
    "all_unknown_rate",
    "known_cnt",
    "delta_vs_orig",
}


async def _fill(store: Store) -> None:
    await play(store, IC, IC_SESSIONS["s1"], run="ic")
    await play(store, IC, IC_SESSIONS["s2"], run="ic")
    await play(store, DISCO, DISCO_SESSIONS["A"], run="disco")
    await play(store, C1, [Action.clarify([]), Action.answer(NOTHING)], run="orig")
    await play(store, C2, [Action.clarify([]), Action.answer(NOTHING)], run="orig")
    await play(store, C1, [Action.clarify([YEAR, REGION]), Action.answer(FULL)], run="k2", config=EpisodeConfig(k=2))
    await play(store, C2, [Action.clarify([YEAR, REGION]), Action.answer(FULL)], run="k2", config=EpisodeConfig(k=2))


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "cli.db"
    asyncio.run(_fill(Store(path)))
    return path


def run_cli(capsys, *argv) -> str:
    capsys.readouterr()
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def test_json_has_the_design_keys_per_benchmark(db, capsys):
    report = json.loads(run_cli(capsys, "score", "--db", str(db), "--format", "json", "--bootstrap", "500"))
    keys = {"interactcomp": IC_KEYS, "discobench": DISCO_KEYS, "cts": CTS_KEYS}
    assert {g["benchmark"] for g in report["groups"]} == set(keys)
    for g in report["groups"]:
        assert set(g) == {"key", "benchmark", "n_sessions", "comparable", "deviations", "metrics"}  # DESIGN.md
        assert isinstance(g["comparable"], bool) and isinstance(g["deviations"], list)
        assert keys[g["benchmark"]] <= set(g["metrics"])
        assert "tokens_by_role" in g["metrics"]
    disco = next(g for g in report["groups"] if g["benchmark"] == "discobench")
    for profile in ("direct_guess", "search_heavy_guess", "direct_ask", "search_then_ask"):
        assert set(disco["metrics"]["profiles"][profile]) >= {"share", "pass_rate"}
    k2 = next(g for g in report["groups"] if g["key"] == {"run": "k2"})
    assert k2["metrics"]["delta_vs_orig"]["mean"] == 100.0  # FULL vs NOTHING on both tasks
    assert k2["metrics"]["delta_vs_orig"]["ci95"] == [100.0, 100.0]


def test_run_and_benchmark_filters(db, capsys):
    report = json.loads(run_cli(capsys, "score", "--db", str(db), "--format", "json", "--run", "ic", "--run", "disco"))
    assert [g["key"]["run"] for g in report["groups"]] == ["ic", "disco"]
    same = json.loads(run_cli(capsys, "score", "--db", str(db), "--format", "json", "--run", "ic", "disco"))
    assert same == report
    report = json.loads(
        run_cli(
            capsys,
            "score",
            "--db",
            str(db),
            "--format",
            "json",
            "--benchmark",
            "cts",
            "--by",
            "agent",
            "--bootstrap",
            "100",
        )
    )
    assert [g["benchmark"] for g in report["groups"]] == ["cts"]
    assert report["groups"][0]["key"] == {"agent": "test:list"}


def test_csv_has_one_row_per_group(db, capsys):
    out = run_cli(capsys, "score", "--db", str(db), "--format", "csv", "--bootstrap", "100")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["key.run"] for r in rows] == ["ic", "disco", "orig", "k2"]
    assert rows[0]["accuracy"] == "0.5"
    assert rows[1]["profiles.direct_guess.share"] == "0.0"
    assert rows[3]["delta_vs_orig.ci95.lo"] == "100.0"
    assert rows[3]["known_cnt.1"] == "1.0"  # both tasks: the year is known, the region unknown
    assert rows[2]["delta_vs_orig.mean"] == ""  # orig against itself: null


def test_table_prints_a_table_per_benchmark(db, capsys):
    out = run_cli(capsys, "score", "--db", str(db), "--bootstrap", "100")
    for title in (
        "interactcomp — by run",
        "discobench — by run",
        "cts — by run",
        "checkpoint pass rate",
        "restore score mean",
        "calibration error",
    ):
        assert title in out


def test_judge_command_stores_rule_verdicts_and_score_can_select_them(tmp_path, capsys):
    path = tmp_path / "j.db"
    asyncio.run(_fill(Store(path)))
    assert main(["judge", "--db", str(path), "--run", "ic", "--run", "k2", "--judge", "rule"]) == 0
    store = Store(path)
    judged = [j for s in store.sessions(runs=["ic", "k2"]) for j in store.judgments(s.id)]
    assert len(judged) == 4 and {j["judge"] for j in judged} == {"rule"}
    assert {j["kind"] for j in judged} == {"answer", "nuggets"}
    before = json.loads(run_cli(capsys, "score", "--db", str(path), "--format", "json", "--bootstrap", "100"))
    after = json.loads(
        run_cli(capsys, "score", "--db", str(path), "--format", "json", "--judge", "rule", "--bootstrap", "100")
    )
    assert before == after  # the same rule judge agrees with itself
    assert main(["judge", "--db", str(path), "--run", "nope", "--judge", "rule"]) == 2


def test_many_groups_print_one_row_per_group(db, capsys):
    """Over WIDE_GROUPS groups the table turns: one row per group with the headline metrics."""
    from clarify_tui.commands.score import WIDE_GROUPS, print_tables
    from clarify_tui.metrics.model import Scores

    report = json.loads(run_cli(capsys, "score", "--db", str(db), "--format", "json", "--benchmark", "interactcomp"))
    [group] = report["groups"]
    many = [{**group, "key": {"run": f"r{i}"}} for i in range(WIDE_GROUPS + 1)]
    print_tables(Scores.from_json({"groups": many}), "run")
    out = capsys.readouterr().out
    assert f"({WIDE_GROUPS + 1} groups;" in out
    assert out.count("0.500") == WIDE_GROUPS + 1  # accuracy of each row


def test_score_of_a_run_that_is_not_there_says_so_and_lists_the_runs(tmp_path):
    """`score --run TYPO` printed "no sessions match" and exited 0, as if the run were empty."""
    from clitools import run_cli

    db = tmp_path / "s.db"
    code, _, err = run_cli(
        "run",
        "--benchmark",
        "interactcomp",
        "--dataset",
        "demo",
        "--agent",
        "scripted:direct-guess",
        "--db",
        str(db),
        "--run",
        "real",
        "--limit",
        "1",
    )
    assert code == 0, err
    code, out, err = run_cli("score", "--db", str(db), "--run", "raal")
    assert code == 2 and "no run 'raal'" in err and "runs there: real" in err and "Traceback" not in err
