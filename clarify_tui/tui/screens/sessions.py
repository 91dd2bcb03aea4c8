"""The sessions screen: every stored session, filtered and sorted, forks under their parent.

Newest sessions come first; home / end jump to the first / last row.
enter opens the highlighted session in replay; space marks up to two sessions and `c`
compares them (or the marked one with the highlighted one); `s` / `S` cycle the sort
column and direction (a click on a column header sorts by it too); `g` opens the scores.
The list reloads whenever the screen comes back (a fork made in replay shows up at once),
and when it opens if the database changed since it was read (a screen built ahead, tui/speed/ahead.py).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Checkbox, DataTable, Select, Static

from clarify_tui.plural import plural
from clarify_tui.tui.layout import compact_when_narrow
from clarify_tui.tui.screens.back import back_bindings, back_enabled, go_back
from clarify_tui.tui.speed import Header, LaidOutScreen, LightSelect
from clarify_tui.tui.widgets.footer import Footer
from clarify_tui.tui.widgets.session_table import (
    SORT_KEYS,
    Filters,
    SessionRow,
    SessionTable,
    family_order,
    filter_rows,
    option_values,
    session_rows,
)

SELECTS = (
    ("run", "all runs"),
    ("protocol", "all protocols"),
    ("agent", "all agents"),
    ("mode", "all modes"),
    ("annotator", "all annotators"),
)
HEADER_SORT = {
    "id": "created",
    "run": "run",
    "task": "task",
    "protocol": "protocol",
    "agent": "agent",
    "outcome": "outcome",
    "steps": "steps",
    "duration": "duration",
}


class SessionsScreen(LaidOutScreen):
    """All sessions of one database."""

    AUTO_FOCUS = "#session-table"  # focused once, not the first filter and then the table
    BINDINGS = [
        Binding("enter", "open", "Replay", id="sessions-open", tooltip="open the session in replay"),
        Binding("space", "mark", "Mark", id="sessions-mark", tooltip="mark for compare (two at most)"),
        Binding("c", "compare", "Compare", id="sessions-compare", tooltip="compare the two marked sessions"),
        Binding("s", "sort(1)", "Sort", id="sessions-sort", tooltip="next sort column"),
        Binding("S", "reverse", "Reverse", id="sessions-reverse", tooltip="reverse the sort"),
        Binding("g", "scores", "Scores", id="sessions-scores", tooltip="scores and charts of this database"),
        Binding("r", "reload", "Reload", id="sessions-reload"),
        *back_bindings("sessions"),
        Binding(
            "escape",
            "leave",
            "Back",
            id="sessions-escape",
            show=False,
            tooltip="back, or quit on the first screen (as q does)",
        ),
    ]

    def __init__(self, store, select: str | None = None, **kwargs) -> None:
        super().__init__(**kwargs)
        self.store = store
        self.select = select  # a session id to put the cursor on once loaded
        self.filters = Filters()
        self.sort = "created"
        self.reverse = True  # newest first
        self.rows: list[SessionRow] = []
        self._left = False  # another screen was opened on top since the last load
        self._read_at: tuple[int, int] | None = None  # data_mark of the last load

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="session-filters"):
            for name, prompt in SELECTS:
                yield LightSelect([], prompt=prompt, id=f"filter-{name}")
            yield Checkbox("failed only", id="filter-failed")
            yield Checkbox("errored only", id="filter-errored")
        yield SessionTable(id="session-table")
        yield Static(id="sessions-status")
        yield Footer()

    def on_mount(self) -> None:
        self.title = "sessions"
        self.sub_title = getattr(getattr(self.store, "path", None), "name", "")
        self.reload()
        table = self.query_one(SessionTable)
        ids = [r.id for r in table.rows_shown]
        if self.select in ids:
            table.move_cursor(row=ids.index(self.select))

    def on_resize(self) -> None:  # after Screen._on_resize has set the breakpoint classes
        self.call_next(compact_when_narrow, self, "#session-filters > *, Footer")

    def on_screen_suspend(self) -> None:
        self._left = True

    def on_screen_resume(self) -> None:
        """Back from a replay or fork: sessions may have changed. Not on the first showing,
        which on_mount has loaded (the query reads every session), unless the database
        changed since (a screen built ahead)."""
        self.on_resize()
        if self._left or self.store.data_mark() != self._read_at:
            self._left = False
            self.reload()

    # ---- data --------------------------------------------------------------------------

    def reload(self) -> None:
        self._read_at = self.store.data_mark()
        self.rows = session_rows(self.store)
        for name, _prompt in SELECTS:
            select = self.query_one(f"#filter-{name}", Select)
            values = option_values(self.rows, name)
            current = select.value
            with select.prevent(Select.Changed):
                select.set_options([(v, v) for v in values])
                if current in values:
                    select.value = current
        self.refresh_table()

    def refresh_table(self) -> None:
        shown = family_order(filter_rows(self.rows, self.filters), self.sort, self.reverse)
        table = self.query_one(SessionTable)
        table.show(shown)
        arrow = "↓" if self.reverse else "↑"
        marked = f" · marked {', '.join(table.marked)}" if table.marked else ""
        self.query_one("#sessions-status", Static).update(self.status_line(len(shown), arrow, marked))

    def status_line(self, shown: int, arrow: str, marked: str) -> str:
        """What the table holds; when it is empty, why, and what fills it."""
        if not self.rows:
            return "No sessions yet: play a task, or run a batch with `clarify-tui run`."
        if not shown:
            return (
                "The only session does not match the filters above."
                if len(self.rows) == 1
                else f"None of the {len(self.rows)} sessions match the filters above."
            )
        return (
            f"{shown} of {plural(len(self.rows), 'session')} · sorted by {self.sort} {arrow}{marked} · "
            "enter replay · space mark · c compare · s sort · g scores"
        )

    # ---- filters -----------------------------------------------------------------------

    def on_select_changed(self, event: Select.Changed) -> None:
        name = (event.select.id or "").removeprefix("filter-")
        value = None if event.value is Select.BLANK else str(event.value)
        setattr(self.filters, name, value)
        self.refresh_table()

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        if event.checkbox.id == "filter-failed":
            self.filters.failed_only = event.value
        elif event.checkbox.id == "filter-errored":
            self.filters.errored_only = event.value
        self.refresh_table()

    def on_data_table_header_selected(self, event: DataTable.HeaderSelected) -> None:
        key = HEADER_SORT.get(str(event.column_key.value))
        if key:
            self.reverse = not self.reverse if key == self.sort else False
            self.sort = key
            self.refresh_table()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.open_replay(str(event.row_key.value))

    # ---- actions -----------------------------------------------------------------------

    def action_open(self) -> None:
        sid = self.query_one(SessionTable).current_id
        if sid:
            self.open_replay(sid)
        else:
            self.notify(self.none_shown(), timeout=4)

    def none_shown(self) -> str:
        return (
            "No session matches the filters above."
            if self.rows
            else "No sessions yet: play a task, or run a batch with `clarify-tui run`."
        )

    def open_replay(self, session_id: str) -> None:
        from clarify_tui.tui.screens.replay import ReplayScreen

        self.app.push_screen(ReplayScreen(self.store, session_id))

    def action_mark(self) -> None:
        table = self.query_one(SessionTable)
        if table.current_id is None:
            self.notify(self.none_shown(), timeout=4)
            return
        table.toggle_mark()
        self.refresh_table()

    def action_compare(self) -> None:
        from clarify_tui.tui.screens.compare import CompareScreen

        table = self.query_one(SessionTable)
        pair = list(table.marked)
        if len(pair) == 1 and table.current_id and table.current_id not in pair:
            pair.append(table.current_id)
        if len(pair) != 2:
            self.notify("Mark two sessions with space (or one, and highlight the other).", severity="warning")
            return
        self.app.push_screen(CompareScreen(self.store, pair[0], pair[1]))

    def action_sort(self, step: int) -> None:
        self.sort = SORT_KEYS[(SORT_KEYS.index(self.sort) + step) % len(SORT_KEYS)]
        self.reverse = self.sort == "created"  # newest first; other columns ascending
        self.refresh_table()

    def action_reverse(self) -> None:
        self.reverse = not self.reverse
        self.refresh_table()

    def action_scores(self) -> None:
        from clarify_tui.tui.screens.scores import ScoresScreen

        self.app.push_screen(ScoresScreen(self.store))

    def action_reload(self) -> None:
        before = {r.id for r in self.rows}
        self.reload()
        new = sum(r.id not in before for r in self.rows)
        self.notify(
            f"Reloaded: {plural(len(self.rows), 'session')}, " + (f"{new} new." if new else "nothing new."), timeout=3
        )

    def action_back(self) -> None:
        go_back(self)

    def action_back_quits(self) -> None:
        self.app.exit()

    def action_leave(self) -> None:
        go_back(self)

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        allowed = back_enabled(self, action)
        return True if allowed is None else allowed
