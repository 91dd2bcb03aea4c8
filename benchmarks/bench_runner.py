"""Runner throughput and engine overhead per step (a benchmark, not a test).

Plays N offline episodes (the bundled demo tasks, cycled, all four scripted agents) at
concurrency C into a fresh database and prints episodes per second and the median
engine overhead per agent step: the wall time of `Episode.step()` minus the time spent
inside the agent, user, search and judge backends. Overhead is what the engine itself
costs: views, state snapshots, step records and the SQLite write-through.

    python benchmarks/bench_runner.py [--episodes 1000] [--concurrency 16]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from clarify_tui.agents.scripted import POLICIES, ScriptedAgent
from clarify_tui.engine import build_episode
from clarify_tui.judges.rule import RuleJudge
from clarify_tui.models import EpisodeConfig
from clarify_tui.search.local import LocalSearch
from clarify_tui.store import Store
from clarify_tui.tasks import load_tasks
from clarify_tui.users.rule import RuleUser


class Timed:
    """Wraps a backend and adds the time spent in its coroutines to a shared clock."""

    def __init__(self, inner, clock: list[float]) -> None:
        self._inner, self._clock = inner, clock
        self.spec = inner.spec

    def __getattr__(self, name):
        attr = getattr(self._inner, name)
        if not callable(attr):
            return attr

        async def timed(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return await attr(*args, **kwargs)
            finally:
                self._clock[0] += time.perf_counter() - t0

        return timed


async def main(episodes: int, concurrency: int) -> None:
    tasks = []
    for bench in ("discobench", "interactcomp", "cts"):
        tasks += load_tasks(bench, "demo")
    search = LocalSearch()
    db_path = Path(tempfile.mkdtemp()) / "bench.db"
    store = Store(db_path)
    gate = asyncio.Semaphore(concurrency)
    overheads: list[float] = []
    steps_total = 0

    async def play(i: int) -> None:
        nonlocal steps_total
        clock = [0.0]
        task = tasks[i % len(tasks)]
        agent = ScriptedAgent(POLICIES[i % len(POLICIES)])
        async with gate:
            ep = build_episode(
                task,
                agent=Timed(agent, clock),
                user=Timed(RuleUser(), clock),
                search=Timed(search, clock),
                judge=Timed(RuleJudge(), clock),
                config=EpisodeConfig(k=2),
                sink=store,
            )
            ep.session.run = "bench"
            while not ep.done:
                clock[0] = 0.0
                t0 = time.perf_counter()
                await ep.step()
                overheads.append((time.perf_counter() - t0 - clock[0]) * 1000)
            steps_total += len(ep.steps)

    t0 = time.perf_counter()
    await asyncio.gather(*(play(i) for i in range(episodes)))
    wall = time.perf_counter() - t0
    print(f"episodes:                   {episodes} at concurrency {concurrency} ({steps_total} steps stored)")
    print(f"wall time:                  {wall:.2f} s")
    print(f"episodes per second:        {episodes / wall:.1f}")
    print(f"median engine overhead:     {statistics.median(overheads):.3f} ms per agent step")
    print(f"p90 engine overhead:        {statistics.quantiles(overheads, n=10)[-1]:.3f} ms per agent step")
    print(f"database:                   {db_path} ({db_path.stat().st_size / 1e6:.1f} MB)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()
    asyncio.run(main(args.episodes, args.concurrency))
