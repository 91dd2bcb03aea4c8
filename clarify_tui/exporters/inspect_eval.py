"""Inspect AI `.eval` logs (`export --format inspect --out DIR`), one per run, so a lab that
reviews runs in `inspect view` sees ours there too. Needs the optional extra
(`pip install clarify-tui[inspect]`); the test reads the files back with Inspect's own
reader (`inspect_ai.log.read_eval_log`).

Mapping: a run is an eval (task `clarify_tui/<benchmark>`, model = the agent spec, epochs
= the run's `--epochs`, or more when a `run --resume` played more); a session is a sample
(id = task id, epoch = our epoch + 1, as Inspect counts from 1) whose messages are the
visible question, each agent action as a tool call and what came back as the tool's reply,
whose events are the model calls, tool calls, user replies and judgements the viewer lists
(exporters/inspect_events.py), with its token usage by model and by role (the eval's
`stats` sum them); its score is ours (1/0 for a right answer, the restore score 0-100 for
CTS), and the eval's metrics are `score`'s numbers for the run. A task is counted once per
run, role and player, as `score` counts it (exporters/counted.py); a run whose sessions mix
roles (metrics/roles.py) is one eval per role, `<run>~<role>.eval`, each with that role's
numbers. An errored session carries its error (Inspect's sample error), never a score; an
eval whose every sample errored is status `error` (with the first error), not `success`.
The target is the gold answer (CTS: the nuggets) unless the task comes from an encrypted
release and `--include-hidden` is not given.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from clarify_tui.errors import UsageError
from clarify_tui.exporters.counted import counted_once
from clarify_tui.exporters.inspect_events import Transcript, add_usage
from clarify_tui.exporters.inspect_events import build as transcript
from clarify_tui.metrics.roles import split_by_role
from clarify_tui.models import ActionKind, Session, Step
from clarify_tui.results import CTSResult
from clarify_tui.store import Store

SCORER = "clarify_tui"
EXPORTED_STATUSES = ("completed", "errored")


class InspectMissing(UsageError):
    """Inspect AI is not installed."""


def _inspect():
    try:
        import inspect_ai.log as log
        import inspect_ai.model as model
        import inspect_ai.scorer as scorer
        import inspect_ai.tool as tool
    except ImportError:
        raise InspectMissing("export --format inspect needs Inspect AI: pip install 'clarify-tui[inspect]'") from None
    return log, model, scorer, tool


def _target(task, include_hidden: bool) -> str | list[str]:
    if getattr(task, "_canary", None) and not include_hidden:
        return ""  # an encrypted release's answers stay out of a plain-text log
    if task.cts is not None:
        return [n.text for n in task.cts.nuggets]
    return task.answer.text if task.answer else ""


def _score(session: Session, s) -> Any:
    result = session.result
    if isinstance(result, CTSResult):
        return s.Score(
            value=result.restore_score if result.restore_score is not None else 0.0,
            answer=result.answer or None,
            metadata={"coverage": [c.coverage for c in result.coverage]},
        )
    correct = bool(result.correct)
    return s.Score(
        value=1.0 if correct else 0.0,
        answer=getattr(result, "answer", None) or None,
        explanation=session.error if session.error and session.status == "completed" else None,
    )


def _sample(store: Store, session: Session, steps: list[Step], include_hidden: bool, libs) -> tuple[Any, Transcript]:
    log, m, s, t = libs
    task = store.task_for(session.id)
    question = task.cts.blurred_query if task.cts is not None else task.question
    final = next(
        (x.action.text for x in reversed(steps) if x.actor == "agent" and x.action.kind == ActionKind.answer), ""
    )
    target = _target(task, include_hidden)
    seen = transcript(session, steps, question)
    sample: dict[str, Any] = dict(
        id=session.task_id,
        epoch=session.epoch + 1,
        input=question,
        target=target,
        messages=seen.messages,
        events=seen.events,
        model_usage=seen.model_usage,
        role_usage=seen.role_usage,
        output=m.ModelOutput.from_content(model=session.agent, content=final),
        metadata={
            "session_id": session.id,
            "status": session.status,
            "mode": session.mode,
            "user": session.user,
            "result": session.result.stored(),
        },
        started_at=session.created_at,
        completed_at=session.finished_at,
        total_time=round(sum(x.latency_ms for x in steps) / 1000, 3),
    )
    if session.status == "errored":
        sample["error"] = log.EvalError(
            message=(session.error or "errored").splitlines()[0],
            traceback=session.error or "",
            traceback_ansi=session.error or "",
        )
    else:
        score = _score(session, s)
        sample["scores"] = {SCORER: score}
        from inspect_ai.event import ScoreEvent

        seen.events.append(
            ScoreEvent(
                score=score,
                target=target,
                scorer=SCORER,
                model_usage=seen.model_usage or None,
                role_usage=seen.role_usage or None,
            )
        )
    return log.EvalSample(**sample), seen


def _metrics(store: Store, run: str, benchmark: str, log, role: str | None = None) -> Any:
    from clarify_tui.metrics import load_sessions
    from clarify_tui.metrics.report import score_groups

    report = score_groups(load_sessions(store, runs=[run]), by="run")
    group = next((g for g in report.groups if g.benchmark == benchmark and g.role == role), None)
    numbers = {} if group is None else group.metrics.numbers()  # every top-level number, pass^k too
    return log.EvalScore(
        name=SCORER, scorer=SCORER, metrics={k: log.EvalMetric(name=k, value=v) for k, v in numbers.items()}
    )


def export_inspect(store: Store, runs: list[str] | None, out_dir: Path, include_hidden: bool = False) -> list[Path]:
    """Write one `<run>.eval` per run (per role of a run mixing roles) into `out_dir`;
    returns the files written."""
    libs = _inspect()
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for run in runs or store.run_names():
        exported = counted_once([x for x in store.sessions(runs=[run]) if x.status in EXPORTED_STATUSES], "inspect")
        for role, sessions in split_by_role(exported).items() if exported else ():
            written.append(_write_eval(store, run, role, sessions, out_dir, include_hidden, libs))
    return written


def _write_eval(
    store: Store, run: str, role: str | None, sessions: list[Session], out_dir: Path, include_hidden: bool, libs
) -> Path:
    """One run's `.eval` log; `<run>~<role>.eval` for each role of a run whose sessions mix
    them (metrics/roles.py): a person's sessions are never one eval with an agent's."""
    log = libs[0]
    steps = store.steps_by_session([x.id for x in sessions])
    row = store.run_row(run) or {}
    import json

    config = json.loads(row.get("config") or "{}")
    benchmark = sessions[0].protocol.value
    built = [_sample(store, x, steps.get(x.id, []), include_hidden, libs) for x in sessions]
    samples = [sample for sample, _ in built]
    spec = log.EvalSpec(
        created=row.get("created_at") or sessions[0].created_at,
        task=f"clarify_tui/{benchmark}",
        task_id=run,
        run_id=run,
        model=sessions[0].agent,
        task_args={k: v for k, v in config.items() if v is not None},
        dataset=log.EvalDataset(name=row.get("dataset") or None, samples=len({x.task_id for x in sessions})),
        config=log.EvalConfig(epochs=epoch_count(config, sessions)),
        model_roles=_model_roles(sessions[0]),
        metadata={
            "run": run,
            "user": sessions[0].user,
            "search": sessions[0].search,
            "judge": sessions[0].judge,
            **({"role": role} if role else {}),
        },
    )
    errored = [x for x in sessions if x.status == "errored"]
    results = log.EvalResults(
        total_samples=len(sessions),
        completed_samples=len(sessions) - len(errored),
        scores=[_metrics(store, run, benchmark, log, role)],
    )
    stats = log.EvalStats(
        started_at=min(x.created_at for x in sessions),
        completed_at=max((x.finished_at for x in sessions if x.finished_at), default=""),
        model_usage=_total([seen.model_usage for _, seen in built]),
        role_usage=_total([seen.role_usage for _, seen in built]),
    )
    if len(errored) == len(sessions):  # nothing was scored: Inspect's failed eval, never a success
        first = errored[0].error or "errored"
        error = log.EvalError(
            message=f"all {len(sessions)} samples errored; the first: {first.splitlines()[0]}",
            traceback=first,
            traceback_ansi=first,
        )
        eval_log = log.EvalLog(status="error", eval=spec, results=results, stats=stats, error=error, samples=samples)
    else:
        eval_log = log.EvalLog(status="success", eval=spec, results=results, stats=stats, samples=samples)
    path = out_dir / (f"{_safe(run)}.eval" if role is None else f"{_safe(run)}~{role}.eval")
    log.write_eval_log(eval_log, str(path), format="eval")
    return path


def epoch_count(config: dict, sessions: list[Session]) -> int:
    """How many epochs the log holds: the run's `--epochs`, or more when `run --resume` was
    given a larger `--epochs` (the run's row keeps the first command's number)."""
    return max(int(config.get("epochs") or 1), max(x.epoch for x in sessions) + 1)


def _model_roles(session: Session) -> dict[str, Any]:
    """The roles beside the model under test, as Inspect names a grader's model: the user,
    the judge and CTS's fixed deep searcher (their specs)."""
    from inspect_ai.model import ModelConfig

    roles = {"user": session.user, "judge": session.judge, "deep_search": session.config.deep_search}
    return {role: ModelConfig(model=spec) for role, spec in roles.items() if spec}


def _total(usages: list[dict[str, Any]]) -> dict[str, Any]:
    total: dict[str, Any] = {}
    for usage in usages:
        for key, value in usage.items():
            total[key] = add_usage(total.get(key), value)
    return total


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)
