"""How many sessions per second does one `clarify-tui sweep` process drive? (docs/scale.md)

The real command, end to end (its database writes, its progress, the local search of the
demo), against the loopback fake OpenAI server (clarify_tui/testing/loopback.py) in a
process of its own, which answers every call after a fixed latency L. An InteractComp
session there makes 5 model calls one after another (agent, agent, responder, agent,
grader), so with C sessions in flight the best rate is C / (5 x L) sessions/s. The rate is
measured from the database (first session started to last one ended), so the interpreter's
start is not counted.

    python benchmarks/bench_sweep.py [--latency 0.5] [--concurrency 50 100 200] [--waves 4]
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEMO_TASKS = 11  # the bundled InteractComp demo
CALLS = 5


def start_server(latency: float) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "clarify_tui.testing.loopback", "--latency", str(latency), "--seconds", "1200"],
        stdout=subprocess.PIPE,
        cwd=ROOT,
        text=True,
    )
    assert proc.stdout is not None
    url = proc.stdout.readline().strip()
    if not url.startswith("http://127.0.0.1:"):
        proc.kill()
        raise RuntimeError(f"the fake server did not start (said {url!r})")
    return proc, url


def one(url: str, latency: float, concurrency: int, waves: int, work: Path) -> str:
    epochs = max(1, round(waves * concurrency / DEMO_TASKS))
    sessions = epochs * DEMO_TASKS
    config = work / "clarify.toml"
    config.write_text(f"[openai]\nmax_concurrency = {concurrency}\ntimeout = 60\n", encoding="utf-8")
    file = work / f"c{concurrency}.toml"
    file.write_text(
        f'[sweep]\nname = "bench"\nbenchmarks = "interactcomp"\nagents = "openai:agent-m"\n'
        f'users = "openai:user-m"\njudges = "openai:judge-m"\nepochs = {epochs}\nconfig = "{config}"\n',
        encoding="utf-8",
    )
    db = work / f"c{concurrency}.db"
    env = {
        **os.environ,
        "OPENAI_BASE_URL": url,
        "OPENAI_API_KEY": "bench-no-key",
        "PYTHONPATH": str(ROOT),
        "CLARIFY_PROGRESS_EVERY": "3600",
    }
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "clarify_tui", "sweep", str(file), "--db", str(db), "--concurrency", str(concurrency)],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"sweep failed ({done.returncode}): {done.stderr[-2000:]}")
    conn = sqlite3.connect(db)
    first, last, completed = conn.execute(
        "SELECT min(created_at), max(finished_at), sum(status = 'completed') FROM sessions"
    ).fetchone()
    conn.close()
    span = (datetime.fromisoformat(last) - datetime.fromisoformat(first)).total_seconds()
    rate = sessions / span
    bound = concurrency / (CALLS * latency)
    return (
        f"| {concurrency} | {sessions} | {completed} | {span:.1f} | {wall:.1f} | {rate:.1f} | "
        f"{sessions * CALLS / span:.0f} | {bound:.1f} | {rate / bound:.2f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.5, help="server latency per call, seconds (L)")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[50, 100, 200], help="sessions in flight (C)")
    parser.add_argument("--waves", type=int, default=4, help="sessions = about waves x C")
    args = parser.parse_args()
    proc, url = start_server(args.latency)
    try:
        print(f"latency L = {args.latency * 1000:.0f} ms per call, {CALLS} calls per session; {os.cpu_count()} CPU(s)")
        print("| C | sessions | completed | played in (s) | wall (s) | sessions/s | calls/s | bound C/(5L) | ratio |")
        print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        with tempfile.TemporaryDirectory(prefix="bench-sweep-") as tmp:
            for c in args.concurrency:
                print(one(url + "/v1", args.latency, c, args.waves, Path(tmp)), flush=True)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


if __name__ == "__main__":
    main()
