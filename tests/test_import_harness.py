"""Importing the reference InteractComp harness's results CSV: history parsing, scores,
costs, errored and skipped tasks, round trips through our export, and bad input."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest

from clarify_tui import cli
from clarify_tui.importers import ImportFileError, import_harness
from clarify_tui.importers.harness_csv import parse_action_counts
from clarify_tui.protocols.interactcomp.harness_history import HistoryError, parse_history, render_history
from clarify_tui.store import Store

FIXTURES = Path(__file__).parent / "fixtures" / "harness"
RESULTS = FIXTURES / "results.csv"
TASKS = FIXTURES / "tasks.jsonl"


@pytest.fixture
def run_cli(monkeypatch, capsys):
    if "importing" not in cli.COMMANDS:
        monkeypatch.setattr(cli, "COMMANDS", (*cli.COMMANDS, "importing"))

    def run(*argv: str) -> tuple[int, str, str]:
        capsys.readouterr()
        code = cli.main([str(a) for a in argv])
        out = capsys.readouterr()
        return code, out.out, out.err

    return run


def rows(path: Path) -> list[dict]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def by_task(store: Store, run: str | None = None) -> dict[str, tuple]:
    """Each session as comparable data: no ids, times or provenance notes."""
    out = {}
    for s in store.sessions(runs=[run] if run else None):
        steps = [
            (st.actor, st.action.model_dump(), st.observation.model_dump(), st.cost_usd, st.error, st.state)
            for st in store.steps(s.id)
        ]
        out[s.task_id] = (s.status, s.protocol, s.agent, s.user, s.judge, s.config, s.result, s.error, steps)
    return out


def empty(db: Path) -> bool:
    store = Store(db)
    return not any(store.db[t].count for t in ("sessions", "steps", "runs", "tasks"))


# ---- history text ---------------------------------------------------------------------------


def test_history_blocks_with_multiline_observation_and_commas_in_properties():
    user, rounds = parse_history(rows(RESULTS)[0]["history"])
    assert user.startswith("Which 1998 science-fiction")
    assert [r.name for r in rounds] == ["search", "ask", "answer"]
    assert rounds[0].props == {"query": "1998 film comet, nuclear weapons crew"}
    assert rounds[0].observation.count("\n") == 3  # three hit lines and a blank line
    assert rounds[0].observation.endswith("(src: https://en.wikipedia.org/wiki/Comet)")
    assert rounds[2].props == {"answer": "Deep Impact", "confidence": "85"}


def test_history_render_and_parse_are_inverse():
    rounds = [
        ("search", {"query": "a, b: c"}, "line one\n[Round 9]\nline three"),
        ("ask", {"question": "Is it?"}, "no"),
        ("answer", {"answer": "X, Y", "confidence": "5"}, "{'answer': 'X, Y', 'confidence': '5'}"),
    ]
    text = render_history("Q?\nsecond line", rounds)
    user, parsed = parse_history(text)
    assert user == "Q?\nsecond line"
    assert [(r.name, r.props, r.observation) for r in parsed] == rounds
    assert parse_history(render_history("Q", []))[1][0].name == ""


@pytest.mark.parametrize(
    "text", ["", "Error", "[Round 1]\nUser: q\nno action here", "[Round 1]\n    Action: search (query: x)"]
)
def test_unreadable_history_raises(text):
    with pytest.raises(HistoryError):
        parse_history(text)


def test_action_counts_literals():
    assert parse_action_counts("{'search': 2, 'ask': 1, 'answer': 1, 'invalid': 0}")["search"] == 2
    assert parse_action_counts("{'valid': True}") == {"valid": True}
    for bad in ("", "{'search': 2", "[1, 2]", "{'search': -1}", "{'search': 'two'}", "__import__('os')"):
        with pytest.raises(ValueError):
            parse_action_counts(bad)


# ---- import --------------------------------------------------------------------------------


def test_import_builds_sessions_as_the_engine_records_them(tmp_path):
    store = Store(tmp_path / "h.db")
    summary = import_harness(store, RESULTS, TASKS)
    assert (summary.run, summary.completed, summary.errored) == ("harness-results", 3, 1)
    sessions = {s.task_id: s for s in store.sessions()}
    assert [s.task_id for s in store.sessions()] == ["h-1", "h-2", "h-3", "h-4"]  # file order

    answered = sessions["h-1"]
    steps = store.steps(answered.id)
    assert [(s.actor, s.action.kind.value) for s in steps] == [
        ("agent", "search"),
        ("agent", "ask"),
        ("user", "reply"),
        ("agent", "answer"),
        ("judge", "judge"),
    ]
    assert steps[0].observation.text.startswith("1. Deep Impact (film) — ")  # the harness's text, verbatim
    assert steps[1].observation.text == "yes" and steps[2].action.text == "yes"
    assert steps[4].action.text == "harness score"
    assert steps[4].observation.data == {"correct": True, "harness_score": 1.0}
    assert all(s.state for s in steps) and steps[-1].state.done is True
    r = answered.result
    assert (r.answer, r.confidence, r.correct, r.rounds, r.asks, r.searches, r.answers) == (
        "Deep Impact",
        85.0,
        True,
        3,
        1,
        1,
        1,
    )
    assert r.mode == "full" and r.invalid == 0

    errored = sessions["h-2"]
    assert errored.status == "errored" and "not as a wrong answer" in errored.error
    assert errored.result.correct is None and store.steps(errored.id) == []

    skipped = sessions["h-3"]
    assert skipped.status == "completed" and skipped.result.correct is False
    assert skipped.result.answer is None and skipped.result.harness["skipped"] is True
    kinds = [(s.actor, s.action.kind.value) for s in store.steps(skipped.id)]
    assert kinds == [("agent", "search"), ("agent", "invalid"), ("judge", "judge")]

    wrong = sessions["h-4"]
    assert wrong.result.correct is False and wrong.result.invalid == 2  # the harness's invalid retries


def test_costs_are_per_task_differences_of_the_running_total(tmp_path):
    store = Store(tmp_path / "h.db")
    import_harness(store, RESULTS, TASKS)
    cost = {s.task_id: sum(st.cost_usd for st in store.steps(s.id)) for s in store.sessions()}
    assert cost == pytest.approx({"h-1": 0.0123, "h-2": 0.0, "h-3": 0.0078, "h-4": 0.0134})
    assert sum(cost.values()) == pytest.approx(max(float(r["cost"]) for r in rows(RESULTS)))


def test_import_reproduces_the_harness_score_column(tmp_path):
    store = Store(tmp_path / "h.db")
    import_harness(store, RESULTS, TASKS)
    scores = [float(r["score"]) for r in rows(RESULTS) if r["predicted_answer"] != "Error"]
    done = [s for s in store.sessions() if s.status != "errored"]
    assert len(done) == len(scores)
    assert sum(bool(s.result.correct) for s in done) / len(done) == pytest.approx(sum(scores) / len(scores))


def test_import_export_import_gives_the_same_sessions(tmp_path, run_cli):
    db = tmp_path / "h.db"
    code, _, err = run_cli("import", "--db", db, "--format", "interactcomp-harness", "--dataset", TASKS, RESULTS)
    assert code == 0, err
    exported = tmp_path / "exported.csv"
    assert run_cli("export", "--db", db, "--format", "interactcomp-csv", "--out", exported)[0] == 0
    code, _, err = run_cli(
        "import", "--db", db, "--format", "interactcomp-harness", "--dataset", TASKS, exported, "--run", "again"
    )
    assert code == 0, err
    store = Store(db)
    assert by_task(store, "again") == by_task(store, "harness-results")
    # and the exported file is the harness's own file, byte for byte
    assert exported.read_text(encoding="utf-8") == RESULTS.read_text(encoding="utf-8")


def test_scripted_sessions_export_to_the_harness_format_and_back(tmp_path, run_cli):
    db = tmp_path / "s.db"
    for agent in ("scripted:direct-guess", "scripted:search-then-ask"):
        assert (
            run_cli("run", "--db", db, "--benchmark", "interactcomp", "--agent", agent, "--run", agent.split(":")[1])[0]
            == 0
        )
    exported = tmp_path / "ours.csv"
    assert run_cli("export", "--db", db, "--format", "interactcomp-csv", "--out", exported)[0] == 0
    out = tmp_path / "back.db"
    code, _, err = run_cli("import", "--db", out, "--format", "interactcomp-harness", "--dataset", "demo", exported)
    assert code == 0, err
    ours = {(s.task_id, s.agent): s for s in Store(db).sessions() if s.status == "completed"}
    back = [s for s in Store(out).sessions() if s.status == "completed"]
    assert len(back) == len(ours)
    assert sum(s.result.correct for s in back) == sum(bool(s.result.correct) for s in ours.values())
    for s in back:
        assert s.result.asks + s.result.searches + s.result.answers in range(1, 11)


def test_row_order_of_a_pandas_file_with_crlf_does_not_matter(tmp_path):
    data = RESULTS.read_text(encoding="utf-8").splitlines(keepends=False)
    crlf = tmp_path / "crlf.csv"
    crlf.write_bytes("\r\n".join(data).encode("utf-8") + b"\r\n")
    store = Store(tmp_path / "h.db")
    import_harness(store, crlf, TASKS, run="crlf")
    import_harness(store, RESULTS, TASKS)
    assert by_task(store, "crlf") == by_task(store, "harness-results")


# ---- bad input ----------------------------------------------------------------------------------


def _corrupt(tmp_path: Path, old: str, new: str) -> Path:
    text = RESULTS.read_text(encoding="utf-8")
    assert old in text
    bad = tmp_path / "bad.csv"
    bad.write_text(text.replace(old, new, 1), encoding="utf-8")
    return bad


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            "Which red and white lattice tower in Japan opened in 1958?,",
            "Which tower is tallest?,",
            ["bad.csv:20", "field 'question'", "row 4", "no task in the dataset has this question"],
        ),
        (
            "\"{'answer': 1, 'search': 0, 'ask': 0, 'invalid': 2}\"",
            "\"{'answer': 1, 'search': 0\"",
            ["bad.csv:20", "field 'action_counts'", "row 4", "not a Python dict literal"],
        ),
        ("{'valid': True}", "valid", ["bad.csv:16", "field 'action_counts'", "row 3"]),
        (",1.0,0.0123,", ",one,0.0123,", ["bad.csv:2", "field 'score'", "row 1", "not a number"]),
        (
            "    Action: ask (question:",
            "    Action: ask (query:",
            ["bad.csv:2", "row 1", "cannot read the properties of action 'ask'"],
        ),
        ("Tokyo Tower,Sapporo TV Tower", "Eiffel Tower,Sapporo TV Tower", ["row 4", "wrong dataset?"]),
    ],
)
def test_bad_rows_name_file_and_row_and_write_nothing(tmp_path, run_cli, old, new, expected):
    bad = _corrupt(tmp_path, old, new)
    db = tmp_path / "h.db"
    code, _, err = run_cli("import", "--db", db, "--format", "interactcomp-harness", "--dataset", TASKS, bad)
    assert code == 2
    assert "Cannot import" in err and "nothing was imported" in err
    for part in expected:
        assert part in err, (part, err)
    assert empty(db)


def test_every_bad_row_is_reported_at_once(tmp_path):
    bad = _corrupt(tmp_path, "Which red and white lattice tower in Japan opened in 1958?,", "Unknown?,")
    text = bad.read_text(encoding="utf-8").replace("{'valid': True}", "{'valid'", 1)
    bad.write_text(text, encoding="utf-8")
    with pytest.raises(ImportFileError) as info:
        import_harness(Store(tmp_path / "h.db"), bad, TASKS)
    assert [p.line for p in info.value.problems] == [16, 20]


def test_missing_columns_and_a_taken_run_are_refused(tmp_path, run_cli):
    bad = tmp_path / "cols.csv"
    bad.write_text("question,answer\nq,a\n", encoding="utf-8")
    db = tmp_path / "h.db"
    code, _, err = run_cli("import", "--db", db, "--format", "interactcomp-harness", "--dataset", TASKS, bad)
    assert code == 2 and "missing column(s) correct_answer" in err and empty(db)
    copy = tmp_path / "results.csv"
    shutil.copy(RESULTS, copy)
    assert run_cli("import", "--db", db, "--format", "interactcomp-harness", "--dataset", TASKS, copy)[0] == 0
    code, _, err = run_cli("import", "--db", db, "--format", "interactcomp-harness", "--dataset", TASKS, copy)
    assert code == 2 and "already has 4 session(s)" in err
    assert len(Store(db).sessions()) == 4


def test_bad_dataset_is_reported_as_an_import_problem(tmp_path, run_cli):
    db = tmp_path / "h.db"
    code, _, err = run_cli(
        "import", "--db", db, "--format", "interactcomp-harness", "--dataset", tmp_path / "nope.jsonl", RESULTS
    )
    assert code == 2 and "nope.jsonl" in err and "no such file" in err
    assert empty(db)


def test_harness_variants_skipped_in_round_one_ask_nl_and_an_imperfect_final_round(tmp_path):
    q1, q2 = (
        "Which inventor filed a telephone caveat at the U.S. Patent Office on 14 February 1876?",
        "Which red and white lattice tower in Japan opened in 1958?",
    )
    path = tmp_path / "variants.csv"
    with path.open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(
            [
                "question",
                "correct_answer",
                "predicted_answer",
                "confidence",
                "history",
                "score",
                "cost",
                "action_counts",
            ]
        )
        w.writerow([q1, "Elisha Gray", "", 0, render_history(q1, []), 0.0, 0.5, "{'valid': True}"])
        history = render_history(
            q2,
            [
                ("ask_NL", {"question": "Is it in Tokyo?"}, "yes"),
                ("search", {"query": "tower"}, "No Answer"),
            ],
        )
        w.writerow(
            [
                q2,
                "Tokyo Tower",
                "No Answer",
                0,
                history,
                0.0,
                0.75,
                "{'ask_NL': 1, 'search': 1, 'answer': 0, 'invalid': 0}",
            ]
        )
    store = Store(tmp_path / "v.db")
    import_harness(store, path, TASKS, max_rounds=2)
    first, second = store.sessions()
    assert first.status == "completed" and first.result.harness["skipped"]
    assert [s.action.kind.value for s in store.steps(first.id)] == ["invalid", "judge"]
    assert sum(s.cost_usd for s in store.steps(first.id)) == pytest.approx(0.5)
    steps = store.steps(second.id)
    assert [s.action.kind.value for s in steps] == ["ask", "reply", "answer", "judge"]
    assert steps[2].action.text == "No Answer" and steps[2].action.raw == "Action: search (query: tower)"
    assert second.result.max_rounds >= 2 and second.result.correct is False
    assert sum(s.cost_usd for s in steps) == pytest.approx(0.25)


def test_a_final_round_non_answer_recorded_as_answer_imports_as_the_harness_scored_it(tmp_path):
    """agent.py:137-146: a model that emits another action in its last round is recorded as
    `Action: answer (query: more)` / `Observation: No Answer`, scored and given confidence 0
    (run_benchmark.py:90, :99-100). The file used to be rejected whole; it imports, and
    calibration counts the row at confidence 0 as the native path does."""
    from clarify_tui.metrics import load_sessions, score_sessions

    q = "Which red and white lattice tower in Japan opened in 1958?"
    path = tmp_path / "weak.csv"
    with path.open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(
            [
                "question",
                "correct_answer",
                "predicted_answer",
                "confidence",
                "history",
                "score",
                "cost",
                "action_counts",
            ]
        )
        history = render_history(
            q,
            [
                ("search", {"query": "tower"}, "1. Tokyo Tower — a tower (src: https://t)"),
                ("answer", {"query": "more, towers: japan"}, "No Answer"),
            ],
        )
        w.writerow([q, "Tokyo Tower", "No Answer", 0, history, 0.0, 0.5, "{'search': 1, 'answer': 1, 'invalid': 0}"])
    store = Store(tmp_path / "w.db")
    import_harness(store, path, TASKS, max_rounds=2)
    [session] = store.sessions()
    steps = store.steps(session.id)
    assert [s.action.kind.value for s in steps] == ["search", "answer", "judge"]
    assert steps[1].action.text == "No Answer" and steps[1].action.raw == "Action: answer (query: more, towers: japan)"
    assert (session.status, session.result.correct, session.result.outcome) == ("completed", False, "no_answer")
    [group] = score_sessions(load_sessions(store))["groups"]
    assert group["metrics"]["calibration_n"] == 1 and group["metrics"]["calibration_error"] == 0.0
