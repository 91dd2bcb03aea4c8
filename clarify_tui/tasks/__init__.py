"""Loading and validating benchmark tasks, whatever form they come in.

    load_tasks("interactcomp", "InteractComp210.jsonl")   # encrypted or decrypted release
    load_tasks("cts", "release/")                         # Clarify-Then-Search folder or files
    load_tasks(None, "my_discobench.jsonl")               # our Task JSON(L), any protocol
    load_tasks("cts", "demo")                             # bundled data/demo/cts.jsonl

Invalid input raises `DatasetError` listing every problem (file, line, field) before any
task is used; `validate_dataset` returns the same list instead of raising. `load_all`
(tasks/collection.py) loads every protocol of a dataset and lists what failed, for the
TUI and `serve`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from clarify_tui.tasks.problems import DatasetError, Problem

if TYPE_CHECKING:
    from clarify_tui.models import Protocol, Task
    from clarify_tui.tasks.catalog import DatasetInfo, list_datasets
    from clarify_tui.tasks.collection import find_task, load_all

# Imported on first use: a module of this package (a stored task's `sealed`, say) is then
# read without the loaders of every format (replay opening a session, benchmarks/bench_tui.py).
_LAZY = {"DatasetInfo": "catalog", "list_datasets": "catalog", "find_task": "collection", "load_all": "collection"}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"clarify_tui.tasks.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DatasetError",
    "DatasetInfo",
    "Problem",
    "find_task",
    "list_datasets",
    "load_all",
    "load_tasks",
    "validate_dataset",
]


def load_tasks(benchmark: str | Protocol | None, dataset: str | Path, *, canary: str | None = None) -> list[Task]:
    """Tasks of `dataset` ("demo" or a path); `benchmark` None infers it from the file.

    `canary` decrypts an InteractComp release whose canary column was stripped.
    Raises DatasetError if anything at all is wrong with the dataset.
    """
    from clarify_tui.tasks.loading import collect

    tasks, problems = collect(benchmark, dataset, canary=canary)
    if problems:
        raise DatasetError(problems)
    return [item.task for item in tasks]


def validate_dataset(
    path: str | Path, benchmark: str | Protocol | None = None, *, canary: str | None = None
) -> list[Problem]:
    """Every problem with the dataset at `path` (or "demo"); empty means it loads."""
    from clarify_tui.tasks.loading import collect

    return list(collect(benchmark, path, canary=canary)[1])
