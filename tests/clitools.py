"""Run the real `clarify-tui` command in a subprocess (several writers on one database,
a read-only file as an unprivileged user, a closed pipe)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def cli_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "TAVILY_", "CLARIFY_"))}
    env["PYTHONPATH"] = str(ROOT)
    env.update(extra)
    return env


def cli(*args: str, env: dict[str, str] | None = None, user: int | None = None, **kw) -> subprocess.Popen:
    """Start `python -m clarify_tui <args>`; read .returncode/.stdout/.stderr after communicate()."""
    return subprocess.Popen(
        [sys.executable, "-m", "clarify_tui", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env or cli_env(),
        cwd=kw.pop("cwd", ROOT),
        user=user,
        **kw,
    )


def finish(proc: subprocess.Popen, timeout: float = 120) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out, err


def run_cli(*args: str, **kw) -> tuple[int, str, str]:
    return finish(cli(*args, **kw))


def scripted_run(db, benchmark: str, agent: str, name: str, limit: int, *extra: str) -> list[str]:
    """`clarify-tui run` of the first `limit` demo tasks of `benchmark` with the scripted
    `agent`, one at a time, into `db` as run `name`, then `extra`."""
    return [
        "run",
        "--benchmark",
        benchmark,
        "--dataset",
        "demo",
        "--agent",
        f"scripted:{agent}",
        "--db",
        str(db),
        "--run",
        name,
        "--limit",
        str(limit),
        "--concurrency",
        "1",
        *extra,
    ]
