"""`clarify-tui labels` (issue 33, docs/labels.md): people label where the agent should have
asked; the labels come in through a queue or a file, go out in the same format, and are
summarised with agreement, kappa and how well they predict the `whatif` flips. No label ever
moves a baseline score."""

from __future__ import annotations

import json
import random
import sqlite3

import pytest

from clarify_tui.cli import main
from clarify_tui.labels.points import run_points
from clarify_tui.labels.summary import auc, flips_at
from clarify_tui.store import Store


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """An InteractComp run of a seeded coin-flip agent with its `whatif` ask forks (some flip
    wrong to right), and a DiscoBench run without forks."""
    db = tmp_path_factory.mktemp("labels") / "base.db"
    assert main(["run", "--benchmark", "interactcomp", "--agent", "scripted:coin-flip", "--seed", "3",
                 "--run", "coin", "--db", str(db)]) == 0  # fmt: skip
    assert main(["whatif", "--run", "coin", "--seed", "3", "--db", str(db), "--format", "json"]) == 0
    assert main(["run", "--benchmark", "discobench", "--agent", "scripted:coin-flip", "--seed", "3",
                 "--run", "disco", "--db", str(db)]) == 0  # fmt: skip
    return db


def copy_db(source, target) -> None:
    """A consistent copy (the base's last writes may still be in its WAL)."""
    with sqlite3.connect(source) as src, sqlite3.connect(target) as dst:
        src.backup(dst)


@pytest.fixture
def db(base, tmp_path):
    path = tmp_path / "l.db"
    copy_db(base, path)
    return path


def export_steps(capsys, db, run: str) -> dict[str, list[dict]]:
    code, out, _ = cli(capsys, "export", "--db", str(db), "--run", run)
    assert code == 0
    return {r["session"]["id"]: r["steps"] for r in map(json.loads, out.splitlines())}


def labels_file(path, rows) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def random_labels(db, run: str, annotators=("ann", "bob", "cat"), seed: int = 5) -> list[dict]:
    rng = random.Random(seed)
    return [
        {"session_id": s.id, "step": p.step, "annotator": a, "label": rng.choice(["ask", "ask", "act", "unsure"])}
        for s, _, p in run_points(Store(db), run)
        for a in annotators
    ]


def summary(capsys, db, run: str, *extra: str) -> dict:
    code, out, err = cli(capsys, "labels", "--run", run, "--db", str(db), "--format", "json", *extra)
    assert code == 0, err
    return json.loads(out)


# ---- the queue ------------------------------------------------------------------------------


def test_a_queue_shows_what_the_agent_saw_before_deciding_and_never_the_outcome(db, capsys):
    code, out, _ = cli(capsys, "labels", "--run", "disco", "--queue", "lab", "--per-item", "2", "--db", str(db))
    assert code == 0
    assert f"clarify-tui play --queue lab --db {db}" in out and f"clarify-tui serve --queue lab --db {db}" in out
    assert "2 annotator(s) per item" in out
    store = Store(db)
    items = store.work.items("lab")
    assert len(items) == len(run_points(store, "disco")) > 0
    sessions = {s.id: s for s in store.sessions(runs=["disco"])}
    for item in items:
        p = item.payload
        assert set(p) == {"kind", "protocol", "task_id", "language", "question", "steps", "decision"}
        assert p["kind"] == "labels" and p["protocol"] == "discobench"
        steps = store.steps(item.session_id)
        decision = steps[item.step_idx]
        assert decision.actor == "agent" and decision.action.kind.value in ("search", "answer")
        assert p["decision"] == {"index": item.step_idx, "kind": decision.action.kind.value,
                                 "text": decision.action.summary()}  # fmt: skip
        assert all(s["index"] < item.step_idx for s in p["steps"])  # nothing from the decision on
        assert {s["actor"] for s in p["steps"]} <= {"agent", "user", "environment"}  # no judge step
        text = json.dumps(p, ensure_ascii=False)
        assert "failed" not in text and "correct" not in text  # no checkpoint verdict, no outcome
        # a hidden string shows only where the agent itself had met it (a user's reply, a search hit)
        seen = (
            " ".join(
                f"{s.action.summary()} {s.observation.text} "
                + " ".join(f"{h.title} {h.content}" for h in s.observation.hits)
                for s in steps[: item.step_idx]
                if s.actor == "agent"
            )
            + decision.action.summary()
        )
        leaked = [h for h in store.task_for(item.session_id).hidden_strings() if h in text and h not in seen]
        assert not leaked
        assert sessions[item.session_id].task_id == p["task_id"]
    # the turns the agent had seen: its earlier asks with the user's replies
    shown = [s for it in items for s in it.payload["steps"]]
    assert any(s["actor"] == "user" and s["kind"] == "reply" for s in shown)
    assert any(s["actor"] == "environment" and "1. " in s["text"] for s in shown)  # search results


