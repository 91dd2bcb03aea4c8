"""Can a run be trusted? Two writers on one run, and a faulty server then a retry.

1. Two `clarify-tui run` processes started together on the same run (both --resume, as
   an operator restarting a run twice would) against a loopback model with a fixed
   latency: count sessions and distinct tasks. Target: sessions == tasks, every trial.
2. kill -9 of a run mid-way, then --resume: finished sessions kept, no duplicates.
3. A run against a loopback model that fails FAULT of its requests (HTTP 500 and 200s
   whose body is not JSON, alternately), then `--resume --retry-errored` against a healthy
   one: every task completed, superseded sessions == errored sessions of the first pass,
   and `score` counts each task once (n_sessions == tasks).
4. Optionally (--concurrency-check) C = 64 on the task set with the endpoint limit
   raised (the default now) against a config pinning it at 32.

The model server runs in its own process (clarify_tui/testing/loopback.py, --serve below).

    .venv/bin/python benchmarks/bench_run_trust.py [--tasks 60] [--trials 3] [--fault 0.3]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def serve(latency: float, fault: float, seed: int) -> None:
    """A fake OpenAI server (InteractComp world) failing `fault` of the requests."""
    from clarify_tui.testing.loopback import FakeOpenAI, Reply, error, interactcomp_router

    healthy = interactcomp_router(latency)
    rng, lock, count = random.Random(seed), threading.Lock(), [0]

    def handle(request):
        with lock:
            bad = rng.random() < fault
            count[0] += 1
            n = count[0]
        if bad:
            return error(500, "injected fault") if n % 2 else Reply(status=200, body="<html>gateway hiccup")
        return healthy(request)

    with FakeOpenAI(handle) as server:
        print(server.base_url, flush=True)
        while True:
            time.sleep(1)


def start_server(latency: float, fault: float = 0.0, seed: int = 0) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [sys.executable, __file__, "--serve", "--latency", str(latency), "--fault", str(fault), "--seed", str(seed)],
        stdout=subprocess.PIPE,
        text=True,
    )
    url = proc.stdout.readline().strip()
    if not url.startswith("http://127.0.0.1:"):
        proc.kill()
        raise RuntimeError(f"the fake server did not start ({url!r})")
    return proc, url


def dataset(path: Path, n: int) -> Path:
    from clarify_tui.tasks import load_tasks

    base = load_tasks("interactcomp", "demo")
    path.write_text(
        "".join(base[i % len(base)].model_copy(update={"id": f"t{i:03d}"}).model_dump_json() + "\n" for i in range(n)),
        encoding="utf-8",
    )
    return path


def run_cmd(db: Path, data: Path, name: str, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "clarify_tui",
        "run",
        "--benchmark",
        "interactcomp",
        "--dataset",
        str(data),
        "--agent",
        "openai:a",
        "--user",
        "openai:u",
        "--judge",
        "openai:j",
        "--db",
        str(db),
        "--run",
        name,
        "--search-cache",
        "off",
        *extra,
    ]


def env_for(url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "CLARIFY_"))}
    return {**env, "OPENAI_BASE_URL": url, "PYTHONPATH": str(ROOT)}


def sessions(db: Path, run: str):
    from clarify_tui.store import Store

    store = Store(db, readonly=True)
    try:
        return store.sessions(runs=[run])
    finally:
        store.close()


def two_writers(tmp: Path, tasks: int, trials: int, latency: float) -> None:
    proc, url = start_server(latency)
    data = dataset(tmp / "two.jsonl", tasks)
    try:
        for trial in range(trials):
            db = tmp / f"two-{trial}.db"
            # --resume needs a run to resume: start it with one task, then race two writers on the rest
            subprocess.run(
                run_cmd(db, data, "same", "--limit", "1"),
                env=env_for(url),
                check=True,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            started = time.perf_counter()
            procs = [
                subprocess.Popen(
                    run_cmd(db, data, "same", "--resume", "--concurrency", "8"),
                    env=env_for(url),
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE,
                    text=True,
                )
                for _ in range(2)
            ]
            outcomes = [(p.wait(), p.stderr.read()) for p in procs]
            found = sessions(db, "same")
            refused = [err.strip().splitlines()[-1][:140] for code, err in outcomes if code == 2]
            print(
                f"two writers, trial {trial + 1}: exit codes {[c for c, _ in outcomes]}, "
                f"{len(found)} sessions for {tasks} tasks ({len({s.task_id for s in found})} distinct), "
                f"{time.perf_counter() - started:.1f} s; refused: {refused}"
            )
    finally:
        proc.kill()


def fault_then_retry(tmp: Path, tasks: int, fault: float, latency: float, retries: int) -> None:
    data = dataset(tmp / "fault.jsonl", tasks)
    db = tmp / "fault.db"
    proc, url = start_server(latency, fault=fault, seed=1)
    try:
        first = subprocess.run(
            run_cmd(db, data, "f", "--concurrency", "16", "--set", f"openai.max_retries={retries}"),
            env=env_for(url),
            capture_output=True,
            text=True,
        )
    finally:
        proc.kill()
    before = sessions(db, "f")
    errored = [s for s in before if s.status == "errored"]
    retry_line = next((line for line in first.stderr.splitlines() if line.startswith("retries:")), "retries: none")
    print(
        f"fault {fault:.0%}, max_retries {retries}: exit {first.returncode}, "
        f"{sum(s.status == 'completed' for s in before)} completed, {len(errored)} errored of {tasks}; {retry_line}"
    )
    proc, url = start_server(latency)
    try:
        second = subprocess.run(
            run_cmd(db, data, "f", "--concurrency", "16", "--resume", "--retry-errored"),
            env=env_for(url),
            capture_output=True,
            text=True,
        )
    finally:
        proc.kill()
    after = sessions(db, "f")
    live = [s for s in after if s.status != "superseded"]
    per_task = {}
    for s in live:
        per_task[s.task_id] = per_task.get(s.task_id, 0) + 1
    score = subprocess.run(
        [sys.executable, "-m", "clarify_tui", "score", "--db", str(db), "--format", "json"],
        env=env_for(url),
        capture_output=True,
        text=True,
    )
    n = (
        json.loads(score.stdout)["groups"][0]["n_sessions"]
        if score.returncode == 0
        else f"score failed: {score.stderr}"
    )
    print(
        f"  --resume --retry-errored (healthy): exit {second.returncode}, "
        f"{sum(s.status == 'completed' for s in live)} completed of {tasks}, "
        f"{sum(s.status == 'superseded' for s in after)} superseded (errored before: {len(errored)}), "
        f"tasks with more than one live session: {sum(c > 1 for c in per_task.values())}, score n_sessions = {n}"
    )


def wait_for_completed(db: Path, n: int, timeout: float = 120) -> None:
    import sqlite3

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
            done = conn.execute("SELECT count(*) FROM sessions WHERE status = 'completed'").fetchone()[0]
            conn.close()
            if done >= n:
                return
        except sqlite3.Error:
            pass
        time.sleep(0.05)


def kill_and_resume(tmp: Path, tasks: int, trials: int, latency: float) -> None:
    """kill -9 a run mid-way, resume it at once (the dead holder's lease is taken over)."""
    proc, url = start_server(latency)
    data = dataset(tmp / "kill.jsonl", tasks)
    try:
        for trial in range(trials):
            db = tmp / f"kill-{trial}.db"
            victim = subprocess.Popen(
                run_cmd(db, data, "k", "--concurrency", "8"),
                env=env_for(url),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            wait_for_completed(db, 5 + 10 * trial)
            victim.kill()
            victim.wait()
            before = sessions(db, "k")
            done_before = {s.id for s in before if s.status == "completed"}
            again = subprocess.run(
                run_cmd(db, data, "k", "--concurrency", "8", "--resume"),
                env=env_for(url),
                capture_output=True,
                text=True,
            )
            after = sessions(db, "k")
            completed = [s for s in after if s.status == "completed"]
            kept = done_before <= {s.id for s in completed}
            print(
                f"kill -9 trial {trial + 1}: {len(done_before)} completed at the kill, resume exit {again.returncode}, "
                f"{len(completed)} completed for {tasks} tasks ({len({s.task_id for s in completed})} distinct), "
                f"finished sessions kept: {kept}"
            )
    finally:
        proc.kill()


def concurrency_check(tmp: Path, tasks: int, latency: float) -> None:
    data = dataset(tmp / "conc.jsonl", tasks)
    pinned = tmp / "pinned.toml"
    pinned.write_text("[openai]\nmax_concurrency = 32\n", encoding="utf-8")
    proc, url = start_server(latency)
    try:
        for label, extra in (("limit raised to 64", []), ("config pins 32", ["--config", str(pinned)])):
            db = tmp / f"conc-{len(extra)}.db"
            started = time.perf_counter()
            out = subprocess.run(
                run_cmd(db, data, "c", "--concurrency", "64", *extra), env=env_for(url), capture_output=True, text=True
            )
            line = next((x for x in out.stderr.splitlines() if x.startswith("model calls")), "?")
            print(
                f"C=64, {tasks} tasks, {label}: {time.perf_counter() - started:.2f} s wall (exit {out.returncode}); {line}"
            )
    finally:
        proc.kill()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--tasks", type=int, default=60)
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--fault", type=float, default=0.3)
    parser.add_argument("--latency", type=float, default=0.02)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--retries", type=int, default=1, help="max_retries for the faulty pass (default 1)")
    parser.add_argument("--concurrency-check", action="store_true")
    args = parser.parse_args()
    if args.serve:
        serve(args.latency, args.fault, args.seed)
        return
    with tempfile.TemporaryDirectory() as tmp:
        two_writers(Path(tmp), args.tasks, args.trials, args.latency)
        kill_and_resume(Path(tmp), args.tasks, args.trials, args.latency)
        for retries in dict.fromkeys((args.retries, 4)):  # 4: the default max_retries
            where = Path(tmp) / f"retries-{retries}"
            where.mkdir()
            fault_then_retry(where, args.tasks, args.fault, args.latency, retries)
        if args.concurrency_check:
            concurrency_check(Path(tmp), 210, 0.1)


if __name__ == "__main__":
    main()
