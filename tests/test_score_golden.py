"""`clarify-tui score` on a fixed demo database, against golden files (issue 32): the JSON of
`score --format json` keeps its keys, their order and its numbers while the metrics are typed
models inside (metrics/model.py, protocols/<name>/metric_model.py); the table and csv too.

The golden files were written by the code before metrics were typed. Regenerate them after a
deliberate change with CLARIFY_REGOLD=1 and read the diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from clarify_tui.cli import main

GOLDEN = Path(__file__).parent / "fixtures" / "score"
DEEP = "scripted:search-heavy-guess"  # CTS: one fixed deep searcher, so k1/k2 pair with orig (delta_vs_orig)
RUNS = [
    ("ic-ask", ["--benchmark", "interactcomp", "--agent", "scripted:ask-first", "--epochs", "2"]),  # epochs
    ("ic-guess", ["--benchmark", "interactcomp", "--agent", "scripted:direct-guess"]),
    ("disco-sta", ["--benchmark", "discobench", "--agent", "scripted:search-then-ask"]),
    ("disco-heavy", ["--benchmark", "discobench", "--agent", "scripted:search-heavy-guess"]),
    ("cts-orig", ["--benchmark", "cts", "--agent", "scripted:direct-guess", "--k", "0", "--deep-search", DEEP]),
    ("cts-k1", ["--benchmark", "cts", "--agent", "scripted:ask-first", "--k", "1", "--deep-search", DEEP]),
    ("cts-k2", ["--benchmark", "cts", "--agent", "scripted:ask-first", "--k", "2", "--deep-search", DEEP]),  # per_turn
]


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("score") / "demo.db"
    for name, argv in RUNS:
        assert main(["run", *argv, "--db", str(path), "--run", name]) == 0
    return path


def score(capsys, db, *argv: str) -> str:
    capsys.readouterr()
    assert main(["score", "--db", str(db), "--bootstrap", "200", *argv]) == 0
    return capsys.readouterr().out


def golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("CLARIFY_REGOLD"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"{name} changed (CLARIFY_REGOLD=1 rewrites it)"


@pytest.mark.parametrize(
    "name,argv",
    [
        ("by_run.json", ["--format", "json"]),
        ("by_agent.json", ["--format", "json", "--by", "agent"]),
        ("by_run.csv", ["--format", "csv"]),
        ("by_run.txt", []),
    ],
)
def test_score_output_matches_the_golden_file(db, capsys, name, argv):
    golden(name, score(capsys, db, *argv))


def test_the_json_keeps_every_protocols_metric_names_in_order(db, capsys):
    """Said plainly beside the golden text: the first metric names of each protocol, in the
    order the papers' readers (and their scripts) know them, then the usage every group has."""
    groups = json.loads(score(capsys, db, "--format", "json"))["groups"]
    first = {g["benchmark"]: list(g["metrics"])[:3] for g in groups}
    assert first == {
        "discobench": ["accuracy", "checkpoint_pass_rate", "detection_accuracy"],
        "interactcomp": ["accuracy", "accuracy_all", "invalid_skips"],
        "cts": ["restore_score_mean", "restore_score_p50", "restore_score_p90"],
    }
    ic = next(g["metrics"] for g in groups if g["key"] == {"run": "ic-ask"})
    assert list(ic)[-6:] == ["cost_usd_total", "errored", "abandoned", "running", "unjudged", "epochs"]
    assert list(ic["epochs"]) == ["n_epochs", "mean", "std", "per_epoch", "pass_k"]
