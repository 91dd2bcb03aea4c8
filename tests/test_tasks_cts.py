"""Clarify-Then-Search release loading from a mini release built in tmp_path."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from clarify_tui.models import Protocol
from clarify_tui.tasks import DatasetError, load_tasks, validate_dataset

QUERIES = [
    {
        "qid": "q1",
        "fused_query": "2023年北京市二手房成交量是多少",
        "blurred_query": "二手房成交量是多少",
        "domain": "房产",
    },
    {
        "qid": "q2",
        "fused_query": "Tesla Model 3 range in winter in Norway",
        "blurred_query": "Model 3 range",
        "domain": "auto",
    },
]
GOLD = [
    {
        "id": "q1",
        "query_intent": "北京 2023 二手房成交量",
        "nuggets": [
            {"id": "N1", "text": "2023年北京二手房成交约15.3万套", "weight": 3, "source_ids": ["S1", "S2"]},
            {"id": "N2", "text": "同比增长约10%", "weight": 1, "source_ids": ["S2"]},
        ],
        "reference_urls": ["https://example.org/a"],
        "unsupported_claims": [],
        "notes": "",
    },
    {  # the second record keeps its nuggets under gold.nuggets, with an integer source id
        "qid": "q2",
        "gold": {
            "nuggets": [{"id": "N1", "text": "Range drops about 30% in cold weather", "weight": 2, "source_ids": [7]}]
        },
    },
]


def _csv_text(rows: list[dict], columns: list[str] | None = None) -> str:
    out = io.StringIO()
    columns = columns or list(rows[0])
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([row.get(c, "") for c in columns])
    return out.getvalue()


def _release(root: Path, queries=QUERIES, gold=GOLD, csv_text: str | None = None) -> Path:
    data = root / "release" / "data"
    data.mkdir(parents=True)
    (data / "hard_518_queries.csv").write_text(csv_text or _csv_text(queries), encoding="utf-8")
    (data / "gold_public_hard518.jsonl").write_text(
        "".join(json.dumps(g, ensure_ascii=False) + "\n" for g in gold), encoding="utf-8"
    )
    return root / "release"


def test_release_folder_loads(tmp_path):
    tasks = load_tasks("cts", _release(tmp_path))
    assert [t.id for t in tasks] == ["q1", "q2"]
    q1, q2 = tasks
    assert q1.protocol == Protocol.cts and q1.answer is None
    assert q1.question == q1.cts.blurred_query == "二手房成交量是多少"
    assert q1.cts.fused_query == "2023年北京市二手房成交量是多少"
    assert q1.cts.intent_slots == {}
    assert [(n.id, n.weight, n.source_ids) for n in q1.cts.nuggets] == [
        ("N1", 3, ["S1", "S2"]),
        ("N2", 1, ["S2"]),
    ]
    assert q1.language == "zh" and q1.domain == "房产"
    assert q2.language == "en" and q2.cts.nuggets[0].source_ids == ["7"]


@pytest.mark.parametrize("pick", ["release", "data", "csv", "gold"])
def test_every_entry_point_gives_the_same_tasks(tmp_path, pick):
    root = _release(tmp_path)
    data = root / "data"
    path = {
        "release": root,
        "data": data,
        "csv": data / "hard_518_queries.csv",
        "gold": data / "gold_public_hard518.jsonl",
    }[pick]
    assert load_tasks(None, path) == load_tasks("cts", root)


def test_renamed_files_are_found_as_the_only_siblings(tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "queries.csv").write_text(_csv_text(QUERIES), encoding="utf-8")
    (folder / "my_gold.jsonl").write_text("".join(json.dumps(g) + "\n" for g in GOLD), encoding="utf-8")
    assert len(load_tasks("cts", folder / "queries.csv")) == 2
    assert len(load_tasks("cts", folder)) == 2


@pytest.mark.parametrize("id_column", ["id", "query_id", "QID", " Query-ID "])
def test_id_column_variants(tmp_path, id_column):
    rows = [{id_column: r["qid"], **{k: v for k, v in r.items() if k != "qid"}} for r in QUERIES]
    assert [t.id for t in load_tasks("cts", _release(tmp_path, queries=rows))] == ["q1", "q2"]


def test_csv_with_bom_and_quoted_newlines(tmp_path):
    rows = [dict(QUERIES[0], fused_query="line one\nline two"), QUERIES[1]]
    text = "\ufeff" + _csv_text(rows)
    tasks = load_tasks("cts", _release(tmp_path, csv_text=text))
    assert tasks[0].cts.fused_query == "line one\nline two"


def test_missing_column_names_the_accepted_names(tmp_path):
    rows = [{k: v for k, v in r.items() if k != "blurred_query"} for r in QUERIES]
    [problem] = validate_dataset(_release(tmp_path, queries=rows))
    assert problem.line == 1 and problem.field == "blurred_query"
    assert "accepted names: blurred_query, blurred" in problem.message
    assert "found: qid, fused_query, domain" in problem.message


def test_bad_nuggets_name_file_line_and_field(tmp_path):
    gold = json.loads(json.dumps(GOLD))
    gold[0]["nuggets"][1]["weight"] = 5
    gold[0]["nuggets"][0]["text"] = ""
    gold[1]["gold"]["nuggets"][0].pop("id")
    root = _release(tmp_path, gold=gold)
    gold_file = str(root / "data" / "gold_public_hard518.jsonl")
    found = {(p.file, p.line, p.field): p.message for p in validate_dataset(root)}
    assert found == {
        (gold_file, 1, "nuggets[1].weight"): "nugget weight must be 1, 2 or 3 (got 5)",
        (gold_file, 2, "gold.nuggets[0].id"): "missing or empty (required)",
    }
    gold[0]["nuggets"][1]["weight"] = 2
    gold[1]["gold"]["nuggets"][0]["id"] = "N1"
    root = _release(tmp_path / "again", gold=gold)
    [problem] = validate_dataset(root)
    assert (problem.line, problem.field, problem.message) == (1, "nuggets[0].text", "must not be empty")


def test_unpaired_and_duplicate_ids(tmp_path):
    queries = [*QUERIES, dict(QUERIES[0]), {"qid": "q3", "fused_query": "a b", "blurred_query": "a"}]
    gold = [*GOLD, {"id": "q9", "nuggets": [{"id": "N1", "text": "x", "weight": 1}]}, dict(GOLD[0])]
    root = _release(tmp_path, queries=queries, gold=gold)
    found = {(Path(p.file).name, p.line, p.field): p.message for p in validate_dataset(root)}
    assert found == {
        ("hard_518_queries.csv", 4, "qid"): "duplicate id 'q1' (first on line 2)",
        ("hard_518_queries.csv", 5, "qid"): "no gold record with id 'q3' in gold_public_hard518.jsonl",
        ("gold_public_hard518.jsonl", 3, "id"): "no query row with id 'q9' in hard_518_queries.csv",
        ("gold_public_hard518.jsonl", 4, "id"): "duplicate id 'q1' (first on line 1)",
    }


def test_gold_without_nuggets_and_empty_cells(tmp_path):
    queries = [QUERIES[0], dict(QUERIES[1], blurred_query="  ")]
    gold = [{"id": "q1", "query_intent": "x"}, GOLD[1]]
    found = {
        (Path(p.file).suffix, p.line, p.field): p.message
        for p in validate_dataset(_release(tmp_path, queries=queries, gold=gold))
    }
    assert found[(".jsonl", 1, "nuggets")] == "missing (looked for nuggets and gold.nuggets)"
    assert found[(".csv", 3, "blurred_query")] == "empty"


def test_non_utf8_csv_is_reported_by_line(tmp_path):
    root = _release(tmp_path)
    csv_path = root / "data" / "hard_518_queries.csv"
    csv_path.write_bytes(_csv_text(QUERIES).encode("gbk"))
    problems = validate_dataset(root)
    assert problems and all(p.file == str(csv_path) for p in problems)
    assert {p.line for p in problems} == {2}
    assert "not UTF-8" in problems[0].message and "GBK" in problems[0].message
    with pytest.raises(DatasetError):
        load_tasks("cts", root)


def test_folder_that_is_not_a_release(tmp_path):
    [problem] = validate_dataset(tmp_path)
    assert "not a Clarify-Then-Search release folder" in problem.message


def test_release_under_the_wrong_benchmark(tmp_path):
    [problem] = validate_dataset(_release(tmp_path), "interactcomp")
    assert "Clarify-Then-Search release" in problem.message


def test_empty_gold_file_is_one_problem(tmp_path):
    root = _release(tmp_path, gold=[])
    [problem] = validate_dataset(root)
    assert problem.file.endswith("gold_public_hard518.jsonl") and problem.message == "file is empty"
