"""The scores screen: the numbers of `clarify-tui score` for this database, grouped by
run, agent, mode or annotator, and charts of them.

Numbers: one table per benchmark (metrics as rows, groups as columns, the same rows as
the `score` command). Charts: accuracy by group, the InteractComp reliability diagram,
DiscoBench profile shares and pass rates, the CTS restore-score histogram.

The sessions are read on the event loop (the store's connection belongs to it); the
metrics, which may bootstrap confidence intervals, are computed in a thread worker that
posts a `ScoresComputed` message. Every number comes from `clarify_tui.metrics`. When the
screen opens or comes back and the database changed since it read the sessions (a screen
built ahead, tui/speed/ahead.py), it reads and computes them again.
"""

from __future__ import annotations

import asyncio

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import (
    DataTable,
    Label,
    Select,
    Static,
    TabbedContent,
    TabPane,
)

from clarify_tui.metrics import load_sessions
from clarify_tui.metrics.charts import HIST_BINS, ScoresData, compute_scores
from clarify_tui.metrics.comparability import footnotes
from clarify_tui.metrics.model import Group
from clarify_tui.metrics.profiles import PROFILES
from clarify_tui.metrics.records import ScoredSession, is_informed
from clarify_tui.metrics.report import GROUP_BY, format_metric
from clarify_tui.metrics.roles import mixed_role_lines
from clarify_tui.metrics.table_rows import COMMON_ROWS, benchmark_rows, group_label, profile_cell
from clarify_tui.plural import plural
from clarify_tui.protocols import registry
from clarify_tui.protocols.discobench.metric_model import DiscoBenchMetrics
from clarify_tui.tui.screens.back import back_bindings, back_enabled, go_back
from clarify_tui.tui.speed import FastTable, Header, LaidOutScreen, LightSelect
from clarify_tui.tui.widgets.footer import Footer


def chart_widgets() -> list:
    from clarify_tui.tui.widgets.charts import BarChart, GroupedBars, ReliabilityChart

    return [
        BarChart(id="chart-accuracy"),
        ReliabilityChart(id="chart-calibration"),
        GroupedBars(id="chart-profile-share"),
        GroupedBars(id="chart-profile-pass"),
        GroupedBars(id="chart-restore"),
    ]


