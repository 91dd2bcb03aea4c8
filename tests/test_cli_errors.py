"""Bad command lines and broken pipes end in one clear line, never a traceback or a database."""

from __future__ import annotations

import subprocess
import sys

import pytest

from clarify_tui.cli import main
from clarify_tui.store import Store
from tests.clitools import ROOT, cli_env

RUN = ["run", "--benchmark", "interactcomp", "--agent", "scripted:direct-guess"]


@pytest.mark.parametrize(
    ("flag", "value"), [("--concurrency", "0"), ("--concurrency", "-1"), ("--limit", "-1"), ("--max-rounds", "0")]
)
def test_impossible_numbers_are_rejected_naming_the_flag(tmp_path, capsys, flag, value):
    db = tmp_path / "n.db"
    with pytest.raises(SystemExit) as exit_:
        main([*RUN, "--db", str(db), flag, value])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and f"argument {flag}: must be at least" in err
    assert not db.exists()


@pytest.mark.parametrize(
    "bad", [["--agent", "scripted:nonsense"], ["--user", "oracle"], ["--judge", "gpt"], ["--search", "bing"]]
)
def test_a_bad_spec_creates_no_database_and_no_run(tmp_path, capsys, bad):
    db = tmp_path / "spec.db"
    assert main([*RUN, "--db", str(db), *bad]) == 2
    assert "unknown" in capsys.readouterr().err
    assert not db.exists()
    Store(db).close()  # an existing database gets no runs row either
    assert main([*RUN, "--db", str(db), *bad, "--run", "x"]) == 2
    assert Store(db).run_row("x") is None


def test_an_existing_run_without_resume_is_one_line(tmp_path, capsys):
    db = tmp_path / "e.db"
    assert main([*RUN, "--db", str(db), "--run", "x", "--limit", "1"]) == 0
    capsys.readouterr()
    assert main([*RUN, "--db", str(db), "--run", "x", "--limit", "1"]) == 2
    err = capsys.readouterr().err
    assert "already has 1 session(s)" in err and "--resume" in err and "Traceback" not in err


def test_retry_errored_needs_resume(tmp_path, capsys):
    assert main([*RUN, "--db", str(tmp_path / "r.db"), "--retry-errored"]) == 2
    assert "--retry-errored continues a run" in capsys.readouterr().err


def test_export_into_a_closed_pipe_is_quiet(tmp_path):
    db = tmp_path / "p.db"
    assert main(["run", "--benchmark", "discobench", "--agent", "scripted:search-then-ask", "--db", str(db)]) == 0
    pipeline = subprocess.run(
        f"{sys.executable} -m clarify_tui export --db {db} --format jsonl | head -c 100 >/dev/null; "
        "echo ${PIPESTATUS[0]}",
        shell=True,
        executable="/bin/bash",
        capture_output=True,
        text=True,
        env=cli_env(),
        cwd=ROOT,
    )
    assert "Traceback" not in pipeline.stderr and "BrokenPipe" not in pipeline.stderr, pipeline.stderr
    assert pipeline.stdout.strip() == "0"


def test_config_as_a_command_line_path_works_for_judge_demo_and_import(tmp_path, capsys):
    db = tmp_path / "c.db"
    cfg = tmp_path / "clarify.toml"
    cfg.write_text("[openai]\ntimeout = 30\n", encoding="utf-8")
    assert main([*RUN, "--db", str(db), "--run", "a", "--limit", "2", "--config", str(cfg)]) == 0
    assert main(["judge", "--db", str(db), "--run", "a", "--judge", "rule", "--config", str(cfg)]) == 0
    capsys.readouterr()
    missing = str(tmp_path / "missing.toml")
    for argv in (
        ["demo", "ask-vs-guess", "--config", missing, "--db", str(db)],
        [
            "import",
            "--format",
            "cts-candidates",
            "--dataset",
            "demo",
            str(tmp_path / "c.jsonl"),
            "--config",
            missing,
            "--db",
            str(db),
        ],
    ):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert "config file not found" in err and "is_file" not in err


class _CrashingAgent:
    spec = "test:crashing"

    async def act(self, view):
        raise RuntimeError("bug in agent")


def test_episode_crashes_put_tracebacks_in_the_log_file_not_on_stderr(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("clarify_tui.runner.build_agent", lambda spec, cfg=None: _CrashingAgent())
    db = tmp_path / "crash.db"
    assert main([*RUN, "--db", str(db), "--run", "c"]) == 1  # sessions errored (docs/runs.md "Exit codes")
    err = capsys.readouterr().err
    assert "Traceback" not in err
    crash_lines = [line for line in err.splitlines() if "crashed" in line]
    assert len(crash_lines) == 3 and "clarify-tui.log" in crash_lines[0]
    assert "only in the log" in err
    log = (tmp_path / "clarify-tui.log").read_text()
    assert log.count("Traceback") == 11 * 3 and "bug in agent" in log  # 3 attempts per task (InteractComp)
    assert {s.status for s in Store(db).sessions(runs=["c"])} == {"errored", "superseded"}


def test_db_before_any_command_opens_the_tui_on_that_file_or_goes_to_the_command(tmp_path, capsys, monkeypatch):
    """`clarify-tui --db FILE` used to end in "invalid choice: 'FILE'" (the path read as a command)."""
    from clarify_tui.commands import default

    db = tmp_path / "mine.db"
    opened = {}
    monkeypatch.setattr(default, "run_app", lambda **kwargs: opened.update(kwargs) or 0)
    assert main(["--db", str(db)]) == 0
    assert opened["db"] == db
    assert main(["--db", str(tmp_path / "other.db"), *RUN, "--dataset", "demo", "--limit", "1", "--run", "r"]) == 0
    assert [s.run for s in Store(tmp_path / "other.db", readonly=True).sessions()] == ["r"]
    capsys.readouterr()
    assert main(["--db", str(tmp_path / "other.db"), "sessions"]) == 0
    assert "1 session(s) in" in capsys.readouterr().out
