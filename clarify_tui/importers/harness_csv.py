"""Read the reference InteractComp harness's per-task results CSV into checked rows.

The harness (FoundationAgents/InteractComp, `InteractCompBenchmark.save_results_to_csv`)
writes one row per task with the columns

    question, correct_answer, predicted_answer, confidence, history, score, cost, action_counts

What is read, and how (`importers/harness.py` turns the rows into sessions):

* `question` finds the task: rows carry no id, so the row's question must equal the
  question of exactly one task of the dataset you pass (`--dataset`, any InteractComp
  form `load_tasks` reads: the release, encrypted or not, or Task JSONL). Exact text
  first, then with whitespace collapsed and case folded. `correct_answer`, when not
  empty, must be the task's answer or an alias (the same check, catching the wrong
  dataset).
* `history` is parsed by `clarify_tui.protocols.interactcomp.harness_history` into rounds; each must name an
  action (search with a query, ask/ask_NL with a question, answer last).
* `predicted_answer` and `confidence` are the answer's text and confidence (a number
  0-100, a trailing % allowed; anything else is kept as no confidence).
* `score` is the answer's correctness (score >= 0.5 is correct).
* `cost` is the harness's running total over all tasks (its shared LLM's usage), not the
  task's own. Rows are ordered by that total and each task gets the difference from the
  previous total (`apportion_costs`). Tasks run concurrently in the harness, so this
  apportioning is approximate per task and exact in sum. An empty cell (pandas' NaN; our
  `export --format interactcomp-csv` writes one when a model had no price) is an unknown
  total: then every task's cost is unknown, stored unpriced (NULL), never $0. So is a run
  whose totals are all 0: the harness prices a model missing from its price table at $0
  (core/engine/async_llm.py, `ModelPricing.get_price` returns 0), which is no price.
* `action_counts` is a Python dict literal (read with ast.literal_eval): counts per
  action name plus `invalid`; `{'valid': True}` marks a task the harness skipped after
  repeated invalid actions.
* A row with predicted_answer `Error` and history `Error` raised inside the harness: its
  kind is "errored".

Every bad row (unknown question, malformed action_counts, score or cost, unreadable
history) is reported with file, line and row in `Problems`.
"""

from __future__ import annotations

import ast
import csv
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clarify_tui.judges.rule import answers_match
from clarify_tui.models import Task
from clarify_tui.protocols.interactcomp.harness_history import HarnessRound, HistoryError, parse_history
from clarify_tui.tasks.problems import Problems, short

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
ERROR_TEXT = "Error"
COST_DECIMALS = 10


@dataclass
class HarnessRow:
    number: int  # 1-based data row
    line: int  # file line where the row starts
    task: Task
    kind: str  # "answered" | "skipped" | "errored"
    rounds: list[HarnessRound] = field(default_factory=list)
    predicted: str = ""
    confidence: float | None = None
    score: float = 0.0
    cost_total: float | None = 0.0  # None: the cell was empty (unknown, e.g. an unpriced model)
    action_counts: dict[str, Any] = field(default_factory=dict)
    cost: float | None = 0.0  # None: unknown, stored as an unpriced cost (never $0)


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


class _TaskIndex:
    def __init__(self, tasks: list[Task]) -> None:
        self.exact: dict[str, list[Task]] = {}
        self.loose: dict[str, list[Task]] = {}
        for t in tasks:
            self.exact.setdefault(t.question, []).append(t)
            self.loose.setdefault(_norm(t.question), []).append(t)

    def find(self, question: str) -> list[Task]:
        return self.exact.get(question) or self.loose.get(_norm(question), [])


def parse_number(text: str) -> float | None:
    text = (text or "").strip().removesuffix("%").strip()
    try:
        return float(text)
    except ValueError:
        return None


class ActionCountsError(ValueError):
    """An action_counts cell that is not the harness's dict literal."""


