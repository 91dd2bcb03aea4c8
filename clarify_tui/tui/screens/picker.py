"""The task picker: filter the loaded tasks by protocol, domain, language and text, then
open one in the play screen as observer, user or agent.

It shows `TaskRow`s (task_rows.py): at startup the rows read straight from the dataset,
before the tasks are validated (first paint without pydantic); `set_tasks` brings the
validated tasks, and only those open. A task chosen before they arrive opens when they
do (or the picker says it did not load)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import DataTable, Header, Input, Select, Static

from clarify_tui.plural import plural
from clarify_tui.task_rows import TaskRow, row_of
from clarify_tui.tui.layout import compact_when_narrow
from clarify_tui.tui.roles import ROLES, Role, as_role
from clarify_tui.tui.speed import LaidOutScreen
from clarify_tui.tui.widgets.footer import Footer

if TYPE_CHECKING:
    from clarify_tui.models import Task

ALL = "all"
ROLE_LABEL = {"observer": "watch / step", "user": "play the user", "agent": "play the agent"}


def matches(task: TaskRow, protocol: str, domain: str, language: str, text: str) -> bool:
    if protocol != ALL and task.protocol != protocol:
        return False
    if domain != ALL and task.domain != domain:
        return False
    if language != ALL and task.language != language:
        return False
    needle = text.strip().casefold()
    return not needle or needle in f"{task.id} {task.question} {task.domain}".casefold()


def _options(values: list[str], noun: str = "") -> list[tuple[str, str]]:
    return [(f"all {noun}".strip(), ALL)] + [(v or "(none)", v) for v in sorted(set(values))]


class PickerScreen(LaidOutScreen):
    """Tasks in a table; enter opens the highlighted one with the chosen role."""

    BINDINGS = [
        Binding("slash", "focus_search", "Search", id="picker-search", tooltip="the search box (tab: next filter)"),
        Binding("o", "open_selected", "Open", id="picker-open", tooltip="open the highlighted task (so does enter)"),
        Binding("ctrl+q", "app.quit", "Quit", id="quit", tooltip="quit"),
    ]

    class TaskChosen(Message):
        def __init__(self, task: Task, role: Role) -> None:
            super().__init__()
            self.task = task
            self.role = role

    class RowsPainted(Message):
        """The preview's rows are on screen: time to load the tasks themselves."""

    def __init__(self, tasks: list[Task] | None = None, role: Role = "observer") -> None:
        super().__init__()
        self.tasks: list[TaskRow] = []
        self.loaded: dict[str, Task] | None = None  # validated tasks by row key; None until they arrive
        self.role = role
        self.shown: list[TaskRow] = []
        self._filled_width: int | None = None  # the question column's width the table was filled for
        self._chosen: TaskRow | None = None  # opened before the tasks were validated
        self._preview = False
        if tasks is not None:
            self._keep(tasks)

    def preview(self, rows: list[TaskRow]) -> None:
        """Rows to show until `set_tasks` brings the validated tasks (before mounting)."""
        self.tasks, self._preview = list(rows), True

    def _keep(self, tasks: list[Task]) -> None:
        self.loaded = {}
        self.tasks = []
        for task in tasks:
            row = row_of(task)
            self.loaded[row.key] = task
            self.tasks.append(row)

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="filters"):
            yield Select(_options([], "protocols"), value=ALL, allow_blank=False, id="f-protocol", prompt="protocol")
            yield Select(_options([], "domains"), value=ALL, allow_blank=False, id="f-domain", prompt="domain")
            yield Select(_options([], "languages"), value=ALL, allow_blank=False, id="f-language", prompt="language")
            yield Select([(ROLE_LABEL[r], r) for r in ROLES], value=self.role, allow_blank=False, id="f-role")
            yield Input(placeholder="search tasks (/)", id="f-text")
        yield DataTable(id="tasks", cursor_type="row", zebra_stripes=True)
        yield Static(id="picker-question")  # the highlighted task's whole question (the column cuts it)
        yield Static(id="picker-status")
        yield Footer()

    def on_mount(self) -> None:
        self.title = "clarify-tui"
        self.sub_title = "pick a task"
        table = self.query_one(DataTable)
        table.add_columns("protocol", "id", "domain", "lang", "question")
        if self.tasks:
            self._show_rows()
        table.focus()
        if self._preview:
            self.call_after_refresh(self.post_message, self.RowsPainted())

    def on_screen_resume(self) -> None:
        self.on_resize()

    def on_resize(self) -> None:
        self.call_next(self._relayout)  # after Screen._on_resize has set the breakpoint classes

    def _relayout(self) -> None:
        compact_when_narrow(self, "#filters > *, Footer")
        if self.tasks and self._question_width() != self._filled_width:  # refill only if the questions change
            self.refilter()

    def set_tasks(self, tasks: list[Task], problems: list[str] | None = None) -> None:
        """The validated tasks: the table changes only if they differ from the preview."""
        before = self.tasks
        self._keep(tasks)
        if self.tasks != before or not self._preview:
            self._show_rows()
        self._preview = False
        if problems:
            self.notify("\n".join(problems[:5]), title="some datasets did not load", severity="warning")
        if self._chosen is not None:
            chosen, self._chosen = self._chosen, None
            self._choose(chosen)

    def _show_rows(self) -> None:
        rows = self.tasks
        self.query_one("#f-protocol", Select).set_options(_options([t.protocol for t in rows], "protocols"))
        self.query_one("#f-domain", Select).set_options(_options([t.domain for t in rows], "domains"))
        self.query_one("#f-language", Select).set_options(_options([t.language for t in rows], "languages"))
        for sel in ("#f-protocol", "#f-domain", "#f-language"):
            self.query_one(sel, Select).value = ALL
        self.refilter()

    def refilter(self) -> None:
        value = lambda sel: str(self.query_one(sel, Select).value)  # noqa: E731
        text = self.query_one("#f-text", Input).value
        self.shown = [
            t for t in self.tasks if matches(t, value("#f-protocol"), value("#f-domain"), value("#f-language"), text)
        ]
        table = self.query_one(DataTable)
        table.clear()
        width = self._filled_width = self._question_width()
        for t in self.shown:
            question = Text(" ".join(t.question.split()))
            question.truncate(width, overflow="ellipsis")  # by cells: CJK text is twice as wide
            table.add_row(t.protocol, t.id, t.domain, t.language, question, key=t.key)
        self.show_question(table.cursor_row)
        status = (
            f"{len(self.shown)} of {plural(len(self.tasks), 'task')} · enter opens the task as: {ROLE_LABEL[self.role]}"
        )
        self.query_one("#picker-status", Static).update(status)

    def _question_width(self) -> int:
        """What is left of the screen's width for the question column (no sideways scrolling)."""
        if not self.size.width:
            return 90
        others = [
            ("protocol", [t.protocol for t in self.shown]),
            ("id", [t.id for t in self.shown]),
            ("domain", [t.domain for t in self.shown]),
            ("lang", [t.language for t in self.shown]),
        ]
        used = sum(max(len(head), *(cell_len(v or "") for v in values), 0) + 2 for head, values in others)
        return max(24, min(90, self.size.width - used - 4))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.show_question(event.cursor_row)

    def show_question(self, row: int) -> None:
        whole = Text(" ".join(self.shown[row].question.split())) if 0 <= row < len(self.shown) else Text("")
        self.query_one("#picker-question", Static).update(whole)

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "f-role":
            self.role = as_role(event.value)
        self.refilter()

    def on_input_changed(self, event: Input.Changed) -> None:
        self.refilter()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.query_one(DataTable).focus()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self._open(event.cursor_row)

    def action_open_selected(self) -> None:
        self._open(self.query_one(DataTable).cursor_row)

    def _open(self, row: int) -> None:
        if 0 <= row < len(self.shown):
            self._choose(self.shown[row])
        else:
            self.notify(
                'No task matches the filters: clear the search box or pick "all".'
                if self.tasks
                else "No tasks loaded yet.",
                timeout=4,
            )

    def _choose(self, row: TaskRow) -> None:
        if self.loaded is None:  # still being validated: opens when set_tasks brings it
            self._chosen = row
            return
        task = self.loaded.get(row.key)
        if task is None:
            self.notify(f"task {row.id} did not load (see the dataset's problems)", severity="error")
        else:
            self.post_message(self.TaskChosen(task, self.role))

    def action_focus_search(self) -> None:
        self.query_one("#f-text", Input).focus()
