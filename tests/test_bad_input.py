"""Bad input ends in one clean line naming the file or flag, never a traceback, and loses
nothing (issue 22, "Bad input"). One case per row; each was a traceback, an error naming
no file, or silently wrong before."""

from __future__ import annotations

import hashlib
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from clarify_tui.cli import main
from clarify_tui.store import Store
from tests.bad_input_cases import drop_template
from tests.bad_input_cases import foreign_db as _foreign
from tests.bad_input_cases import make_dir as _mkdir
from tests.bad_input_cases import played as _played
from tests.bad_input_cases import write as _write

RUN = ["run", "--benchmark", "interactcomp", "--agent", "scripted:direct-guess"]
DEEP = "[" * 100_000 + "]" * 100_000


@dataclass
class Case:
    name: str
    setup: Callable[[Path], list[str]]  # builds the files in a folder and returns the argv
    says: str  # what the one line must say ({tmp} is the folder)
    lines: int = 1  # dataset and import problems: a header, then one line per problem


def _zero(tmp: Path) -> Path:
    return _write(tmp / "zero.db", b"")


def _harness_csv(tmp: Path) -> Path:
    return _write(tmp / "results.csv", b"question,answer,correct_answer,action_counts\ncaf\xe9,a,b,{}\n")


CASES = [
    Case(
        "dataset nested 100,000 deep (jsonl)",
        lambda t: [*RUN, "--db", str(t / "d.db"), "--dataset", str(_write(t / "deep.jsonl", DEEP))],
        "deep.jsonl:1: not JSON: nested too deeply",
        lines=3,
    ),
    Case(
        "dataset nested 100,000 deep (json)",
        lambda t: [*RUN, "--db", str(t / "d.db"), "--dataset", str(_write(t / "deep.json", DEEP))],
        "deep.json:1: not JSON: nested too deeply",
        lines=3,
    ),
    Case(
        "import nested 100,000 deep",
        lambda t: [
            "import",
            "--db",
            str(t / "d.db"),
            "--format",
            "cts-candidates",
            "--dataset",
            "demo",
            str(_write(t / "deep.jsonl", DEEP)),
        ],
        "deep.jsonl:1: not JSON: nested too deeply",
        lines=3,
    ),
    Case(
        "cache import nested 100,000 deep",
        lambda t: ["cache", "import", "--db", str(t / "d.db"), str(_write(t / "deep.jsonl", DEEP))],
        "deep.jsonl:1: not a search cache entry (nested too deeply)",
    ),
    Case(
        "export --out .", lambda t: ["export", "--db", str(_played(t)), "--out", str(t)], "is a directory; name a file"
    ),
    Case(
        "export --out the database",
        lambda t: ["export", "--db", str(_played(t)), "--out", str(t / "ok.db")],
        "refusing to write {tmp}/ok.db: it is the database",
    ),
    Case(
        "export to a full disk",
        lambda t: ["export", "--db", str(_played(t)), "--out", "/dev/full"],
        "cannot write /dev/full: disk full",
    ),
    Case(
        "cache export to a full disk",
        lambda t: ["cache", "export", "--db", str(_played(t)), "--out", "/dev/full"],
        "cannot write /dev/full: disk full",
    ),
    Case(
        "clarify.toml is a directory (--config)",
        lambda t: [*RUN, "--db", str(t / "d.db"), "--config", str(_mkdir(t / "clarify.toml"))],
        "cannot read config {tmp}/clarify.toml: it is a directory",
    ),
    Case(
        "clarify.toml not UTF-8",
        lambda t: [
            *RUN,
            "--db",
            str(t / "d.db"),
            "--config",
            str(_write(t / "clarify.toml", b"[openai]\n# caf\xe9\ntimeout = 3\n")),
        ],
        "{tmp}/clarify.toml is not UTF-8 text",
    ),
    Case(
        'clarify.toml with base_url = "notaurl"',
        lambda t: [
            *RUN[:-1],
            "openai:m",
            "--db",
            str(t / "d.db"),
            "--config",
            str(_write(t / "clarify.toml", '[openai]\nbase_url = "notaurl"\n')),
        ],
        "clarify.toml: openai.base_url: 'notaurl' is not an http:// or https:// URL",
    ),
    Case(
        "harness CSV not UTF-8",
        lambda t: [
            "import",
            "--db",
            str(t / "d.db"),
            "--format",
            "interactcomp-harness",
            "--dataset",
            "demo",
            str(_harness_csv(t)),
        ],
        "results.csv:1: not UTF-8: byte 0xe9",
        lines=3,
    ),
    Case(
        "cache import not UTF-8",
        lambda t: [
            "cache",
            "import",
            "--db",
            str(t / "d.db"),
            str(_write(t / "searches.jsonl", b'{"kind": "search"}\n{"q": "caf\xe9"}\n')),
        ],
        "searches.jsonl:2: not UTF-8",
    ),
    Case(
        "score --from-export not UTF-8",
        lambda t: ["score", "--from-export", str(_write(t / "export.jsonl", b'{"session": "caf\xe9"}\n'))],
        "export.jsonl line 1: not UTF-8 (byte 0xe9 at column 17)",
    ),
    Case(
        "score --from-export nested 100,000 deep",
        lambda t: ["score", "--from-export", str(_write(t / "export.jsonl", DEEP))],
        "export.jsonl line 1: not JSON (nested too deeply)",
    ),
    Case(
        "run --resume --run TYPO",
        lambda t: [*RUN, "--db", str(_played(t)), "--run", "aa", "--resume", "--limit", "2"],
        "there is no run 'aa' to resume (runs in {tmp}/ok.db: a)",
    ),
    *[
        Case(
            f"{cmd} on another application's SQLite file",
            lambda t, cmd=cmd: [*cmd.split(), "--db", str(_foreign(t))],
            "other-app.db is another application's SQLite database (tables: invoices)",
        )
        for cmd in (
            "score",
            "sessions",
            "export",
            "cache stats",
            "run --benchmark interactcomp --agent scripted:direct-guess",
        )
    ],
    Case(
        "the TUI on another application's SQLite file",
        lambda t: ["--db", str(_foreign(t))],
        "other-app.db is another application's SQLite database (tables: invoices)",
    ),
    *[
        Case(
            f"{cmd} on a 0-byte file",
            lambda t, cmd=cmd: [*cmd.split(), "--db", str(_zero(t))],
            "zero.db holds no clarify-tui data",
        )
        for cmd in ("score", "sessions", "export", "replay abc")
    ],
]


