"""Turning `--benchmark` and `--dataset` into tasks plus the full list of problems.

One pass serves both `load_tasks` (raise if anything is wrong, before a single task is
run) and `validate_dataset` (report everything): the format is detected here, the
format modules map records to Tasks, and the checks that span records (duplicate ids,
the protocol the caller asked for, an empty set) run last.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from clarify_tui.models import Protocol
from clarify_tui.protocols.cts import tasks as cts
from clarify_tui.protocols.interactcomp import tasks as interactcomp
from clarify_tui.tasks import native
from clarify_tui.tasks.demo import demo_files
from clarify_tui.tasks.problems import Problems
from clarify_tui.tasks.sourced import Sourced
from clarify_tui.tasks.textfile import Record, read_records

DEMO = "demo"
_RELEASE_NAMES = {Protocol.interactcomp: "InteractComp", Protocol.cts: "Clarify-Then-Search"}
_FORMAT_HINT = (
    "expected Task records (with 'protocol'), InteractComp release records "
    "(id, question, answer, context, canary) or Clarify-Then-Search gold records (nuggets)"
)


def collect(
    benchmark: str | Protocol | None, dataset: str | Path, *, canary: str | None = None
) -> tuple[list[Sourced], Problems]:
    """Every task that loaded cleanly, and every problem, in file order."""
    problems = Problems()
    protocol = _protocol(benchmark, dataset, problems)
    if problems:
        return [], problems
    if str(dataset) == DEMO:
        tasks = _load_demo(protocol, problems)
    else:
        tasks = _load_path(Path(dataset), protocol, problems, canary)
    if not tasks and not problems:
        problems.add(dataset, None, None, "no tasks in the dataset")
    return _unique(tasks, problems), Problems(problems.sorted())


def _protocol(benchmark: str | Protocol | None, dataset: str | Path, problems: Problems) -> Protocol | None:
    if benchmark is None or isinstance(benchmark, Protocol):
        return benchmark
    try:
        return Protocol(benchmark)
    except ValueError:
        names = ", ".join(p.value for p in Protocol)
        problems.add(dataset, None, "benchmark", f"unknown benchmark {benchmark!r} (expected {names})")
        return None


def _load_demo(protocol: Protocol | None, problems: Problems) -> list[Sourced]:
    tasks: list[Sourced] = []
    for file_protocol, path in demo_files(protocol):
        if not path.is_file():
            problems.add(path, None, None, f"the bundled {file_protocol.value} demo set is missing")
            continue
        loaded = native.tasks_from_records(path, read_records(path, problems), problems, file_protocol)
        tasks += _expect(loaded, file_protocol, problems)
    return tasks


def _load_path(path: Path, protocol: Protocol | None, problems: Problems, canary: str | None) -> list[Sourced]:
    if not path.exists():
        problems.add(path, None, None, "no such file or folder")
        return []
    if (
        path.is_dir() and protocol is not None and protocol is not Protocol.cts
    ):  # an empty or wrong folder is no CTS release
        problems.add(
            path,
            None,
            None,
            f"is a folder; a dataset for {protocol.value} is a JSONL or JSON file "
            "(only a Clarify-Then-Search release is a folder)",
        )
        return []
    if path.is_dir() or path.suffix.lower() == ".csv":
        return _load_cts(path, protocol, problems)
    records = read_records(path, problems)
    if records and _is_export(records[0][1]):  # sessions, not tasks: one problem, not one per missing field
        problems.add(
            path,
            records[0][0],
            None,
            "is an export of sessions (`export --format jsonl`), not a dataset "
            "of tasks; score it with `clarify-tui score --from-export`",
        )
        return []
    kind = _kind(records)
    if kind is None and protocol is not None:
        # the caller named the benchmark: hold the records to its most likely format
        kind = Protocol.interactcomp if protocol == Protocol.interactcomp else "task"
    if kind is None:
        if records:
            problems.add(path, records[0][0], None, f"cannot tell the dataset format: {_FORMAT_HINT}")
        return []
    if kind == "task":
        return _expect(native.tasks_from_records(path, records, problems, protocol), protocol, problems)
    if not _same_protocol(path, kind, protocol, problems):
        return []
    if kind == Protocol.interactcomp:
        return interactcomp.tasks_from_records(path, records, problems, canary)
    located = cts.locate_release(path, problems)
    return cts.load_release(*located, problems, gold=records) if located else []


def _load_cts(path: Path, protocol: Protocol | None, problems: Problems) -> list[Sourced]:
    if not _same_protocol(path, Protocol.cts, protocol, problems):
        return []
    located = cts.locate_release(path, problems)
    return cts.load_release(*located, problems) if located else []


def _is_export(record: dict) -> bool:
    return isinstance(record.get("session"), dict) and "steps" in record and "protocol" not in record


def _kind(records: list[Record]) -> Literal["task"] | Protocol | None:
    """'task' for our format, else the release a record belongs to (first record that tells)."""
    for _, record in records:
        if native.is_task_record(record):
            return "task"
        if cts.is_gold_record(record):
            return Protocol.cts
        if interactcomp.is_release_record(record):
            return Protocol.interactcomp
    return None


def _same_protocol(path: Path, found: Protocol, wanted: Protocol | None, problems: Problems) -> bool:
    if wanted is None or wanted == found:
        return True
    release = _RELEASE_NAMES.get(found, found.value)
    problems.add(path, None, None, f"this is the {release} release, but benchmark {wanted.value!r} was asked for")
    return False


def _expect(tasks: list[Sourced], protocol: Protocol | None, problems: Problems) -> list[Sourced]:
    """Drop (and report) tasks of another protocol than the one asked for."""
    if protocol is None:
        return tasks
    kept = []
    for item in tasks:
        if item.task.protocol == protocol:
            kept.append(item)
        else:
            problems.add(
                item.file,
                item.line,
                "protocol",
                f"a {item.task.protocol.value} task, but benchmark {protocol.value} was asked for",
            )
    return kept


def _unique(tasks: list[Sourced], problems: Problems) -> list[Sourced]:
    """The first task of each id; every later one is a problem."""
    first: dict[str, Sourced] = {}
    for item in tasks:
        seen = first.setdefault(item.task.id, item)
        if seen is item:
            continue
        where = f"line {seen.line}" if seen.file == item.file else f"{seen.file}:{seen.line}"
        problems.add(item.file, item.line, "id", f"duplicate id {item.task.id!r} (first on {where})")
    return list(first.values())
