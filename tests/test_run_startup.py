"""A one-task offline `run` pays only for what it uses: it imports neither sqlite-utils
(which imports pandas and numpy whenever they are installed, doubling `run`'s start-up)
nor Textual, and the search cache it records into still works (plain sqlite3, the table
sqlite-utils used to create). The CPU budget itself is measured by
benchmarks/bench_startup.py, not asserted here (a shared machine's timings are noise)."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

RUN = """
import sys
from clarify_tui.cli import main
code = main(["run", "--benchmark", "interactcomp", "--dataset", "demo", "--agent", "scripted:search-then-ask",
             "--user", "rule", "--search", "local", "--limit", "1", "--run", "one", "--db", sys.argv[1]])
heavy = ("sqlite_utils", "pandas", "numpy", "textual", "statsmodels", "scipy")
print(code, ",".join(m for m in heavy if m in sys.modules))
"""


def test_a_one_task_offline_run_imports_no_sqlite_utils_pandas_nor_textual(tmp_path):
    db = tmp_path / "run.db"
    out = subprocess.run([sys.executable, "-c", RUN, str(db)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "0", out.stdout  # exit 0, nothing heavy imported
    conn = sqlite3.connect(db)
    rows = conn.execute("SELECT kind, backend, query, params, response FROM search_cache").fetchall()
    assert rows and {r[0] for r in rows} <= {"search", "visit"} and {r[1] for r in rows} == {"local"}
    assert all(isinstance(json.loads(r[4]), dict) for r in rows)
    # the same columns sqlite-utils created, key first as primary key
    columns = [(c[1], c[2], c[5]) for c in conn.execute("PRAGMA table_info(search_cache)")]
    assert columns == [
        ("key", "TEXT", 1),
        ("kind", "TEXT", 0),
        ("backend", "TEXT", 0),
        ("query", "TEXT", 0),
        ("params", "TEXT", 0),
        ("response", "TEXT", 0),
        ("created_at", "TEXT", 0),
    ]


def test_a_second_run_replays_the_cache_it_recorded(tmp_path):
    db = str(tmp_path / "run.db")
    base = [
        sys.executable,
        "-m",
        "clarify_tui",
        "run",
        "--benchmark",
        "interactcomp",
        "--dataset",
        "demo",
        "--agent",
        "scripted:search-then-ask",
        "--user",
        "rule",
        "--search",
        "local",
        "--limit",
        "1",
        "--db",
        db,
    ]
    first = subprocess.run([*base, "--run", "a"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert first.returncode == 0, first.stderr
    again = subprocess.run(
        [*base, "--run", "b", "--search-cache", "replay"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert again.returncode == 0, again.stderr
    assert "1 completed, 0 errored" in again.stderr + again.stdout
