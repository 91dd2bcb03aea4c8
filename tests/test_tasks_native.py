"""Our Task JSON(L) format (DiscoBench and any protocol), bad input, schema, demo sets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clarify_tui.models import Protocol, Task
from clarify_tui.paths import demo_dir
from clarify_tui.tasks import DatasetError, Problem, list_datasets, load_tasks, validate_dataset
from clarify_tui.tasks.schema import schema_path, schema_text

DISCO = {
    "id": "d1",
    "protocol": "discobench",
    "question": "Which club did the striker who scored in the final join next?",
    "answer": {"text": "Club B", "aliases": ["B FC"]},
    "discobench": {
        "original_question": "Which club did Player X join after the 2014 final?",
        "checkpoints": [
            {
                "type": "ambi",
                "ambiguity_type": "entity",
                "target": "Player X",
                "distractors": ["Player Y"],
                "clue": "I mean the one who scored in 2014.",
            },
            {"type": "unambi", "target": "Club B"},
        ],
    },
}
CTS_TASK = {
    "id": "c1",
    "protocol": "cts",
    "question": "Model 3 range",
    "cts": {
        "blurred_query": "Model 3 range",
        "fused_query": "Model 3 range in Norway winter",
        "nuggets": [{"id": "N1", "text": "about 30% less", "weight": 2}],
    },
}


def _task(**changes) -> dict:
    return {**json.loads(json.dumps(DISCO)), **changes}


def _jsonl(path: Path, records: list) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def _where(problems: list[Problem]) -> list[tuple[int | None, str | None]]:
    return [(p.line, p.field) for p in problems]


def test_discobench_jsonl_loads(tmp_path):
    path = _jsonl(tmp_path / "disco.jsonl", [DISCO, _task(id="d2"), CTS_TASK])
    tasks = load_tasks(None, path)
    assert [t.id for t in tasks] == ["d1", "d2", "c1"]
    assert tasks[0].discobench.checkpoints[0].clue and tasks[0].language == "en"
    assert load_tasks("discobench", _jsonl(tmp_path / "d.jsonl", [DISCO]))[0] == Task.model_validate(DISCO)


def test_json_array_reports_the_line_each_element_starts_on(tmp_path):
    bad = _task(id="d2")
    bad["discobench"]["checkpoints"][0].pop("clue")
    path = tmp_path / "disco.json"
    path.write_text(json.dumps([DISCO, bad], indent=2), encoding="utf-8")
    [problem] = validate_dataset(path)
    starts = [n for n, line in enumerate(path.read_text().splitlines(), 1) if line == "  {"]
    assert (problem.line, problem.field) == (starts[1], "discobench.checkpoints[0]")
    assert problem.message == "an ambi checkpoint needs a clue"


def test_single_object_json_and_protocol_from_benchmark(tmp_path):
    record = {k: v for k, v in DISCO.items() if k != "protocol"}
    (tmp_path / "one.json").write_text(json.dumps(record), encoding="utf-8")
    [task] = load_tasks("discobench", tmp_path / "one.json")
    assert task.protocol == Protocol.discobench
    [problem] = validate_dataset(tmp_path / "one.json")
    assert (problem.line, problem.field, problem.message) == (1, "protocol", "missing (required)")


def test_unrecognised_records(tmp_path):
    [problem] = validate_dataset(_jsonl(tmp_path / "t.jsonl", [{"q": "x"}]))
    assert problem.line == 1 and "cannot tell the dataset format" in problem.message


def test_language_detected_when_absent_and_kept_when_given(tmp_path):
    zh = _task(id="z", question="二〇一四年决赛进球的前锋后来加盟了哪家俱乐部？")
    given = _task(id="g", question="二〇一四年决赛进球的前锋后来加盟了哪家俱乐部？", language="zh-Hant")
    tasks = load_tasks(None, _jsonl(tmp_path / "t.jsonl", [zh, given]))
    assert [t.language for t in tasks] == ["zh", "zh-Hant"]


def test_pydantic_errors_map_to_field_paths(tmp_path):
    heavy = json.loads(json.dumps(CTS_TASK))
    heavy["cts"]["nuggets"][0]["weight"] = 4
    records = [heavy, _task(id="d2", surprise=1), _task(id="d3", answer=None), _task(id="")]
    problems = validate_dataset(_jsonl(tmp_path / "t.jsonl", records))
    assert _where(problems) == [(1, "cts.nuggets[0].weight"), (2, "surprise"), (3, None), (4, "id")]
    assert problems[0].message == "nugget weight must be 1, 2 or 3 (got 4)"
    assert problems[1].message.startswith("unknown field")
    assert problems[2].message == "a discobench task needs an answer"
    assert problems[3].message == "must not be empty"


def test_missing_fields(tmp_path):
    record = {k: v for k, v in DISCO.items() if k not in ("question",)}
    record["discobench"] = {"checkpoints": DISCO["discobench"]["checkpoints"]}
    problems = validate_dataset(_jsonl(tmp_path / "t.jsonl", [record]))
    assert {(p.field, p.message) for p in problems} == {
        ("question", "missing (required)"),
        ("discobench.original_question", "missing (required)"),
    }


def test_non_json_and_non_object_lines(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(DISCO) + "\n{oops\n\n[1, 2]\n" + json.dumps(_task(id="d2")) + "\n")
    problems = validate_dataset(path)
    assert _where(problems) == [(2, None), (4, None)]
    assert problems[0].message.startswith("not JSON: Expecting property name")
    assert problems[1].message == "expected a JSON object, got an array"


@pytest.mark.parametrize("content", [b"", b"\n \n"])
def test_empty_file(tmp_path, content):
    (tmp_path / "e.jsonl").write_bytes(content)
    assert [p.message for p in validate_dataset(tmp_path / "e.jsonl")] == ["file is empty"]


def test_wrong_encodings(tmp_path):
    latin = json.dumps(DISCO) + "\n" + json.dumps(_task(id="d2", question="Où est Zoë?"), ensure_ascii=False)
    (tmp_path / "latin.jsonl").write_bytes(latin.encode("latin-1"))
    [problem] = validate_dataset(tmp_path / "latin.jsonl")
    assert problem.line == 2 and problem.message.startswith("not UTF-8: byte 0xf9")
    (tmp_path / "u16.jsonl").write_text(json.dumps(DISCO), encoding="utf-16")
    [problem] = validate_dataset(tmp_path / "u16.jsonl")
    assert problem.message == "file is UTF-16-encoded; save it as UTF-8"


def test_utf8_bom_is_accepted(tmp_path):
    (tmp_path / "bom.jsonl").write_bytes(b"\xef\xbb\xbf" + json.dumps(DISCO).encode())
    assert len(load_tasks(None, tmp_path / "bom.jsonl")) == 1


def test_duplicate_ids(tmp_path):
    path = _jsonl(tmp_path / "t.jsonl", [DISCO, _task(id="d2"), _task(), _task(id=7), _task(id="7")])
    problems = validate_dataset(path)
    assert _where(problems) == [(3, "id"), (5, "id")]
    assert problems[0].message == "duplicate id 'd1' (first on line 1)"


def test_protocol_mismatch_and_unknown_benchmark(tmp_path):
    path = _jsonl(tmp_path / "t.jsonl", [DISCO, CTS_TASK])
    [problem] = validate_dataset(path, "discobench")
    assert (problem.line, problem.field) == (2, "protocol")
    assert problem.message == "a cts task, but benchmark discobench was asked for"
    [problem] = validate_dataset(path, "browsecomp")
    assert problem.field == "benchmark" and "expected discobench, interactcomp, cts" in problem.message


def test_dataset_error_lists_every_problem_with_file_line_and_field(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text("{bad\n" + json.dumps(_task(id="")) + "\n")
    with pytest.raises(DatasetError) as caught:
        load_tasks("discobench", path)
    error = caught.value
    assert len(error.problems) == 2
    assert str(error).splitlines() == [
        "2 problems in dataset:",
        f"  {path}:1: not JSON: Expecting property name enclosed in double quotes (column 2)",
        f"  {path}:2: field 'id': must not be empty",
    ]


def test_missing_path():
    [problem] = validate_dataset("/nonexistent/tasks.jsonl")
    assert problem.message == "no such file or folder"


def test_committed_schema_matches_the_model():
    assert schema_path().read_text(encoding="utf-8") == schema_text(), (
        "data/schema/task.schema.json is stale: run python -m clarify_tui.tasks.schema"
    )


@pytest.mark.parametrize("protocol", list(Protocol))
def test_bundled_demo_set_loads(protocol):
    path = demo_dir() / f"{protocol.value}.jsonl"
    if not path.exists():
        pytest.skip(f"{path} is not written yet (another engineer owns the demo data)")
    tasks = load_tasks(protocol, "demo")
    assert tasks and all(t.protocol == protocol for t in tasks)
    [info] = [i for i in list_datasets() if i.protocol == protocol]
    assert info.ok and info.task_count == len(tasks) and info.path == path
    assert info.languages == sorted({t.language for t in tasks})


def test_demo_loading_fills_protocol_and_lists_sets(tmp_path, monkeypatch):
    """The demo mechanics on a stand-in folder, whatever state data/demo/ is in."""
    monkeypatch.setattr("clarify_tui.tasks.demo.demo_dir", lambda: tmp_path)
    _jsonl(tmp_path / "discobench.jsonl", [{k: v for k, v in DISCO.items() if k != "protocol"}])
    _jsonl(tmp_path / "cts.jsonl", [CTS_TASK, {**CTS_TASK, "id": "c1"}])
    assert [t.id for t in load_tasks("discobench", "demo")] == ["d1"]
    [missing] = validate_dataset("demo", "interactcomp")
    assert missing.message == "the bundled interactcomp demo set is missing"
    infos = list_datasets()
    assert [(i.protocol, i.task_count, i.languages, i.ok) for i in infos] == [
        (Protocol.discobench, 1, ["en"], True),
        (Protocol.cts, 1, ["en"], False),
    ]
    assert infos[1].problems[0].message == "duplicate id 'c1' (first on line 1)"