def test_a_seeded_sample_is_the_same_queue_again_and_resuming_adds_nothing(db, capsys):
    code, out, _ = cli(
        capsys, "labels", "--run", "coin", "--queue", "s1", "--sample", "5", "--seed", "7", "--db", str(db)
    )
    assert code == 0 and "5 new items (a seeded sample of 5 of" in out
    cli(capsys, "labels", "--run", "coin", "--queue", "s2", "--sample", "5", "--seed", "7", "--db", str(db))
    store = Store(db)
    assert [i.item_id for i in store.work.items("s1")] == [i.item_id for i in store.work.items("s2")]
    code, out, _ = cli(
        capsys, "labels", "--run", "coin", "--queue", "s1", "--sample", "5", "--seed", "7", "--db", str(db)
    )
    assert code == 0 and "0 new items" in out and "5 item(s)" in out


# ---- import and export -------------------------------------------------------------------


def test_import_takes_the_step_index_of_the_jsonl_export_and_export_writes_it_back(db, capsys, tmp_path):
    exported = export_steps(capsys, db, "coin")
    sid, steps = next((sid, st) for sid, st in exported.items() if any(s["action"] == "search" for s in st))
    index = next(s["index"] for s in steps if s["action"] == "search" and s["actor"] == "agent")
    rows = [
        {"session_id": sid, "step": index, "annotator": "ann", "label": "ask", "note": "the question is vague"},
        {"session_id": sid, "step": index, "annotator": "bob", "label": "act"},
    ]
    path = tmp_path / "crowd.jsonl"
    labels_file(path, rows)
    code, out, _ = cli(capsys, "labels", "import", str(path), "--db", str(db))
    assert code == 0 and "imported 2 labels" in out and "'import:crowd.jsonl'" in out
    store = Store(db)
    [item] = store.work.items("import:crowd.jsonl")
    assert (item.session_id, item.step_idx) == (sid, index)
    assert store.steps(sid)[index].action.kind.value == "search"  # the very step the export listed
    assert {a.source for a in store.work.answers("import:crowd.jsonl")} == {"import"}
    # export: the same lines back (a left-out note is null)
    code, out, _ = cli(capsys, "labels", "export", "--run", "coin", "--db", str(db))
    assert code == 0
    back = [json.loads(line) for line in out.splitlines()]
    assert back == [rows[0], {**rows[1], "note": None}]


def test_a_whole_file_round_trips_through_export_into_another_database(db, base, capsys, tmp_path):
    rows = random_labels(db, "coin")
    path = tmp_path / "all.jsonl"
    labels_file(path, rows)
    assert cli(capsys, "labels", "import", str(path), "--db", str(db))[0] == 0
    out_file = tmp_path / "out.jsonl"
    code, _, err = cli(capsys, "labels", "export", "--db", str(db), "--out", str(out_file))
    assert code == 0 and f"wrote {len(rows)} labels to {out_file}" in err
    same = tmp_path / "same.jsonl"  # `labels export FILE`, DESIGN.md's form
    assert cli(capsys, "labels", "export", str(same), "--db", str(db))[0] == 0
    assert same.read_text() == out_file.read_text()
    fresh = tmp_path / "fresh.db"  # the same sessions, no labels yet
    copy_db(base, fresh)
    assert cli(capsys, "labels", "import", str(out_file), "--db", str(fresh))[0] == 0
    code, again, _ = cli(capsys, "labels", "export", "--db", str(fresh))
    key = lambda r: (r["session_id"], r["step"], r["annotator"])  # noqa: E731
    assert sorted(map(json.loads, again.splitlines()), key=key) == sorted(({**r, "note": None} for r in rows), key=key)
    assert summary(capsys, fresh, "coin") == summary(capsys, db, "coin")