def parse_action_counts(text: str) -> dict[str, Any]:
    """The harness's action_counts literal; raises ActionCountsError saying what is wrong."""
    text = (text or "").strip()
    if not text:
        raise ActionCountsError("empty (expected a dict literal such as {'search': 1, 'answer': 1, 'invalid': 0})")
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError) as exc:
        raise ActionCountsError(f"not a Python dict literal ({type(exc).__name__}): {short(text)}") from None
    if not isinstance(value, dict):
        raise ActionCountsError(f"must be a dict, got {type(value).__name__}: {short(text)}")
    if value == {"valid": True}:
        return value
    for key, count in value.items():
        if not isinstance(key, str) or isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ActionCountsError(f"entry {key!r}: {count!r} is not a count (expected name: non-negative int)")
    return value


def read_rows(path: Path, tasks: list[Task], problems: Problems) -> list[HarnessRow]:
    try:
        handle = path.open(encoding="utf-8-sig", newline="")
    except OSError as exc:
        problems.add(path, None, None, f"cannot read: {exc.strerror or exc}")
        return []
    index = _TaskIndex(tasks)
    rows: list[HarnessRow] = []
    with handle:
        reader = csv.DictReader(handle)
        try:
            headers = reader.fieldnames or []
        except csv.Error as exc:
            problems.add(path, 1, None, f"not CSV: {exc}")
            return []
        except UnicodeDecodeError as exc:
            problems.add(path, 1, None, _not_utf8(exc))
            return []
        missing = [c for c in COLUMNS if c not in headers]
        if missing:
            problems.add(
                path,
                1,
                None,
                f"not a harness results CSV: missing column(s) {', '.join(missing)} "
                f"(expected {', '.join(COLUMNS)}; found {', '.join(h or '(unnamed)' for h in headers)})",
            )
            return []
        start = reader.line_num + 1
        number = 0
        while True:
            try:
                record = next(reader)
            except StopIteration:
                break
            except csv.Error as exc:
                problems.add(path, start, None, f"not CSV: {exc}")
                break
            except UnicodeDecodeError as exc:  # the reader decodes ahead: the line is where it stopped
                problems.add(path, start, None, _not_utf8(exc))
                break
            number += 1
            line, start = start, reader.line_num + 1
            row = _read_row(path, number, line, record, index, problems)
            if row is not None:
                rows.append(row)
    if not rows and not problems:
        problems.add(path, None, None, "no result rows")
    return rows


def _not_utf8(exc: UnicodeDecodeError) -> str:
    return (
        f"not UTF-8: byte 0x{exc.object[exc.start]:02x} (is the file saved as GBK, Latin-1 or another "
        "encoding? save it as UTF-8)"
    )


