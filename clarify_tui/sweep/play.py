"""Play a sweep's cells at once in one process, under one budget (docs/sweeps.md).

Why one process and one event loop: a model endpoint's call limit is shared by every role
and every run that uses it within a loop (llm/client.py `Endpoint`), so cells running
side by side never send one server more than its limit; and one `SweepBudget` bounds the
sessions in flight across all cells and stops admitting new ones before `--max-cost`.
Each cell is played by `runner.run_batch` exactly as `run --resume` would play it (same
plan, lease, spec and provenance guards), so a killed sweep, run again, plays only what is
missing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from clarify_tui.store import spending
from clarify_tui.sweep.cells import Cell, shard_keep

if TYPE_CHECKING:
    from clarify_tui.api import PreparedRun
    from clarify_tui.models import Session
    from clarify_tui.runner import RunSummary
    from clarify_tui.store import Store


@dataclass
class CellRun:
    """One cell, prepared (`api.prepare_run`) and placed in this shard."""

    cell: Cell
    prepared: PreparedRun
    keep: Callable[[str, int], bool] | None
    wanted: int  # sessions of this cell in this shard
    done: int  # of those, already finished in the database (completed, or errored and not retried)
    exists: bool  # the database holds the run already: it is continued (the --resume guards apply)
    retry_errored: bool = False  # play its errored sessions again (run --resume --retry-errored)

    @property
    def to_play(self) -> int:
        return self.wanted - self.done


def place(
    cells: list[tuple[Cell, PreparedRun]],
    store: Store | None,
    shard: tuple[int, int] | None,
    retry_errored: bool = False,
) -> list[CellRun]:
    """Each cell's share of the sweep in this shard and what the database already holds of it
    (`retry_errored`: an errored session is not done, it is played again)."""
    out: list[CellRun] = []
    offset = 0
    for cell, prepared in cells:
        spec = prepared.spec
        ids = [t.id for t in prepared.tasks]
        keep = shard_keep(offset, ids, shard)
        offset += len(ids) * spec.epochs
        pairs = {(t, e) for e in range(spec.epochs) for t in ids if keep is None or keep(t, e)}
        exists = store is not None and (store.run_row(cell.name) is not None or bool(store.sessions(runs=[cell.name])))
        finished: set[tuple[str, int]] = set()
        if exists and store is not None:
            finished = {
                (s.task_id, s.epoch)
                for s in store.sessions(runs=[cell.name])
                if s.status == "completed" or (s.status == "errored" and not retry_errored)
            }
        out.append(
            CellRun(
                cell=cell,
                prepared=prepared,
                keep=keep,
                wanted=len(pairs),
                done=len(pairs & finished),
                exists=exists,
                retry_errored=retry_errored and exists,
            )
        )
    return out


def check_cells_resumable(store: Store, runs: list[CellRun]) -> None:
    """`run --resume`'s guards for every cell the database holds, before anything plays:
    a changed setting is refused, naming the cell."""
    from clarify_tui.run_spec import check_provenance, check_same_spec

    for r in runs:
        if not r.exists:
            continue
        try:
            check_same_spec(store, r.prepared.spec)
            check_provenance(store, r.prepared.spec)
        except ValueError as exc:
            raise type(exc)(f"cell {r.cell.name}: {exc}") from None


@dataclass
class SweepBudget:
    """The sweep's gate (runner.run_batch `gate`): at most `concurrency` sessions in flight
    across all cells, and none started once `max_cost` would be passed: the spend so far
    plus, for the sessions in flight and this one, the mean cost of a finished session."""

    concurrency: int
    max_cost: float | None = None
    spent: float = 0.0
    priced: int = 0  # finished sessions whose cost is counted in `spent`
    unpriced_calls: int = 0
    in_flight: int = 0
    stopped: str | None = None
    meter: SpendMeter | None = None
    _sem: asyncio.Semaphore | None = None
    _admitted: set = field(default_factory=set)

    def add(self, cost: float, unpriced: int) -> None:
        self.spent += cost
        self.priced += 1
        self.unpriced_calls += unpriced

    def affordable(self) -> bool:
        if self.max_cost is None:
            return True
        mean = self.spent / self.priced if self.priced else 0.0
        return self.spent + (self.in_flight + 1) * mean <= self.max_cost and self.spent < self.max_cost

    async def __aenter__(self) -> bool:
        if self._sem is None:
            self._sem = asyncio.Semaphore(max(1, self.concurrency))
        await self._sem.acquire()
        if self.meter is not None:  # what the sessions finished while this one waited cost
            await self.meter.settled(patience=SETTLE_PATIENCE_S if self.max_cost is not None else 0.0)
        if self.stopped is None and not self.affordable():
            self.stopped = (
                f"--max-cost ${self.max_cost:.2f}: ${self.spent:.4f} spent; the next session "
                f"(about ${self.spent / max(1, self.priced):.4f} each) would pass it"
            )
        if self.stopped is not None:
            self._sem.release()
            return False
        self.in_flight += 1
        self._admitted.add(asyncio.current_task())
        return True

    async def __aexit__(self, *exc: object) -> None:
        task = asyncio.current_task()
        if task in self._admitted:
            self._admitted.discard(task)
            self.in_flight -= 1
            assert self._sem is not None
            self._sem.release()


SETTLE_PATIENCE_S = 5.0


class SpendMeter:
    """What finished sessions cost, read from the database once their rows are final (the
    background writer writes a session's steps before its end)."""

    def __init__(self, store: Store, budget: SweepBudget) -> None:
        self.store, self.budget = store, budget
        self.pending: list[str] = []

    def finished(self, session: Session) -> None:
        self.pending.append(session.id)

    def settle(self) -> bool:
        """Count the finished sessions whose rows are final; True when none is left pending."""
        if not self.pending:
            return True
        rows = spending.settled_costs(self.store.conn, self.pending)
        for sid, cost, unpriced in rows:
            self.budget.add(float(cost or 0.0), int(unpriced or 0))
            self.pending.remove(sid)
        return not self.pending

    async def settled(self, patience: float = SETTLE_PATIENCE_S) -> None:
        """Wait (a few ms: the writer's lag) until every finished session is counted, so a
        spending limit decides on what was spent; after `patience`, decide on what is known."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + patience
        while not self.settle() and loop.time() < deadline:  # patience 0: what is known now
            await asyncio.sleep(0.005)


@dataclass
class SweepOutcome:
    summaries: dict[str, RunSummary] = field(default_factory=dict)
    failures: dict[str, BaseException] = field(default_factory=dict)  # cell name -> why it stopped


async def play_cells(
    store: Store,
    runs: list[CellRun],
    budget: SweepBudget,
    on_session_done: Callable[[Session], None] | None = None,
    notify: Callable[[str], None] | None = None,
) -> SweepOutcome:
    """Every cell's run_batch at once; a cell whose run stops (its endpoint down) does not
    stop the others' sessions in flight; a database failure (or another process writing a
    cell: RunLeaseError) stops the sweep."""
    from clarify_tui.errors import StoreError
    from clarify_tui.runner import run_batch

    meter = budget.meter = SpendMeter(store, budget)

    def done(session: Session) -> None:
        meter.finished(session)
        if on_session_done is not None:
            on_session_done(session)

    outcome = SweepOutcome()

    async def one(r: CellRun) -> None:
        p = r.prepared
        try:
            outcome.summaries[r.cell.name] = await run_batch(
                store,
                p.spec,
                p.tasks,
                resume=r.exists,
                retry_errored=r.retry_errored,
                config_obj=p.config_obj,
                on_session_done=done,
                notify=notify,
                gate=budget,
                keep=r.keep,
            )
        except StoreError:
            raise
        except Exception as exc:  # this cell stopped (its endpoint down): the others go on
            outcome.failures[r.cell.name] = exc

    try:
        async with asyncio.TaskGroup() as group:  # a database failure cancels every cell
            for r in runs:
                group.create_task(one(r))
    except* StoreError as failed:
        raise failed.exceptions[0] from None
    meter.settle()
    return outcome
