"""Import the reference InteractComp harness's per-task results CSV as sessions.

`importers/harness_csv.py` reads and checks the rows (which task, the rounds, score,
cost, action counts); this module replays each row through the engine:

* Each history round's action is applied to an Episode (build_episode) through replay
  backends: `search` becomes an agent search step whose observation text is the
  harness's observation verbatim (no hits); `ask` (and `ask_NL`) an ask step whose reply
  is the observation, followed by the user's reply step; `answer` the answer step. A
  last round the harness recorded under another name (its final round keeps imperfectly
  parsed output) counts as the answer.
* `score` is not re-judged: the judge step is "harness score" with
  `data = {"correct": bool, "harness_score": float}` (score >= 0.5 is correct).
* The apportioned `cost` is stored as the cost of the task's first agent step.
* The harness's invalid count becomes the result's `invalid` (its invalid retries are
  not in the history). A task the harness skipped (`{'valid': True}`) has its rounds
  replayed, then one invalid agent step records the skip, and the session completes
  unanswered with the harness's score as its correctness (it is the model's failure,
  not an infrastructure error).
* A row the harness errored on is imported as an *errored* session (no steps), never as
  a wrong answer.

The result follows docs/internals.md (interactcomp), with `mode` "full" and `max_rounds`
the larger of `--max-rounds` (default: the protocol's 10) and what the replay needs, plus
`harness: {"score", "action_counts", "skipped"}`. Every bad row (see harness_csv, and an
action the engine refuses) is reported with file, line and row before anything is
written.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from clarify_tui.deviations import HARNESS_IMPORT, REFERENCE_SERPER
from clarify_tui.engine import build_episode
from clarify_tui.importers.common import (
    Built,
    ImportFileError,
    ImportSummary,
    ReplayAgent,
    ReplayJudge,
    ReplaySearch,
    ReplayUser,
    built_from,
    check_run_free,
    write_all,
)
from clarify_tui.importers.harness_csv import HarnessRow, apportion_costs, read_rows
from clarify_tui.models import (
    Action,
    ActionKind,
    EpisodeConfig,
    Observation,
    Protocol,
)
from clarify_tui.protocols.interactcomp.harness_history import ERRORED_MESSAGE
from clarify_tui.results import InteractCompResult, InteractCompState
from clarify_tui.store import Store
from clarify_tui.tasks import DatasetError, load_tasks
from clarify_tui.tasks.problems import Problems, short

FORMAT = "interactcomp-harness"
AGENT_SPEC = HARNESS_IMPORT  # "import:interactcomp-harness"


class ReferenceSearch(ReplaySearch):
    """The harness's recorded searches: Google through Serper (its core/engine/search.py),
    the paper's search, so an imported run is comparable (deviations.py)."""

    spec = REFERENCE_SERPER


JUDGE_SPEC = "import:harness-score"
SKIP_FEEDBACK = "skipped by the reference harness after repeated invalid actions"


def _actions(row: HarnessRow) -> tuple[list[Action], list[str], list[str]]:
    """Engine actions, the ask replies, and each action's recorded observation."""
    actions, replies, observations = [], [], []
    for i, r in enumerate(row.rounds):
        if i == len(row.rounds) - 1 and row.kind == "answered":
            # the answer, or whatever the harness recorded in its forced final round
            text = row.predicted if row.predicted.strip() else r.props.get("answer", "")
            action = Action.answer(text, row.confidence)
            if r.name != "answer" or "answer" not in r.props:  # a final-round non-answer (agent.py:137-146)
                action.raw = r.action_text
        elif r.name == "search":
            action = Action.search(r.props["query"])
        else:
            action = Action.ask(r.props["question"])
            replies.append(r.observation)
        actions.append(action)
        observations.append(r.observation)
    return actions, replies, observations