class ScoresScreen(LaidOutScreen):
    """Scores of every session in the store."""

    BINDINGS = [
        Binding("t", "switch_tab", "Numbers/Charts", id="scores-tab", tooltip="switch between numbers and charts"),
        Binding("r", "reload", "Reload", id="scores-reload"),
        *back_bindings("scores"),
        Binding(
            "escape",
            "leave",
            "Back",
            id="scores-escape",
            show=False,
            tooltip="back, or quit on the first screen (as q does)",
        ),
    ]

    class ScoresComputed(Message):
        def __init__(self, data: ScoresData) -> None:
            super().__init__()
            self.data = data

    def __init__(self, store, by: str = "run", tab: str = "numbers") -> None:
        super().__init__()
        self.store = store
        self.by = by
        self.initial_tab = tab
        self.data: ScoresData | None = None
        self.sessions: list[ScoredSession] = []
        self.informed = 0  # informed sessions left out of the last load
        self._read_at: tuple[int, int] | None = None  # data_mark when the sessions were read

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="scores-bar"):
            yield Label("group by ")
            yield LightSelect([(g, g) for g in GROUP_BY], value=self.by, allow_blank=False, id="scores-by")
            yield Static(id="scores-summary")
        with TabbedContent(initial=self.initial_tab, id="scores-tabs"):
            with TabPane("Numbers", id="numbers"):
                yield VerticalScroll(id="scores-tables")
            with TabPane("Charts", id="charts"), Grid(id="scores-charts"):
                if self.initial_tab == "charts":
                    yield from chart_widgets()
        yield Footer()

    def on_mount(self) -> None:
        self.title = "scores"
        self.sub_title = getattr(getattr(self.store, "path", None), "name", "")
        self.reload()

    def on_screen_resume(self) -> None:
        if self.store.data_mark() != self._read_at:
            self.reload()

    def reload(self) -> None:
        self._read_at = self.store.data_mark()
        # a player who had seen hidden information is no baseline (as `score` without --include-informed)
        loaded = load_sessions(self.store)
        self.sessions = [s for s in loaded if not is_informed(s)]  # a running one is counted `running`
        self.informed = len(loaded) - len(self.sessions)
        self.query_one("#scores-summary", Static).update(f"  {plural(len(self.sessions), 'session')} · computing…")
        self.compute(self.sessions, self.by)

    def left_out(self) -> list[Static]:
        """Said, not silent: informed sessions are no baseline (as `score` leaves them out)."""
        if not self.informed:
            return []
        n = self.informed
        return [
            Static(
                f"{plural(n, 'informed session')} left out, as `score` leaves {'it' if n == 1 else 'them'} out",
                id="scores-left-out",
                classes="hint",
                markup=False,
            )
        ]

    @work(thread=True, exclusive=True, group="scores", exit_on_error=False)
    def compute(self, sessions, by: str) -> None:
        self.post_message(self.ScoresComputed(compute_scores(sessions, by)))

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "scores-by" and event.value != self.by:
            self.by = str(event.value)
            self.compute(self.sessions, self.by)

    def on_scores_screen_scores_computed(self, message: ScoresComputed) -> None:
        if message.data.by != self.by:
            return
        self.data = message.data
        groups = self.data.report.groups
        self.query_one("#scores-summary", Static).update(
            f"  {plural(len(self.sessions), 'session')} · {plural(len(groups), 'group')} by {self.by}"
        )
        self.show_tables()
        self.show_charts()

    # ---- numbers -----------------------------------------------------------------------

    def show_tables(self) -> None:
        container = self.query_one("#scores-tables", VerticalScroll)
        container.remove_children()
        container.mount_all(self.left_out())
        groups = self.data.report.groups if self.data else []
        if not groups:
            container.mount(Static("No sessions to score.", classes="hint"))
            return
        pieces = [
            (benchmark, mine)
            for benchmark in registry.in_report_order()
            if (mine := [g for g in groups if g.benchmark == benchmark])
        ]
        if self.is_current:
            container.mount_all([w for benchmark, mine in pieces for w in self._table(benchmark, mine)])
        else:  # built ahead, unseen (tui/speed/ahead.py): a table per turn of the event loop, no long stall
            self.call_next(self._mount_in_turns, container, self.data, pieces)

    async def _mount_in_turns(self, container, data, pieces) -> None:
        for benchmark, mine in pieces:
            if self.data is not data or self.is_current:  # newer numbers, or shown: the rest at once
                if self.data is data:
                    container.mount_all(
                        [w for b, m in pieces[pieces.index((benchmark, mine)) :] for w in self._table(b, m)]
                    )
                return
            await container.mount_all(self._table(benchmark, mine))
            await asyncio.sleep(0)

    def _table(self, benchmark: str, groups: list[Group]) -> list:
        """A benchmark's title and table of numbers."""
        table = FastTable(classes="scores-table", zebra_stripes=True, cursor_type="none")
        self._fill(table, benchmark, groups)
        notes = [Static(line, classes="hint", markup=False) for line in footnotes(groups, group_label)]
        roles = [Static(line, classes="scores-roles", markup=False) for line in mixed_role_lines(groups, self.by)]
        return [Static(f"{benchmark} — by {self.by}", classes="scores-title"), *roles, table, *notes]

    def _fill(self, table: DataTable, benchmark: str, groups: list[Group]) -> None:
        table.add_column("metric")
        for g in groups:
            table.add_column(group_label(g))
        table.add_row("sessions scored", *[str(g.n_sessions) for g in groups])
        for key, label, kind in benchmark_rows(benchmark, groups) + COMMON_ROWS:
            table.add_row(label, *[format_metric(g.metrics.value(key), kind, with_n=False) for g in groups])
        disco = [m for g in groups if isinstance(m := g.metrics, DiscoBenchMetrics)]
        if len(disco) == len(groups):  # DiscoBench's profiles
            for name in PROFILES:
                table.add_row(f"profile {name} share / pass", *[profile_cell(m.profiles[name]) for m in disco])

    # ---- charts ------------------------------------------------------------------------

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        """The charts (plotext) are imported and mounted the first time their tab opens:
        most visits read the numbers, and they were a good part of opening the screen."""
        charts = self.query_one("#scores-charts", Grid)
        if event.pane.id == "charts" and not charts.children:
            charts.mount_all(chart_widgets())
            if self.data is not None:
                self.call_after_refresh(self.show_charts)

    def show_charts(self) -> None:
        data = self.data
        if data is None or not self.query("#chart-accuracy"):
            return  # not computed yet, or the charts tab not opened yet
        from clarify_tui.tui.widgets.charts import BarChart, GroupedBars, ReliabilityChart

        self.query_one("#chart-accuracy", BarChart).show(
            f"accuracy by {self.by}", [a[0] for a in data.accuracy], [a[1] for a in data.accuracy]
        )
        self.query_one("#chart-calibration", ReliabilityChart).show(
            "InteractComp reliability (5 bins)", data.reliability
        )
        categories = ["guess", "heavy guess", "ask", "search+ask"]
        self.query_one("#chart-profile-share", GroupedBars).show(
            "DiscoBench profile share", categories if data.profile_share else [], data.profile_share, top=1.0
        )
        self.query_one("#chart-profile-pass", GroupedBars).show(
            "DiscoBench profile pass rate", categories if data.profile_pass else [], data.profile_pass, top=1.0
        )
        bins = [f"{i * 10}" for i in range(HIST_BINS)]
        self.query_one("#chart-restore", GroupedBars).show(
            "CTS restore score (sessions per 10-point bin)", bins if data.restore_hist else [], data.restore_hist
        )

    # ---- actions -----------------------------------------------------------------------

    def action_switch_tab(self) -> None:
        tabs = self.query_one(TabbedContent)
        tabs.active = "charts" if tabs.active == "numbers" else "numbers"

    def action_reload(self) -> None:
        changed = self.store.data_mark() != self._read_at
        self.reload()
        self.notify(
            f"Reloaded: {plural(len(self.sessions), 'session')}"
            + (", computing…" if changed else ", nothing new since the last read."),
            timeout=3,
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
