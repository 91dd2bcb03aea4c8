"""Database problems end in one clear line, exit code 2, and an unchanged file."""

from __future__ import annotations

import asyncio
import hashlib
import os
import resource
import signal
import sqlite3
import subprocess
import threading
import time

import pytest

from clarify_tui import db_errors
from clarify_tui.cli import main
from clarify_tui.errors import StoreError
from clarify_tui.runner import RunSpec, run_batch
from clarify_tui.store import Store
from tests.clitools import cli, finish
from tests.conftest import IC

RUN = ["run", "--benchmark", "interactcomp", "--agent", "scripted:direct-guess"]


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def one_clear_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


@pytest.fixture
def made_db(tmp_path):
    db = tmp_path / "ok.db"
    assert main([*RUN, "--db", str(db), "--run", "a", "--limit", "3"]) == 0
    return db


@pytest.fixture
def read_only():
    """Make a file read-only even for root (chattr +i), restored after the test."""
    undo = []

    def make(path):
        if os.geteuid() != 0:
            mode = path.stat().st_mode & 0o777
            path.chmod(0o555 if path.is_dir() else 0o444)
            undo.append(lambda: path.chmod(mode))
            return
        if subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode != 0:
            pytest.skip("this filesystem cannot make a file read-only for root")
        undo.append(lambda: subprocess.run(["chattr", "-i", str(path)]))

    yield make
    for step in reversed(undo):
        step()


def test_a_read_only_database_is_scored_but_not_written(made_db, read_only, capsys):
    sqlite3.connect(made_db).execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    before = digest(made_db)
    read_only(made_db)
    read_only(made_db.parent)  # a WAL file in a folder we cannot write: no -shm can be made
    assert main(["score", "--db", str(made_db)]) == 0
    assert "3" in capsys.readouterr().out
    code = main([*RUN, "--db", str(made_db), "--run", "b"])
    line = one_clear_line(capsys.readouterr().err)
    assert code == 2 and "read-only" in line and "score" in line
    assert digest(made_db) == before


def test_a_file_that_is_not_sqlite_is_refused_unchanged(tmp_path, capsys):
    db = tmp_path / "notes.db"
    db.write_text("these are my notes, not a database\n" * 20)
    before = digest(db)
    for command in ([*RUN, "--db", str(db)], ["score", "--db", str(db)], ["sessions", "--db", str(db)]):
        assert main(command) == 2
        assert "not a SQLite database" in one_clear_line(capsys.readouterr().err)
    assert digest(db) == before and sorted(p.name for p in tmp_path.iterdir()) == ["notes.db"]


def test_the_tui_refuses_a_file_that_is_not_sqlite_before_taking_the_screen(tmp_path, capsys, monkeypatch):
    """`play` and the bare command open their store after the first paint; the file is
    still refused up front, as one line, instead of inside the screen on the first write."""
    from clarify_tui.tui.app import ClarifyApp

    def never(self, *a, **k):
        raise AssertionError("the TUI started on a file that is not a database")

    monkeypatch.setattr(ClarifyApp, "run", never)
    db = tmp_path / "notes.db"
    db.write_text("these are my notes, not a database\n" * 20)
    before = digest(db)
    monkeypatch.setenv("CLARIFY_DB", str(db))
    for command in (["play", "--task", "dg-01", "--db", str(db)], []):
        assert main(command) == 2
        assert "not a SQLite database" in one_clear_line(capsys.readouterr().err)
    assert digest(db) == before and sorted(p.name for p in tmp_path.iterdir()) == ["notes.db"]


def test_a_directory_is_refused(tmp_path, capsys):
    folder = tmp_path / "sessions"
    folder.mkdir()
    assert main([*RUN, "--db", str(folder)]) == 2
    assert "is a directory" in one_clear_line(capsys.readouterr().err)
    assert list(folder.iterdir()) == []


def test_a_newer_schema_is_refused_before_wal_is_switched_on(tmp_path, capsys):
    db = tmp_path / "future.db"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    conn.execute("INSERT INTO meta VALUES ('schema_version', '99')")
    conn.commit()
    conn.close()
    before = digest(db)
    assert main([*RUN, "--db", str(db)]) == 2
    line = one_clear_line(capsys.readouterr().err)
    assert "schema version 99" in line and "nothing was changed" in line
    assert digest(db) == before
    assert sqlite3.connect(db).execute("PRAGMA journal_mode").fetchone() == ("delete",)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["future.db"]


