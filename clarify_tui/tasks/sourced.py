"""A loaded task together with where it came from, for duplicate and protocol checks."""

from __future__ import annotations

from dataclasses import dataclass

from clarify_tui.models import Task


@dataclass(frozen=True)
class Sourced:
    task: Task
    file: str
    line: int | None
