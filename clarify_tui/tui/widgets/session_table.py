"""The sessions list: one row per stored session, forks indented under their parent.

`session_rows` reads the store once (sessions plus a step count per session);
`filter_rows` and `family_order` are pure, so the screen re-filters and re-sorts without
touching the database. Outcome words and durations come from `clarify_tui.summary`, the
same as `clarify-tui sessions` prints.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rich.text import Text
from textual.binding import Binding

from clarify_tui.models import Session
from clarify_tui.summary import active, duration, failed, outcome, seconds
from clarify_tui.tui.speed import FastTable

# What a reviewer needs first: an 80-column screen shows the leading ones (key, label)
COLUMNS: tuple[tuple[str, str], ...] = (
    ("id", "id"),
    ("task", "task"),
    ("outcome", "outcome"),
    ("annotator", "annotator"),
    ("run", "run"),
    ("agent", "agent"),
    ("mode", "mode"),
    ("steps", "steps"),
    ("active", "active"),
    ("duration", "duration"),
    ("protocol", "protocol"),
    ("user", "user"),
    ("parent", "fork of"),
    ("note", "note"),
)
NOTE_CELL = 60  # a note's first characters; replay shows it whole
SORT_KEYS = ("created", "run", "task", "protocol", "agent", "outcome", "steps", "duration")
OUTCOME_STYLE = {"correct": "green", "wrong": "red", "errored": "bold red", "abandoned": "yellow", "running": "cyan"}


@dataclass
class SessionRow:
    """What the table shows of one session (and what the filters look at)."""

    session: Session
    steps: int
    depth: int = 0
    children: list[SessionRow] = field(default_factory=list)

    @property
    def id(self) -> str:
        return self.session.id

    @property
    def outcome(self) -> str:
        return outcome(self.session)

    @property
    def failed(self) -> bool:
        return failed(self.session)

    @property
    def errored(self) -> bool:
        return self.session.status == "errored"

    def seconds(self) -> float:
        value = seconds(self.session)
        return -1.0 if value is None else value

    def sort_value(self, key: str) -> Any:
        s = self.session
        return {
            "created": (s.created_at, s.id),
            "run": s.run,
            "task": s.task_id,
            "protocol": s.protocol.value,
            "agent": s.agent,
            "outcome": self.outcome,
            "steps": self.steps,
            "duration": self.seconds(),
        }[key]


@dataclass
class Filters:
    """The sessions screen's filters; None or False means no filter."""

    run: str | None = None
    protocol: str | None = None
    agent: str | None = None
    mode: str | None = None
    annotator: str | None = None
    failed_only: bool = False
    errored_only: bool = False

    def keep(self, row: SessionRow) -> bool:
        s = row.session
        for name in ("run", "agent", "mode", "annotator"):
            wanted = getattr(self, name)
            if wanted is not None and getattr(s, name) != wanted:
                return False
        if self.protocol is not None and s.protocol.value != self.protocol:
            return False
        if self.failed_only and not row.failed:
            return False
        return row.errored or not self.errored_only


def session_rows(store) -> list[SessionRow]:
    """Every stored session with its step count, oldest first."""
    counts = store.step_counts()
    return [SessionRow(s, counts.get(s.id, 0)) for s in store.sessions()]


def filter_rows(rows: list[SessionRow], filters: Filters) -> list[SessionRow]:
    return [r for r in rows if filters.keep(r)]


def family_order(rows: list[SessionRow], sort: str = "created", reverse: bool = False) -> list[SessionRow]:
    """Roots sorted by `sort`; each fork right under its parent (oldest fork first), with
    its depth set. A fork whose parent is filtered out is shown as a root."""
    by_id = {r.id: r for r in rows}
    for r in rows:
        r.children = []
    roots = []
    for r in rows:
        parent = r.session.parent_id
        if parent and parent in by_id and parent != r.id:
            by_id[parent].children.append(r)
        else:
            roots.append(r)
    roots.sort(key=lambda r: r.sort_value(sort), reverse=reverse)
    out: list[SessionRow] = []

    def walk(row: SessionRow, depth: int) -> None:
        row.depth = depth
        out.append(row)
        for child in sorted(row.children, key=lambda c: (c.session.created_at, c.id)):
            walk(child, depth + 1)

    for root in roots:
        walk(root, 0)
    return out


def option_values(rows: list[SessionRow], name: str) -> list[str]:
    """Distinct values of a session field, for a filter's choices."""
    values = {getattr(r.session, name) for r in rows}
    return sorted(str(v.value if hasattr(v, "value") else v) for v in values if v)


class SessionTable(FastTable):
    """The sessions as a table; row keys are session ids. Home / End go to the first /
    last row (DataTable's own scroll sideways)."""

    BINDINGS = [
        Binding("home", "edge(0)", "First", show=False),
        Binding("end", "edge(-1)", "Last", show=False),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)
        self.rows_shown: list[SessionRow] = []
        self.marked: list[str] = []

    def action_edge(self, row: int) -> None:
        if self.row_count:
            self.move_cursor(row=row % self.row_count, animate=False)

    def on_mount(self) -> None:
        for key, label in COLUMNS:
            self.add_column(label, key=key)

    def show(self, rows: list[SessionRow]) -> None:
        """Replace the rows, keeping the cursor on the same session when it is still shown."""
        current = self.current_id
        self.rows_shown = rows
        self.clear()
        for row in rows:
            self.add_row(*self._cells(row), key=row.id)
        ids = [r.id for r in rows]
        if current in ids:
            self.move_cursor(row=ids.index(current))

    def _cells(self, row: SessionRow) -> list:
        s = row.session
        mark = "● " if s.id in self.marked else ""
        indent = "  " * (row.depth - 1) + "└ " if row.depth else ""
        word = row.outcome
        style = OUTCOME_STYLE.get(word, "green" if word.replace(".", "").isdigit() and float(word) >= 100 else "")
        parent = f"{s.parent_id[:8]} @{s.fork_step}" if s.parent_id else ""
        note = " ".join((s.note or "").split())
        cells = {
            "id": Text(mark + indent + s.id, style="bold" if mark else ""),
            "run": s.run,
            "task": s.task_id,
            "protocol": s.protocol.value,
            "agent": s.agent,
            "user": s.user,
            "mode": s.mode,
            "annotator": s.annotator or "",
            "outcome": Text(word, style=style),
            "steps": str(row.steps),
            "duration": duration(s),
            "active": active(s),
            "parent": Text(parent, style="dim"),
            "note": note if len(note) <= NOTE_CELL else note[: NOTE_CELL - 1] + "…",
        }
        return [cells[key] for key, _label in COLUMNS]

    @property
    def current_id(self) -> str | None:
        if not self.rows_shown or self.cursor_row < 0 or self.cursor_row >= len(self.rows_shown):
            return None
        return self.rows_shown[self.cursor_row].id

    def toggle_mark(self) -> list[str]:
        """Mark or unmark the session under the cursor (at most two: the compare pair)."""
        sid = self.current_id
        if sid is None:
            return self.marked
        if sid in self.marked:
            self.marked.remove(sid)
        else:
            self.marked = (self.marked + [sid])[-2:]
        self.show(self.rows_shown)
        return self.marked
