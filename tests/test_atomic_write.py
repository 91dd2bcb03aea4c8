"""Files we write never destroy data: `--out` naming the database is refused, and a refused
or failed write leaves the old file as it was and no partial file (issue 22, "Loses data")."""

from __future__ import annotations

import errno
import os
import sqlite3
from pathlib import Path

import pytest

from clarify_tui import exporters
from clarify_tui.atomic_write import OutputError, atomic_output, write_text
from clarify_tui.cli import main
from clarify_tui.store import Store


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("played") / "runs.db"
    assert (
        main(
            ["run", "--benchmark", "discobench", "--agent", "scripted:search-then-ask", "--db", str(db), "--limit", "2"]
        )
        == 0
    )
    return db


def _sessions(db: Path) -> int:
    store = Store(db, readonly=True)
    try:
        return len(store.sessions())
    finally:
        store.close()


def _copy(src: Path, dst: Path) -> None:
    with sqlite3.connect(src) as a, sqlite3.connect(dst) as b:
        a.backup(b)


def _leftovers(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize("command", [["export"], ["cache", "export"]])
@pytest.mark.parametrize("target", ["db", "wal", "shm", "symlink", "hardlink"])
def test_out_naming_the_database_is_refused_and_the_database_keeps_every_session(
    played, tmp_path, capsys, command, target
):
    db = tmp_path / "copy.db"
    _copy(played, db)
    before = _sessions(db)
    assert before == 2
    out = {
        "db": db,
        "wal": Path(f"{db}-wal"),
        "shm": Path(f"{db}-shm"),
        "symlink": tmp_path / "link.db",
        "hardlink": tmp_path / "hard.db",
    }[target]
    if target == "symlink":
        out.symlink_to(db)
    if target == "hardlink":
        os.link(db, out)
    size = db.stat().st_size
    assert main([*command, "--db", str(db), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "refusing to write" in err and "it is the database" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert db.stat().st_size == size and _sessions(db) == before


def test_out_naming_another_sqlite_database_is_refused(played, tmp_path, capsys):
    other = tmp_path / "other.db"
    _copy(played, other)
    before = other.read_bytes()
    assert main(["export", "--db", str(played), "--out", str(other)]) == 2
    assert "it is a SQLite database" in capsys.readouterr().err
    assert other.read_bytes() == before and _sessions(other) == 2


@pytest.mark.parametrize("command", [["export"], ["cache", "export"]])
def test_out_dot_is_one_line(played, tmp_path, capsys, monkeypatch, command):
    monkeypatch.chdir(tmp_path)
    assert main([*command, "--db", str(played), "--out", "."]) == 2
    err = capsys.readouterr().err
    assert "--out . is a directory" in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_a_full_device_is_one_line_naming_the_file(played, capsys):
    assert main(["export", "--db", str(played), "--out", "/dev/full"]) == 2
    err = capsys.readouterr().err
    assert "cannot write /dev/full: disk full" in err and "Traceback" not in err


def test_a_disk_filling_up_mid_export_keeps_the_old_file_and_leaves_no_partial_one(
    played, tmp_path, capsys, monkeypatch
):
    out = tmp_path / "sessions.jsonl"
    out.write_text("the export of last week\n", encoding="utf-8")
    real = exporters.EXPORTERS["jsonl"]

    def fills_the_disk(store, runs, stream, include_hidden=False):
        real(store, runs, stream, include_hidden=include_hidden)  # a whole export, then the disk is full
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setitem(exporters.EXPORTERS, "jsonl", fills_the_disk)
    assert main(["export", "--db", str(played), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"cannot write {out}: disk full" in err and "left as it was" in err and "Traceback" not in err
    assert out.read_text(encoding="utf-8") == "the export of last week\n"
    assert _leftovers(tmp_path) == []


def test_an_unknown_format_keeps_the_old_file(played, tmp_path, capsys):
    out = tmp_path / "old.csv"
    out.write_text("old\n", encoding="utf-8")
    assert main(["export", "--db", str(played), "--format", "xml", "--out", str(out)]) == 2
    assert "unknown export format" in capsys.readouterr().err
    assert out.read_text(encoding="utf-8") == "old\n" and _leftovers(tmp_path) == []


def test_a_good_export_replaces_the_file_keeping_its_mode_and_a_link_keeps_pointing(played, tmp_path):
    real = tmp_path / "real.jsonl"
    real.write_text("old\n", encoding="utf-8")
    real.chmod(0o640)
    link = tmp_path / "latest.jsonl"
    link.symlink_to(real)
    assert main(["export", "--db", str(played), "--out", str(link)]) == 0
    assert link.is_symlink() and len(real.read_text(encoding="utf-8").splitlines()) == 2
    assert oct(real.stat().st_mode & 0o777) == oct(0o640)
    assert main(["cache", "export", "--db", str(played), "--out", str(tmp_path / "c.jsonl")]) == 0
    assert _leftovers(tmp_path) == []


def test_an_exception_inside_the_block_leaves_nothing(tmp_path):
    target = tmp_path / "t.txt"
    write_text(target, "one\n")
    with pytest.raises(RuntimeError), atomic_output(target) as out:
        out.write("half of two")
        raise RuntimeError("bad record")
    assert target.read_text(encoding="utf-8") == "one\n" and _leftovers(tmp_path) == []
    with pytest.raises(OutputError, match="does not exist"):
        write_text(tmp_path / "missing" / "t.txt", "x")


def test_a_merge_into_a_new_file_that_fails_leaves_no_half_made_database(played, tmp_path, capsys, monkeypatch):
    from clarify_tui.campaign import merge as merging

    real = merging._merge_into

    def disk_fills(dest, sources, *rest):
        real(dest, sources, *rest)  # everything written, then the disk is full before the commit
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(merging, "_merge_into", disk_fills)
    out = tmp_path / "all.db"
    assert main(["merge", str(played), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "disk full" in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == [] or [p.name for p in tmp_path.iterdir()] == ["clarify-tui.log"]
    monkeypatch.setattr(merging, "_merge_into", real)
    assert main(["merge", str(played), "--out", str(out)]) == 0  # the same merge, nothing in the way
    assert _sessions(out) == 2 and _leftovers(tmp_path) == []


def _killed_writer_pid() -> int:
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_an_export_killed_mid_write_leaves_nothing_once_the_next_export_runs(played, tmp_path, capsys):
    """kill -9 cannot run the cleanup: the temporary file stays. Its name carries the
    writer's pid, so the next export to the same file removes it; a write still in flight
    (a live pid: ours) is left alone, and other files' temporaries too."""
    out = tmp_path / "s.jsonl"
    dead = _killed_writer_pid()
    leftover = tmp_path / f".s.jsonl.{dead}-0badf00d.tmp"
    leftover.write_text('{"half": ', encoding="utf-8")
    in_flight = tmp_path / f".s.jsonl.{os.getpid()}-00c0ffee.tmp"
    in_flight.write_text("", encoding="utf-8")
    other = tmp_path / f".t.jsonl.{dead}-0badf00d.tmp"
    other.write_text("", encoding="utf-8")
    assert main(["export", "--db", str(played), "--out", str(out)]) == 0
    assert out.read_text(encoding="utf-8").strip()
    assert not leftover.exists() and in_flight.exists() and other.exists()


def test_a_merge_killed_mid_write_leaves_nothing_once_the_next_merge_runs(played, tmp_path, capsys):
    out = tmp_path / "all.db"
    dead = _killed_writer_pid()
    leftovers = [tmp_path / f".all.db.{dead}-0badf00d.tmp{suffix}" for suffix in ("", "-journal")]
    for path in leftovers:
        path.write_bytes(b"SQLite format 3\x00half")
    assert main(["merge", str(played), "--out", str(out)]) == 0
    assert out.exists() and not any(p.exists() for p in leftovers)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".all.db.")]
