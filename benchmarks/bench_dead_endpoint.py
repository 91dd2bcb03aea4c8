"""What a model server that accepts and never answers costs a run, with and without the
circuit breaker (`[openai] stop_after_failures`, docs/runs.md "Dead endpoints").

Plays the bundled InteractComp demo (11 tasks, 3 attempts each, --concurrency 4) against
a loopback server that reads each request and sits on it, with short timeouts so the
measurement takes seconds; prints wall time and requests for each setting.

    PYTHONPATH=. /work/venv/bin/python benchmarks/bench_dead_endpoint.py [--timeout 1] [--retries 1]
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
from clarify_tui.testing.loopback import FakeOpenAI, Reply  # noqa: E402


def silent(request) -> Reply:
    return Reply(status=200, body="{}", delay=600)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=1.0, help="openai.timeout (seconds per attempt)")
    parser.add_argument("--retries", type=int, default=1, help="openai.max_retries")
    args = parser.parse_args()
    os.environ.setdefault("OPENAI_API_KEY", "sk-bench")
    for stop in (5, 0):
        with FakeOpenAI(silent) as server, tempfile.TemporaryDirectory() as folder:
            started = time.perf_counter()
            code = cli(["run", "--benchmark", "interactcomp", "--agent", "openai:a", "--user", "openai:u",
                        "--judge", "openai:j", "--db", f"{folder}/dead.db", "--run", "dead",
                        "--set", f'openai.base_url="{server.base_url}"', "--set", f"openai.timeout={args.timeout}",
                        "--set", f"openai.max_retries={args.retries}", "--set", f"openai.stop_after_failures={stop}"])
            print(f"stop_after_failures={stop}: exit {code}, {time.perf_counter() - started:.1f} s, "
                  f"{len(server.chat_requests())} requests", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
