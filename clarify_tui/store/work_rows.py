"""The rows of the work-queue tables as frozen dataclasses (store/work.py runs the queries;
its docstring holds the payload and answer contract)."""

from __future__ import annotations

import json
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, TypeVar

__all__ = ["WorkAnswer", "WorkItem", "WorkQueue"]


@dataclass(frozen=True)
class WorkQueue:
    name: str
    kind: str
    run: str
    per_item: int = 1
    config: dict[str, Any] = field(default_factory=dict)
    created_at: str = ""


@dataclass(frozen=True)
class WorkItem:
    """One thing to answer. `payload`: exactly what the person is shown (never a hidden field
    the role may not see; the kind's builder decides, see audit/ and labels/)."""

    queue: str
    item_id: str
    position: int
    session_id: str
    step_idx: int
    payload: dict[str, Any]


@dataclass(frozen=True)
class WorkAnswer:
    queue: str
    item_id: str
    annotator: str
    source: str
    answer: dict[str, Any]
    created_at: str = ""

    @property
    def session_id(self) -> str:
        return self.item_id.rsplit(":", 1)[0]

    @property
    def step_idx(self) -> int:
        return int(self.item_id.rsplit(":", 1)[1])


_JSON_COLUMNS = ("config", "payload", "answer")  # stored as JSON text
_T = TypeVar("_T")


def _from_row(cls: type[_T], row: dict) -> _T:
    """A row as its dataclass: JSON columns parsed, an empty column with a default its default."""
    values: dict[str, Any] = {}
    for f in fields(cls):  # type: ignore[arg-type]  # every cls here is a dataclass
        value = row[f.name]
        if f.name in _JSON_COLUMNS:
            value = json.loads(value or "{}")
        elif f.default is not MISSING:
            value = value or f.default
        values[f.name] = value
    return cls(**values)


def _queue(row: dict) -> WorkQueue:
    return _from_row(WorkQueue, row)


def _item(row: dict) -> WorkItem:
    return _from_row(WorkItem, row)


def _answer(row: dict) -> WorkAnswer:
    return _from_row(WorkAnswer, row)
