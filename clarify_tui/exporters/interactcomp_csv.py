"""InteractComp sessions as the reference harness's results CSV, so its analysis scripts
run on our sessions. One row per completed or errored interactcomp session (running and
abandoned sessions are left out; other protocols are skipped), in session order, a task
counted once per run, role and player as `score` counts it (a later completed session of
the same task is left out, with a warning on stderr: exporters/counted.py):

| column | from |
|---|---|
| question | the task's question |
| correct_answer | the task's gold answer text |
| predicted_answer | result.answer ("" when the session ended unanswered or was skipped after invalid outputs); `Error` for errored and for a call the harness could not make (outcome `call_error`) |
| confidence | result.confidence as the harness prints it (`85`); "" when the answer had none, `0` when there was no answer or the session errored |
| history | the agent's search / ask / answer steps in the harness's `[Round N]` / `User:` / `    Action: name (key: value)` / `Observation:` text (invalid steps are not rounds there); a search observation is the recorded text, or the hits as `i. title — content (src: url)` lines, or `No results`; an answer's observation is the harness's dict, and a final-round reply that was no answer is `answer (its own params)` / `No Answer` (or its answer param) as the harness keeps it (agent.py:137-146); for errored sessions `Error: ` and the session's error (just `Error` for a row imported from a harness file), so an infrastructure failure is never passed off as a wrong answer; the export says on stderr how many |
| score | 1.0 when result.correct, else 0.0 (0.0 for errored, as the harness writes) |
| cost | the running total, in row order, of the agent's cost_usd (the model under test's: the harness's column is its test model's LLM alone, run_benchmark.py:103-105; the responder and grader have LLMs of their own, :42, :185), as the harness writes it; 0.0 for errored (benchmark.py:130). Empty in every row when any session's agent called a model without a price (llm/pricing.py): the harness reads the column's max as the run's total (benchmark.py:61), pandas reads an empty cell as NaN, so the total reads as unknown rather than as a sum that counted the unpriced calls as $0; the export names the unpriced models on stderr |
| action_counts | the harness's dict literal: count per action of the mode's action space, then `invalid` (result.invalid); `{'valid': True}` for a task skipped after repeated invalid outputs (run_benchmark.py:129-130); `{}` for errored |

The question and gold answer columns are plain text, as the harness writes them: for
sessions of an encrypted release (tasks/sealed.py) the export refuses, writing nothing,
unless `include_hidden` (`export --include-hidden`).
"""

from __future__ import annotations

import csv
import math
import re
import sys
from collections.abc import Iterable
from typing import IO

from clarify_tui.errors import UsageError
from clarify_tui.exporters.counted import counted_once
from clarify_tui.llm.render import hit_lines
from clarify_tui.models import ActionKind, Session, Step, Task
from clarify_tui.protocols.interactcomp import reference as ic_reference
from clarify_tui.protocols.interactcomp.actions import reference_parse
from clarify_tui.protocols.interactcomp.harness_history import ERRORED_MESSAGE, parse_action_text, render_history
from clarify_tui.results import InteractCompResult
from clarify_tui.store import Store
from clarify_tui.tasks.sealed import canary_of

COLUMNS = (
    "question",
    "correct_answer",
    "predicted_answer",
    "confidence",
    "history",
    "score",
    "cost",
    "action_counts",
)
ACTION_SPACE = {
    "answer_only": ("answer",),
    "search_only": ("search", "answer"),
    "ask_only": ("ask", "answer"),
}
FULL_SPACE = ("answer", "search", "ask")
_N_RESULTS = re.compile(r"\d+ results?")


def _number(value: float) -> str:
    return f"{value:g}"


def harness_question(session: Session, task: Task) -> str:
    """The question as the harness put it in round 1 (its mode prefixes included)."""
    context = task.interactcomp.context if task.interactcomp else None
    return ic_reference.harness_question(
        task.question, session.config.interactcomp_mode, context, session.config.forced_asks
    )


def search_text(step: Step) -> str:
    obs = step.observation
    if obs.hits:
        return hit_lines(obs.hits[:5])
    if obs.data.get("recorded") or not _N_RESULTS.fullmatch(obs.text.strip()):
        return obs.text
    return "No results"


def spent_final_round(step: Step) -> dict[str, str] | None:
    """The params of a final-round reply that was no answer, as the harness keeps it in
    memory (agent.py:137-146: under the name `answer`, with the reply's own params and the
    observation `No Answer` or the params' answer); None for a real answer."""
    raw = step.action.raw or ""
    if raw.lstrip().startswith("Action:"):  # imported from a harness file: its own text
        parsed = parse_action_text(raw)
        if parsed is None:
            return None
        name, params = parsed
        return None if name == "answer" and "answer" in params else dict(params)
    name, params = reference_parse(raw)
    if not raw or name == "answer":
        return None
    return {str(k): str(v) for k, v in params.items()}


