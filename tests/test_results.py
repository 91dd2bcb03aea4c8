"""Typed results and state (results.py): the JSON on disk is the JSON the untyped engine
wrote, rows of older versions still load, and the published schemas match the models.

tests/fixtures/stored_json_demo.jsonl holds the `sessions.result` and `steps.state` text of
demo runs written by the engine before results were typed (one line per session)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from clarify_tui.cli import main
from clarify_tui.metrics import load_sessions, score_sessions
from clarify_tui.models import Session
from clarify_tui.results import (
    CTSResult,
    CTSState,
    DiscoBenchResult,
    DiscoBenchState,
    EpisodeState,
    InteractCompResult,
    InteractCompState,
    parse_result,
)
from clarify_tui.results_schema import SCHEMAS, schema_path, schema_text
from clarify_tui.store import Store

GOLDEN = Path(__file__).parent / "fixtures" / "stored_json_demo.jsonl"
# The runs the golden file was made of (run name -> flags), three demo tasks each.
RUNS = {
    "r0": ["--benchmark", "interactcomp", "--agent", "scripted:search-then-ask"],
    "r1": ["--benchmark", "discobench", "--agent", "scripted:search-then-ask"],
    "r2": ["--benchmark", "discobench", "--agent", "scripted:direct-guess", "--checkpoints", "trajectory"],
    "r3": ["--benchmark", "cts", "--agent", "scripted:search-then-ask", "--k", "2"],
    "r4": ["--benchmark", "cts", "--agent", "scripted:direct-guess", "--k", "0"],
}


def golden() -> list[dict]:
    return [json.loads(line) for line in GOLDEN.read_text(encoding="utf-8").splitlines()]


def stored_rows(db: Path) -> dict[tuple[str, str], tuple[str, list[str]]]:
    conn = sqlite3.connect(db)
    rows = {}
    for run, task, sid, result in conn.execute("SELECT run, task_id, id, result FROM sessions"):
        states = [r[0] for r in conn.execute("SELECT state FROM steps WHERE session_id=? ORDER BY idx", [sid])]
        rows[(run, task)] = (result, states)
    conn.close()
    return rows


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("typed") / "demo.db"
    for run, flags in RUNS.items():
        assert main(["run", "--db", str(db), "--run", run, "--limit", "3", *flags]) == 0
    return db


def test_each_protocols_demo_run_stores_the_same_json_as_the_untyped_engine(demo_db):
    stored = stored_rows(demo_db)
    expected = golden()
    assert {r["protocol"] for r in expected} == {"interactcomp", "discobench", "cts"}
    assert stored.keys() == {(r["run"], r["task"]) for r in expected}
    for row in expected:
        result, states = stored[(row["run"], row["task"])]
        assert result == row["result"], (row["run"], row["task"])
        assert states == row["states"], (row["run"], row["task"])


@pytest.mark.parametrize("row", golden(), ids=lambda r: f"{r['run']}-{r['task']}")
def test_stored_json_round_trips_byte_for_byte(row):
    """Read into the typed models and written back: the same text, key order included."""
    result = parse_result(row["protocol"], json.loads(row["result"]))
    assert (
        type(result)
        is {"interactcomp": InteractCompResult, "discobench": DiscoBenchResult, "cts": CTSResult}[row["protocol"]]
    )
    assert json.dumps(result.stored()) == row["result"]
    for text in row["states"]:
        state = EpisodeState.model_validate_json(text)
        assert (
            type(state.protocol)
            is {"interactcomp": InteractCompState, "discobench": DiscoBenchState, "cts": CTSState}[row["protocol"]]
        )
        assert json.dumps(state.stored()) == text


OLD_ROWS = {
    # Written before checkpoint_mode, searches_before_first_ask, compat/actions and aspect_sets
    # existed, with a key this version does not know.
    "discobench": {
        "answer": "x",
        "correct": True,
        "checkpoints": [
            {
                "index": 0,
                "type": "ambi",
                "status": "passed",
                "asked": False,
                "asked_right": False,
                "searches": 4,
                "first_action": "search",
                "outcome": "missed_ambiguity_correct",
                "reached": True,
            }
        ],
        "ask_turns": 0,
        "tool_turns": 4,
        "legacy_note": "kept",
    },
    "interactcomp": {
        "asks": 1,
        "searches": 0,
        "answer": "y",
        "confidence": 70.0,
        "correct": False,
        "outcome": "answered",
        "rounds": 2,
    },
    "cts": {
        "orig": False,
        "questions": ["Which year?"],
        "answers": ["2023"],
        "aspects": ["time"],
        "answer": "z",
        "coverage": [{"id": "n1", "weight": 2, "coverage": "partial"}],
        "restore_score": 50.0,
    },
}


def test_an_old_shape_stored_result_loads_scores_and_is_written_back_unchanged(tmp_path):
    db = tmp_path / "old.db"
    store = Store(db)
    for protocol, result in OLD_ROWS.items():
        store.update_session(
            Session(
                id=f"old-{protocol}",
                task_id="t1",
                protocol=protocol,
                agent="a",
                user="u",
                search="local",
                status="completed",
                result=result,
            )
        )
    conn = sqlite3.connect(db)  # the rows exactly as an older version left them
    for protocol, result in OLD_ROWS.items():
        conn.execute("UPDATE sessions SET result=? WHERE id=?", [json.dumps(result), f"old-{protocol}"])
    conn.commit()
    conn.close()

    disco = store.session("old-discobench").result
    assert isinstance(disco, DiscoBenchResult)
    assert disco.checkpoint_mode is None and disco.checkpoints[0].searches_before_first_ask is None
    assert disco.checkpoints[0].advanced is False and disco.model_extra == {"legacy_note": "kept"}
    ic = store.session("old-interactcomp").result
    assert isinstance(ic, InteractCompResult) and (ic.compat, ic.invalid, ic.confidence) == (None, 0, 70.0)
    cts = store.session("old-cts").result
    assert isinstance(cts, CTSResult) and cts.aspect_sets == [] and cts.deep_search is None

    scored = score_sessions(load_sessions(store), bootstrap=0, profile_k="data")
    groups = {g["benchmark"]: g["metrics"] for g in scored["groups"]}
    assert groups["discobench"]["checkpoint_modes"] == {"trajectory": 1}  # no mode recorded: trajectory
    assert groups["discobench"]["profile_k"] == 4  # the data's K: this checkpoint's 4 searches
    assert groups["discobench"]["profiles"]["direct_guess"]["n"] == 1
    assert groups["interactcomp"]["accuracy"] == 0.0 and groups["interactcomp"]["calibration_n"] == 1
    assert groups["cts"]["restore_score_mean"] == 50.0 and groups["cts"]["cq_region_rate"] == 0.0

    for protocol in OLD_ROWS:  # re-saving (a note, a re-judge) keeps the row's own shape
        store.update_session(store.session(f"old-{protocol}"))
    conn = sqlite3.connect(db)
    for protocol, result in OLD_ROWS.items():
        [(text,)] = conn.execute("SELECT result FROM sessions WHERE id=?", [f"old-{protocol}"])
        assert text == json.dumps(result)
    conn.close()


def test_a_running_session_has_an_empty_result_of_its_protocol():
    session = Session(task_id="t", protocol="cts", agent="a", user="u", search="local")
    assert isinstance(session.result, CTSResult) and session.result.restore_score is None
    assert session.model_dump(mode="json")["result"] == {}
    session.result.active_ms = 1200.0  # the TUI's task clock, saved while the task runs
    assert session.model_dump(mode="json")["result"] == {"active_ms": 1200.0}


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_committed_schema_matches_the_models(name):
    assert schema_path(name).read_text(encoding="utf-8") == schema_text(name), (
        f"docs/{name}.schema.json is stale: run python -m clarify_tui.results_schema"
    )
