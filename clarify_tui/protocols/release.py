"""A protocol's published release, as the task loader reads it (a field of its roles).

Apart from roles.py because the loader sits below agents: it names this, never their views.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

    from clarify_tui.tasks.problems import Problems
    from clarify_tui.tasks.sourced import Sourced
    from clarify_tui.tasks.textfile import Record


@dataclass(frozen=True)
class Release:
    """A protocol's published release, in its own format rather than our Task records:
    the task loader (tasks/loading.py) tells it by its records and reads it."""

    title: str  # as the loader's problems name it: "InteractComp"
    is_record: Callable[[dict[str, Any]], bool]  # a record of the release (the first record that tells)
    # its records of one JSONL or JSON file -> tasks (path, records, problems, `--canary`)
    read: Callable[[Path, list[Record], Problems, str | None], list[Sourced]]
    # a release that comes as a folder or a CSV file (CTS): reads it (None: it never does)
    folder: Callable[[Path, Problems], list[Sourced]] | None = None
    # when `--benchmark` names this protocol and no record tells, the records are held to
    # this release's format, not ours (InteractComp: its release is what people bring)
    presumed: bool = False
