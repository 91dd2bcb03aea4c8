"""Issue 22: `merge` never makes one task count twice, and never depends on argument order.

- two independent runs that share a name (`r1` in a.db and in b.db) are kept apart: the
  later one is renamed `r1~2` and reported; `--pool` pools them, and the score still counts
  each task once per run and agent;
- one annotator with two completed sessions of one task (TUI queue + browser campaign
  under one name, merged) is scored once (the earliest), with a warning, and `queue
  status` agrees;
- two files holding different judgments of one session score the same in either order;
- a bad input file is named in the error (not the default --db).
"""

from __future__ import annotations

import json
import sqlite3
import time

import pytest

from clarify_tui.campaign.status import campaign_status
from clarify_tui.cli import main as cli_main
from clarify_tui.search.local import LocalSearch
from clarify_tui.store import Store
from tests.conftest import DOCS, IC
from tests.test_campaign_merge import Tee, play

RUN_ARGS = [
    "run",
    "--benchmark",
    "interactcomp",
    "--dataset",
    "demo",
    "--agent",
    "scripted:direct-guess",
    "--user",
    "rule",
    "--search",
    "local",
    "--run",
    "r1",
    "--limit",
    "3",
]


def score_json(capsys, db, *extra) -> dict:
    capsys.readouterr()
    where = [] if "--from-export" in extra else ["--db", str(db)]
    assert cli_main(["score", *where, "--format", "json", *extra]) == 0
    captured = capsys.readouterr()
    return {"report": json.loads(captured.out), "err": captured.err}


def runs_in(db) -> dict[str, int]:
    conn = sqlite3.connect(db)
    try:
        return dict(conn.execute("SELECT run, COUNT(*) FROM sessions GROUP BY run"))
    finally:
        conn.close()


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    """a.db and b.db, each holding an independent run `r1` of the same agent on 3 tasks."""
    folder = tmp_path_factory.mktemp("runs")
    paths = {name: folder / f"{name}.db" for name in ("a", "b")}
    for path in paths.values():
        assert cli_main([*RUN_ARGS, "--db", str(path)]) == 0
    return paths


def test_each_run_gets_an_id_when_it_starts(two_runs):
    ids = []
    for path in two_runs.values():
        conn = sqlite3.connect(path)
        ids.append(conn.execute("SELECT run_id FROM runs WHERE name='r1'").fetchone()[0])
        conn.close()
    assert all(ids) and ids[0] != ids[1]


