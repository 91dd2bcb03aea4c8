"""Queue claims across processes: who plays which task of a campaign, in one SQLite file.

Every browser visitor of `clarify-tui serve` is its own process on the same database.
A claim is a row `(run, task_id, annotator)`; taking the next task is one short
`BEGIN IMMEDIATE` transaction, so two processes can never both see a task as free.

Rules (K = annotators wanted per task, `--per-task`, default 1):
- a task is *taken* by another annotator while they hold a live claim on it or have a
  completed / errored session of it; it is open to me while fewer than K others took it;
- an annotator holds at most one live claim; they get it back (and their `running`
  session resumes) until they finish the task;
- a claim is held by one process (one browser tab, `holder`): a second tab of the same
  annotator is told the task is open elsewhere instead of playing it a second time. A
  process lets go of its claim when it ends (the claim stays theirs until the timeout),
  and a holder process on this host that died is ignored at once;
- a claim whose holder stopped sending heartbeats for `timeout` seconds (the browser
  tab closed, the process died) is released; if the task then went to someone else, the
  holder's unfinished session is marked abandoned with a note, never scored;
- a skipped task (abandoned by ctrl+o) is finished for the one who skipped it only.

The campaign's definition (dataset, task order, K) is kept in `campaigns` so that
`queue status RUN` knows what remains without being told the dataset again.
"""

from __future__ import annotations

import os
import secrets
import socket
import time
from dataclasses import dataclass
from pathlib import Path

from clarify_tui.errors import UsageError
from clarify_tui.lease import pid_alive, process_id
from clarify_tui.models import FINISHED_STATUSES, now_iso
from clarify_tui.store import claims as rows
from clarify_tui.store.claims import connect, read_only, transaction

FINISHED = FINISHED_STATUSES
COVERED = ("completed", "errored")  # a skip (abandoned) does not count towards K
DEFAULT_TIMEOUT = 300.0


@dataclass
class Campaign:
    """What a campaign serves: its run, the tasks in serving order, annotators per task."""

    run: str
    task_ids: list[str]
    per_task: int = 1
    dataset: str | None = None
    benchmark: str | None = None
    seed: int | None = None


@dataclass
class Claim:
    """The task an annotator should play now; `resume_id` is their running session of it."""

    task_id: str
    resume_id: str | None = None


@dataclass
class NoTask:
    """Nothing to play now: `waiting` tasks are held by others' live claims (they may come back)."""

    waiting: int


@dataclass
class OpenElsewhere:
    """The annotator's claimed task is open in another live process (another tab)."""

    task_id: str


