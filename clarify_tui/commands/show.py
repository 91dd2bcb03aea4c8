"""`clarify-tui show SESSION`: one session's transcript, plain, for a paper's appendix or an
issue report.

`text` and `markdown` print the question, every step (who did what, and what came back)
and the outcome; `json` prints the session's record exactly as `export --format jsonl`
writes it. Hidden fields of an encrypted release stay encrypted unless `--include-hidden`,
as in `export`: the transcript shows what was played, not the answer key.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from clarify_tui.commands.common import add_db, open_store
from clarify_tui.tasks.sealed import SEALED_KEY

if TYPE_CHECKING:
    from clarify_tui.commands.common import Subparsers

SEARCH_HITS_SHOWN = 3


def register(sub: Subparsers) -> None:
    p = sub.add_parser("show", help="print one session's transcript (text, markdown or json)")
    p.add_argument("session_id", metavar="SESSION", help="session id or a unique prefix of it")
    add_db(p)
    p.add_argument("--format", choices=("text", "markdown", "json"), default="text")
    p.add_argument(
        "--include-hidden",
        action="store_true",
        help="show the hidden fields of encrypted releases (InteractComp) in plain text",
    )
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from clarify_tui.exporters.jsonl import session_record

    store = open_store(args, must_exist=True)
    session = store.session(args.session_id)
    record = session_record(
        store,
        session,
        store.steps(session.id),
        include_hidden=args.include_hidden,
        provenance=store.run_provenances().get(session.run),
    )
    if args.format == "json":
        json.dump(record, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write("\n".join(transcript(record, markdown=args.format == "markdown")) + "\n")
    return 0


def transcript(record: dict[str, Any], markdown: bool = False) -> list[str]:
    """The lines of one session's transcript (`record`: exporters.jsonl.session_record)."""
    s, task = record["session"], record["task"]
    player = f"annotator {s['annotator']}" if s.get("annotator") else f"agent {s['agent']}"
    head = f"Session {s['id']} · {s['protocol']} task {s['task_id']} · run {s['run']} · {player} · user {s['user']}"
    lines = [f"# {head}" if markdown else head, ""]
    question = task.get("question") or ""
    if "question" in (task.get(SEALED_KEY) or {}).get("fields", []):  # an encrypted release, as export keeps it
        question = "(sealed: this release keeps its questions encrypted at rest; --include-hidden shows it)"
    lines += [f"**Question.** {question}" if markdown else f"Question: {question}", ""]
    steps = record["steps"]
    for i, step in enumerate(steps):
        replied = step["action"] == "ask" and i + 1 < len(steps) and steps[i + 1]["actor"] == "user"
        lines += _step_lines(step, markdown, show_output=not replied)  # the user's reply is its own step
    result = s.get("result") or {}
    outcome = [f"status {s['status']}"]
    if result.get("answer") is not None:
        outcome.append(f"answer {result['answer']!r}")
    if result.get("correct") is not None:
        outcome.append("correct" if result["correct"] else "wrong")
    if result.get("restore_score") is not None:
        outcome.append(f"restore score {result['restore_score']:.3f}")
    if s.get("error"):
        outcome.append(f"error: {s['error'].splitlines()[0]}")
    lines += ["", ("**Outcome.** " if markdown else "Outcome: ") + "; ".join(outcome)]
    return lines


def _step_lines(step: dict[str, Any], markdown: bool, show_output: bool = True) -> list[str]:
    action, output = step["input"], step["output"]
    what = action.get("text") or ""
    if action.get("confidence") is not None:
        what += f" (confidence {action['confidence']:g})"
    label = f"{step['index'] + 1}. {step['actor']} {step['action']}"
    lines = [f"{label}: {what}".rstrip(": ") if not markdown else f"{label}: {_md(what)}".rstrip(": ")]
    came_back = []
    hits = output.get("hits") or []
    for hit in hits[:SEARCH_HITS_SHOWN]:
        came_back.append(f"{hit.get('title') or ''} <{hit.get('url') or ''}>")
    if len(hits) > SEARCH_HITS_SHOWN:
        more = len(hits) - SEARCH_HITS_SHOWN
        came_back.append(f"… {more} more result{'s' if more != 1 else ''}")
    if output.get("text") and not hits and show_output:
        came_back.append(output["text"])
    if step.get("error"):
        came_back.append(f"error: {step['error'].splitlines()[0]}")
    indent = "   " if not markdown else "    - "
    lines += [f"{indent}{_md(line) if markdown else line}" for text in came_back for line in text.splitlines()[:6]]
    return lines


def _md(text: str) -> str:
    """Text safe inside a markdown list (no stray emphasis or headings)."""
    return text.replace("*", "\\*").replace("_", "\\_").replace("#", "\\#")
