"""What an endpoint that accepts and never answers costs a run, with and without the
circuit breaker (`stop_after_failures` of `[openai]`, `[tavily]`, `[serper]`; docs/runs.md
"Dead endpoints").

Plays the bundled InteractComp demo (11 tasks, 3 attempts each, --concurrency 4) against
a loopback server that reads each request and sits on it, with short timeouts so the
measurement takes seconds; prints wall time and requests for each setting. `model`: every
role is an OpenAI-compatible model on the dead server. `tavily`: the model roles are
offline (a scripted agent, the rule user and judge) and Tavily is the dead server.

    PYTHONPATH=. /work/venv/bin/python benchmarks/bench_dead_endpoint.py [--timeout 1] [--retries 1] [--endpoint model|tavily|both]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from clarify_tui.cli import main as cli  # noqa: E402
from clarify_tui.testing.loopback import FakeOpenAI, FakeTavily, Reply  # noqa: E402


def silent(request) -> Reply:
    return Reply(status=200, body="{}", delay=600)


def _model_run(url: str, timeout: float, retries: int, stop: int) -> list[str]:
    return [
        "run",
        "--benchmark",
        "interactcomp",
        "--agent",
        "openai:a",
        "--user",
        "openai:u",
        "--judge",
        "openai:j",
        "--set",
        f'openai.base_url="{url}"',
        "--set",
        f"openai.timeout={timeout}",
        "--set",
        f"openai.max_retries={retries}",
        "--set",
        f"openai.stop_after_failures={stop}",
    ]


def _tavily_run(url: str, timeout: float, retries: int, stop: int) -> list[str]:
    return [
        "run",
        "--benchmark",
        "interactcomp",
        "--agent",
        "scripted:search-heavy-guess",
        "--search",
        "tavily",
        "--search-cache",
        "off",
        "--set",
        f'tavily.base_url="{url}"',
        "--set",
        f"tavily.timeout={timeout}",
        "--set",
        f"tavily.max_retries={retries}",
        "--set",
        "tavily.backoff_initial=0.01",
        "--set",
        f"tavily.stop_after_failures={stop}",
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=1.0, help="timeout of the dead endpoint (seconds per attempt)")
    parser.add_argument("--retries", type=int, default=1, help="max_retries of the dead endpoint")
    parser.add_argument("--endpoint", choices=("model", "tavily", "both"), default="both")
    args = parser.parse_args()
    os.environ.setdefault("OPENAI_API_KEY", "sk-bench")
    os.environ.setdefault("TAVILY_API_KEY", "tvly-bench")
    kinds = ("model", "tavily") if args.endpoint == "both" else (args.endpoint,)
    for kind in kinds:
        server_class, command = (FakeOpenAI, _model_run) if kind == "model" else (FakeTavily, _tavily_run)
        for stop in (5, 0):
            with server_class(silent) as server, tempfile.TemporaryDirectory() as folder:
                url = server.base_url if isinstance(server, FakeOpenAI) else server.url
                started = time.perf_counter()
                code = cli(
                    [*command(url, args.timeout, args.retries, stop), "--db", f"{folder}/dead.db", "--run", "dead"]
                )
                print(
                    f"{kind} endpoint, stop_after_failures={stop}: exit {code}, "
                    f"{time.perf_counter() - started:.1f} s, {len(server.requests)} requests",
                    file=sys.stderr,
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
