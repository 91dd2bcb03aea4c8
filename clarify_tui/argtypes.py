"""Argparse types for the command line: a bad value is refused at parse time, with argparse's
one line naming the flag (`argument --limit: must be at least 1, got 0`), before any file
is opened or created. Here, in the lowest layer, so `campaign.visitor`'s options (which
`serve` shares) use the same types as the commands."""

from __future__ import annotations

import argparse
import math
import os
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar


def at_least(low: int) -> Callable[[str], int]:
    """An argparse type: an integer >= low (argparse names the flag in its error)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got '{text}'") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be at least {low}, got {value}")
        return value

    parse.__name__ = "number"
    return parse


def seconds(low: float, *, inclusive: bool = True) -> Callable[[str], float]:
    """An argparse type: a finite number of seconds >= low (> low unless `inclusive`)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number of seconds, got '{text}'") from None
        if not math.isfinite(value) or value < low or (value == low and not inclusive):
            raise argparse.ArgumentTypeError(
                f"must be {'at least' if inclusive else 'more than'} {low:g} seconds, got {text}"
            )
        return value

    parse.__name__ = "seconds"
    return parse


def port(text: str) -> int:
    """An argparse type: a TCP port, 0-65535 (0: any free port)."""
    value = at_least(0)(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"a port is 0-65535, got {value}")
    return value


def spec(text: str) -> str:
    """An argparse type: a backend spec, which cannot be empty (`--agent ''` read as no agent)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("a spec cannot be empty (see `clarify-tui backends`)")
    return text


def id_list(text: str) -> list[str]:
    """An argparse type: comma-separated ids; an empty list would silently mean every task."""
    ids = [part.strip() for part in text.split(",") if part.strip()]
    if not ids:
        raise argparse.ArgumentTypeError(f"expected ids separated by commas, got '{text}'")
    return ids


@dataclass(frozen=True)
class TaskRange:
    """`--limit A-B`: tasks A to B of the dataset, 1-based and inclusive (as Inspect's --limit)."""

    first: int
    last: int

    def __str__(self) -> str:
        return f"{self.first}-{self.last}"


TaskLimit = int | TaskRange  # --limit N: the first N tasks; --limit A-B: tasks A to B
T = TypeVar("T")


def task_limit(text: str) -> TaskLimit:
    """An argparse type: `N` (the first N tasks) or `A-B` (tasks A to B, 1-based, inclusive)."""
    first, dash, last = text.strip().partition("-")
    if not dash or not first:  # "5", or "-1": a count
        return at_least(1)(text)
    try:
        a, b = int(first), int(last)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected N or A-B (tasks A to B, from 1), got '{text}'") from None
    if a < 1 or b < a:
        raise argparse.ArgumentTypeError(f"expected A-B with 1 <= A <= B (tasks A to B, from 1), got '{text}'")
    return TaskRange(a, b)


def take(items: Sequence[T], limit: TaskLimit | None) -> list[T]:
    """The items `--limit` selects: all (None), the first N, or A to B (1-based, inclusive)."""
    if limit is None:
        return list(items)
    if isinstance(limit, TaskRange):
        return list(items[limit.first - 1 : limit.last])
    return list(items[:limit])


def file_path(text: str) -> Path:
    """An argparse type: a path, which cannot be empty (`--db ''` used to mean the current folder)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("a path cannot be empty")
    return Path(text)


def run_name(text: str) -> str:
    """An argparse type: a run name, which cannot be empty or only spaces, nor hold a
    control character (a newline splits every table, CSV and log line it is printed in)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("a run name cannot be empty")
    bad = next((c for c in text if unicodedata.category(c) == "Cc"), None)
    if bad is not None:
        raise argparse.ArgumentTypeError(f"a run name cannot hold a control character ({bad!r} in {text!r})")
    return text


def names_a_folder(text: str) -> bool:
    """Does `--out TEXT` end in a path separator (`newdir/`), so the user meant a folder?"""
    return text.endswith("/") or text.endswith(os.sep)


def output_file(text: str) -> Path:
    """An argparse type: a file to write. `newdir/` names a folder; taking it as the file
    `newdir` (what Path does) wrote a file where the user expected a folder."""
    path = file_path(text)
    if names_a_folder(text):
        raise argparse.ArgumentTypeError(
            f"{text} ends in '/': it names a folder; name a file to write (e.g. {text}out.jsonl)"
        )
    return path