class ClaimBook:
    """Claims of one campaign in the database at `path` (its own connection).

    Open the process's `Store` on the file first: it creates the sessions table the
    claims are checked against.
    """

    def __init__(self, path: str | Path, campaign: Campaign, timeout: float = DEFAULT_TIMEOUT) -> None:
        if campaign.per_task < 1:
            raise UsageError("--per-task must be at least 1")
        if timeout <= 0:
            raise UsageError("--claim-timeout must be positive")
        self.campaign = campaign
        self.timeout = timeout
        self.path = Path(path)
        # this process/tab: host, pid, the process's identity (a reused pid is another holder), a nonce
        me = os.getpid()
        self.holder = f"{socket.gethostname()}:{me}:{process_id(me) or '-'}:{secrets.token_hex(4)}"
        self.conn = connect(path)
        if not rows.has_sessions(self.conn):
            self.conn.close()
            raise ValueError(f"{path} has no sessions table: open it with Store first")

    def close(self) -> None:
        self.conn.close()

    def register(self) -> Campaign:
        """Record the campaign (first time) or check it matches the recorded one."""
        c = self.campaign
        with transaction(self.conn):
            shape = rows.campaign_shape(self.conn, c.run)
            if shape is None:
                rows.add_campaign(self.conn, c.run, c.dataset, c.benchmark, c.per_task, c.seed, c.task_ids, now_iso())
            elif shape != (c.per_task, c.task_ids):
                raise UsageError(
                    f"run '{c.run}' is already a campaign with {len(shape[1])} tasks and "
                    f"--per-task {shape[0]}; serve it with the same dataset, order and --per-task, or name a new run"
                )
        return c

    def claim_next(self, annotator: str) -> Claim | NoTask | OpenElsewhere:
        """The annotator's task now: their live claim, else the first open task in order;
        `OpenElsewhere` while another live tab of theirs holds that claim."""
        c, now = self.campaign, time.time()
        with transaction(self.conn):
            db = self.conn
            rows.release_expired(db, c.run, now - self.timeout)
            mine = {sid: (task, status) for sid, task, status in rows.sessions_of(db, c.run, annotator)}
            finished = {task for task, status in mine.values() if status in FINISHED}
            running = {task: sid for sid, (task, status) in mine.items() if status == "running"}
            live_rows = rows.live_of(db, c.run, annotator)
            for task, _ in live_rows:
                if task in finished:
                    rows.mark_done(db, c.run, task, annotator)
            live_rows = [(task, holder) for task, holder in live_rows if task not in finished]
            for task, holder in live_rows:
                if holder is not None and holder != self.holder and holder_alive(holder):
                    return OpenElsewhere(task)
            taken = rows.taken_by_others(db, c.run, annotator, COVERED)
            live_mine = [task for task, _ in live_rows]
            # 1. my live claim; 2. a task I left running that is still open; 3. the next open task
            candidates = live_mine + [t for t in c.task_ids if t in running and t not in finished]
            candidates += [t for t in c.task_ids if t not in finished]
            for task in candidates:
                if task not in live_mine and taken.get(task, 0) >= c.per_task:
                    continue
                rows.take(db, c.run, task, annotator, now, self.holder)
                self._abandon_lost(running, taken, keep=task)
                return Claim(task, running.get(task))
            self._abandon_lost(running, taken, keep=None)
            waiting = sum(1 for t in c.task_ids if t not in finished and self._live_only(t, annotator))
            return NoTask(waiting=waiting)

    def heartbeat(self, annotator: str) -> None:
        """The annotator is still here: keep their live claim."""
        with transaction(self.conn):
            rows.beat(self.conn, self.campaign.run, annotator, self.holder, time.time())

    def let_go(self) -> None:
        """This process ends (the tab closed): its claims stay live until the timeout, so
        nobody else takes the task meanwhile, but the annotator's next tab takes them at once."""
        with transaction(self.conn):
            rows.let_go(self.conn, self.campaign.run, self.holder)

    def release_dead_holders(self) -> int:
        """Claims held by processes on this host that are gone (the visitors of a server
        killed with -9) are let go, so their annotators get their tasks back at once.
        `serve` calls it on start; returns how many."""
        with transaction(self.conn):
            dead = [rowid for rowid, holder in rows.held(self.conn, self.campaign.run) if not holder_alive(holder)]
            for rowid in dead:
                rows.unhold(self.conn, rowid)
        return len(dead)

    # ---- inside the claim transaction --------------------------------------------------

    def _live_only(self, task: str, annotator: str) -> bool:
        """The task is held only by live claims of others (it may come free again)."""
        covered = rows.covered_by_others(self.conn, self.campaign.run, task, annotator, COVERED)
        return covered < self.campaign.per_task

    def _abandon_lost(self, running: dict[str, str], taken: dict[str, int], keep: str | None) -> None:
        """My running sessions of tasks that went to others while my claim had lapsed."""
        for task, sid in running.items():
            if task != keep and taken.get(task, 0) >= self.campaign.per_task:
                rows.abandon(self.conn, sid, now_iso(), "claim expired: the task went to another annotator")


def holder_alive(holder: str) -> bool:
    """A holder on this host is alive while its process is (the same process: same pid
    and start time, see lease.process_id); one on another host counts as alive (its claim
    lapses by heartbeat, like any other). Holders written before identities: `host:pid:nonce`."""
    host, pid, rest = holder.split(":", 2)
    if host != socket.gethostname():
        return True
    ident = rest.rsplit(":", 1)[0] if ":" in rest else "-"
    current = process_id(int(pid)) if ident != "-" else None  # None for a zombie: pid_alive says dead
    if current is not None:
        return current == ident
    return pid_alive(int(pid))


def load_campaign(path: str | Path, run: str) -> Campaign | None:
    """The campaign recorded for `run`, or None (a run played without `serve`). Read only."""
    row = rows.campaign_row(path, run)
    if row is None:
        return None
    return Campaign(run=row[0], task_ids=row[1], per_task=row[2], dataset=row[3], benchmark=row[4], seed=row[5])


def live_claims(path: str | Path, run: str, timeout: float = DEFAULT_TIMEOUT) -> dict[str, list[str]]:
    """Annotator -> tasks they hold a live claim on (expired ones left out). Read only."""
    conn = read_only(path)
    try:
        out: dict[str, list[str]] = {}
        for who, task in rows.live_since(conn, run, time.time() - timeout):
            out.setdefault(who, []).append(task)
        return out
    finally:
        conn.close()
