"""Time `clarify-tui score` over 10,000 sessions with 100,000 steps.

    python benchmarks/bench_score.py [--db /tmp/bench_score.db] [--sessions 10000] [--keep] [--reuse]

The database is filled from real engine trajectories: one session per protocol and
policy is played through the engine on the bundled demo tasks (offline), then its rows
are cloned with fresh ids, other task ids and randomised results (correctness,
confidence, checkpoint outcomes, nugget coverage, UA answers) until there are N
sessions of 10 steps each (about 1% errored). Runs have the releases' sizes: four CTS
runs on 518 tasks (orig, k1, k2, k3: three delta_vs_orig with a 10,000-resample paired
bootstrap each are part of the timing), then InteractComp (210) and DiscoBench (211)
runs, alternating a guessing and an asking agent, up to N sessions (~40 groups).

Prints the in-process time of `metrics.score()` and the wall time of the whole command
(`python -m clarify_tui score --format json`), interpreter start-up included: by default
(serial), with `--jobs 2` (bootstrap chunks on two processes: helps on an idle machine,
not on a busy one), and with `--bootstrap 0` (no CI) to show what the three
10,000-resample paired bootstraps cost.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

STEPS_PER_SESSION = 10
# Release sizes: InteractComp 210 tasks, DiscoBench 211, Clarify-Then-Search 518.
TASKS = {"interactcomp": 210, "discobench": 211, "cts": 518}
TEMPLATES = [
    ("interactcomp", "scripted:search-then-ask", 1),
    ("interactcomp", "scripted:direct-guess", 1),
    ("discobench", "scripted:search-then-ask", 1),
    ("discobench", "scripted:direct-guess", 1),
    ("cts", "scripted:direct-guess", 1),  # orig: no clarification
    ("cts", "scripted:search-then-ask", 1),
    ("cts", "scripted:search-then-ask", 2),
    ("cts", "scripted:search-then-ask", 3),
]


def plan(n_sessions: int) -> list[tuple[str, str, tuple[str, str, int], int]]:
    """(benchmark, run name, template, sessions): the four CTS runs (orig, k1, k2, k3) on the
    518 tasks, then InteractComp and DiscoBench runs of a release each, alternating agents,
    until n_sessions; the last run is cut to fit."""
    runs = []
    for template in TEMPLATES[4:]:
        name = "cts-orig" if template[1].endswith("guess") else f"cts-k{template[2]}"
        runs.append(("cts", name, template, TASKS["cts"]))
    total, i = sum(r[3] for r in runs), 0
    while total < n_sessions:
        template = TEMPLATES[i % 4]
        size = min(TASKS[template[0]], n_sessions - total)
        runs.append((template[0], f"{template[0]}-{template[1].split(':')[1]}-{i:02d}", template, size))
        total += size
        i += 1
    return runs


async def templates() -> dict[tuple[str, str, int], tuple[dict, list[dict], dict]]:
    """One engine-played (session row, step rows, task row) per template, from the demo."""
    from clarify_tui.backends import make_agent, make_judge, make_search, make_user
    from clarify_tui.engine import build_episode
    from clarify_tui.models import EpisodeConfig, Session
    from clarify_tui.store import Store
    from clarify_tui.tasks import load_tasks

    store = Store(":memory:")
    out = {}
    for benchmark, agent_spec, k in TEMPLATES:
        run = f"template-{benchmark}-{agent_spec}-{k}"
        task = load_tasks(benchmark, "demo")[0]
        agent = make_agent(agent_spec)
        session = Session(
            run=run,
            task_id=task.id,
            protocol=task.protocol,
            agent=agent.spec,
            user="rule",
            search="local",
            judge="rule",
        )
        ep = build_episode(
            task,
            agent=agent,
            user=make_user("rule"),
            search=make_search("local"),
            judge=make_judge("rule"),
            config=EpisodeConfig(k=k),
            session=session,
            sink=store,
        )
        await ep.run()
        row = next(store.db.query("SELECT * FROM sessions WHERE id = ?", [session.id]))
        steps = list(store.db.query("SELECT * FROM steps WHERE session_id = ? ORDER BY idx", [session.id]))
        task_row = next(store.db.query("SELECT * FROM tasks WHERE key = ?", [row["task_key"]]))
        out[(benchmark, agent_spec, k)] = (row, steps, task_row)
    return out


def randomise(benchmark: str, result: dict, rng: random.Random, orig: bool) -> dict:
    r = json.loads(json.dumps(result))
    if benchmark == "interactcomp":
        r["correct"] = rng.random() < 0.3
        r["confidence"] = None if rng.random() < 0.1 else rng.choice([50, 70, 80, 90, 95, 100])
        r["rounds"] = rng.randint(1, 10)
        r["asks"] = rng.randint(0, r["rounds"] - 1)
    elif benchmark == "discobench":
        r["correct"] = rng.random() < 0.35
        for cp in r["checkpoints"]:
            cp["outcome"] = rng.choice(["correct_answer", "missed_ambiguity_correct", "failed", "unreached"])
            cp["reached"] = cp["outcome"] != "unreached"
            cp["asked"] = cp["reached"] and rng.random() < 0.4
            cp["asked_right"] = cp["asked"] and cp["type"] == "ambi" and rng.random() < 0.7
            cp["searches"] = rng.randint(0, 6)
            cp["searches_before_first_ask"] = rng.randint(0, cp["searches"]) if cp["asked"] else None
            cp["advanced"] = cp["outcome"] in ("correct_answer", "missed_ambiguity_correct")
    else:
        for row in r.get("coverage") or []:
            row["coverage"] = rng.choice(["full", "partial", "none", "none"])
        if not orig:
            r["answers"] = [rng.choice(["unknown", "unknown", "2023", "Europe"]) for _ in r.get("questions", [])]
            r["aspects"] = [rng.choice(["region", "time", "entity", "scope"]) for _ in r.get("questions", [])]
    return r


def build(path: Path, n_sessions: int, seed: int = 0) -> None:
    from clarify_tui.store import Store

    rng = random.Random(seed)
    tpl = asyncio.run(templates())
    store = Store(path)
    conn = store.db.conn
    session_cols = list(next(iter(tpl.values()))[0].keys())
    step_cols = list(next(iter(tpl.values()))[1][0].keys())
    sessions, steps = [], []
    for r_i, (benchmark, run, template, count) in enumerate(plan(n_sessions)):
        row, step_rows, task_row = tpl[template]
        conn.execute(
            "INSERT OR IGNORE INTO tasks (key, task_id, protocol, data) VALUES (?, ?, ?, ?)",
            [task_row["key"], task_row["task_id"], task_row["protocol"], task_row["data"]],
        )
        conn.execute(
            "INSERT OR IGNORE INTO runs (name, created_at, benchmark) VALUES (?, ?, ?)",
            [run, row["created_at"], benchmark],
        )
        result = json.loads(row["result"])
        for i in range(count):
            sid = f"{run}-{i:06d}"
            new = dict(row)
            new["id"], new["task_id"], new["run"] = sid, f"t{i:05d}", run
            new["created_at"] = f"{row['created_at']}-{r_i}-{i:06d}"
            new["status"] = "errored" if rng.random() < 0.01 else "completed"
            new["result"] = json.dumps(randomise(benchmark, result, rng, bool(result.get("orig"))))
            sessions.append([new[c] for c in session_cols])
            for idx in range(STEPS_PER_SESSION):
                step = dict(step_rows[idx % len(step_rows)])
                step["session_id"], step["idx"] = sid, idx
                step["tokens_in"], step["tokens_out"] = rng.randint(200, 900), rng.randint(10, 200)
                step["cost_usd"] = step["tokens_in"] * 2.5e-6 + step["tokens_out"] * 1e-5
                steps.append([step[c] for c in step_cols])
    with conn:
        conn.executemany(
            f"INSERT INTO sessions ({', '.join(session_cols)}) VALUES ({', '.join('?' * len(session_cols))})", sessions
        )
        conn.executemany(
            f"INSERT INTO steps ({', '.join(step_cols)}) VALUES ({', '.join('?' * len(step_cols))})", steps
        )
    store.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", type=Path, default=None)
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--keep", action="store_true", help="keep the database")
    parser.add_argument("--reuse", action="store_true", help="time an existing --db instead of building one")
    args = parser.parse_args()
    path = args.db or Path(tempfile.mkdtemp(prefix="bench_score_")) / "bench.db"
    if path.exists() and args.reuse:
        print(f"reusing {path}")
    else:
        path.unlink(missing_ok=True)
        t0 = time.perf_counter()
        build(path, args.sessions)
        print(
            f"built {path}: {args.sessions} sessions, {args.sessions * STEPS_PER_SESSION} steps "
            f"in {time.perf_counter() - t0:.1f} s"
        )

    from clarify_tui.metrics import score
    from clarify_tui.store import Store

    store = Store(path)
    best = float("inf")
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        report = score(store)
        best = min(best, time.perf_counter() - t0)
    print(f"metrics.score() in process: {best:.2f} s (best of {args.repeat}); {len(report['groups'])} groups")
    for extra in ([], ["--jobs", "2"], ["--bootstrap", "0"]):
        walls = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "clarify_tui", "score", "--db", str(path), "--format", "json", *extra],
                check=True,
                stdout=subprocess.DEVNULL,
            )
            walls.append(time.perf_counter() - t0)
        label = " ".join(["clarify-tui score --format json", *extra])
        print(f"{label} (wall, incl. start-up): best {min(walls):.2f} s, median {sorted(walls)[len(walls) // 2]:.2f} s")
    if not args.keep:
        path.unlink()
        for extra in ("-wal", "-shm"):
            Path(str(path) + extra).unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
