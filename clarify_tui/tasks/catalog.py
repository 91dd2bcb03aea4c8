"""What `clarify-tui datasets` lists: the bundled demo sets, each checked as it is read."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from clarify_tui.models import Protocol
from clarify_tui.tasks.demo import demo_files
from clarify_tui.tasks.loading import collect
from clarify_tui.tasks.problems import Problem


@dataclass(frozen=True)
class DatasetInfo:
    """One bundled dataset. A set with problems is still listed, with its problems."""

    name: str
    protocol: Protocol
    path: Path
    task_count: int
    languages: list[str]
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def list_datasets() -> list[DatasetInfo]:
    """The demo sets present in data/demo/, in protocol order (missing files are left out)."""
    infos: list[DatasetInfo] = []
    for protocol, path in demo_files(None):
        if not path.is_file():
            continue
        tasks, problems = collect(protocol, path)
        languages = sorted({t.task.language for t in tasks})
        infos.append(DatasetInfo("demo", protocol, path, len(tasks), languages, list(problems)))
    return infos
