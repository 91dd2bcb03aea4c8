"""`clarify-tui sweep FILE.toml`: the demo matrix (2 benchmarks x 2 scripted agents x 2
epochs) plans, plays, survives kill -9, shards into databases that merge back to the
unsharded sweep, and `report --sweep` lays it out (docs/sweeps.md)."""

from __future__ import annotations

import signal
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from clarify_tui.cli import main
from clarify_tui.store import Store
from tests.clitools import cli, cli_env, finish, run_cli
from tests.servers import FakeOpenAI, Reply, Request, interactcomp_router

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "examples" / "sweep-demo.toml"
CELLS = [
    "demo.interactcomp.scripted-direct-guess",
    "demo.interactcomp.scripted-ask-first",
    "demo.discobench.scripted-direct-guess",
    "demo.discobench.scripted-ask-first",
]
PER_CELL = 4 * 2  # --limit 1-4, 2 epochs


def sweep_file(tmp_path: Path, body: str, name: str = "s.toml") -> Path:
    path = tmp_path / name
    path.write_text(body, encoding="utf-8")
    return path


def sessions(db: Path, status: str | None = None) -> list[tuple]:
    conn = sqlite3.connect(db)
    try:
        where = "WHERE status = ?" if status else ""
        return conn.execute(
            f"SELECT run, task_id, epoch, status, result, id FROM sessions {where} ORDER BY run, task_id, epoch",
            [status] if status else [],
        ).fetchall()
    finally:
        conn.close()


def test_dry_run_prints_cells_and_sessions_and_plays_nothing(tmp_path, capsys):
    db = tmp_path / "d.db"
    assert main(["sweep", str(DEMO), "--db", str(db), "--dry-run"]) == 0
    out = capsys.readouterr().out
    for cell in CELLS:
        line = next(line for line in out.splitlines() if line.strip().startswith(cell))
        assert line.split()[1:] == ["4", "2", "8", "0", "8"]  # tasks, epochs, sessions, done, to play
    assert next(line for line in out.splitlines() if line.strip().startswith("total")).split()[1:] == ["32", "0", "32"]
    assert "model calls: none" in out and "cost: $0" in out
    assert not db.exists()


def test_the_demo_sweep_plays_each_cell_as_a_named_run_and_a_second_time_plays_nothing(tmp_path, capsys):
    db = tmp_path / "s.db"
    assert main(["sweep", str(DEMO), "--db", str(db)]) == 0
    played = sessions(db)
    assert sorted({r[0] for r in played}) == sorted(CELLS)
    assert all(sum(1 for r in played if r[0] == cell) == PER_CELL for cell in CELLS)
    assert {r[3] for r in played} == {"completed"}
    assert main(["sweep", str(DEMO), "--db", str(db)]) == 0
    err = capsys.readouterr().err
    assert "0 session(s) to play (32 already done)" in err
    assert sessions(db) == played
    store = Store(db, readonly=True)
    row = store.run_row(CELLS[0])
    assert row is not None and row["agent"] == "scripted:direct-guess" and row["benchmark"] == "interactcomp"
    assert row["provenance"]  # recorded as `run` records it