def test_independent_runs_of_one_name_are_kept_apart_and_reported(two_runs, tmp_path, capsys):
    out = tmp_path / "all.db"
    capsys.readouterr()
    assert cli_main(["merge", str(two_runs["a"]), str(two_runs["b"]), "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert f"{two_runs['b']}: run 'r1' merged as 'r1~2'" in err and "--pool" in err
    assert runs_in(out) == {"r1": 3, "r1~2": 3}
    groups = score_json(capsys, out)["report"]["groups"]
    assert {g["key"]["run"]: g["n_sessions"] for g in groups} == {"r1": 3, "r1~2": 3}

    # the argument order does not decide which run keeps the name: the one that started first does
    reverse = tmp_path / "reverse.db"
    assert cli_main(["merge", str(two_runs["b"]), str(two_runs["a"]), "--out", str(reverse)]) == 0
    assert f"{two_runs['b']}: run 'r1' merged as 'r1~2'" in capsys.readouterr().err
    sessions = lambda db: sorted(sqlite3.connect(db).execute("SELECT id, run FROM sessions").fetchall())
    assert sessions(reverse) == sessions(out)

    # merging again writes nothing (b's run is found under its new name)
    assert cli_main(["merge", str(two_runs["a"]), str(two_runs["b"]), "--out", str(out)]) == 0
    assert "nothing new; 6 session(s) already there" in capsys.readouterr().out
    assert runs_in(out) == {"r1": 3, "r1~2": 3}


def test_pool_pools_them_and_the_score_counts_each_task_once(two_runs, tmp_path, capsys):
    out = tmp_path / "pooled.db"
    assert cli_main(["merge", str(two_runs["a"]), str(two_runs["b"]), "--out", str(out), "--pool"]) == 0
    assert "renamed" not in capsys.readouterr().err
    assert runs_in(out) == {"r1": 6}
    scored = score_json(capsys, out)
    (group,) = scored["report"]["groups"]
    assert group["n_sessions"] == 3  # 3 tasks, not 6
    assert scored["err"].count("completed twice; scored the earliest session") == 3

    # the export says which sessions were left out and why, and scores the same from the file
    export = tmp_path / "pooled.jsonl"
    assert cli_main(["export", "--db", str(out), "--format", "jsonl", "--out", str(export)]) == 0
    records = [json.loads(line) for line in export.read_text(encoding="utf-8").splitlines()]
    left_out = [r["score_inputs"]["default"] for r in records if not r["score_inputs"]["default"]["scored"]]
    assert len(left_out) == 3 and {d["excluded_as"] for d in left_out} == {"duplicate"}
    kept = {r["session"]["id"] for r in records if r["score_inputs"]["default"]["scored"]}
    assert {d["duplicate_of"] for d in left_out} == kept
    from_file = score_json(capsys, "unused", "--from-export", str(export))
    assert from_file["report"]["groups"][0]["n_sessions"] == 3


def test_a_copy_of_a_run_grown_since_is_the_same_run(two_runs, tmp_path, capsys):
    """A file copied and resumed elsewhere carries the same run id: it pools, nothing renamed."""
    copy = tmp_path / "copy.db"
    src, dst = sqlite3.connect(two_runs["a"]), sqlite3.connect(copy)
    src.backup(dst)
    src.close(), dst.close()
    assert cli_main([*RUN_ARGS[:-1], "5", "--resume", "--db", str(copy)]) == 0
    out = tmp_path / "all.db"
    capsys.readouterr()
    assert cli_main(["merge", str(two_runs["a"]), str(copy), "--out", str(out)]) == 0
    assert "renamed" not in capsys.readouterr().err
    assert runs_in(out) == {"r1": 5}


def test_one_annotator_twice_on_one_task_is_scored_once_and_queue_status_agrees(tmp_path, capsys):
    search = LocalSearch(DOCS)
    tui, browser = Store(tmp_path / "tui.db"), Store(tmp_path / "browser.db")
    first = play(Tee(tui), IC, "ana", search)  # search-then-ask: right
    time.sleep(0.01)
    second = play(Tee(browser), IC, "bob", search)  # direct-guess: wrong ...
    for store in (tui, browser):
        store.close()
    conn = sqlite3.connect(tmp_path / "browser.db")  # ... played by ana under the same name
    conn.execute("UPDATE sessions SET annotator='ana' WHERE id=?", [second.id])
    conn.commit()
    conn.close()
    assert first.result.correct and not second.result.correct
    out = tmp_path / "all.db"
    assert cli_main(["merge", str(tmp_path / "browser.db"), str(tmp_path / "tui.db"), "--out", str(out)]) == 0
    assert runs_in(out) == {"camp": 2}  # a human campaign pools, as docs/campaigns.md promises

    scored = score_json(capsys, out, "--by", "annotator")
    (group,) = scored["report"]["groups"]
    assert group["n_sessions"] == 1 and group["metrics"]["accuracy"] == 1.0  # the earliest session
    assert f"scored the earliest session {first.id}, left out {second.id}" in scored["err"]

    status = campaign_status(out, "camp", [IC.id], per_task=1)
    (ana,) = status["annotators"]
    assert (ana["done"], ana["graded"], ana["correct"]) == (1, 1, 1)
    assert status["duplicates"] and second.id in status["duplicates"][0]


def test_different_judgments_of_one_session_score_the_same_in_either_order(tmp_path, capsys):
    search = LocalSearch(DOCS)
    a, b = Store(tmp_path / "a.db"), Store(tmp_path / "b.db")
    session = play(Tee(a, b), IC, "bob", search)  # wrong by the engine
    a.add_judgment(session.id, "human:lead", "answer", {"correct": False, "note": "first look"})
    time.sleep(0.01)
    b.add_judgment(session.id, "human:lead", "answer", {"correct": True, "note": "second look, later"})
    a.close(), b.close()
    results = []
    for order in (("a", "b"), ("b", "a")):
        out = tmp_path / f"{''.join(order)}.db"
        assert cli_main(["merge", *(str(tmp_path / f"{n}.db") for n in order), "--out", str(out)]) == 0
        results.append(score_json(capsys, out)["report"])
    assert results[0] == results[1]
    assert results[0]["groups"][0]["metrics"]["accuracy"] == 1.0  # the later judgment, by its time


def test_merge_errors_name_the_bad_input_file(two_runs, tmp_path, capsys):
    bad = tmp_path / "notes.db"
    bad.write_bytes(b"SQLite format 3\x00" + b"x" * 200)
    out = tmp_path / "all.db"
    capsys.readouterr()
    assert cli_main(["merge", str(two_runs["a"]), str(bad), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "notes.db" in err and "clarify.db" not in err and "Traceback" not in err
    assert not out.exists()


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["{tmp}/missing.db", "--out", "{tmp}/all.db"], "no database at {tmp}/missing.db"),
        (["{tmp}", "--out", "{tmp}/all.db"], "no database at {tmp} (it is a directory)"),
        (["{a}", "--out", "{tmp}"], "--out {tmp} is a directory"),
    ],
)
def test_merge_names_a_missing_input_or_a_directory(two_runs, tmp_path, capsys, argv, named):
    fill = {"tmp": str(tmp_path), "a": str(two_runs["a"])}
    capsys.readouterr()
    assert cli_main(["merge", *(a.format(**fill) for a in argv)]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert named.format(**fill) in err and "clarify.db" not in err


def test_an_error_reading_an_input_midway_names_that_input(two_runs, tmp_path, capsys):
    odd = tmp_path / "odd.db"
    src, dst = sqlite3.connect(two_runs["a"]), sqlite3.connect(odd)
    src.backup(dst)
    dst.execute("DROP TABLE judgments")  # opens fine; fails when the merge reads the judgments
    dst.commit()
    src.close(), dst.close()
    out = tmp_path / "all.db"
    capsys.readouterr()
    assert cli_main(["merge", str(two_runs["b"]), str(odd), "--out", str(out)]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert f"database error in {odd}" in err and "clarify.db" not in err
    assert not out.exists()  # nothing half-merged: a new output is renamed into place only when complete
