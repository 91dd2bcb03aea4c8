"""Problems found in a dataset, and the error that carries them.

Loaders never stop at the first bad record: they collect every `Problem` (file, line,
field, message) so `clarify-tui datasets validate` can list them all, and `load_tasks`
raises one `DatasetError` holding the whole list before any task is used.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

Loc = tuple[str | int, ...]
# Maps a pydantic error location (inside Task) to where it came from in the source files.
Locator = Callable[[Loc], tuple[str, int | None, str | None]]


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a dataset. `line` is 1-based; None means the whole file."""

    file: str
    line: int | None
    field: str | None
    message: str

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        field = f" field '{self.field}':" if self.field else ""
        return f"{where}:{field} {self.message}"


class DatasetError(Exception):
    """A dataset could not be loaded; `problems` lists everything wrong with it."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems: list[Problem] = list(problems)
        super().__init__(self.problems)

    def __str__(self) -> str:
        n = len(self.problems)
        head = f"{n} problem{'' if n == 1 else 's'} in dataset"
        return head + ":\n" + "\n".join(f"  {p}" for p in self.problems)


class Problems(list[Problem]):
    """A list of problems with a shorthand for adding one."""

    def add(self, file: str | Path, line: int | None, field: str | None, message: str) -> None:
        self.append(Problem(str(file), line, field, message))

    def add_validation_error(self, error: ValidationError, locate: Locator) -> None:
        """One problem per pydantic error, placed in the source file by `locate`."""
        for err in error.errors(include_url=False):
            file, line, field = locate(tuple(err["loc"]))
            self.add(file, line, field, describe_error(err))

    def sorted(self) -> list[Problem]:
        """File order: by file, then line (whole-file problems first)."""
        return sorted(self, key=lambda p: (p.file, p.line or 0))


def field_path(loc: Sequence[str | int]) -> str | None:
    """('cts', 'nuggets', 2, 'weight') -> 'cts.nuggets[2].weight'."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out or None


def short(value: Any, limit: int = 40) -> str:
    """A value for a message, cut short so hidden texts are not dumped whole."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def describe_error(err: Any) -> str:
    """A pydantic error dict in words a dataset author understands."""
    kind = err["type"]
    if kind == "missing":
        return "missing (required)"
    if kind == "extra_forbidden":
        return "unknown field (not part of the Task format, see data/schema/task.schema.json)"
    loc = tuple(err.get("loc", ()))
    if loc[-1:] == ("weight",) and "nuggets" in loc and kind != "missing":
        return f"nugget weight must be 1, 2 or 3 (got {short(err.get('input'))})"
    message = str(err["msg"]).removeprefix("Value error, ")
    if kind == "string_too_short" and err.get("ctx", {}).get("min_length") == 1:
        return "must not be empty"
    value = err.get("input")
    if kind != "value_error" and value is not None and not isinstance(value, dict | list):
        message += f" (got {short(value)})"
    return message
