"""Export formats parse back with csv / json and carry their documented columns."""

from __future__ import annotations

import csv
import io
import json

import pytest

from clarify_tui.cli import main
from clarify_tui.exporters import EXPORTERS
from clarify_tui.exporters.cts_candidates import FIELDS
from clarify_tui.exporters.interactcomp_csv import COLUMNS as HARNESS_COLUMNS
from clarify_tui.exporters.sessions_csv import COLUMNS as SESSION_COLUMNS
from clarify_tui.importers.harness_csv import parse_action_counts
from clarify_tui.protocols.interactcomp.harness_history import parse_history
from clarify_tui.store import Store


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("export") / "all.db"
    for bench in ("interactcomp", "discobench", "cts"):
        for agent in ("scripted:direct-guess", "scripted:search-then-ask"):
            code = main(
                [
                    "run",
                    "--db",
                    str(path),
                    "--benchmark",
                    bench,
                    "--agent",
                    agent,
                    "--k",
                    "2",
                    "--run",
                    f"{bench}-{agent.split(':')[1]}",
                ]
            )
            assert code == 0
    return path


def export(db, fmt: str, *runs: str) -> str:
    out = io.StringIO()
    EXPORTERS[fmt](Store(db), list(runs) or None, out)
    return out.getvalue()


def test_every_format_is_registered():
    assert {"jsonl", "csv", "interactcomp-csv", "cts-candidates"} <= set(EXPORTERS)


def test_sessions_csv_has_one_row_per_session_with_the_documented_columns(db):
    text = export(db, "csv")
    reader = csv.DictReader(io.StringIO(text))
    assert tuple(reader.fieldnames) == SESSION_COLUMNS
    rows = list(reader)
    store = Store(db)
    sessions = {s.id: s for s in store.sessions()}
    assert {r["id"] for r in rows} == set(sessions)
    for r in rows:
        s = sessions[r["id"]]
        assert (r["run"], r["task"], r["protocol"], r["status"]) == (s.run, s.task_id, s.protocol.value, s.status)
        if s.status != "completed":
            continue
        if s.protocol.value == "interactcomp":
            assert r["correct"] == str(int(bool(s.result.correct)))
            assert int(r["rounds"]) == s.result.rounds and int(r["asks"]) == s.result.asks
            assert r["restore_score"] == "" and r["checkpoint_pass_fraction"] == ""
        elif s.protocol.value == "discobench":
            cps = s.result.checkpoints
            assert float(r["checkpoint_pass_fraction"]) == pytest.approx(
                sum(c.status == "passed" for c in cps) / len(cps)
            )
            assert int(r["ask_turns"]) == s.result.ask_turns and int(r["tool_turns"]) == s.result.tool_turns
        else:
            assert float(r["restore_score"]) == pytest.approx(s.result.restore_score)
            assert int(r["known_count"]) == sum(a != "unknown" for a in s.result.answers)
            assert r["correct"] == ""
        steps = store.steps(s.id)
        assert int(r["tokens_in"]) == sum(x.tokens_in for x in steps)
        assert float(r["cost_usd"]) == pytest.approx(sum(x.cost_usd for x in steps))


def test_interactcomp_csv_is_the_harness_layout(db):
    rows = list(csv.DictReader(io.StringIO(export(db, "interactcomp-csv"))))
    assert rows and tuple(rows[0]) == HARNESS_COLUMNS
    store = Store(db)
    completed = [s for s in store.sessions(protocol="interactcomp") if s.status == "completed"]
    assert len(rows) == len(completed)
    previous = 0.0
    for row, s in zip(rows, completed):
        _, rounds = parse_history(row["history"])
        counts = parse_action_counts(row["action_counts"])
        assert sum(v for k, v in counts.items() if k != "invalid") == len(rounds)
        assert counts["ask"] == s.result.asks and counts["search"] == s.result.searches
        assert float(row["score"]) == float(bool(s.result.correct))
        assert row["predicted_answer"] == (s.result.answer or "")
        assert float(row["cost"]) >= previous  # a running total, as the harness writes
        previous = float(row["cost"])
        if s.result.asks:
            assert any(r.name == "ask" and r.observation in ("yes", "no", "i don't know") for r in rounds)