def _read_row(
    path: Path, number: int, line: int, record: dict[str | None, Any], index: _TaskIndex, problems: Problems
) -> HarnessRow | None:
    def bad(column: str | None, message: str) -> None:
        problems.add(path, line, column, f"row {number}: {message}")

    if None in record:
        bad(None, f"has {len(record[None])} cell(s) more than the header")
        return None
    question = (record.get("question") or "").strip()
    found = index.find(question) if question else []
    if not question:
        bad("question", "empty")
        return None
    if not found:
        bad("question", f"no task in the dataset has this question: {short(question, 80)}")
        return None
    if len(found) > 1:
        ids = ", ".join(t.id for t in found)
        bad("question", f"matches {len(found)} tasks of the dataset ({ids}); cannot tell which")
        return None
    task = found[0]
    ok = True
    correct_answer = (record.get("correct_answer") or "").strip()
    if correct_answer and task.answer and not answers_match(correct_answer, task.answer.forms()):
        bad("correct_answer", f"{short(correct_answer)} is not task {task.id}'s answer: wrong dataset?")
        ok = False
    history = record.get("history") or ""
    predicted = record.get("predicted_answer") or ""
    score = parse_number(record.get("score") or "")
    if score is None:
        bad("score", f"not a number: {short(record.get('score'))}")
        ok = False
    cost_total, cost_ok = read_cost(record.get("cost"))
    if not cost_ok:
        bad("cost", f"not a non-negative number: {short(record.get('cost'))}")
        ok = False
    if predicted.strip() == ERROR_TEXT and history.strip() == ERROR_TEXT:
        counts_text = (record.get("action_counts") or "").strip() or "{}"
        try:
            counts = parse_action_counts(counts_text) if counts_text != "{}" else {}
        except ValueError as exc:
            bad("action_counts", str(exc))
            return None
        if not ok:
            return None
        return HarnessRow(number, line, task, "errored", score=score or 0.0, action_counts=counts)
    try:
        counts = parse_action_counts(record.get("action_counts") or "")
    except ValueError as exc:
        bad("action_counts", str(exc))
        ok = False
        counts = {}
    try:
        _, rounds = parse_history(history)
    except HistoryError as exc:
        bad("history", str(exc))
        return None
    skipped = counts == {"valid": True}
    acted = [r for r in rounds if r.name]
    for r in acted:
        if r.name not in ("search", "ask", "ask_NL", "answer") and not (r is rounds[-1] and not skipped):
            bad("history", f"round {r.number}: unknown action {r.name!r} (expected search, ask, ask_NL or answer)")
            ok = False
        elif r.name == "answer" and r is not acted[-1]:
            bad("history", f"round {r.number}: an answer before the last round")
            ok = False
        elif r.name == "search" and "query" not in r.props:
            bad("history", f"round {r.number}: search without a query")
            ok = False
        elif r.name in ("ask", "ask_NL") and "question" not in r.props:
            bad("history", f"round {r.number}: ask without a question")
            ok = False
    if len(acted) != len(rounds) and not (skipped and len(rounds) == 1 and not acted):
        empty = next(r.number for r in rounds if not r.name)
        bad("history", f"round {empty} has no action")
        ok = False
    if not skipped and not acted:
        bad("history", "no rounds, but action_counts does not mark the task skipped ({'valid': True})")
        ok = False
    if skipped and any(r.name == "answer" for r in acted):
        bad("action_counts", "{'valid': True} marks a skipped task, but the history has an answer")
        ok = False
    if not ok or score is None:
        return None
    return HarnessRow(
        number,
        line,
        task,
        "skipped" if skipped else "answered",
        rounds=acted,
        predicted=predicted,
        confidence=_confidence(record.get("confidence")),
        score=score,
        cost_total=cost_total,
        action_counts=counts,
    )


def _confidence(text: Any) -> float | None:
    value = parse_number(str(text or ""))
    if value is None or not 0 <= value <= 100:
        return None
    return value


def read_cost(cell: Any) -> tuple[float | None, bool]:
    """(the running total, whether the cell is valid). An empty cell (pandas' NaN, how our
    export writes a total with an unpriced model in it) is an unknown total: None."""
    text = str(cell or "").strip()
    if not text or text.lower() == "nan":
        return None, True
    value = parse_number(text)
    if value is None or math.isnan(value) or value < 0:
        return None, False
    return value, True


def apportion_costs(rows: list[HarnessRow]) -> None:
    """Per-task cost = running total minus the previous running total (ordered by total).
    One unknown total makes every task's cost unknown (None): the differences would charge
    its calls to the next task, or to none. So does a final total of $0."""
    answered = [r for r in rows if r.kind != "errored"]
    if any(r.cost_total is None for r in answered) or all(r.cost_total == 0 for r in answered):
        # a run whose every call cost $0 in total: the harness prices a model missing from its
        # table at 0 (core/engine/async_llm.py ModelPricing.get_price), so $0 means unknown
        for r in answered:
            r.cost = None
        return
    ordered = sorted(answered, key=lambda r: r.cost_total or 0.0)
    previous = 0.0
    for r in ordered:
        total = r.cost_total or 0.0
        r.cost = round(max(0.0, total - previous), COST_DECIMALS)
        previous = total