def history_rounds(steps: list[Step], reference_parsing: bool = False) -> list[tuple[str, dict[str, str], str]]:
    rounds = []
    for s in steps:
        if s.actor != "agent" or s.error:
            continue
        kind = s.action.kind
        if kind == ActionKind.search:
            rounds.append(("search", {"query": s.action.text}, search_text(s)))
        elif kind == ActionKind.ask:
            rounds.append(("ask", {"question": s.action.text}, s.observation.text))
        elif kind == ActionKind.answer and reference_parsing and (spent := spent_final_round(s)) is not None:
            rounds.append(("answer", spent, s.action.text))
        elif kind == ActionKind.answer:
            conf = s.action.confidence
            props = {"answer": s.action.text}
            if conf is not None:
                props["confidence"] = _number(conf)
            shown = {"answer": s.action.text.strip(), "confidence": _number(conf) if conf is not None else "0"}
            rounds.append(("answer", props, repr(shown)))
    return rounds


def action_counts(session: Session, steps: list[Step]) -> str:
    result = session.result
    if not isinstance(result, InteractCompResult):
        raise TypeError(f"session {session.id} is a {session.protocol} session, not interactcomp")
    if (result.harness or {}).get("skipped") or result.outcome == "invalid_skip":
        return repr({"valid": True})
    space = ACTION_SPACE.get(session.config.interactcomp_mode, FULL_SPACE)
    counts = {name: 0 for name in space}
    for s in steps:
        if s.actor == "agent" and not s.error and s.action.kind.value in counts:
            counts[s.action.kind.value] += 1
    counts["invalid"] = result.invalid
    return repr(counts)


def session_cost(steps: list[Step]) -> float | None:
    """The model under test's dollars in one session; None when one of its calls had no
    price (never counted as $0)."""
    costs = [s.cost_usd for s in steps if s.actor == "agent"]
    return None if any(c is None for c in costs) else math.fsum(c for c in costs if c is not None)


def unpriced_agents(sessions: list[Session], all_steps: dict[str, list[Step]]) -> list[str]:
    """The models (or "(unknown model)") whose calls made an exported session's agent cost unknown."""
    return sorted(
        {
            s.model or "(unknown model)"
            for session in sessions
            for s in all_steps.get(session.id, [])
            if s.actor == "agent" and s.cost_usd is None
        }
    )


def export_interactcomp_csv(
    store: Store, runs: Iterable[str] | None, out: IO[str], include_hidden: bool = False
) -> int:
    """Returns how many rows (sessions) were written."""
    sessions = counted_once(
        [s for s in store.sessions(runs=runs, protocol="interactcomp") if s.status in ("completed", "errored")],
        "interactcomp-csv",
    )
    all_steps = store.steps_by_session([s.id for s in sessions])
    tasks = {s.id: store.task_for(s.id) for s in sessions}
    sealed = [s.task_id for s in sessions if canary_of(tasks[s.id]) is not None]
    if sealed and not include_hidden:
        raise UsageError(
            f"{len(sealed)} session(s) (task {sealed[0]}, ...) are from an encrypted release: this format writes "
            "the question and gold answer in plain text; pass --include-hidden to write them anyway"
        )
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    total = 0.0
    errored = 0
    unpriced = unpriced_agents(sessions, all_steps)
    blank = "" if unpriced else None  # the cost column when the total is unknown
    for session in sessions:
        task = tasks[session.id]
        steps = all_steps.get(session.id, [])
        gold = task.answer.text if task.answer else ""
        failure = error_history(session)
        if failure is not None:
            errored += session.status == "errored"
            writer.writerow(
                {
                    "question": task.question,
                    "correct_answer": gold,
                    "predicted_answer": "Error",
                    "confidence": 0,
                    "history": failure,
                    "score": 0.0,
                    "cost": 0.0 if blank is None else blank,
                    "action_counts": "{}",
                }
            )
            continue
        total = round(total + (session_cost(steps) or 0.0), 10)  # written only when nothing is unpriced
        result = session.result
        answered = any(s.actor == "agent" and s.action.kind == ActionKind.answer and not s.error for s in steps)
        confidence = result.confidence if isinstance(result, InteractCompResult) else None
        writer.writerow(
            {
                "question": task.question,
                "correct_answer": gold,
                "predicted_answer": result.answer or "",
                "confidence": _number(confidence) if confidence is not None else ("" if answered else "0"),
                "history": render_history(
                    harness_question(session, task), history_rounds(steps, session.config.actions == "reference")
                ),
                "score": 1.0 if result.correct else 0.0,
                "cost": total if blank is None else blank,
                "action_counts": action_counts(session, steps),
            }
        )
    if unpriced:
        print(
            f"interactcomp-csv: the cost column is empty (unknown, not $0): no price for {', '.join(unpriced)} "
            "(set one in [prices] of clarify.toml)",
            file=sys.stderr,
        )
    if errored:
        print(
            f"interactcomp-csv: {errored} errored session(s) (infrastructure failures) are rows with "
            "predicted_answer 'Error', score 0 and their error in the history column, as the harness writes "
            "a task it could not run; `score` leaves them out of accuracy and counts them in accuracy_all",
            file=sys.stderr,
        )
    return len(sessions)


def error_history(session: Session) -> str | None:
    """The history cell of a row the harness would write as `Error` (benchmark.py:126-130):
    an errored session (with its error, so it is not taken for a wrong answer; exactly
    `Error` when imported from a harness file) or a call the harness could not make."""
    if session.status == "errored":
        if session.error == ERRORED_MESSAGE:
            return "Error"
        return f"Error: {(session.error or 'errored').splitlines()[0]}"
    if isinstance(session.result, InteractCompResult) and session.result.outcome == "call_error":
        return "Error: the reference harness could not call the model's action (scored 0)"
    return None
