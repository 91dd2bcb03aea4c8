"""Turning `--benchmark` and `--dataset` into tasks plus the full list of problems.

One pass serves both `load_tasks` (raise if anything is wrong, before a single task is
run) and `validate_dataset` (report everything): the format is detected here, the
format modules map records to Tasks, and the checks that span records (duplicate ids,
the protocol the caller asked for, an empty set) run last.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Literal

from clarify_tui.models import Protocol
from clarify_tui.protocols import registry
from clarify_tui.tasks import native
from clarify_tui.tasks.demo import demo_files
from clarify_tui.tasks.problems import Problems
from clarify_tui.tasks.sourced import Sourced
from clarify_tui.tasks.textfile import Record, read_records

if TYPE_CHECKING:
    from clarify_tui.protocols.release import Release

DEMO = "demo"
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
    releases = _releases()
    folders = [(p, r) for p, r in releases.items() if r.folder is not None]
    if path.is_dir() and protocol is not None and protocol not in dict(folders):  # an empty or wrong folder
        kinds = " or ".join(f"a {r.title}" for _, r in folders) or "no"
        problems.add(
            path,
            None,
            None,
            f"is a folder; a dataset for {protocol.value} is a JSONL or JSON file (only {kinds} release is a folder)",
        )
        return []
    if (path.is_dir() or path.suffix.lower() == ".csv") and folders:
        found, release = next(((p, r) for p, r in folders if p == protocol), folders[0])
        if not _same_protocol(path, found, release, protocol, problems) or release.folder is None:
            return []
        return release.folder(path, problems)
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
    kind = _kind(records, releases)
    if kind is None and protocol is not None:
        # the caller named the benchmark: hold the records to its most likely format
        presumed = protocol in releases and releases[protocol].presumed
        kind = protocol if presumed else "task"
    if kind is None:
        if records:
            problems.add(path, records[0][0], None, f"cannot tell the dataset format: {_FORMAT_HINT}")
        return []
    if kind == "task":
        return _expect(native.tasks_from_records(path, records, problems, protocol), protocol, problems)
    if not _same_protocol(path, kind, releases[kind], protocol, problems):
        return []
    return releases[kind].read(path, records, problems, canary)


def _releases() -> dict[Protocol, Release]:
    """The published releases the loader can read, by protocol (their roles' `release`)."""
    found = {Protocol(name): registry.roles(name).release for name in registry.names()}
    return {protocol: release for protocol, release in found.items() if release is not None}


def _is_export(record: dict) -> bool:
    return isinstance(record.get("session"), dict) and "steps" in record and "protocol" not in record


def _kind(records: list[Record], releases: dict[Protocol, Release]) -> Literal["task"] | Protocol | None:
    """'task' for our format, else the release a record belongs to (first record that tells)."""
    for _, record in records:
        if native.is_task_record(record):
            return "task"
        for protocol, release in releases.items():
            if release.is_record(record):
                return protocol
    return None


def _same_protocol(path: Path, found: Protocol, release: Release, wanted: Protocol | None, problems: Problems) -> bool:
    if wanted is None or wanted == found:
        return True
    problems.add(path, None, None, f"this is the {release.title} release, but benchmark {wanted.value!r} was asked for")
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
