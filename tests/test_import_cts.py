"""Importing Clarify-Then-Search candidate files: field variants, stored vs judged values,
the engine's steps and result, round trips through the cts-candidates export, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clarify_tui import cli
from clarify_tui.importers import ImportFileError, import_cts_candidates
from clarify_tui.importers.cts_candidate_fields import extract_answer
from clarify_tui.store import Store

QUERIES = """id,blurred_query,fused_query,domain
q1,What did the telescope's first images show?,What did the James Webb Space Telescope's first full-color images released in July 2022 show?,science
q2,Best universities for AI,Best universities for AI in Europe for master's study,education
q3,Matcha prices,Matcha prices in Kyoto in 2023,food
"""
GOLD = [
    {
        "id": "q1",
        "nuggets": [
            {"id": "n1", "text": "The first full-color images were released on 12 July 2022.", "weight": 3},
            {"id": "n2", "text": "The images included the deep field of galaxy cluster SMACS 0723.", "weight": 1},
        ],
    },
    {
        "id": "q2",
        "gold": {
            "nuggets": [
                {"id": "a", "text": "ETH Zurich offers a master's in AI.", "weight": 2},
                {"id": "b", "text": "University of Edinburgh has a strong AI school.", "weight": 1},
            ]
        },
    },
    {"id": "q3", "nuggets": [{"id": "m", "text": "Uji matcha prices rose 20 percent in 2023.", "weight": 2}]},
]
CANDIDATES = [
    {
        "id": "q1",
        "k": 1,
        "questions": ["Which telescope do you mean?"],
        "answers": ["James Webb Space Telescope"],
        "rewritten_query": "What did the James Webb Space Telescope's first images show?",
        "answer": "<think>plan</think><answer>The first full-color images were released on 12 July 2022.</answer>",
        "restore_score_100": 75,
    },
    {
        "qid": "q2",
        "qa": [{"q": "Which region?", "a": "Europe"}, ["What level of study?", "master's"]],
        "candidate": {"final_answer": "ETH Zurich offers a master's in AI."},
        "coverage": {"a": "full", "b": "partial"},
    },
    {"id": "q3", "questions": [], "prediction": "Matcha is a green tea powder."},
]


@pytest.fixture
def release(tmp_path) -> Path:
    data = tmp_path / "release" / "data"
    data.mkdir(parents=True)
    (data / "hard_518_queries.csv").write_text(QUERIES, encoding="utf-8")
    (data / "gold_public_hard518.jsonl").write_text("\n".join(json.dumps(g) for g in GOLD) + "\n", encoding="utf-8")
    return tmp_path / "release"


def write_candidates(path: Path, records: list[dict]) -> Path:
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in records) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def candidates(tmp_path) -> Path:
    return write_candidates(tmp_path / "ebk1__cand_hard518.jsonl", CANDIDATES)


@pytest.fixture
def run_cli(monkeypatch, capsys):
    if "importing" not in cli.COMMANDS:
        monkeypatch.setattr(cli, "COMMANDS", (*cli.COMMANDS, "importing"))

    def run(*argv) -> tuple[int, str, str]:
        capsys.readouterr()
        code = cli.main([str(a) for a in argv])
        out = capsys.readouterr()
        return code, out.out, out.err

    return run


def comparable(store: Store, run: str) -> dict[str, tuple]:
    out = {}
    for s in store.sessions(runs=[run]):
        steps = [(st.actor, st.action.model_dump(), st.observation.model_dump(), st.state) for st in store.steps(s.id)]
        out[s.task_id] = (s.status, s.config, s.result.stored(), steps)
    return out


def test_answer_tags_are_stripped():
    assert extract_answer("<think>x</think>\n<answer> A </answer>") == "A"
    assert extract_answer("reasoning <answer>unclosed tail") == "unclosed tail"
    assert extract_answer({"final_answer": "B"}) == "B"
    assert extract_answer(3) is None


def test_candidates_become_cts_sessions_played_through_the_engine(tmp_path, release, candidates):
    store = Store(tmp_path / "c.db")
    summary = import_cts_candidates(store, candidates, release)
    assert summary.run == "ebk1" and summary.completed == 3
    s = {x.task_id: x for x in store.sessions()}

    one = s["q1"]
    assert one.agent == "import:ebk1" and one.user == "stored" and one.judge == "rule"
    r = one.result
    assert (r.k, r.orig, r.questions, r.answers) == (
        1,
        False,
        ["Which telescope do you mean?"],
        ["James Webb Space Telescope"],
    )
    assert r.rewritten == "What did the James Webb Space Telescope's first images show?"
    assert r.answer == "The first full-color images were released on 12 July 2022."
    assert r.coverage[0].stored() == {"id": "n1", "weight": 3, "coverage": "full"}  # judged by the rule judge
    assert r.stored_restore_score == 75
    kinds = [(st.actor, st.action.kind.value) for st in store.steps(one.id)]
    assert kinds == [
        ("agent", "clarify"),
        ("user", "reply"),
        ("user", "rewrite"),
        ("agent", "answer"),
        ("judge", "judge"),
    ]

    two = s["q2"]
    assert two.judge == "stored" and two.user == "stored+rule"  # no stored rewrite: the rule rewriter wrote it
    assert two.result.questions == ["Which region?", "What level of study?"]
    assert two.result.answers == ["Europe", "master's"] and two.config.k == 2
    assert [c.coverage for c in two.result.coverage] == ["full", "partial"]
    assert two.result.restore_score == pytest.approx(100 * (2 * 1 + 1 * 0.5) / 3, abs=1e-3)

    three = s["q3"]
    assert three.result.orig is True and three.result.questions == []
    assert three.result.rewritten == "Matcha prices"


def test_candidates_export_import_gives_the_same_sessions(tmp_path, release, candidates, run_cli):
    db = tmp_path / "c.db"
    code, _, err = run_cli("import", "--db", db, "--format", "cts-candidates", "--dataset", release, candidates)
    assert code == 0, err
    out = tmp_path / "sys__cand_hard518.jsonl"
    assert run_cli("export", "--db", db, "--format", "cts-candidates", "--out", out)[0] == 0
    code, _, err = run_cli(
        "import",
        "--db",
        db,
        "--format",
        "cts-candidates",
        "--dataset",
        release / "data" / "gold_public_hard518.jsonl",
        out,
    )
    assert code == 0, err
    store = Store(db)
    first, again = comparable(store, "ebk1"), comparable(store, "sys")
    for task_id in first:
        first[task_id][2].pop("stored_restore_score", None)
        again[task_id][2].pop("stored_restore_score", None)
    assert again == first


def test_scripted_cts_sessions_export_as_candidates_and_score_the_same(tmp_path, run_cli):
    db = tmp_path / "s.db"
    assert (
        run_cli(
            "run", "--db", db, "--benchmark", "cts", "--agent", "scripted:search-then-ask", "--k", "2", "--run", "ours"
        )[0]
        == 0
    )
    out = tmp_path / "ours__cand.jsonl"
    assert run_cli("export", "--db", db, "--format", "cts-candidates", "--out", out)[0] == 0
    code, _, err = run_cli(
        "import", "--db", db, "--format", "cts-candidates", "--dataset", "demo", out, "--run", "back"
    )
    assert code == 0, err
    store = Store(db)
    ours = {s.task_id: s.result for s in store.sessions(runs=["ours"], status="completed")}
    back = {s.task_id: s.result for s in store.sessions(runs=["back"])}
    assert back.keys() == ours.keys()
    for task_id, r in ours.items():
        for key in ("k", "questions", "answers", "rewritten", "answer", "coverage", "restore_score"):
            assert getattr(back[task_id], key) == getattr(r, key), (task_id, key)


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        ({"id": "zz", "answer": "x"}, ["field 'id'", "no task 'zz'"]),
        ({"answer": "x"}, ["field 'id'", "missing"]),
        ({"id": "q1", "questions": ["a", "b", "c", "d"], "answer": "x"}, ["4 questions", "k = 1, 2 or 3"]),
        ({"id": "q1", "k": 2, "questions": ["a"], "answer": "x"}, ["field 'k'", "k is 2"]),
        ({"id": "q1", "questions": ["a"]}, ["no deep-search answer"]),
        ({"id": "q1", "questions": ["a"], "answer": "  "}, ["answer is empty"]),
        ({"id": "q1", "answer": "x", "coverage": {"n1": "full"}}, ["field 'coverage'", "no coverage for nugget 'n2'"]),
        ({"id": "q1", "answer": "x", "coverage": ["full", "most"]}, ["'most' is not full, partial or none"]),
        ({"id": "q1", "answers": ["a", "b"], "questions": ["q"], "answer": "x"}, ["2 replies for 1 question"]),
    ],
)
def test_bad_candidates_name_file_and_line_and_write_nothing(tmp_path, release, run_cli, record, expected):
    path = write_candidates(tmp_path / "bad__cand.jsonl", [record, CANDIDATES[1]])
    db = tmp_path / "c.db"
    code, _, err = run_cli("import", "--db", db, "--format", "cts-candidates", "--dataset", release, path)
    assert code == 2
    assert "bad__cand.jsonl:1" in err, err
    for part in expected:
        assert part in err, (part, err)
    store = Store(db)
    assert not any(store.db[t].count for t in ("sessions", "steps", "runs", "tasks"))


def test_duplicate_ids_and_unreadable_lines_are_problems(tmp_path, release):
    path = tmp_path / "dup__cand.jsonl"
    path.write_text(json.dumps(CANDIDATES[0]) + "\n{not json\n" + json.dumps(CANDIDATES[0]) + "\n", encoding="utf-8")
    with pytest.raises(ImportFileError) as info:
        import_cts_candidates(Store(tmp_path / "c.db"), path, release)
    messages = [str(p) for p in info.value.problems]
    assert any(":2:" in m for m in messages)
    assert any(":3:" in m and "duplicate id 'q1'" in m for m in messages)