def test_importing_twice_adds_nothing_and_a_changed_label_is_reported_not_overwritten(db, capsys, tmp_path):
    rows = random_labels(db, "coin", annotators=("ann",))[:3]
    path = tmp_path / "a.jsonl"
    labels_file(path, rows)
    assert "imported 3 labels" in cli(capsys, "labels", "import", str(path), "--db", str(db))[1]
    code, out, _ = cli(capsys, "labels", "import", str(path), "--db", str(db))
    assert code == 0 and "imported 0 labels" in out and "3 already there" in out
    changed = [{**rows[0], "label": "act" if rows[0]["label"] != "act" else "ask"}, *rows[1:]]
    labels_file(path, changed)
    code, out, err = cli(capsys, "labels", "import", str(path), "--db", str(db))
    assert code == 0 and "1 differing from a label already stored, not imported" in out
    assert f"{path}:1: ann labelled step {rows[0]['step']}" in err and "that label is kept" in err
    [first] = [
        a for a in Store(db).work.answers(run="coin") if a.item_id == f"{rows[0]['session_id']}:{rows[0]['step']}"
    ]
    assert first.answer["label"] == rows[0]["label"]


@pytest.mark.parametrize(
    "bad,message",
    [
        ("{not json", "not JSON"),
        ('{"session_id": "S", "step": 0, "annotator": "ann"}', "missing label"),
        ('{"session_id": "S", "step": 0, "annotator": "ann", "label": "maybe"}', "label 'maybe' is not one of"),
        ('{"session_id": "S", "step": "0", "annotator": "ann", "label": "ask"}', "step must be an integer"),
        ('{"session_id": "nope", "step": 0, "annotator": "ann", "label": "ask"}', "no session 'nope'"),
        ('{"session_id": "S", "step": 999, "annotator": "ann", "label": "ask"}', "is no decision point"),
    ],
)
def test_a_malformed_line_names_file_and_line_and_nothing_is_imported(db, capsys, tmp_path, bad, message):
    rows = random_labels(db, "coin", annotators=("ann",))[:2]
    sid = rows[0]["session_id"]
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(rows[0]) + "\n" + bad.replace('"S"', f'"{sid}"') + "\n" + json.dumps(rows[1]) + "\n")
    code, _, err = cli(capsys, "labels", "import", str(path), "--db", str(db))
    assert code == 2 and f"{path}:2:" in err and message in err and "Traceback" not in err
    assert Store(db).work.answers(run="coin") == [] and Store(db).work.queues() == []


# ---- the summary -------------------------------------------------------------------------------


def test_the_summary_counts_agreement_kappa_and_the_share_that_needed_an_ask(db, capsys, tmp_path):
    points = run_points(Store(db), "disco")
    rows = []
    for i, (s, _, p) in enumerate(points):  # two people who agree on all but the first point
        rows.append({"session_id": s.id, "step": p.step, "annotator": "ann", "label": "ask" if i % 2 else "act"})
        b = ("act" if i % 2 else "ask") if i == 0 else ("ask" if i % 2 else "act")
        rows.append({"session_id": s.id, "step": p.step, "annotator": "bob", "label": b})
    path = tmp_path / "two.jsonl"
    labels_file(path, rows)
    cli(capsys, "labels", "import", str(path), "--db", str(db))
    s = summary(capsys, db, "disco")
    n = len(points)
    assert s["n_labels"] == 2 * n and s["annotators"] == ["ann", "bob"]
    assert s["points_labelled"] == s["decision_points"] == n
    assert s["agreement"] == pytest.approx((n - 1) / n)
    assert s["kappa_method"] == "cohen" and s["kappa_ci95"] is not None and -1 <= s["kappa"] <= 1
    asks = sum(1 for i in range(n) if i % 2)  # both say ask; on the first point only bob does (1 of 2: no majority)
    assert s["needed_ask"]["points"] == asks and s["needed_ask"]["share"] == pytest.approx(asks / n)
    assert s["label_shares"]["ask"] == pytest.approx(sum(r["label"] == "ask" for r in rows) / len(rows))
    # no whatif fork in this run: null, not 0
    assert s["auc_vs_flips"] is None and s["auc_vs_flips_ci95"] is None
    code, out, _ = cli(capsys, "labels", "--run", "disco", "--db", str(db))
    assert "Cohen's kappa [95% CI]" in out and "auc_vs_flips [95% CI]" in out
    assert "auc_vs_flips: - = no `whatif` ask fork at a labelled point" in out


