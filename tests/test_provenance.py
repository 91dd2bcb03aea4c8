"""A run's provenance (issue 23): recorded on the run, carried by `export --format jsonl`,
compared by `--resume` (role settings, prompt hashes, dataset hash refuse; the command
line is not compared; another clarify-tui version is reported). Model roles talk to a
loopback OpenAI server; no API key reaches the database or the export."""

from __future__ import annotations

import hashlib
import json
import sqlite3

import pytest

from clarify_tui import __version__, provenance
from clarify_tui.cli import main
from clarify_tui.models import Protocol
from clarify_tui.paths import prompts_dir
from clarify_tui.tasks.demo import demo_file
from tests.servers import FakeOpenAI, interactcomp_router
from tests.servers import llm_run as run_argv

KEY = "sk-i23c-secret-never-stored"


@pytest.fixture
def server():
    with FakeOpenAI(interactcomp_router(0.0)) as s:
        yield s


def llm_run(db, *extra: str) -> list[str]:
    return run_argv(db, "p", "--limit", "2", *extra)


def stored(db) -> dict:
    conn = sqlite3.connect(db)
    try:
        return json.loads(conn.execute("SELECT provenance FROM runs WHERE name = 'p'").fetchone()[0])
    finally:
        conn.close()


@pytest.fixture
def env(server, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    return server


def test_a_run_records_version_command_roles_prompts_and_dataset(env, tmp_path, capsys):
    db = tmp_path / "p.db"
    assert main(llm_run(db, "--set", "agent.temperature=0.3", "--set", "agent.seed=7")) == 0
    p = stored(db)
    assert p["version"] == __version__
    assert p["command"].startswith("clarify-tui run --benchmark interactcomp --agent openai:a")
    agent = p["roles"]["agent"]
    assert agent["spec"] == "openai:a" and agent["model"] == "a" and agent["base_url"] == env.base_url
    assert agent["temperature"] == 0.3 and agent["seed"] == 7
    assert agent["calls"]["interactcomp.agent"] == {"temperature": 0.3, "top_p": 0.95, "seed": 7}
    # the responder's paper default (InteractComp A.3), resolved as the client sends it
    assert p["roles"]["user"]["calls"]["interactcomp.responder"]["temperature"] == 1.0
    assert p["roles"]["search"] == {"spec": "local"}
    grader = prompts_dir() / "interactcomp_grader.txt"
    assert p["prompts"]["interactcomp_grader.txt"] == hashlib.sha256(grader.read_bytes()).hexdigest()
    assert p["dataset_sha256"] == hashlib.sha256(demo_file(Protocol.interactcomp).read_bytes()).hexdigest()
    # the seed reached the server
    assert all(r.json.get("seed") == 7 for r in env.chat_requests("a"))


def test_no_api_key_in_the_database_or_the_export(env, tmp_path, capsys):
    db = tmp_path / "p.db"
    assert main(llm_run(db)) == 0
    assert KEY.encode() not in db.read_bytes()
    for extra in (db.with_name(db.name + "-wal"),):
        assert not extra.exists() or KEY.encode() not in extra.read_bytes()
    capsys.readouterr()
    assert main(["export", "--db", str(db), "--format", "jsonl"]) == 0
    out = capsys.readouterr().out
    assert KEY not in out
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines and all(line["provenance"] == stored(db) for line in lines)


def test_resume_refuses_a_changed_setting_naming_it(env, tmp_path, capsys):
    db = tmp_path / "p.db"
    assert main(llm_run(db)) == 0
    capsys.readouterr()
    assert main(llm_run(db, "--resume", "--set", "agent.temperature=0.2")) == 2
    err = capsys.readouterr().err
    assert "cannot be resumed" in err and "agent temperature: (none) -> 0.2" in err
    assert "Traceback" not in err
    # the command line differs (--resume, another --limit) and is not compared
    assert main(llm_run(db, "--resume", "--limit", "3")) == 0


def test_resume_refuses_a_changed_dataset(tmp_path, capsys):
    data = tmp_path / "tasks.jsonl"
    data.write_text(demo_file(Protocol.interactcomp).read_text(encoding="utf-8"), encoding="utf-8")
    db = tmp_path / "d.db"
    run = [
        "run",
        "--benchmark",
        "interactcomp",
        "--agent",
        "scripted:ask-first",
        "--dataset",
        str(data),
        "--db",
        str(db),
        "--run",
        "p",
        "--limit",
        "1",
    ]
    assert main(run) == 0
    data.write_text(data.read_text(encoding="utf-8") + "\n", encoding="utf-8")  # same tasks, other bytes
    capsys.readouterr()
    assert main([*run, "--resume"]) == 2
    assert "dataset sha256:" in capsys.readouterr().err


def test_changed_prompt_is_named_and_another_version_is_reported_not_refused(tmp_path, capsys):
    db = tmp_path / "v.db"
    run = [
        "run",
        "--benchmark",
        "interactcomp",
        "--agent",
        "scripted:ask-first",
        "--db",
        str(db),
        "--run",
        "p",
        "--limit",
        "1",
    ]
    assert main(run) == 0
    conn = sqlite3.connect(db)
    p = stored(db)
    conn.execute("UPDATE runs SET provenance = ? WHERE name = 'p'", [json.dumps({**p, "version": "0.0.1"})])
    conn.commit()
    conn.close()
    capsys.readouterr()
    assert main([*run, "--resume", "--limit", "2"]) == 0
    assert (
        f"run started with clarify-tui 0.0.1; resuming with a newer version, {__version__}" in capsys.readouterr().err
    )


def test_resume_refuses_a_changed_prompt_file_naming_it(env, tmp_path, monkeypatch, capsys):
    import shutil

    copy = tmp_path / "prompts"
    shutil.copytree(prompts_dir(), copy)
    monkeypatch.setattr(provenance, "prompts_dir", lambda: copy)
    db = tmp_path / "p.db"
    assert main(llm_run(db)) == 0
    (copy / "interactcomp_grader.txt").write_text("another grader prompt\n", encoding="utf-8")
    capsys.readouterr()
    assert main(llm_run(db, "--resume")) == 2
    assert "prompt interactcomp_grader.txt: sha256 " in capsys.readouterr().err


def test_an_imported_run_records_its_source_file_and_dataset(tmp_path, capsys):
    from pathlib import Path

    fixtures = Path(__file__).parent / "fixtures" / "harness"
    db = tmp_path / "i.db"
    argv = [
        "import",
        "--db",
        str(db),
        "--format",
        "interactcomp-harness",
        "--dataset",
        str(fixtures / "tasks.jsonl"),
        str(fixtures / "results.csv"),
    ]
    assert main(argv) == 0
    conn = sqlite3.connect(db)
    [(text,)] = conn.execute("SELECT provenance FROM runs").fetchall()
    conn.close()
    p = json.loads(text)
    assert p["imported_sha256"] == hashlib.sha256((fixtures / "results.csv").read_bytes()).hexdigest()
    assert p["dataset_sha256"] == hashlib.sha256((fixtures / "tasks.jsonl").read_bytes()).hexdigest()
    assert p["command"].startswith("clarify-tui import --db") and p["version"] == __version__
