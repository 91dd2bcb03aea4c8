"""One run, one set of settings (issue 31): `--resume` refuses a changed `--agent-arg`,
a `--max-rounds` given where the run began on the default, an added or dropped `--seed`,
naming old and new; a py: agent's arguments (and those of an agent object handed to the
Python API) are recorded as settings; `--mode full --forced-asks N` is refused; the
provenance tells code states apart (a git commit or the package's files' hash) and hashes
every prompt file the agent is sent."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass

import pytest

from clarify_tui import api, provenance
from clarify_tui.cli import main
from clarify_tui.paths import prompts_dir

AGENT = """\
class Agent:
    def __init__(self, max_asks=1):
        self.max_asks = max_asks

    async def act(self, view):
        return {"type": "answer", "text": "x"}
"""


@pytest.fixture
def agent_run(tmp_path):
    path = tmp_path / "mine.py"
    path.write_text(AGENT, encoding="utf-8")
    db = tmp_path / "s.db"

    def argv(*extra: str) -> list[str]:
        return [
            "run",
            "--benchmark",
            "interactcomp",
            "--agent",
            f"py:{path}:Agent",
            "--db",
            str(db),
            "--run",
            "r",
            "--limit",
            "1",
            *extra,
        ]

    return argv, db


def run_row(db, name: str = "r") -> dict:
    conn = sqlite3.connect(db)
    try:
        config, prov = conn.execute("SELECT config, provenance FROM runs WHERE name = ?", [name]).fetchone()
    finally:
        conn.close()
    return {"config": json.loads(config), "provenance": json.loads(prov)}


def test_resume_refuses_a_changed_agent_arg_naming_old_and_new(agent_run, capsys):
    argv, db = agent_run
    assert main(argv("--agent-arg", "max_asks=1")) == 0
    row = run_row(db)
    assert row["config"]["agent_args"] == {"max_asks": 1}  # a setting, not only inside the command line
    assert row["provenance"]["roles"]["agent"]["args"] == {"max_asks": 1}
    capsys.readouterr()
    assert main(argv("--agent-arg", "max_asks=3", "--resume", "--limit", "2")) == 2
    err = capsys.readouterr().err
    assert "differs in agent_args (agent_args max_asks=1 then, max_asks=3 now)" in err
    # dropping it is a change too; the same argument resumes
    assert main(argv("--resume", "--limit", "2")) == 2
    assert main(argv("--agent-arg", "max_asks=1", "--resume", "--limit", "2")) == 0


def test_resume_refuses_max_rounds_given_where_the_run_began_on_the_default(agent_run, capsys):
    argv, db = agent_run
    assert main(argv()) == 0
    capsys.readouterr()
    assert main(argv("--max-rounds", "4", "--resume", "--limit", "2")) == 2
    assert "max_rounds (the benchmark's default) then, 4 now" in capsys.readouterr().err


def test_resume_refuses_an_added_or_a_dropped_seed(agent_run, tmp_path, capsys):
    argv, db = agent_run
    assert main(argv()) == 0
    capsys.readouterr()
    assert main(argv("--seed", "3", "--resume", "--limit", "2")) == 2
    assert "seed (none) then, 3 now" in capsys.readouterr().err
    seeded = [
        "run",
        "--benchmark",
        "interactcomp",
        "--agent",
        "scripted:ask-first",
        "--db",
        str(db),
        "--run",
        "s",
        "--limit",
        "1",
        "--seed",
        "5",
    ]
    assert main(seeded) == 0
    capsys.readouterr()
    assert main([*seeded[:-2], "--resume", "--limit", "2"]) == 2
    assert "seed 5 then, (none) now" in capsys.readouterr().err


@dataclass
class ObjectAgent:
    max_asks: int = 1
    model: object = None  # not plain data: recorded by its type

    async def act(self, view):
        return {"type": "answer", "text": "x"}


def test_an_agent_objects_readable_arguments_are_recorded_and_compared(tmp_path):
    db = tmp_path / "o.db"
    api.run("interactcomp", ObjectAgent(max_asks=2, model=object()), db=db, name="o", limit=1)
    row = run_row(db, "o")
    assert row["config"]["agent_args"] == {"max_asks": 2, "model": "<object>"}
    assert row["provenance"]["roles"]["agent"]["args"] == {"max_asks": 2, "model": "<object>"}
    with pytest.raises(ValueError, match="agent_args max_asks=2,model=<object> then, max_asks=3,model=<object> now"):
        api.run("interactcomp", ObjectAgent(max_asks=3, model=object()), db=db, name="o", limit=2, resume=True)
    api.run("interactcomp", ObjectAgent(max_asks=2, model=object()), db=db, name="o", limit=2, resume=True)


def test_mode_full_with_forced_asks_is_refused(tmp_path, capsys):
    argv = [
        "run",
        "--benchmark",
        "interactcomp",
        "--agent",
        "scripted:ask-first",
        "--db",
        str(tmp_path / "f.db"),
        "--mode",
        "full",
        "--forced-asks",
        "3",
    ]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "--forced-asks applies to --mode forced_ask" in err and "--mode full" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not (tmp_path / "f.db").exists()


def test_the_code_state_is_recorded_a_git_commit_in_a_checkout_else_the_files_hash(tmp_path, monkeypatch):
    import subprocess
    from pathlib import Path

    head = subprocess.run(
        ["git", "-C", str(Path(provenance.__file__).parent), "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    db = tmp_path / "c.db"
    api.run("interactcomp", "scripted:ask-first", db=db, name="r", limit=1)
    code = run_row(db)["provenance"]["code"]
    assert code.get("git_commit") == (head or None) and len(code["package_sha256"]) == 64
    # an installed package (no checkout): the hash of its files tells code states apart
    provenance.code_state.cache_clear()
    monkeypatch.setattr(provenance, "_git", lambda *a: None)
    try:
        assert provenance.code_state() == {"package_sha256": code["package_sha256"]}
    finally:
        provenance.code_state.cache_clear()
    was = {"version": "0.1.0", "code": {"package_sha256": "a" * 64}}
    now = {"version": "0.1.0", "code": {"git_commit": "b" * 40, "git_dirty": False, "package_sha256": "c" * 64}}
    assert provenance.version_note(was, now) == (
        "run started with other clarify-tui code (files sha256 aaaaaaaaaaaa); resuming with commit bbbbbbbbbbbb"
    )


def test_every_prompt_file_an_interactcomp_model_agent_is_sent_is_hashed(tmp_path, monkeypatch, capsys):
    import shutil

    from tests.servers import FakeOpenAI, interactcomp_router

    copy = tmp_path / "prompts"
    shutil.copytree(prompts_dir(), copy)
    monkeypatch.setattr(provenance, "prompts_dir", lambda: copy)
    db = tmp_path / "p.db"
    argv = ["run", "--benchmark", "interactcomp", "--agent", "openai:a", "--db", str(db), "--run", "r", "--limit", "1"]
    with FakeOpenAI(interactcomp_router(0.0)) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        assert main(argv) == 0
        prompts = run_row(db)["provenance"]["prompts"]
        assert {"action_search.txt", "action_ask_yesno.txt", "action_answer_confidence.txt"} <= set(prompts)
        (copy / "action_ask_yesno.txt").write_text("ask anything\n", encoding="utf-8")
        capsys.readouterr()
        assert main([*argv, "--resume", "--limit", "2"]) == 2
    assert "prompt action_ask_yesno.txt: sha256 " in capsys.readouterr().err