def test_auc_vs_flips_ranks_the_points_where_asking_flipped_the_outcome(db, capsys, tmp_path):
    store = Store(db)
    flips = flips_at(store, "coin")
    assert any(flips.values()) and not all(flips.values())  # the seeded run has both kinds of fork
    # people who say `ask` exactly where asking turned wrong into right: a perfect ranking
    rows = [
        {"session_id": sid, "step": step, "annotator": a, "label": "ask" if improved else "act"}
        for (sid, step), improved in flips.items()
        for a in ("ann", "bob")
    ]
    path = tmp_path / "perfect.jsonl"
    labels_file(path, rows)
    cli(capsys, "labels", "import", str(path), "--db", str(db))
    s = summary(capsys, db, "coin")
    assert s["auc_vs_flips"] == 1.0 and s["auc_vs_flips_ci95"] == [1.0, 1.0]
    assert s["fork_points"] == {"labelled_with_ask_fork": len(flips), "improved": sum(flips.values())}
    assert s["kappa"] == 1.0


def test_auc_is_mann_whitney_with_ties_counting_half():
    assert auc([0.9, 0.1], [True, False]) == 1.0
    assert auc([0.1, 0.9], [True, False]) == 0.0
    assert auc([0.5, 0.5, 0.2], [True, False, False]) == 0.75
    assert auc([0.5, 0.5], [True, True]) is None  # one class: undefined, never 0.5


def test_labels_never_move_a_baseline_score(db, capsys, tmp_path):
    def score() -> str:
        code, out, _ = cli(capsys, "score", "--db", str(db), "--format", "json")
        assert code == 0
        return out

    before = score()
    path = tmp_path / "l.jsonl"
    labels_file(path, random_labels(db, "coin") + random_labels(db, "disco"))
    assert cli(capsys, "labels", "import", str(path), "--db", str(db))[0] == 0
    cli(capsys, "labels", "--run", "coin", "--queue", "people", "--db", str(db))
    assert score() == before


def test_usage_mistakes_are_one_line(db, capsys):
    assert cli(capsys, "labels", "--db", str(db))[0] == 2
    code, _, err = cli(capsys, "labels", "--run", "nope", "--db", str(db))
    assert code == 2 and "no run 'nope'" in err
    code, _, err = cli(capsys, "labels", "import", "--db", str(db))
    assert code == 2 and "give the file" in err
    code, out, _ = cli(capsys, "labels", "--run", "coin", "--db", str(db))
    assert code == 0 and "no labels for run 'coin' yet" in out


# ---- merge: labels are people's work ------------------------------------------------------------


def answers_of(db) -> dict[tuple[str, str, str], dict]:
    return {(a.queue, a.item_id, a.annotator): a.answer for a in Store(db).work.answers()}


def test_merge_carries_every_queue_and_answer_and_reports_differing_answers(base, capsys, tmp_path):
    a, b = tmp_path / "a.db", tmp_path / "b.db"
    copy_db(base, a)
    copy_db(base, b)
    rows = random_labels(a, "coin", annotators=("ann",))[:4]
    path = tmp_path / "crowd.jsonl"
    labels_file(path, rows)
    assert cli(capsys, "labels", "import", str(path), "--db", str(a))[0] == 0
    changed = [{**rows[0], "label": "unsure" if rows[0]["label"] != "unsure" else "act"}, *rows[1:3]]
    labels_file(path, changed)  # the same file name, one label changed, on another machine
    assert cli(capsys, "labels", "import", str(path), "--db", str(b))[0] == 0
    # a person's queue in each file, of one name but for different runs
    assert cli(capsys, "labels", "--run", "coin", "--queue", "people", "--db", str(a))[0] == 0
    assert cli(capsys, "labels", "--run", "disco", "--queue", "people", "--db", str(b))[0] == 0
    for db, who in ((a, "cat"), (b, "dan")):
        store = Store(db)
        item = store.work.next_item("people", who)
        assert store.work.record_answer("people", item.item_id, who, {"label": "ask", "note": who})
        store.close()

    out_db = tmp_path / "all.db"
    code, out, err = cli(capsys, "merge", str(a), str(b), "--out", str(out_db))
    assert code == 1  # something needs a look: the differing answer
    assert "work_answers" in out
    item = f"{rows[0]['session_id']}:{rows[0]['step']}"
    assert "1 answer(s) differ between files" in err
    assert f"queue 'import:crowd.jsonl', item {item}, ann: " in err
    assert f'"label": "{rows[0]["label"]}"' in err and f'"label": "{changed[0]["label"]}"' in err
    assert "queue 'people' of run 'disco' merged as 'people~2'" in err
    merged = answers_of(out_db)
    # every answer of both files is there, under its queue (the clash kept apart)
    assert len([k for k in merged if k[0] == "import:crowd.jsonl"]) == 4
    assert [v["note"] for k, v in merged.items() if k[0] == "people"] == ["cat"]
    assert [v["note"] for k, v in merged.items() if k[0] == "people~2"] == ["dan"]
    store = Store(out_db)
    assert store.work.queue("people~2").run == "disco" and store.work.queue("people").run == "coin"
    assert summary(capsys, out_db, "disco")["annotators"] == ["dan"]
    # again, and in the other order: nothing new, the same answers
    assert cli(capsys, "merge", str(b), str(a), "--out", str(out_db))[0] == 1
    assert answers_of(out_db) == merged
    other = tmp_path / "other.db"
    cli(capsys, "merge", str(b), str(a), "--out", str(other))
    assert answers_of(other) == merged


