"""One writer per run (a lease in the database), several runs per database, honest resume."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

import pytest

from clarify_tui import lease
from clarify_tui.errors import RunLeaseError
from clarify_tui.run_spec import RunSpecMismatch
from clarify_tui.runner import RunSpec, run_batch
from clarify_tui.store import Store
from tests.clitools import cli, cli_env, finish, run_cli
from tests.conftest import IC
from tests.servers import FakeOpenAI, interactcomp_router
from tests.servers import llm_run as run_argv

DEMO_TASKS = 11  # the bundled InteractComp demo


def llm_run(db, name: str, *extra: str) -> list[str]:
    return run_argv(db, name, "--concurrency", "4", *extra)


@pytest.fixture
def slow_models():
    with FakeOpenAI(interactcomp_router(0.03)) as server:
        yield server


def counts(db, run: str) -> tuple[int, int]:
    store = Store(db, readonly=True)
    sessions = store.sessions(runs=[run])
    store.close()
    return len(sessions), len({s.task_id for s in sessions})


def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_a_second_writer_is_refused_with_the_holder_named_and_writes_nothing(tmp_path):
    db = tmp_path / "l.db"
    store = Store(db)
    store.acquire_run("r")
    code, _out, err = run_cli(
        "run", "--benchmark", "interactcomp", "--agent", "scripted:direct-guess", "--db", str(db), "--run", "r"
    )
    assert code == 2
    assert f"pid {os.getpid()} on {socket.gethostname()}" in err and "Traceback" not in err
    assert store.sessions(runs=["r"]) == []


def test_a_stale_lease_is_taken_over(tmp_path):
    db = tmp_path / "s.db"
    store = Store(db)
    now = time.time()
    # a crashed process on this host (its pid no longer exists), heartbeat still fresh
    store.conn.execute(
        "INSERT INTO run_leases (run, token, pid, host, acquired_at, heartbeat_at) VALUES ('crashed', 't1', ?, ?, ?, ?)",
        [dead_pid(), socket.gethostname(), now, now],
    )
    # another host whose heartbeat stopped a minute ago
    store.conn.execute(
        "INSERT INTO run_leases (run, token, pid, host, acquired_at, heartbeat_at) VALUES ('silent', 't2', 1, 'elsewhere', ?, ?)",
        [now - 90, now - 60],
    )
    # another host, alive
    store.conn.execute(
        "INSERT INTO run_leases (run, token, pid, host, acquired_at, heartbeat_at) VALUES ('live', 't3', 1, 'elsewhere', ?, ?)",
        [now, now],
    )
    # a live process on this host whose heartbeat lags (a loaded machine): still the holder
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    store.conn.execute(
        "INSERT INTO run_leases (run, token, pid, host, acquired_at, heartbeat_at) VALUES ('lagging', 't4', ?, ?, ?, ?)",
        [holder.pid, socket.gethostname(), now - 600, now - 300],
    )
    store.conn.commit()
    try:
        assert store.acquire_run("crashed").pid == os.getpid()
        assert store.acquire_run("silent").pid == os.getpid()
        with pytest.raises(RunLeaseError, match="pid 1 on elsewhere"):
            store.acquire_run("live")
        with pytest.raises(RunLeaseError, match=f"pid {holder.pid} on {socket.gethostname()}"):
            store.acquire_run("lagging")
    finally:
        holder.kill()
        holder.wait()


def _lease(store, run, pid, proc_id, started=None, beat_age=60.0, pid_ns=None):
    now = time.time()
    store.conn.execute(
        "INSERT OR REPLACE INTO run_leases (run, token, pid, host, acquired_at, heartbeat_at, proc_id, "
        "proc_started_at, pid_ns) VALUES (?, 'tok', ?, ?, ?, ?, ?, ?, ?)",
        [run, pid, socket.gethostname(), now - 600, now - beat_age, proc_id, started, pid_ns],
    )
    store.conn.commit()


def test_a_holder_in_another_pid_namespace_is_judged_by_its_heartbeat(tmp_path):
    """A run inside a container and a --resume from the host share the host name and the
    database, not the pids: the caller cannot see the holder's process, so the heartbeat
    decides (54 duplicates of 200 tasks when the host took over a live container writer)."""
    store = Store(tmp_path / "ns.db")
    foreign = "pid:[1]"  # not ours: /proc/self/ns/pid is never inode 1
    assert lease.pid_namespace() not in (None, foreign)
    # the container's writer is pid 4242 in its namespace, beating: no such pid here, still live
    _lease(store, "container-live", dead_pid(), None, beat_age=1.0, pid_ns=foreign)
    with pytest.raises(RunLeaseError, match="is being written by"):
        store.acquire_run("container-live")
    # its pid happens to be a live process of ours, but its heartbeat stopped: gone
    boot_and_start = lease.process_id(os.getppid())
    _lease(store, "container-gone", os.getppid(), boot_and_start, beat_age=600.0, pid_ns=foreign)
    assert "it is not running any more" in store.acquire_run("container-gone").took_over
    # a holder in our own namespace is still judged by its process, whatever its heartbeat
    _lease(store, "ours-dead", dead_pid(), None, beat_age=1.0, pid_ns=lease.pid_namespace())
    assert store.acquire_run("ours-dead").took_over
    # and our lease records the namespace
    held = store.conn.execute("SELECT pid_ns FROM run_leases WHERE run='ours-dead'").fetchone()[0]
    assert held == lease.pid_namespace()


def test_a_killed_writer_that_is_still_a_zombie_does_not_block_resume(tmp_path):
    """kill -9 of a writer whose parent has not reaped it yet: its pid still answers
    kill(pid, 0) and /proc/PID/stat, but it is dead."""
    store = Store(tmp_path / "z.db")
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        _lease(store, "r", child.pid, lease.process_id(child.pid), beat_age=1.0, pid_ns=lease.pid_namespace())
        child.kill()
        deadline = time.monotonic() + 30
        while not lease.is_zombie(child.pid) and time.monotonic() < deadline:  # not reaped: we never wait()
            time.sleep(0.01)
        assert lease.is_zombie(child.pid)
        assert "it is not running any more" in store.acquire_run("r").took_over
    finally:
        child.wait()


def test_a_reused_pid_does_not_keep_a_dead_holders_lease(tmp_path):
    """A container restarted where the run was pid 1: the pid is alive again (here: this
    very test process, and an unrelated sleeper), but it is another process."""
    store = Store(tmp_path / "reused.db")
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        boot = lease.process_id(os.getpid()).rsplit(":", 1)[0]
        _lease(store, "mine", os.getpid(), f"{boot}:1")  # our pid, another start time
        _lease(store, "other", sleeper.pid, f"{boot}:2")
        _lease(store, "rebooted", sleeper.pid, f"another-boot:{lease.process_id(sleeper.pid).rsplit(':', 1)[1]}")
        for run in ("mine", "other", "rebooted"):
            held = store.acquire_run(run)
            assert held.pid == os.getpid() and "it is not running any more" in held.took_over
        # the real holder, with its own identity: refused, and the refusal names the way out
        _lease(store, "live", sleeper.pid, lease.process_id(sleeper.pid), lease.process_started_at(sleeper.pid))
        with pytest.raises(RunLeaseError, match=f"pid {sleeper.pid} on .* \\(process started .*--take-over"):
            store.acquire_run("live")
    finally:
        sleeper.kill()
        sleeper.wait()


def test_take_over_breaks_a_lease_and_says_whose(tmp_path):
    db = tmp_path / "t.db"
    store = Store(db)
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        # a lease from before identities were recorded: the pid alone looks alive
        _lease(store, "r", sleeper.pid, None)
        args = [
            "run",
            "--benchmark",
            "interactcomp",
            "--agent",
            "scripted:direct-guess",
            "--db",
            str(db),
            "--run",
            "r",
            "--limit",
            "2",
        ]
        code, _out, err = run_cli(*args)
        assert code == 2 and f"pid {sleeper.pid}" in err and "--take-over" in err
        code, _out, err = run_cli(*args, "--take-over")
        assert code == 0, err
        assert f"took over run 'r' from pid {sleeper.pid} on {socket.gethostname()}" in err
        assert "(--take-over: its heartbeat had stopped)" in err
        assert counts(db, "r") == (2, 2)
    finally:
        sleeper.kill()
        sleeper.wait()


def test_take_over_refuses_a_holder_whose_heartbeat_still_moves(tmp_path):
    """A live writer with a fresh heartbeat: breaking its lease would make two writers on
    one run, so --take-over waits until it would have beaten again, and refuses."""
    import threading

    db = tmp_path / "beating.db"
    store = Store(db)
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    stop = threading.Event()

    def beat():
        import sqlite3

        conn = sqlite3.connect(db)
        while not stop.wait(1.0):
            conn.execute("UPDATE run_leases SET heartbeat_at=? WHERE run='b'", [time.time()])
            conn.commit()
        conn.close()

    beating = threading.Thread(target=beat)
    try:
        _lease(store, "b", sleeper.pid, None, beat_age=0.5)
        beating.start()
        started = time.monotonic()
        with pytest.raises(RunLeaseError, match="--take-over refused: .* its heartbeat moved"):
            Store(db).acquire_run("b", take_over=True)
        assert time.monotonic() - started <= lease.QUIET_FOR_S + 5
    finally:
        stop.set()
        if beating.is_alive():
            beating.join()
        sleeper.kill()
        sleeper.wait()


def test_take_over_breaks_a_recent_holder_whose_heartbeat_stays_still(tmp_path, monkeypatch):
    """The other side of the wait: a recent heartbeat that does not move in the quiet period
    is a holder that stopped writing, and --take-over breaks its lease."""
    monkeypatch.setattr(lease, "QUIET_FOR_S", 1.0)  # the same wait, shortened: nothing beats here
    store = Store(tmp_path / "still.db")
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        _lease(store, "s", sleeper.pid, None, beat_age=0.5)
        held = Store(tmp_path / "still.db").acquire_run("s", take_over=True)
        assert held.took_over and f"pid {sleeper.pid}" in held.took_over
        assert "(--take-over: its heartbeat had stopped)" in held.took_over
    finally:
        sleeper.kill()
        sleeper.wait()


def test_old_lease_tables_get_the_identity_columns(tmp_path):
    import sqlite3

    db = tmp_path / "old.db"
    Store(db).close()
    conn = sqlite3.connect(db)
    conn.execute("DROP TABLE run_leases")
    conn.execute(
        "CREATE TABLE run_leases (run TEXT PRIMARY KEY, token TEXT, pid INTEGER, host TEXT, "
        "acquired_at REAL, heartbeat_at REAL)"
    )
    conn.commit()
    conn.close()
    held = Store(db).acquire_run("r")
    row = Store(db).conn.execute("SELECT proc_id, proc_started_at FROM run_leases WHERE run='r'").fetchone()
    assert held.took_over is None and row[0] == lease.process_id(os.getpid())
    assert abs(row[1] - time.time()) < 3600


async def test_the_lease_is_released_when_the_run_ends_and_held_while_it_runs(tmp_path, search, monkeypatch):
    import clarify_tui.backends as backends

    monkeypatch.setattr(backends, "_local_search", lambda: search)
    store = Store(tmp_path / "h.db")
    seen = []
    spec = RunSpec(name="h", agent="scripted:direct-guess", benchmark="interactcomp")
    await run_batch(
        store,
        spec,
        [IC],
        on_session_done=lambda s: seen.append(
            store.conn.execute("SELECT pid FROM run_leases WHERE run='h'").fetchone()
        ),
    )
    assert seen == [(os.getpid(),)]
    assert store.conn.execute("SELECT count(*) FROM run_leases").fetchone() == (0,)


def test_two_writers_on_the_same_run_never_make_more_sessions_than_tasks(tmp_path, slow_models):
    db = tmp_path / "two.db"
    env = cli_env(OPENAI_BASE_URL=slow_models.base_url)
    assert finish(cli(*llm_run(db, "same", "--limit", "1"), env=env))[0] == 0  # --resume needs a run to resume
    procs = [cli(*llm_run(db, "same", "--resume"), env=env) for _ in range(2)]
    results = [finish(p) for p in procs]
    codes = sorted(code for code, _, _ in results)
    assert codes in ([0, 0], [0, 2]), results
    for code, _out, err in results:
        if code == 2:
            assert "is being written by pid" in err and "Traceback" not in err
    assert counts(db, "same") == (DEMO_TASKS, DEMO_TASKS)


def test_four_different_runs_write_one_database_at_once(tmp_path, slow_models):
    db = tmp_path / "four.db"
    env = cli_env(OPENAI_BASE_URL=slow_models.base_url)
    Store(db).close()
    procs = [cli(*llm_run(db, f"r{i}", "--limit", "4"), env=env) for i in range(4)]
    # Four interpreters on a loaded 2-core machine (CI beside other jobs) start slowly:
    # the limit is for a hang, not for speed.
    results = [finish(p, timeout=300) for p in procs]
    assert [code for code, _, _ in results] == [0, 0, 0, 0], [err for _, _, err in results]
    store = Store(db, readonly=True)
    for i in range(4):
        sessions = store.sessions(runs=[f"r{i}"])
        assert len(sessions) == 4 and {s.status for s in sessions} == {"completed"}


def test_resume_with_another_agent_or_mode_is_refused_showing_both_specs(tmp_path):
    db = tmp_path / "m.db"
    base = ["run", "--benchmark", "interactcomp", "--db", str(db), "--run", "m", "--limit", "2"]
    assert run_cli(*base, "--agent", "scripted:direct-guess")[0] == 0
    code, _, err = run_cli(*base, "--agent", "scripted:search-then-ask", "--mode", "answer_only", "--resume")
    assert code == 2 and "Traceback" not in err
    assert "differs in agent, interactcomp_mode" in err
    assert "agent=scripted:direct-guess" in err and "agent=scripted:search-then-ask" in err
    assert "interactcomp_mode=full" in err and "interactcomp_mode=answer_only" in err
    code, _, err = run_cli(*base, "--agent", "scripted:direct-guess", "--benchmark", "discobench", "--resume")
    assert code == 2 and "differs in benchmark" in err
    assert run_cli(*base, "--agent", "scripted:direct-guess", "--resume", "--limit", "3")[0] == 0
    assert counts(db, "m") == (3, 3)


async def test_resume_in_process_raises_a_mismatch(tmp_path, search, monkeypatch):
    import clarify_tui.backends as backends

    monkeypatch.setattr(backends, "_local_search", lambda: search)
    store = Store(tmp_path / "p.db")
    await run_batch(store, RunSpec(name="p", agent="scripted:direct-guess", benchmark="interactcomp"), [IC])
    other = RunSpec(name="p", agent="scripted:direct-guess", benchmark="interactcomp", dataset="elsewhere.jsonl")
    with pytest.raises(RunSpecMismatch, match="differs in dataset"):
        await run_batch(store, other, [IC], resume=True)


def test_processes_opening_a_new_database_together_all_get_in(tmp_path):
    """Opening a new file races (WAL switch, tables): SQLite answers one side "locked" at
    once, which used to end that process (3 of 40 in a measurement)."""
    code = (
        "import sys; from clarify_tui.store import Store; s = Store(sys.argv[1]); s.acquire_run(sys.argv[2]); s.close()"
    )
    for trial in range(3):
        db = tmp_path / f"new-{trial}.db"
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", code, str(db), f"r{i}"], stderr=subprocess.PIPE, text=True, env=cli_env()
            )
            for i in range(4)
        ]
        errors = [p.communicate()[1] for p in procs]
        assert [p.returncode for p in procs] == [0, 0, 0, 0], errors


def test_a_column_another_process_added_meanwhile_is_no_error(tmp_path, monkeypatch):
    """Two processes opening an older file together both see a column missing and both add
    it: the second ALTER TABLE failed with 'duplicate column name: run_id' and ended that
    process (CI, 1 of 4). Here the column list is read stale, as the second process saw it."""
    from clarify_tui.store import Store

    db = tmp_path / "old.db"
    Store(db).close()
    real = Store._columns
    monkeypatch.setattr(Store, "_columns", lambda self, table: real(self, table) - {"run_id", "epoch"})
    store = Store(db)  # adds nothing twice, and says nothing
    store.acquire_run("r1")
    monkeypatch.undo()
    assert {"run_id"} <= Store._columns(store, "runs") and {"epoch"} <= Store._columns(store, "sessions")
    store.close()
