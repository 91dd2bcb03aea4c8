"""Import Clarify-Then-Search candidate files (the release's
`results/candidates/*__cand_hard518.jsonl`, read by `eval_gold.py --gold_b`) as cts sessions.

The accepted field names and their variants: importers/cts_candidate_fields.py.

Each candidate is played through the engine (build_episode) by a replay agent whose
actions are `clarify(questions)` then `answer(ŷ)`, with the stored replies, rewrite and
coverage (or the simulators and judge for what is missing), so the session's steps and
result are exactly those of a live cts session (docs/internals.md). The run name is
`--run`, else the file name before `__` (`ebk1__cand_hard518.jsonl` -> `ebk1`).
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from clarify_tui.backend_spec import RoleSpecs
from clarify_tui.backends import build_backends
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
from clarify_tui.importers.cts_candidate_fields import Candidate, Invalid, read_candidate
from clarify_tui.models import Action, EpisodeConfig, Protocol
from clarify_tui.store import Store
from clarify_tui.tasks import DatasetError, load_tasks
from clarify_tui.tasks.problems import Problems
from clarify_tui.tasks.textfile import read_records

FORMAT = "cts-candidates"


def default_run_name(path: Path) -> str:
    stem = path.name.split("__")[0] if "__" in path.name else path.stem
    stem = re.sub(r"[^\w.-]+", "-", stem).strip("-")
    return stem or "cts-candidates"


async def build_candidate(
    c: Candidate, run: str, source: str, user_fallback, judge_fallback, problems: Problems
) -> Built | None:
    k = len(c.questions) or 1
    stored_user = c.replies is not None or c.rewritten is not None
    user_spec = (
        user_fallback.spec
        if not stored_user
        else (
            "stored"
            if (
                c.replies is not None
                and len(c.replies) == len(c.questions)
                and (c.rewritten is not None or not c.questions)
            )
            else f"stored+{user_fallback.spec}"
        )
    )
    user = ReplayUser(user_spec, clarifications=c.replies, rewritten=c.rewritten, fallback=user_fallback)
    judge = ReplayJudge(
        "stored" if c.coverage is not None else judge_fallback.spec, coverage=c.coverage, fallback=judge_fallback
    )
    agent = ReplayAgent(f"import:{run}", [Action.clarify(c.questions), Action.answer(c.answer)])
    episode = build_episode(
        c.task,
        agent=agent,
        user=user,
        search=ReplaySearch(),
        judge=judge,
        config=EpisodeConfig(k=k, deep_search="stored"),  # the release's stored WebDancer output
    )
    episode.session.run = run
    episode.session.note = f"imported from {source} line {c.line}"
    while not episode.done and agent.remaining:
        obs = await episode.step()
        if obs.error:
            problems.add(source, c.line, None, f"the engine refused this candidate: {obs.error}")
            return None
    if episode.session.status != "completed":
        problems.add(source, c.line, None, f"could not be played: {episode.session.error or 'did not finish'}")
        return None
    if c.stored_score is not None:
        episode.session.result.stored_restore_score = c.stored_score
    return built_from(episode)


def import_cts_candidates(
    store: Store,
    path: str | Path,
    dataset: str | Path,
    *,
    run: str | None = None,
    user: str = "rule",
    judge: str = "rule",
    config_obj=None,
) -> ImportSummary:
    """Import a candidate JSONL into `store`; raises ImportFileError (nothing written)."""
    path = Path(path)
    try:
        tasks = {t.id: t for t in load_tasks(Protocol.cts, dataset)}
    except DatasetError as exc:
        raise ImportFileError(exc.problems) from None
    run = run or default_run_name(path)
    check_run_free(store, run, path)
    problems = Problems()
    records = read_records(path, problems) if path.exists() else []
    if not path.exists():
        problems.add(path, None, None, "no such file")
    candidates: list[Candidate] = []
    seen: dict[str, int] = {}
    for line, record in records:
        try:
            c = read_candidate(line, record, tasks)
        except Invalid as exc:
            problems.add(path, line, exc.field, str(exc))
            continue
        if c.task.id in seen:
            problems.add(path, line, "id", f"duplicate id {c.task.id!r} (first on line {seen[c.task.id]})")
            continue
        seen[c.task.id] = line
        candidates.append(c)
    if not candidates and not problems:
        problems.add(path, None, None, "no candidates in the file")
    if problems:
        raise ImportFileError(problems.sorted())
    fallbacks = build_backends(RoleSpecs.of(user=user, judge=judge), config_obj)
    user_fallback, judge_fallback = fallbacks.user, fallbacks.judge

    async def build_all() -> list[Built | None]:
        return [await build_candidate(c, run, str(path), user_fallback, judge_fallback, problems) for c in candidates]

    built = asyncio.run(build_all())
    if problems:
        raise ImportFileError(problems.sorted())
    return write_all(
        store,
        [b for b in built if b is not None],
        run,
        benchmark="cts",
        dataset=str(dataset),
        agent=f"import:{run}",
        user=user,
        search=ReplaySearch.spec,
        judge=judge,
        config={"imported_from": str(path), "format": FORMAT},
    )