# ---- report --labels / --audit ------------------------------------------------------------------


def test_report_labels_adds_the_summarys_numbers_to_the_runs_row_and_a_dash_where_there_are_none(db, capsys, tmp_path):
    path = tmp_path / "l.jsonl"
    labels_file(path, random_labels(db, "coin"))
    cli(capsys, "labels", "import", str(path), "--db", str(db))
    s = summary(capsys, db, "coin", "--bootstrap", "500")
    code, plain, _ = cli(capsys, "report", "--db", str(db), "--bootstrap", "500")
    code, out, _ = cli(capsys, "report", "--db", str(db), "--bootstrap", "500", "--labels")
    assert code == 0 and "Should it have asked" not in plain
    assert "| Should it have asked (labels): labels | Should it have asked (labels): annotators |" in out
    kappa, auc_ci = s["kappa_ci95"], s["auc_vs_flips_ci95"]
    cells = (
        f"| {s['n_labels']} | 3 | {s['kappa']:.3f} | [{kappa[0]:.3f}, {kappa[1]:.3f}] | "
        f"{100 * s['needed_ask']['share']:.1f} | {s['auc_vs_flips']:.2f} | [{auc_ci[0]:.2f}, {auc_ci[1]:.2f}] |"
    )
    coin_row = next(line for line in out.splitlines() if line.startswith("| coin |"))
    assert coin_row.endswith(cells)
    disco_row = next(line for line in out.splitlines() if line.startswith("| disco |"))
    assert disco_row.endswith("| – | – | – | – | – | – | – |") and "| 0 |" not in disco_row.split("Ask")[-1]
    assert "Should it have asked (labels): no labels for run disco." in out
    # the rest of the report is the report without labels
    assert [line for line in plain.splitlines() if line.startswith("| coin |")][0] in coin_row
    code, latex, _ = cli(capsys, "report", "--db", str(db), "--bootstrap", "500", "--labels", "--format", "latex")
    assert r"$\kappa$ 95\% CI" in latex
    code, _, err = cli(capsys, "report", "--db", str(db), "--labels", "--by", "agent")
    assert code == 2 and "--labels: labels belong to a run" in err


def test_report_audit_without_audit_answers_prints_dashes_and_says_so(db, capsys):
    code, out, _ = cli(capsys, "report", "--db", str(db), "--run", "coin", "--bootstrap", "200", "--audit")
    assert code == 0
    assert "Simulator audit: asks audited" in out and "Simulator audit: no audit answers for run coin." in out
    coin_row = next(line for line in out.splitlines() if line.startswith("| coin |"))
    assert coin_row.endswith("| – | – | – | – | – | – | – |")