def test_cts_candidates_are_json_lines_with_the_documented_fields(db):
    lines = export(db, "cts-candidates").splitlines()
    store = Store(db)
    assert len(lines) == len(store.sessions(protocol="cts", status="completed"))
    for line in lines:
        record = json.loads(line)
        assert tuple(record) == FIELDS
        assert isinstance(record["answer"], str) and record["answer"]
        assert len(record["questions"]) == len(record["answers"])
        assert record["orig"] == (record["questions"] == [])
        assert 0 <= record["restore_score"] <= 100


def test_export_of_one_run_only(db):
    rows = list(csv.DictReader(io.StringIO(export(db, "csv", "cts-direct-guess"))))
    assert rows and {r["run"] for r in rows} == {"cts-direct-guess"}
    assert export(db, "interactcomp-csv", "cts-direct-guess").strip() == ",".join(HARNESS_COLUMNS)


def test_export_cli_names_the_formats(db, capsys):
    assert main(["export", "--db", str(db), "--format", "nope"]) == 2
    err = capsys.readouterr().err
    for name in ("csv", "interactcomp-csv", "cts-candidates"):
        assert name in err


def test_sessions_csv_carries_what_the_person_typed_as_a_note(tmp_path):
    """Notes (ctrl+n) reached only the JSONL export; a reviewer's spreadsheet needs them."""
    path = tmp_path / "n.db"
    assert (
        main(
            [
                "run",
                "--db",
                str(path),
                "--benchmark",
                "interactcomp",
                "--agent",
                "scripted:direct-guess",
                "--run",
                "n",
                "--limit",
                "1",
            ]
        )
        == 0
    )
    store = Store(path)
    s = store.sessions()[0]
    s.note = "the question, line one\nline two, with a comma"
    store.update_session(s)
    rows = list(csv.DictReader(io.StringIO(export(path, "csv"))))
    assert rows[0]["note"] == s.note


def test_help_formats_exists_and_lists_every_format(capsys):
    """`export --help` pointed at --help-formats, which did not exist."""
    import pytest as _pytest

    from clarify_tui.cli import main as _main
    from clarify_tui.exporters import EXPORTERS

    with _pytest.raises(SystemExit) as exit_:
        _main(["export", "--help-formats"])
    assert exit_.value.code == 0
    listed = [line.split()[0] for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert listed == [*EXPORTERS, "inspect"]


def test_export_out_says_what_it_wrote(db, tmp_path):
    """`--out FILE` used to write in silence: it says where, how many sessions, which format."""
    from tests.clitools import run_cli

    runs = {"cts-direct-guess": len(Store(db).sessions(runs=["cts-direct-guess"]))}
    single = tmp_path / "one.db"
    assert (
        main(
            [
                "run",
                "--db",
                str(single),
                "--benchmark",
                "interactcomp",
                "--agent",
                "scripted:direct-guess",
                "--limit",
                "1",
                "--run",
                "one",
            ]
        )
        == 0
    )
    for path, run, fmt, n in (
        (db, "cts-direct-guess", "jsonl", runs["cts-direct-guess"]),
        (db, "cts-direct-guess", "csv", runs["cts-direct-guess"]),
        (single, "one", "csv", 1),
    ):
        out = tmp_path / f"{run}.{fmt}"
        code, stdout, err = run_cli("export", "--db", str(path), "--run", run, "--format", fmt, "--out", str(out))
        assert code == 0 and stdout == "", err
        noun = "session" if n == 1 else "sessions"
        assert f"wrote {n} {noun} to {out} ({fmt})" in err, err
