"""Import Clarify-Then-Search candidate files (the release's
`results/candidates/*__cand_hard518.jsonl`, read by `eval_gold.py --gold_b`) as cts sessions.

A candidate file holds one JSON object per line (a JSON array is read too) for one
system; the release does not document the field names, so these variants are accepted
(the first name present wins; nested objects under `candidate`, `output`, `result`,
`clarify`, `clarification` or `gold` are read as if their keys were top-level, top-level
keys first):

* task id (required): id, qid, query_id, queryid, idx, index, uid, sample_id, item_id
  — integers are read as strings; it must be a task of `--dataset` (the release folder,
  its queries CSV or its gold JSONL).
* clarification questions: questions, clarify_questions, clarification_questions,
  clarifying_questions, cqs, cq — a list of strings or one string; or question/answer
  pairs under qa, qa_pairs, clarifications, turns, dialog, dialogue as objects
  ({question|q|cq, answer|a|ua|reply}) or [question, answer] pairs. No questions, an
  `orig: true` flag or a system named `orig` is the orig baseline. At most 3 (k ≤ 3); a
  `k` (or `budget`) field must equal the number of questions.
* user-answerer replies: answers, ua_answers, user_answers, clarify_answers, ua — a list
  or one string, one per question. Missing replies come from `--user` (default rule).
* rewritten query q̂: rewritten_query, rewritten, rewrite, rq, q_hat, qhat,
  rewritten_q, rewrite_query. Missing: the `--user` rewriter builds it.
* deep-search answer ŷ (required, non-empty): answer, candidate_answer, final_answer,
  prediction, pred, output, response, y_hat, final, report, text, content — a string
  (an object holding one of these names is looked into); text inside
  `<answer>...</answer>` is taken when the tag is present (an unclosed tag: the rest).
* stored nugget coverage (optional): coverage, nugget_coverage, coverages — a list of
  {id|nugget_id, coverage|label|cov|verdict} objects, an {id: label} object, or a list
  of labels in the gold's nugget order; labels full / partial / none (or 1 / 0.5 / 0).
  Every nugget of the task must be covered. Without it the `--judge` (default rule)
  judges the answer. A stored `restore_score` / `restore_score_100` is kept in the
  result as `stored_restore_score` for comparison; the session's own score is computed.

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
from typing import Any

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
from clarify_tui.models import Action, EpisodeConfig, Protocol, Task
from clarify_tui.protocols.cts.tasks import ID_NAMES
from clarify_tui.store import Store
from clarify_tui.tasks import DatasetError, load_tasks
from clarify_tui.tasks.problems import Problems, short
from clarify_tui.tasks.textfile import read_records

FORMAT = "cts-candidates"
NESTED = ("candidate", "output", "result", "clarify", "clarification", "gold")
QUESTION_NAMES = (
    "questions",
    "clarify_questions",
    "clarification_questions",
    "clarifying_questions",
    "cqs",
    "cq",
)
QA_NAMES = ("qa", "qa_pairs", "clarifications", "turns", "dialog", "dialogue")
QA_Q = ("question", "q", "cq")
QA_A = ("answer", "a", "ua", "reply")
REPLY_NAMES = ("answers", "ua_answers", "user_answers", "clarify_answers", "ua")
REWRITE_NAMES = (
    "rewritten_query",
    "rewritten",
    "rewrite",
    "rq",
    "q_hat",
    "qhat",
    "rewritten_q",
    "rewrite_query",
)
FINAL_NAMES = (
    "answer",
    "candidate_answer",
    "final_answer",
    "prediction",
    "pred",
    "output",
    "response",
    "y_hat",
    "final",
    "report",
    "text",
    "content",
)
COVERAGE_NAMES = ("coverage", "nugget_coverage", "coverages")
COVERAGE_ID = ("id", "nugget_id")
COVERAGE_LABEL = ("coverage", "label", "cov", "verdict")
SCORE_NAMES = ("restore_score", "restore_score_100")
K_NAMES = ("k", "budget")
SYSTEM_NAMES = ("system", "run", "clarifier", "model")
LABELS = {
    "full": "full",
    "partial": "partial",
    "none": "none",
    "1": "full",
    "1.0": "full",
    "0.5": "partial",
    "0": "none",
    "0.0": "none",
}
_ANSWER_TAG = re.compile(r"<answer>(.*?)(?:</answer>|\Z)", re.DOTALL | re.IGNORECASE)


def flatten(record: dict[str, Any]) -> dict[str, Any]:
    out = dict(record)
    for name in NESTED:
        inner = record.get(name)
        if isinstance(inner, dict):
            for key, value in inner.items():
                out.setdefault(key, value)
    return out


def pick(record: dict[str, Any], names: tuple[str, ...]) -> tuple[str | None, Any]:
    for name in names:
        if name in record and record[name] is not None:
            return name, record[name]
    return None, None


def extract_answer(value: Any) -> str | None:
    if isinstance(value, dict):
        return extract_answer(pick(value, FINAL_NAMES)[1])
    if not isinstance(value, str):
        return None
    m = _ANSWER_TAG.search(value)
    return (m.group(1) if m else value).strip()


class _Bad(ValueError):
    def __init__(self, field: str | None, message: str) -> None:
        super().__init__(message)
        self.field = field


def _strings(field: str, value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return [v for v in value]
    raise _Bad(field, f"must be a string or a list of strings (got {short(value)})")


def read_clarification(record: dict[str, Any]) -> tuple[list[str], list[str] | None]:
    """(questions, replies or None when none are stored)."""
    key, value = pick(record, QUESTION_NAMES)
    pairs_key, pairs = (
        (key, value) if isinstance(value, list) and value and isinstance(value[0], dict) else (None, None)
    )
    if pairs is None and key is None:
        pairs_key, pairs = pick(record, QA_NAMES)
    if pairs is not None:
        if not isinstance(pairs, list):
            raise _Bad(pairs_key, "must be a list of question/answer pairs")
        questions: list[str] = []
        pair_replies: list[str | None] = []
        for i, item in enumerate(pairs):
            if isinstance(item, dict):
                q = pick(item, QA_Q)[1]
                a = pick(item, QA_A)[1]
            elif isinstance(item, list | tuple) and len(item) == 2:
                q, a = item
            else:
                raise _Bad(f"{pairs_key}[{i}]", "must be {question, answer} or [question, answer]")
            if not isinstance(q, str) or not q.strip():
                raise _Bad(f"{pairs_key}[{i}]", "has no question")
            if a is not None and not isinstance(a, str):
                raise _Bad(f"{pairs_key}[{i}]", "answer must be a string")
            questions.append(q)
            pair_replies.append(a)
        stored = [a for a in pair_replies if a is not None]
        if len(stored) < len(pair_replies):
            if stored and pair_replies.index(None) < len(stored):
                raise _Bad(pairs_key, "replies are missing before stored ones")
            return questions, stored or None
        return questions, stored
    questions = _strings(key, value) if key else []
    reply_key, reply_value = pick(record, REPLY_NAMES)
    replies = _strings(reply_key, reply_value) if reply_key else None
    if isinstance(reply_value, str) and not reply_value.strip():
        replies = [""] if questions else None
    if replies is not None and len(replies) > len(questions):
        raise _Bad(reply_key, f"{len(replies)} replies for {len(questions)} question(s)")
    return questions, replies


def read_coverage(record: dict[str, Any], task: Task) -> list[str] | None:
    key, value = pick(record, COVERAGE_NAMES)
    if key is None:
        return None
    nuggets = task.cts_part.nuggets
    by_id: dict[str, Any] = {}
    if isinstance(value, dict):
        by_id = {str(k): v for k, v in value.items()}
    elif isinstance(value, list) and all(isinstance(v, dict) for v in value):
        for i, item in enumerate(value):
            nid = pick(item, COVERAGE_ID)[1]
            if nid is None:
                raise _Bad(f"{key}[{i}]", "has no nugget id")
            by_id[str(nid)] = pick(item, COVERAGE_LABEL)[1]
    elif isinstance(value, list):
        if len(value) != len(nuggets):
            raise _Bad(key, f"{len(value)} labels for task {task.id}'s {len(nuggets)} nuggets")
        by_id = {n.id: v for n, v in zip(nuggets, value)}
    else:
        raise _Bad(key, "must be a list or an object of coverage labels")
    unknown = sorted(set(by_id) - {n.id for n in nuggets})
    if unknown:
        raise _Bad(key, f"nugget id(s) {', '.join(unknown)} are not in task {task.id}'s gold")
    labels = []
    for n in nuggets:
        if n.id not in by_id:
            raise _Bad(key, f"no coverage for nugget {n.id!r}")
        label = LABELS.get(str(by_id[n.id]).strip().lower())
        if label is None:
            raise _Bad(key, f"nugget {n.id!r}: {short(by_id[n.id])} is not full, partial or none")
        labels.append(label)
    return labels


class Candidate:
    def __init__(
        self,
        line: int,
        task: Task,
        questions: list[str],
        replies: list[str] | None,
        rewritten: str | None,
        answer: str,
        coverage: list[str] | None,
        stored_score: float | None,
    ) -> None:
        self.line, self.task, self.questions, self.replies = line, task, questions, replies
        self.rewritten, self.answer, self.coverage, self.stored_score = rewritten, answer, coverage, stored_score


def read_candidate(line: int, raw: dict[str, Any], tasks: dict[str, Task]) -> Candidate:
    record = flatten(raw)
    id_key, qid = pick(record, ID_NAMES)
    if id_key is None:
        raise _Bad("id", f"missing (accepted names: {', '.join(ID_NAMES)})")
    if isinstance(qid, bool) or not isinstance(qid, int | str) or not str(qid).strip():
        raise _Bad(id_key, "must be a non-empty string or an integer")
    task = tasks.get(str(qid).strip())
    if task is None:
        raise _Bad(id_key, f"no task {str(qid)!r} in the dataset")
    questions, replies = read_clarification(record)
    orig = record.get("orig") is True or str(pick(record, SYSTEM_NAMES)[1] or "").lower() == "orig"
    if orig and questions:
        raise _Bad("orig", f"marked orig but has {len(questions)} clarification question(s)")
    if len(questions) > 3:
        raise _Bad("questions", f"{len(questions)} questions; the protocol allows k = 1, 2 or 3")
    k_key, k = pick(record, K_NAMES)
    if k_key is not None and questions and k != len(questions):
        raise _Bad(k_key, f"k is {k!r} but there are {len(questions)} question(s)")
    _, rewritten = pick(record, REWRITE_NAMES)
    if rewritten is not None and not isinstance(rewritten, str):
        raise _Bad("rewritten_query", "must be a string")
    final_key, final = pick(record, FINAL_NAMES)
    answer = extract_answer(final)
    if answer is None:
        raise _Bad(final_key or "answer", f"no deep-search answer (accepted names: {', '.join(FINAL_NAMES)})")
    if not answer:
        raise _Bad(final_key, "the deep-search answer is empty")
    coverage = read_coverage(record, task)
    _, stored = pick(record, SCORE_NAMES)
    stored_score = float(stored) if isinstance(stored, int | float) and not isinstance(stored, bool) else None
    return Candidate(line, task, questions, replies, rewritten or None, answer, coverage, stored_score)


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
        except _Bad as exc:
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
