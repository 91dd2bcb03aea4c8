"""A dataset's tasks as the workbench and a campaign take them: every protocol at once.

`load_tasks` raises on any problem (a batch run must not start on half a dataset); the
TUI and `serve` instead show what loaded and list what did not, one line per benchmark.
"""

from __future__ import annotations

from pathlib import Path

from clarify_tui.models import PROTOCOLS, Task
from clarify_tui.tasks.problems import DatasetError


def load_all(dataset: str | Path = "demo", benchmark: str | None = None) -> tuple[list[Task], list[str]]:
    """Tasks of every protocol in `dataset` (the demo: all three), and what failed to load.

    `benchmark` limits it to one protocol; otherwise a path's protocol is inferred from
    the file. Each failure is one line, `<benchmark>: <first problem>` (a problem names its
    file and line), or `<dataset>: <why>` when it cannot be read at all.
    """
    from clarify_tui.tasks import load_tasks

    tasks: list[Task] = []
    problems: list[str] = []
    benchmarks: list[str | None] = [benchmark] if benchmark else (list(PROTOCOLS) if str(dataset) == "demo" else [None])
    for name in benchmarks:
        try:
            tasks += load_tasks(name, dataset)
        except DatasetError as exc:  # the first problem (file:line: what), not the "N problems" header
            first = str(exc.problems[0]) if exc.problems else str(exc).splitlines()[0]
            more = f" (and {len(exc.problems) - 1} more)" if len(exc.problems) > 1 else ""
            problems.append(f"{name}: {first}{more}" if name else f"{first}{more}")  # a problem names its file
        except FileNotFoundError as exc:
            problems.append(f"{name or dataset}: {exc}")
    return tasks, problems


def find_task(tasks: list[Task], task_id: str) -> Task | None:
    """By id, or `protocol:id` when ids repeat across protocols."""
    for t in tasks:
        if task_id in (t.id, f"{t.protocol.value}:{t.id}"):
            return t
    return None
