"""How close do model-backed InteractComp episodes come to the latency bound?

A loopback OpenAI-compatible server (clarify_tui/testing/loopback.py, in its own process so it does not
share our GIL) answers every call after a fixed latency L. Each episode makes its calls
one after another (agent search, agent ask, responder, agent answer, grader), so with C
episodes in flight the best possible rate is C / (calls per episode x L) episodes/s.
We run N episodes at concurrency C and print the rate and its ratio to that bound.
Target: ratio >= 0.9.

N episodes of equal length run in ceil(N / C) waves, so even a perfect client reaches
only N / (ceil(N / C) x calls x L): 0.893 of the bound for N=200, C=32. We print the
ratio to that finite-N ceiling as well, which is what the client's overhead decides.

    /tmp/venv/bin/python benchmarks/bench_llm_throughput.py [--latency 0.1] [--concurrency 32] [--episodes 200]
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import subprocess
import sys
import time
from pathlib import Path

from clarify_tui.engine import build_episode
from clarify_tui.models import Answer, EpisodeConfig, InteractCompPart, SearchHit, Task
from clarify_tui.search.base import SearchResult
from clarify_tui.services import build_agent, build_judge, build_user

ROOT = Path(__file__).resolve().parent.parent


class InstantSearch:
    """A search that costs nothing, so only model calls are measured."""

    spec = "instant"

    async def search(self, query: str, max_results: int = 5) -> SearchResult:
        hit = SearchHit(title="Hornussen", url="https://example.org/h", content="A Swiss team striking sport.")
        return SearchResult(query=query, hits=[hit])

    async def visit(self, url: str) -> str | None:
        return None


def start_server(latency: float, seconds: float) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "clarify_tui.testing.loopback", "--latency", str(latency), "--seconds", str(seconds)],
        stdout=subprocess.PIPE,
        cwd=ROOT,  # a checkout: the package beside the benchmark
        text=True,
    )
    base_url = proc.stdout.readline().strip()
    if not base_url.startswith("http://127.0.0.1:"):
        proc.kill()
        raise RuntimeError(f"the fake server did not start (said {base_url!r})")
    return proc, base_url


async def run(base_url: str, episodes: int, concurrency: int) -> tuple[float, list]:
    from clarify_tui.config import Config

    config = Config.model_validate({"openai": {"base_url": base_url, "max_concurrency": concurrency, "timeout": 30}})
    os.environ.setdefault("OPENAI_API_KEY", "bench-no-key")
    agent, user, judge = build_agent("agent-m", config), build_user("user-m", config), build_judge("judge-m", config)
    search = InstantSearch()
    gate = asyncio.Semaphore(concurrency)
    tasks = [
        Task(
            id=f"b{i}",
            protocol="interactcomp",
            question=f"Which team striking sport uses a puck? ({i})",
            answer=Answer(text="Hornussen"),
            interactcomp=InteractCompPart(context="A plastic puck is struck."),
        )
        for i in range(episodes)
    ]

    async def play(task: Task):
        async with gate:
            episode = build_episode(task, agent=agent, user=user, search=search, judge=judge, config=EpisodeConfig())
            await episode.run()
            return episode

    await play(tasks[0])  # warm up connections and imports outside the measurement
    started, cpu = time.perf_counter(), time.process_time()
    done = await asyncio.gather(*(play(t) for t in tasks))
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    for component in (agent, user, judge):
        await component.aclose()
    print(f"client CPU per episode: {cpu / episodes * 1000:.1f} ms")
    return elapsed, done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.1, help="server latency per call, seconds (L)")
    parser.add_argument("--concurrency", type=int, default=32, help="episodes in flight (C)")
    parser.add_argument("--episodes", type=int, default=200)
    args = parser.parse_args()

    proc, base_url = start_server(args.latency, seconds=600)
    try:
        elapsed, episodes = asyncio.run(run(base_url, args.episodes, args.concurrency))
    finally:
        proc.terminate()
        proc.wait(timeout=10)

    failed = [e.session for e in episodes if e.session.status != "completed"]
    if failed:
        raise SystemExit(f"{len(failed)} episode(s) did not complete; first error: {failed[0].error}")
    calls = {sum(1 for s in e.steps if s.tokens_in) for e in episodes}
    if len(calls) != 1:
        raise SystemExit(f"episodes made different numbers of model calls: {sorted(calls)}")
    per_episode = calls.pop()
    rate = args.episodes / elapsed
    bound = args.concurrency / (per_episode * args.latency)
    print(f"episodes: {args.episodes}  concurrency C: {args.concurrency}  latency L: {args.latency * 1000:.0f} ms")
    print(f"model calls per episode: {per_episode}  wall time: {elapsed:.2f} s")
    print(f"throughput: {rate:.1f} episodes/s  bound C/(calls x L): {bound:.1f} episodes/s")
    ceiling = args.episodes / (math.ceil(args.episodes / args.concurrency) * per_episode * args.latency)
    print(f"ratio: {rate / bound:.3f}  (target >= 0.9)")
    print(f"finite-N ceiling: {ceiling:.1f} episodes/s  ratio to it: {rate / ceiling:.3f}")


if __name__ == "__main__":
    main()
