"""InteractComp release loading: five real encrypted records, their decrypted twin, bad keys.

Decrypted text is only ever written under tmp_path; this file pins the real answers by
hash so the plaintext never lands in the repository.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from clarify_tui.models import Protocol
from clarify_tui.protocols.interactcomp.tasks import ENCRYPTED_FIELDS, decrypt_field, encrypt_field
from clarify_tui.tasks import DatasetError, load_tasks, validate_dataset

SAMPLE = Path(__file__).parent / "fixtures" / "interactcomp_sample5.encrypted.jsonl"
ANSWER_SHA256_PREFIX = {
    "1": "e5a9c4c331c06eeb",
    "2": "a5d41ecf17f69bd6",
    "3": "3327a65ed5baf520",
    "4": "2f9d9e2896540691",
    "5": "f8f4ba762e886779",
}


def _records() -> list[dict]:
    return [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines()]


def _write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def _decrypted(records: list[dict], keep_canary: bool) -> list[dict]:
    """What the release's own decrypt script writes (it drops the canary unless asked)."""
    out = []
    for record in records:
        plain = {k: v for k, v in record.items() if keep_canary or k != "canary"}
        for name in ENCRYPTED_FIELDS:
            plain[name] = decrypt_field(record[name], record["canary"])
        out.append(plain)
    return out


def test_real_encrypted_records_decrypt_to_valid_tasks():
    tasks = load_tasks("interactcomp", SAMPLE)
    assert [t.id for t in tasks] == ["1", "2", "3", "4", "5"]
    for task in tasks:
        assert task.protocol == Protocol.interactcomp
        assert task.language == "en"
        digest = hashlib.sha256(task.answer.text.encode("utf-8")).hexdigest()
        assert digest.startswith(ANSWER_SHA256_PREFIX[task.id])
        # sensible English text, not Base64 or garbage
        assert task.question.isprintable() and len(task.question.split()) > 10
        assert task.interactcomp.context.strip() and " " in task.interactcomp.context
        assert task.domain and task.domain.isprintable()


@pytest.mark.parametrize("keep_canary", [False, True])
def test_encrypted_and_decrypted_forms_load_identically(tmp_path, keep_canary):
    plain = _write(tmp_path / "InteractComp210.decrypted.jsonl", _decrypted(_records(), keep_canary))
    decrypted, encrypted = load_tasks(None, plain), load_tasks(None, SAMPLE)
    assert [t.model_dump() for t in decrypted] == [t.model_dump() for t in encrypted]
    # both forms of the release are stored encrypted when the canary is known (tasks/sealed.py)
    assert {t._canary for t in encrypted} == {"InteractComp"}
    assert {t._canary for t in decrypted} == ({"InteractComp"} if keep_canary else {None})


def test_encrypt_field_round_trips_unicode():
    text = "哪位作家写了《红楼梦》？\nJa: ありがとう"
    assert decrypt_field(encrypt_field(text, "InteractComp"), "InteractComp") == text


def test_chinese_record_is_detected_as_zh(tmp_path):
    record = {
        "id": 9,
        "canary": "k",
        "domain": encrypt_field("文学", "k"),
        "question": encrypt_field("哪部清代小说以贾宝玉为主人公？", "k"),
        "answer": encrypt_field("红楼梦", "k"),
        "context": encrypt_field("曹雪芹著。", "k"),
    }
    [task] = load_tasks("interactcomp", _write(tmp_path / "zh.jsonl", [record]))
    assert task.language == "zh" and task.answer.text == "红楼梦"


def test_wrong_canary_is_reported_per_record(tmp_path):
    records = _records()
    for record in records:
        record["canary"] = "NotTheCanary"
    path = _write(tmp_path / "wrong.jsonl", records)
    problems = validate_dataset(path)
    assert [(p.line, p.field) for p in problems] == [(n, "canary") for n in range(1, 6)]
    assert "canary 'NotTheCanary' does not decrypt" in problems[0].message
    with pytest.raises(DatasetError) as err:
        load_tasks("interactcomp", path)
    assert f"{path}:3: field 'canary':" in str(err.value)


def test_stripped_canary_needs_the_canary_argument(tmp_path):
    records = [{k: v for k, v in r.items() if k != "canary"} for r in _records()]
    path = _write(tmp_path / "nocanary.jsonl", records)
    problems = validate_dataset(path, "interactcomp")
    assert {(p.field, p.message.split(":")[0]) for p in problems} == {("canary", "missing")}
    assert load_tasks("interactcomp", path, canary="InteractComp") == load_tasks(None, SAMPLE)


def test_bad_base64_missing_field_and_wrong_type_name_line_and_field(tmp_path):
    records = _records()
    records[0]["answer"] = "%%%not base64%%%"
    del records[2]["context"]
    records[3]["question"] = 42
    path = _write(tmp_path / "bad.jsonl", records)
    found = {(p.line, p.field): p.message for p in validate_dataset(path)}
    assert found == {
        (1, "answer"): "not Base64, although this record is encrypted",
        (3, "context"): "missing (required)",
        (4, "question"): "must be a string",
    }


def test_empty_answer_after_decryption_maps_to_release_column(tmp_path):
    records = _decrypted(_records(), keep_canary=False)
    records[1]["answer"] = ""
    problems = validate_dataset(_write(tmp_path / "d.jsonl", records))
    assert [(p.line, p.field, p.message) for p in problems] == [(2, "answer", "must not be empty")]


def test_release_under_the_wrong_benchmark_is_one_problem():
    problems = validate_dataset(SAMPLE, "cts")
    assert len(problems) == 1
    assert "InteractComp release" in problems[0].message and "'cts'" in problems[0].message


def test_unrecognised_records_under_interactcomp_are_held_to_the_release_format(tmp_path):
    problems = validate_dataset(_write(tmp_path / "x.jsonl", [{"id": 1, "question": "Who?"}]), "interactcomp")
    assert [(p.line, p.field, p.message) for p in problems] == [
        (1, "answer", "missing (required)"),
        (1, "context", "missing (required)"),
    ]