def _files(folder: Path) -> dict[str, str]:
    """Each file's digest; a database's is of its content (WAL checkpoints move bytes, not data)."""
    out = {}
    for p in folder.iterdir():
        if not p.is_file() or p.name.endswith(("-wal", "-shm", "-journal")):
            continue
        data = p.read_bytes()
        if data.startswith(b"SQLite format 3\x00"):
            with sqlite3.connect(f"file:{p}?mode=ro", uri=True) as conn:
                data = "\n".join(conn.iterdump()).encode()
        out[p.name] = hashlib.sha256(data).hexdigest()
    return out


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bad_input_is_one_clean_line_and_changes_nothing(case, tmp_path, capsys):
    argv = case.setup(tmp_path)
    capsys.readouterr()
    before = _files(tmp_path)
    started = time.monotonic()
    assert main(argv) == 2
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert "Traceback" not in err and len(lines) == case.lines, err
    assert case.says.format(tmp=tmp_path) in err, err
    assert time.monotonic() - started < 10  # refused at once, not retried
    after = _files(tmp_path)
    assert {k: v for k, v in after.items() if k in before} == before  # nothing changed...
    assert set(after) - set(before) <= {"clarify-tui.log"}  # ...and nothing created (d.db neither)


def test_a_foreign_database_gets_none_of_our_tables(tmp_path, capsys):
    db = _foreign(tmp_path)
    for argv in (["score", "--db", str(db)], ["sessions", "--db", str(db)], [*RUN, "--db", str(db)]):
        assert main(argv) == 2
    with sqlite3.connect(db) as conn:
        assert [r[0] for r in conn.execute("SELECT name FROM sqlite_master")] == ["invoices"]
    assert not Path(f"{db}-wal").exists()


def test_an_unreadable_clarify_toml_names_the_file(tmp_path, capsys, monkeypatch):
    """EACCES (tests run as root, so chmod 000 would not stop us: injected)."""
    config = _write(tmp_path / "clarify.toml", "[openai]\ntimeout = 3\n")
    real = Path.read_text

    def denied(self, *args, **kwargs):
        if self == config:
            raise PermissionError(13, "Permission denied", str(self))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", denied)
    monkeypatch.chdir(tmp_path)  # the default ./clarify.toml, no --config
    assert main([*RUN, "--db", str(tmp_path / "d.db"), "--set", "openai.timeout=4"]) == 2
    err = capsys.readouterr().err
    assert f"cannot read config {config}: Permission denied" in err and "Traceback" not in err
    assert not (tmp_path / "d.db").exists()


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (["score", "--bootstrap", "-5"], "--bootstrap"),
        (["score", "--bootstrap", "x"], "--bootstrap"),
        (["score", "--jobs", "0"], "--jobs"),
        (["score", "--jobs", "-2"], "--jobs"),
        (["score", "--profile-k", "-1"], "--profile-k"),
        (["score", "--profile-k", "nan"], "--profile-k"),
        (["score", "--run", ""], "--run"),
        ([*RUN, "--run", ""], "--run"),
        ([*RUN, "--run", "  "], "--run"),
        (["export", "--run", ""], "--run"),
        (["sessions", "--run", ""], "--run"),
        (["report", "--bootstrap", "-5"], "--bootstrap"),
        (["report", "--run", ""], "--run"),
        (["serve", "--queue", ""], "--queue"),
        (["play", "--queue", " "], "--queue"),
        (["queue", "status", ""], "RUN"),
    ],
)
def test_impossible_values_are_refused_at_parse_time(argv, flag, tmp_path, capsys):
    db = tmp_path / "p.db"
    with pytest.raises(SystemExit) as exit_:
        main([*argv, "--db", str(db)])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and f"argument {flag}:" in err and "Traceback" not in err
    assert not db.exists()


def test_jobs_auto_still_means_the_cpu_count(tmp_path, capsys):
    db = _played(tmp_path)
    capsys.readouterr()
    assert main(["score", "--db", str(db), "--jobs", "auto", "--format", "json"]) == 0


def test_resume_of_a_real_run_still_works_and_an_empty_database_says_so(tmp_path, capsys):
    db = _played(tmp_path)
    assert main([*RUN, "--db", str(db), "--run", "a", "--resume", "--limit", "3"]) == 0
    assert len(Store(db).sessions(runs=["a"])) == 3
    empty = tmp_path / "empty.db"
    Store(empty).close()
    capsys.readouterr()
    assert main([*RUN, "--db", str(empty), "--run", "x", "--resume"]) == 2
    assert f"there is no run 'x' to resume ({empty} has no runs yet)" in capsys.readouterr().err


def teardown_module() -> None:
    drop_template()