async def build_row(row: HarnessRow, run: str, source: str, max_rounds: int | None, problems: Problems) -> Built | None:
    correct = row.score >= 0.5
    actions, replies, observations = _actions(row)
    # Room for every replayed action (the last round allows only answer), with a spare.
    extra = 2 if row.kind == "skipped" else 1
    config = EpisodeConfig(max_rounds=max(max_rounds or 10, len(actions) + extra), interactcomp_mode="full")
    episode = build_episode(
        row.task,
        agent=ReplayAgent(AGENT_SPEC, actions),
        user=ReplayUser(AGENT_SPEC, yesno=replies),
        search=ReferenceSearch(),
        judge=ReplayJudge(JUDGE_SPEC, correct=correct),
        config=config,
    )
    session = episode.session
    session.run = run
    session.note = f"imported from {source} row {row.number}"
    if row.kind == "errored":
        episode.fail(ERRORED_MESSAGE)
        session.result.harness = {"score": row.score, "action_counts": row.action_counts, "skipped": False}
        return built_from(episode)
    recorded: dict[int, str] = {}
    for action, observation in zip(actions, observations):
        before = len(episode.steps)
        obs = await episode.apply(await episode.propose())
        if obs.error:
            problems.add(
                source,
                row.line,
                "history",
                f"row {row.number}: the engine refused {action.kind.value} {short(action.summary())}: {obs.error}",
            )
            return None
        recorded[before] = observation
    if row.kind == "skipped":
        await episode.apply(Action(kind=ActionKind.invalid, text=SKIP_FEEDBACK, raw=str(row.action_counts)))
        state = episode.rules.state
        if not isinstance(state, InteractCompState):  # build_episode of an interactcomp task
            raise TypeError(f"task {row.task.id} did not build an interactcomp episode")
        state.correct = correct
        state.outcome = "invalid_skip"  # counted by the invalid_skips metric
        _judge_step(episode, correct, row.score, skipped=True)
        episode.done = True
        episode.finish()
        episode.refresh_last_state()
    elif not episode.done:
        problems.add(source, row.line, "history", f"row {row.number}: the replayed episode did not end")
        return None
    # The engine's search step says "N results"; the harness's own text is what was observed.
    for index, text in recorded.items():
        step = episode.steps[index]
        if step.action.kind == ActionKind.search:
            step.observation = Observation(text=text, data={"recorded": True})
    for step in episode.steps:
        if step.actor == "judge" and step.action.text != "harness score":
            _relabel_judge(step, correct, row.score)
    first_agent = next((s for s in episode.steps if s.actor == "agent"), None)
    if first_agent is not None:
        first_agent.cost_usd = row.cost
    session.result.harness = {
        "score": row.score,
        "action_counts": row.action_counts,
        "skipped": row.kind == "skipped",
    }
    if row.kind == "answered" and isinstance(session.result, InteractCompResult):
        session.result.invalid = int(row.action_counts.get("invalid", 0))
    return built_from(episode)


def _verdict_text(correct: bool, score: float) -> str:
    return f"{'correct' if correct else 'wrong'} (harness score {score:g})"


def _relabel_judge(step, correct: bool, score: float) -> None:
    step.action = Action(kind=ActionKind.judge, text="harness score")
    step.observation = Observation(
        text=_verdict_text(correct, score), data={"correct": correct, "harness_score": score}
    )


def _judge_step(episode, correct: bool, score: float, skipped: bool) -> None:
    data = {"correct": correct, "harness_score": score, "skipped": skipped}
    episode.record(
        "judge",
        Action(kind=ActionKind.judge, text="harness score"),
        Observation(text=_verdict_text(correct, score), data=data),
    )


def default_run_name(path: Path) -> str:
    stem = re.sub(r"[^\w.-]+", "-", path.stem).strip("-")
    return f"harness-{stem}" if stem else "harness-import"


def import_harness(
    store: Store,
    path: str | Path,
    dataset: str | Path,
    *,
    run: str | None = None,
    max_rounds: int | None = None,
    canary: str | None = None,
) -> ImportSummary:
    """Import a harness results CSV into `store`; raises ImportFileError (nothing written)."""
    path = Path(path)
    try:
        tasks = load_tasks(Protocol.interactcomp, dataset, canary=canary)
    except DatasetError as exc:
        raise ImportFileError(exc.problems) from None
    run = run or default_run_name(path)
    check_run_free(store, run, path)
    problems = Problems()
    rows = read_rows(path, tasks, problems)
    if problems:
        raise ImportFileError(problems.sorted())
    apportion_costs(rows)

    async def build_all() -> list[Built | None]:
        return [await build_row(r, run, str(path), max_rounds, problems) for r in rows]

    built = asyncio.run(build_all())
    if problems:
        raise ImportFileError(problems.sorted())
    return write_all(
        store,
        [b for b in built if b is not None],
        run,
        benchmark="interactcomp",
        dataset=str(dataset),
        agent=AGENT_SPEC,
        user=AGENT_SPEC,
        search=ReferenceSearch.spec,
        judge=JUDGE_SPEC,
        config={"imported_from": str(path), "format": FORMAT},
    )