def test_a_database_locked_for_longer_than_the_busy_timeout_gives_up_with_one_line(made_db, capsys, monkeypatch):
    """The same give-up as with the 5 s default, with the timeout set to 1 s: the lock is held
    for the whole run, so only the wait is shorter."""
    assert db_errors.BUSY_TIMEOUT_S == 5.0
    monkeypatch.setattr(db_errors, "BUSY_TIMEOUT_S", 1.0)
    capsys.readouterr()
    holder = sqlite3.connect(made_db)
    holder.execute("BEGIN EXCLUSIVE")
    started = time.monotonic()
    try:
        code = main([*RUN, "--db", str(made_db), "--run", "b"])
    finally:
        holder.rollback()
        holder.close()
    err = capsys.readouterr().err
    assert code == 2 and "locked by another process (waited 1 s)" in one_clear_line(err)
    assert 1 <= time.monotonic() - started < 15
    assert {s.run for s in Store(made_db).sessions()} == {"a"}


def _small_files():
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (150_000, 150_000))


def test_a_full_disk_stops_the_run_with_one_line(tmp_path):
    db = tmp_path / "full.db"
    code, _out, err = finish(
        cli(
            "run",
            "--benchmark",
            "discobench",
            "--agent",
            "scripted:search-then-ask",
            "--db",
            str(db),
            "--run",
            "a",
            "--concurrency",
            "8",
            preexec_fn=_small_files,
        )
    )
    lines = [line for line in err.splitlines() if "error" in line.lower()]  # the rest is the progress bar
    assert code == 2 and "Traceback" not in err, err
    assert len(lines) == 1 and "disk full" in lines[0], err


async def test_a_lock_held_elsewhere_does_not_stall_the_running_episodes(tmp_path, search, monkeypatch):
    """Writes go through a thread: while another process holds the write lock for 2 s,
    the event loop keeps turning (on main it froze until the lock was released)."""
    import clarify_tui.backends as backends

    monkeypatch.setattr(backends, "_local_search", lambda: search)
    db = tmp_path / "busy.db"
    store = Store(db)
    tasks = [IC.model_copy(update={"id": f"i{n}", "question": f"{IC.question} ({n})"}) for n in range(10)]
    spec = RunSpec(
        name="busy", agent="scripted:search-then-ask", benchmark="interactcomp", concurrency=2, search_cache="record"
    )  # cache misses are written too
    locked, released = threading.Event(), threading.Event()
    finished_when_locked: list[int] = []

    def hold_lock():
        other = sqlite3.connect(db)
        other.execute("BEGIN IMMEDIATE")
        finished_when_locked.append(
            other.execute("SELECT count(*) FROM sessions WHERE status = 'completed'").fetchone()[0]
        )
        locked.set()
        time.sleep(2.0)
        other.rollback()
        other.close()
        released.set()

    gaps: list[float] = []

    async def ticker():
        last = time.perf_counter()
        while not released.is_set():
            await asyncio.sleep(0.01)
            now = time.perf_counter()
            if locked.is_set():
                gaps.append(now - last)
            last = now

    slow = _SlowAgent(backends.make_agent("scripted:search-then-ask"))
    monkeypatch.setattr("clarify_tui.runner.build_agent", lambda spec, cfg=None: slow)
    threading.Timer(0.2, hold_lock).start()
    summary, _ = await asyncio.gather(run_batch(store, spec, tasks), ticker())
    assert len(summary.completed) == 10
    assert finished_when_locked[0] < 10  # sessions were still being written while the lock was held
    assert gaps and max(gaps) < 1.0, max(gaps)  # a stalled loop waits the whole 2 s
    assert len(Store(db).sessions(runs=["busy"])) == 10
    assert Store(db).db["search_cache"].count >= 10  # every miss was recorded


class _SlowAgent:
    spec = "scripted:search-then-ask"

    def __init__(self, inner):
        self.inner = inner

    async def act(self, view):
        await asyncio.sleep(0.05)
        return await self.inner.act(view)


def test_store_errors_are_store_errors(tmp_path):
    with pytest.raises(StoreError, match="is a directory"):
        Store(tmp_path)