def test_the_demo_labels_give_the_documented_numbers(db, capsys, tmp_path):
    """docs/labels.md's demo: examples/labels/demo-labels.jsonl (keyed by task) through
    examples/labels/to_sessions.py and `labels import`, on the seeded coin-flip run."""
    import subprocess
    import sys
    from pathlib import Path

    examples = Path(__file__).resolve().parent.parent / "examples" / "labels"
    _, export, _ = cli(capsys, "export", "--db", str(db), "--run", "coin")
    made = subprocess.run(
        [sys.executable, str(examples / "to_sessions.py"), str(examples / "demo-labels.jsonl")],
        input=export,
        capture_output=True,
        text=True,
        check=True,
    )
    path = tmp_path / "labels.jsonl"
    path.write_text(made.stdout, encoding="utf-8")
    code, out, _ = cli(capsys, "labels", "import", str(path), "--db", str(db))
    assert code == 0 and "imported 68 labels" in out
    s = summary(capsys, db, "coin")
    assert (s["n_labels"], s["points_labelled"], s["decision_points"]) == (68, 25, 25)
    assert round(s["kappa"], 3) == 0.454 and [round(x, 3) for x in s["kappa_ci95"]] == [0.214, 0.665]
    assert s["needed_ask"]["share"] == 0.48
    assert s["fork_points"] == {"labelled_with_ask_fork": 19, "improved": 2}
    assert round(s["auc_vs_flips"], 2) == 0.71 and [round(x, 2) for x in s["auc_vs_flips_ci95"]] == [0.44, 0.92]


def test_a_cts_point_is_its_clarify_step_shown_with_the_blurred_query_only(tmp_path, capsys):
    db = tmp_path / "c.db"
    assert main(["run", "--benchmark", "cts", "--agent", "scripted:ask-first", "--limit", "2", "--run", "c",
                 "--db", str(db)]) == 0  # fmt: skip
    code, out, _ = cli(capsys, "labels", "--run", "c", "--queue", "q", "--db", str(db))
    assert code == 0 and "2 new items" in out
    store = Store(db)
    for item in store.work.items("q"):
        task = store.task_for(item.session_id)
        p = item.payload
        assert p["question"] == task.cts.blurred_query and p["steps"] == []
        assert p["decision"]["kind"] == "clarify" and item.step_idx == 0
        assert task.cts.fused_query not in json.dumps(p, ensure_ascii=False)


def test_merge_carries_unsent_drafts_and_shown_marks_and_lists_the_draft_it_did_not_keep(base, capsys, tmp_path):
    """A half-typed note is a person's work, and a shown item is what made a later play
    informed: `merge` carries both; two files' drafts of one item: the longer is kept and
    the other's text is printed, never dropped unseen."""
    from clarify_tui.store import work_drafts

    a, b = tmp_path / "a.db", tmp_path / "b.db"
    copy_db(base, a)
    assert cli(capsys, "labels", "--run", "disco", "--queue", "people", "--db", str(a))[0] == 0
    copy_db(a, b)
    store = Store(a)
    item = store.work.next_item("people", "cat")
    task = (item.payload["protocol"], item.payload["task_id"])
    work_drafts.mark_shown(store, "people", item.item_id, "cat")
    work_drafts.save_draft(store, "people", item.item_id, "cat", {"label": "ask", "note": "the user never said wh"})
    store.close()
    store = Store(b)
    work_drafts.save_draft(store, "people", item.item_id, "cat", {"label": "ask", "note": "short"})
    work_drafts.mark_shown(store, "people", item.item_id, "dan")
    store.close()

    out_db = tmp_path / "all.db"
    code, out, err = cli(capsys, "merge", str(a), str(b), "--out", str(out_db))
    assert code == 1  # the differing draft needs a look
    assert "work_drafts" in out and "work_shown" in out
    assert "1 unsent draft(s) differ" in err
    assert f"{b}: " in err and '"note": "short"' in err  # the text not kept, in full
    merged = Store(out_db)
    assert work_drafts.draft(merged, "people", item.item_id, "cat")["note"] == "the user never said wh"
    # both people saw the item: their later plays of the task as the agent are informed
    assert merged.work.hidden_shown("cat", *task) == ("people", "labels")
    assert merged.work.hidden_shown("dan", *task) == ("people", "labels")
    merged.close()
    # again, and in the other order: the same
    assert cli(capsys, "merge", str(b), str(a), "--out", str(out_db))[0] == 1
    other = tmp_path / "other.db"
    cli(capsys, "merge", str(b), str(a), "--out", str(other))
    for db in (out_db, other):
        store = Store(db)
        assert work_drafts.draft(store, "people", item.item_id, "cat")["note"] == "the user never said wh"
        assert store.conn.execute("SELECT count(*) FROM work_shown").fetchone()[0] == 2
        store.close()
