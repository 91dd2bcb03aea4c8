"""The encrypted InteractComp release never lands on disk in plain text: not in the
database file, not in the default export. It is decrypted in memory for play and scoring,
and written in plain text only by `export --include-hidden`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clarify_tui.cli import main
from clarify_tui.protocols.interactcomp.tasks import encrypt_field
from clarify_tui.store import Store
from clarify_tui.tasks import load_tasks

RELEASE = Path(__file__).parent / "fixtures" / "interactcomp_sample5.encrypted.jsonl"


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """Five release tasks played by a scripted agent (it answers all five wrong)."""
    db = tmp_path_factory.mktemp("hidden") / "ic.db"
    assert (
        main(
            [
                "run",
                "--benchmark",
                "interactcomp",
                "--dataset",
                str(RELEASE),
                "--agent",
                "scripted:search-then-ask",
                "--db",
                str(db),
                "--run",
                "release",
            ]
        )
        == 0
    )
    return db


def plain_tasks():
    return load_tasks("interactcomp", RELEASE)


def on_disk(db: Path) -> bytes:
    """The database file with its WAL and shared-memory files, as bytes."""
    return b"".join(p.read_bytes() for p in sorted(db.parent.glob(db.name + "*")))


def export(db: Path, tmp_path: Path, *extra: str) -> str:
    out = tmp_path / "sessions.jsonl"
    assert main(["export", "--db", str(db), "--format", "jsonl", "--out", str(out), *extra]) == 0
    return out.read_text(encoding="utf-8")


def test_no_gold_answer_or_context_in_the_database_file(played):
    # re-judging reads the task (decrypted in memory) and stores verdicts beside the old ones
    assert main(["judge", "--db", str(played), "--run", "release", "--judge", "rule"]) == 0
    assert len(list(Store(played).db.query("SELECT id FROM judgments"))) == 5
    blob = on_disk(played)
    tasks = plain_tasks()
    assert len(tasks) == 5
    for task in tasks:
        assert task.answer.text.encode() not in blob, task.id
        assert task.interactcomp.context.encode() not in blob, task.id
        # the tasks table holds exactly the release's own ciphertext
        assert encrypt_field(task.answer.text, "InteractComp").encode() in blob
    rows = [r["data"] for r in Store(played).db.query("SELECT data FROM tasks")]
    assert len(rows) == 5
    for task in tasks:
        assert not any(task.question in row or task.domain in row for row in rows)


def test_no_gold_answer_in_the_default_export_and_all_of_it_with_include_hidden(played, tmp_path):
    text = export(played, tmp_path)
    records = [json.loads(line) for line in text.splitlines()]
    assert len(records) == 5
    for task in plain_tasks():
        assert task.answer.text not in text and json.dumps(task.interactcomp.context)[1:-1] not in text
        assert all(task.question not in json.dumps(r["task"], ensure_ascii=False) for r in records)
    sealed = records[0]["task"]["sealed"]
    assert sealed["canary"] == "InteractComp" and "answer.text" in sealed["fields"]
    hidden = {
        r["task"]["id"]: r["task"] for r in map(json.loads, export(played, tmp_path, "--include-hidden").splitlines())
    }
    for task in plain_tasks():
        assert hidden[task.id] == task.model_dump(mode="json")


def test_play_and_scoring_decrypt_in_memory(played, tmp_path, capsys):
    store = Store(played)
    by_id = {t.id: t for t in plain_tasks()}
    for session in store.sessions():
        task = store.task_for(session.id)
        assert task.model_dump() == by_id[task.id].model_dump()
    # the exported (sealed) task reads back to the same task, and re-saving keeps it sealed
    from clarify_tui.tasks.sealed import open_dict, sealed_dict

    record = json.loads(export(played, tmp_path).splitlines()[0])
    task = open_dict(record["task"])
    assert task.model_dump() == by_id[task.id].model_dump()
    assert sealed_dict(task) == record["task"]
    capsys.readouterr()
    assert main(["score", "--db", str(played), "--format", "json"]) == 0
    [group] = json.loads(capsys.readouterr().out)["groups"]
    assert group["n_sessions"] == 5 and group["metrics"]["accuracy"] == 0.0


def test_the_harness_csv_refuses_plain_text_without_include_hidden(played, tmp_path, capsys):
    out = tmp_path / "harness.csv"
    assert main(["export", "--db", str(played), "--format", "interactcomp-csv", "--out", str(out)]) != 0
    assert "--include-hidden" in capsys.readouterr().err
    assert (
        main(["export", "--db", str(played), "--format", "interactcomp-csv", "--out", str(out), "--include-hidden"])
        == 0
    )
    assert plain_tasks()[0].answer.text in out.read_text(encoding="utf-8")


def test_show_prints_the_transcript_without_the_release_hidden_fields(played, capsys):
    """`clarify-tui show SESSION`: the steps as played, the outcome; the context and gold of
    an encrypted release stay sealed unless --include-hidden, as in `export`."""
    store = Store(played, readonly=True)
    session = store.sessions(runs=["release"])[0]
    task = store.task_for(session.id)
    store.close()
    capsys.readouterr()
    assert main(["show", session.id[:8], "--db", str(played)]) == 0
    text = capsys.readouterr().out
    assert f"Session {session.id}" in text and "Question: (sealed" in text and task.question not in text.split("1.")[0]
    assert "1. agent search:" in text and "judge judge: answer equivalence" in text
    assert "Outcome: status completed" in text and "wrong" in text
    assert task.interactcomp.context not in text and task.answer.text not in text
    assert main(["show", session.id, "--db", str(played), "--format", "json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["session"]["id"] == session.id and record["steps"][0]["actor"] == "agent"
    assert task.interactcomp.context not in json.dumps(record, ensure_ascii=False)
    assert main(["show", session.id, "--db", str(played), "--format", "json", "--include-hidden"]) == 0
    assert json.loads(capsys.readouterr().out)["task"]["interactcomp"]["context"] == task.interactcomp.context
    assert main(["show", session.id, "--db", str(played), "--include-hidden"]) == 0
    assert f"Question: {task.question}" in capsys.readouterr().out
    assert main(["show", "zzzz", "--db", str(played)]) == 2
    assert "no session 'zzzz'" in capsys.readouterr().err
