"""What the importers share: the error that names file and row, replay backends that
feed recorded actions and replies through the engine, and the all-or-nothing write.

An importer first reads and checks the whole file, collecting every `Problem` (file,
line, field, message); if there is any, it raises `ImportFileError` and the database is
not touched. Otherwise it plays every record through `build_episode` in memory (no
sink) and only then writes the sessions, their task snapshots and steps to the store.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from clarify_tui.agent_view import AgentView
from clarify_tui.engine import Episode
from clarify_tui.judges.base import NuggetJudgement, Verdict
from clarify_tui.models import Action, Answer, Nugget, Session, Step, Task
from clarify_tui.protocols.roles import ReplyForm
from clarify_tui.search.base import SearchResult
from clarify_tui.store import Store
from clarify_tui.tasks.problems import DatasetError, Problem
from clarify_tui.users.base import UserReply


class ImportFileError(DatasetError):
    """A file could not be imported; `problems` names every bad row. Nothing was written."""

    def __str__(self) -> str:
        n = len(self.problems)
        head = f"{n} problem{'' if n == 1 else 's'}; nothing was imported"
        return head + ":\n" + "\n".join(f"  {p}" for p in self.problems)


@dataclass
class Built:
    """One imported session, played in memory, ready to be written."""

    session: Session
    task: Task
    steps: list[Step]


@dataclass
class ImportSummary:
    run: str
    sessions: list[Session] = field(default_factory=list)

    @property
    def completed(self) -> int:
        return sum(1 for s in self.sessions if s.status == "completed")

    @property
    def errored(self) -> int:
        return sum(1 for s in self.sessions if s.status == "errored")


def check_run_free(store: Store, run: str, source: str | Path) -> None:
    """Refuse to import into a run that already has sessions (a second import would double them)."""
    existing = store.sessions(runs=[run])
    if existing:
        raise ImportFileError(
            [
                Problem(
                    str(source),
                    None,
                    None,
                    f"run '{run}' already has {len(existing)} session(s) in {store.path}; "
                    "pass --run to import under another name",
                )
            ]
        )


def write_all(store: Store, built: list[Built], run: str, **run_fields) -> ImportSummary:
    """Write every built session; if writing fails half-way, remove what was written."""
    written: list[str] = []
    base = datetime.now(UTC)
    for i, item in enumerate(built):  # file order is session order
        item.session.created_at = (base + timedelta(milliseconds=i)).isoformat(timespec="milliseconds")
    try:
        store.ensure_run(run, **run_fields)
        for item in built:
            store.start_session(item.session, item.task)
            written.append(item.session.id)
            for step in item.steps:
                store.add_step(item.session, step)
    except BaseException:
        for session_id in written:
            store.delete_session(session_id)
        raise
    return ImportSummary(run=run, sessions=[b.session for b in built])


def built_from(episode: Episode) -> Built:
    """The episode's session and steps; replay timings are not the imported tool's, so zero."""
    for step in episode.steps:
        step.latency_ms = 0.0
    return Built(session=episode.session, task=episode.task, steps=episode.steps)


# ---- replay backends ---------------------------------------------------------------------


class ReplayAgent:
    """Plays back recorded actions in order (what the imported agent did)."""

    def __init__(self, spec: str, actions: list[Action]) -> None:
        self.spec = spec
        self._actions = deque(actions)

    async def act(self, view: AgentView) -> Action:
        if not self._actions:
            raise RuntimeError("the recorded trajectory has no more actions")
        return self._actions.popleft()

    @property
    def remaining(self) -> int:
        return len(self._actions)


class ReplaySearch:
    """A search that returns no hits: the importer puts the recorded observation text in."""

    spec = "import:recorded"

    async def search(self, query: str, max_results: int = 5) -> SearchResult:
        return SearchResult(query=query)

    async def visit(self, url: str) -> str | None:
        return None


class ReplayUser:
    """Recorded user replies; anything not recorded goes to `fallback` (or fails loudly)."""

    def __init__(
        self,
        spec: str,
        *,
        yesno: list[str] | None = None,
        clarifications: list[str] | None = None,
        rewritten: str | None = None,
        fallback=None,
    ) -> None:
        self.spec = spec
        self._yesno = deque(yesno or [])
        self._clarifications = deque(clarifications or [])
        self._rewritten = rewritten
        self._fallback = fallback

    def _need_fallback(self, what: str):
        if self._fallback is None:
            raise RuntimeError(f"no recorded {what} and no user simulator to fall back on")
        return self._fallback

    async def reply_interactcomp(self, task: Task, question: str) -> UserReply:
        if self._yesno:
            return UserReply(text=self._yesno.popleft())
        return await self._need_fallback("reply").reply_interactcomp(task, question)

    async def reply_discobench(self, task, checkpoint, question, asked_right) -> UserReply:
        return await self._need_fallback("reply").reply_discobench(task, checkpoint, question, asked_right)

    async def answer_clarification(self, task: Task, question: str) -> UserReply:
        if self._clarifications:
            return UserReply(text=self._clarifications.popleft())
        return await self._need_fallback("clarification answer").answer_clarification(task, question)

    async def reply(self, task: Task, question: str, form: ReplyForm) -> UserReply:
        return await self._need_fallback("reply").reply(task, question, form)

    async def rewrite(self, blurred_query: str, qa_pairs: list[tuple[str, str]]) -> UserReply:
        if self._rewritten is not None:
            return UserReply(text=self._rewritten)
        return await self._need_fallback("rewrite").rewrite(blurred_query, qa_pairs)


class ReplayJudge:
    """Recorded verdicts (a harness score, stored nugget coverage); else `fallback`."""

    def __init__(
        self, spec: str, *, correct: bool | None = None, coverage: list[str] | None = None, fallback=None
    ) -> None:
        self.spec = spec
        self._correct = correct
        self._coverage = coverage
        self._fallback = fallback

    async def equivalent(self, question: str, answer: str, gold: Answer, benchmark: str = "interactcomp") -> Verdict:
        if self._correct is not None:
            return Verdict(correct=self._correct, reason="recorded verdict")
        return await self._fallback.equivalent(question, answer, gold, benchmark=benchmark)

    async def checkpoint(self, checkpoint, kind, text):
        return await self._fallback.checkpoint(checkpoint, kind, text)

    async def ask_targets(self, checkpoint, question):
        return await self._fallback.ask_targets(checkpoint, question)

    async def nuggets(self, answer: str, nuggets: list[Nugget], query: str = "") -> NuggetJudgement:
        if self._coverage is not None:
            return NuggetJudgement(coverage=list(self._coverage))
        return await self._fallback.nuggets(answer, nuggets, query=query)