def test_a_setting_invalid_for_a_cells_benchmark_is_refused_naming_the_cell(tmp_path, capsys):
    file = sweep_file(
        tmp_path, '[sweep]\nbenchmarks = ["cts", "interactcomp"]\nagents = "scripted:direct-guess"\nk = 2\nlimit = 1\n'
    )
    db = tmp_path / "bad.db"
    assert main(["sweep", str(file), "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert "cell s.interactcomp.scripted-direct-guess: --k (CTS only)" in err and "[sweep.cts]" in err
    assert not db.exists()  # refused before anything played
    # the same setting under [sweep.cts] reaches the CTS cells only, and a list there multiplies
    file = sweep_file(
        tmp_path,
        '[sweep]\nbenchmarks = ["cts", "interactcomp"]\nagents = "scripted:direct-guess"\n'
        "limit = 1\n[sweep.cts]\nk = [0, 2]\n",
    )
    assert main(["sweep", str(file), "--db", str(db), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "s.cts.scripted-direct-guess.k-0" in out and "s.cts.scripted-direct-guess.k-2" in out
    assert "s.interactcomp.scripted-direct-guess " in out


def test_a_value_run_refuses_is_refused_naming_the_cell(tmp_path, capsys):
    file = sweep_file(
        tmp_path,
        '[sweep]\nbenchmarks = "interactcomp"\nagents = "scripted:direct-guess"\nmode = ["full", "sideways"]\n',
    )
    assert main(["sweep", str(file), "--db", str(tmp_path / "x.db")]) == 2
    err = capsys.readouterr().err
    assert "cell s.interactcomp.scripted-direct-guess.mode-sideways:" in err and "invalid choice: 'sideways'" in err


def test_a_changed_setting_in_a_cell_is_refused_on_the_next_sweep_naming_the_cell(tmp_path, capsys):
    db = tmp_path / "c.db"
    body = '[sweep]\nbenchmarks = "interactcomp"\nagents = ["scripted:direct-guess", "scripted:ask-first"]\nlimit = 1\n'
    file = sweep_file(tmp_path, body + "max_rounds = 6\n")
    assert main(["sweep", str(file), "--db", str(db)]) == 0
    before = sessions(db)
    file = sweep_file(tmp_path, body + "max_rounds = 7\n")
    assert main(["sweep", str(file), "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert (
        "cell s.interactcomp.scripted-direct-guess: run 's.interactcomp.scripted-direct-guess' differs in max_rounds"
        in err
    )
    assert sessions(db) == before


SLOW_AGENT = '''
import asyncio, os
from clarify_tui.agents.scripted import ScriptedAgent

class Slow:
    """A scripted policy that takes a moment per move (a model's latency)."""
    def __init__(self):
        self.inner = ScriptedAgent(os.environ.get("SWEEP_POLICY", "ask-first"))
    async def act(self, view):
        await asyncio.sleep(0.05)
        return await self.inner.act(view)
'''


def wait_for(condition, what: str, timeout: float = 120.0) -> None:
    """Poll the database (not the clock) until `condition` holds; the timeout only stops a hung test."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def test_a_sweep_killed_with_9_and_run_again_plays_exactly_the_missing_sessions(tmp_path):
    (tmp_path / "slow_agent.py").write_text(SLOW_AGENT, encoding="utf-8")
    file = sweep_file(
        tmp_path,
        f'[sweep]\nname = "k"\nbenchmarks = ["interactcomp", "discobench"]\n'
        f'agents = ["py:{tmp_path}/slow_agent.py:Slow", "scripted:direct-guess"]\n'
        'epochs = 2\nlimit = "1-4"\n',
    )
    db = tmp_path / "k.db"
    proc = cli("sweep", str(file), "--db", str(db), "--concurrency", "2", cwd=tmp_path)

    def completed() -> int:
        if not db.exists():
            return 0
        try:
            return len(sessions(db, "completed"))
        except sqlite3.OperationalError:  # the schema is being created
            return 0

    try:
        wait_for(lambda: completed() >= 6, "six completed sessions")
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    before = {r[5]: r for r in sessions(db, "completed")}
    rows_before = len(sessions(db))  # with the sessions the kill cut short (left `running`)
    assert 6 <= len(before) < 32, "the sweep was killed mid-way"
    code, _out, err = finish(cli("sweep", str(file), "--db", str(db), "--concurrency", "2", cwd=tmp_path))
    assert code == 0, err
    assert f"{32 - len(before)} session(s) to play ({len(before)} already done)" in err
    after = sessions(db, "completed")
    assert len(after) == 32
    assert len({(r[0], r[1], r[2]) for r in after}) == 32  # each (cell, task, epoch) once
    assert {r[5]: r for r in after if r[5] in before} == before  # what was done was kept, not played again
    assert len(sessions(db)) - rows_before == 32 - len(before)  # the rerun played the missing sessions, no more
    # what the kill cut short was marked abandoned, and played again
    assert {r[3] for r in sessions(db)} <= {"completed", "abandoned"}


def test_two_shards_merge_to_exactly_the_unsharded_sweep_and_its_table(tmp_path, capsys):
    whole = tmp_path / "whole.db"
    assert main(["sweep", str(DEMO), "--db", str(whole)]) == 0
    shards = [tmp_path / f"shard{i}.db" for i in (1, 2)]
    for i, shard in enumerate(shards, 1):
        assert main(["sweep", str(DEMO), "--db", str(shard), "--shard", f"{i}/2"]) == 0
    halves = [{(r[0], r[1], r[2]) for r in sessions(s)} for s in shards]
    assert len(halves[0]) == len(halves[1]) == 16 and not halves[0] & halves[1]
    # the same split every time: a shard played again plays nothing new
    assert main(["sweep", str(DEMO), "--db", str(shards[0]), "--shard", "1/2", "--dry-run"]) == 0
    out = capsys.readouterr().out
    total = next(line for line in out.splitlines() if line.strip().startswith("total"))
    assert total.split()[1:] == ["16", "16", "0"]  # sessions, done, to play
    merged = tmp_path / "merged.db"
    assert main(["merge", *map(str, shards), "--out", str(merged)]) == 0
    assert "renamed" not in capsys.readouterr().out.lower()
    key = lambda rows: sorted((r[0], r[1], r[2], r[3], r[4]) for r in rows)  # noqa: E731
    assert key(sessions(merged)) == key(sessions(whole))
    conn = sqlite3.connect(merged)
    assert sorted(r[0] for r in conn.execute("SELECT name FROM runs")) == sorted(CELLS)  # one run per cell, no NAME~2
    conn.close()
    tables = []
    for db in (whole, merged):
        assert main(["report", "--db", str(db), "--sweep", str(DEMO), "--bootstrap", "200"]) == 0
        tables.append(capsys.readouterr().out)
    assert tables[0] == tables[1]


def test_report_sweep_puts_a_row_per_agent_and_a_column_group_per_benchmark(tmp_path, capsys):
    db = tmp_path / "r.db"
    assert main(["sweep", str(DEMO), "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["report", "--db", str(db), "--sweep", str(DEMO), "--bootstrap", "200"]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.startswith("| Agent"))
    titles = [h.strip() for h in header.strip("|").split("|")]
    assert titles[:2] == ["Agent", "InteractComp: Round"] and "DiscoBench: Acc." in titles
    assert not any(t.startswith("DiscoBench: Guided") or "Guided" in t for t in titles)  # no cell ran guided
    rows = {
        line.split("|")[1].strip(): [c.strip() for c in line.strip("|").split("|")]
        for line in out.splitlines()
        if line.startswith("| scripted:")
    }
    assert set(rows) == {"scripted:direct-guess", "scripted:ask-first"}
    ask = dict(zip(titles, rows["scripted:ask-first"]))
    # the same numbers as each benchmark's own paper table
    assert main(["report", "--db", str(db), "--run", "demo.interactcomp.scripted-ask-first", "--bootstrap", "200"]) == 0
    own = capsys.readouterr().out
    own_row = next(line for line in own.splitlines() if line.startswith("| demo.interactcomp.scripted-ask-first"))
    assert [c.strip() for c in own_row.strip("|").split("|")][1:] == [
        ask[f"InteractComp: {t}"] for t in ("Round", "IR", "Acc.", "C.E.", "Cost($)")
    ]


def test_report_sweep_carries_the_what_if_columns_of_the_cells_that_have_forks(tmp_path, capsys):
    db = tmp_path / "w.db"
    assert main(["sweep", str(DEMO), "--db", str(db)]) == 0
    assert main(["whatif", "--run", "demo.interactcomp.scripted-direct-guess", "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["report", "--db", str(db), "--sweep", str(DEMO), "--bootstrap", "200"]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.startswith("| Agent"))
    titles = [h.strip() for h in header.strip("|").split("|")]
    assert "InteractComp What-if ask: forks" in titles
    assert not any(t.startswith("DiscoBench What-if") for t in titles)  # no DiscoBench cell has forks
    guess = next(line for line in out.splitlines() if line.startswith("| scripted:direct-guess"))
    forks = dict(zip(titles, [c.strip() for c in guess.strip("|").split("|")]))["InteractComp What-if ask: forks"]
    assert forks.isdigit() and int(forks) > 0


FAILING_AGENT = '''
from clarify_tui.agents.scripted import ScriptedAgent
from clarify_tui.errors import AgentUnavailable

class Flaky:
    """Its server is down for one task: those sessions error (infrastructure)."""
    def __init__(self):
        self.inner = ScriptedAgent("direct-guess")
    async def act(self, view):
        if view.task_id.endswith("1"):
            raise AgentUnavailable("down for this task")
        return await self.inner.act(view)
'''


def test_fail_on_error_allows_what_it_is_given_over_the_whole_sweep(tmp_path, capsys):
    (tmp_path / "flaky.py").write_text(FAILING_AGENT, encoding="utf-8")
    file = sweep_file(
        tmp_path,
        f'[sweep]\nbenchmarks = "interactcomp"\nagents = ["py:{tmp_path}/flaky.py:Flaky", '
        '"scripted:direct-guess"]\nlimit = 4\ntask_attempts = 1\n',
    )
    errored = lambda db: len(sessions(db, "errored"))  # noqa: E731
    db = tmp_path / "a.db"
    assert main(["sweep", str(file), "--db", str(db)]) == 1  # as `run`: an errored session fails the command
    n = errored(db)
    assert 0 < n < 8
    assert main(["sweep", str(file), "--db", str(db), "--fail-on-error", str(n)]) == 0
    assert main(["sweep", str(file), "--db", str(db), "--fail-on-error", str(n - 1)]) == 1
    assert f"{n} of 8 session(s) failed" in capsys.readouterr().err
    assert main(["sweep", str(file), "--db", str(db), "--fail-on-error", "0.5"]) == 0
    assert main(["sweep", str(file), "--db", str(db), "--fail-on-error"]) == 1  # bare: any failure
    # --retry-errored plays the errored sessions again (still failing here), keeping the old ones as superseded
    capsys.readouterr()
    assert main(["sweep", str(file), "--db", str(db), "--retry-errored"]) == 1
    assert f"{n} session(s) to play ({8 - n} already done)" in capsys.readouterr().err
    assert len(sessions(db, "superseded")) == n and errored(db) == n


@pytest.mark.parametrize(
    "limit, bad, ended, over",
    [
        (0.0, 0, 10, False),
        (0.0, 1, 10, True),
        (2.0, 2, 10, False),
        (2.0, 3, 10, True),
        (0.25, 2, 10, False),
        (0.25, 3, 10, True),
        (1.0, 1, 10, False),
    ],
)
def test_fail_on_error_reads_a_count_or_a_fraction_of_the_ended_sessions(limit, bad, ended, over):
    from clarify_tui.models import Session
    from clarify_tui.sweep.failures import fail_on_error_exceeded

    played = [
        Session(
            task_id=f"t{i}",
            protocol="interactcomp",
            agent="a",
            user="rule",
            search="local",
            status="errored" if i < bad else "completed",
        )
        for i in range(ended)
    ]
    played.append(
        Session(task_id="x", protocol="interactcomp", agent="a", user="rule", search="local", status="abandoned")
    )  # not ended: never counted
    assert fail_on_error_exceeded(played, limit) == (over, bad, ended)


@pytest.mark.parametrize("text", ["-1", "1.5", "x"])
def test_fail_on_error_refuses_what_is_neither_a_count_nor_a_fraction(text, capsys):
    with pytest.raises(SystemExit):
        main(["sweep", str(DEMO), "--fail-on-error", text])
    assert "a count N" in capsys.readouterr().err


def in_flight_counter(latency: float):
    """interactcomp_router, counting the requests the server holds at once."""
    route = interactcomp_router(latency)
    lock = threading.Lock()
    state = {"now": 0, "most": 0}

    def handle(request: Request) -> Reply:
        with lock:
            state["now"] += 1
            state["most"] = max(state["most"], state["now"])
        try:
            reply = route(request)
            time.sleep(reply.delay)
            reply.delay = 0
            return reply
        finally:
            with lock:
                state["now"] -= 1

    return handle, state


def test_cells_running_at_once_never_send_one_endpoint_more_than_its_limit(tmp_path):
    handle, state = in_flight_counter(0.02)
    with FakeOpenAI(handle) as server:
        (tmp_path / "clarify.toml").write_text("[openai]\nmax_concurrency = 2\n", encoding="utf-8")
        file = sweep_file(
            tmp_path,
            '[sweep]\nbenchmarks = "interactcomp"\nagents = ["openai:a", "openai:b"]\n'
            'users = "openai:u"\njudges = "openai:j"\nlimit = 4\nconfig = "clarify.toml"\n',
        )
        code, _out, err = finish(
            cli(
                "sweep",
                str(file),
                "--db",
                str(tmp_path / "e.db"),
                "--concurrency",
                "8",
                env=cli_env(OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="k"),
                cwd=tmp_path,
            )
        )
        assert code == 0, err
        assert len(server.chat_requests()) >= 8 * 5  # two cells x 4 tasks, five calls each
    assert state["most"] <= 2  # the config's limit, across both cells at once


def test_max_cost_stops_before_spending_past_it_and_the_same_command_goes_on(tmp_path):
    with FakeOpenAI(interactcomp_router(0.0)) as server:
        (tmp_path / "clarify.toml").write_text(
            '[prices."fake"]\ninput_per_mtok = 1.0\noutput_per_mtok = 1.0\n'
            '[prices."a"]\ninput_per_mtok = 1.0\noutput_per_mtok = 1.0\n',
            encoding="utf-8",
        )
        file = sweep_file(
            tmp_path, '[sweep]\nbenchmarks = "interactcomp"\nagents = "openai:a"\nlimit = 6\nconfig = "clarify.toml"\n'
        )
        db = tmp_path / "m.db"
        env = cli_env(OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="k")
        # one session: three agent calls of 900 + 60 tokens at $1/M each way
        per_session = 3 * 960 / 1e6
        code, _out, err = finish(
            cli(
                "sweep",
                str(file),
                "--db",
                str(db),
                "--concurrency",
                "1",
                "--max-cost",
                f"{2.5 * per_session:.6f}",
                env=env,
                cwd=tmp_path,
            )
        )
        assert code == 3, err
        assert len(sessions(db, "completed")) == 2
        assert "stopped by --max-cost" in err and "4 session(s) not played" in err and "--max-cost MORE" in err
        assert f"${2 * per_session:.4f} spent" in err
        # the plan now measures what is left from the sessions played: 3 agent calls each, their cost
        code, out, err = finish(cli("sweep", str(file), "--db", str(db), "--dry-run", env=env, cwd=tmp_path))
        assert code == 0, err
        assert f"  {server.base_url}: 12 calls measured" in out and "    a: 12 calls (measured per session)" in out
        assert f"cost: ${4 * per_session:.4f} expected" in out
        code, _out, err = finish(cli("sweep", str(file), "--db", str(db), "--concurrency", "1", env=env, cwd=tmp_path))
        assert code == 0, err
        assert "4 session(s) to play (2 already done)" in err and len(sessions(db, "completed")) == 6


@pytest.mark.parametrize("flag", ["0/2", "3/2", "x"])
def test_a_bad_shard_is_refused(flag, capsys):
    with pytest.raises(SystemExit):
        main(["sweep", str(DEMO), "--shard", flag])
    assert "I/N" in capsys.readouterr().err


def test_a_sweep_file_without_benchmarks_or_with_run_only_flags_is_one_clean_line(tmp_path):
    for body, says in (
        ("[sweep]\nagents = 'scripted:direct-guess'\n", "needs `benchmarks`"),
        (
            "[sweep]\nbenchmarks = 'cts'\nagents = 'scripted:direct-guess'\nresume = true\n",
            "`resume` cannot be set in a sweep",
        ),
        (
            "[sweep]\nbenchmarks = 'cts'\nagents = 'scripted:direct-guess'\nrounds = 3\n",
            "`rounds` is no `clarify-tui run` setting",
        ),
    ):
        code, _out, err = run_cli("sweep", str(sweep_file(tmp_path, body)), "--dry-run")
        assert code == 2 and says in err and "Traceback" not in err, err
