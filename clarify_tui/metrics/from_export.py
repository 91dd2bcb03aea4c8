"""Sessions to score from an `export --format jsonl` file instead of the database
(`clarify-tui score --from-export FILE`), so a collaborator without our database can
check every number.

Each line's session row, steps (actor, tokens, cost, in index order) and judgments (id,
judge, kind, verdict) go through the same `_finish` as `load_sessions`, so the two give
identical metrics; the DiscoBench difficulty comes from the task snapshot. The
`score_inputs` block of a line is informational and not read here: the verdicts are
chosen again from `judgments`, so `--judge SPEC` works on an export too.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from clarify_tui.metrics.comparability import settings_deviations
from clarify_tui.metrics.records import Judgment, ScoredSession, _finish, add_step_usage
from clarify_tui.results import RESULT_MODELS, parse_result


class ExportError(ValueError):
    """A line of the file is not a session record of `export --format jsonl`."""


def _session(record: dict[str, Any], judge: str | None) -> ScoredSession:
    row = record["session"]
    task = record.get("task") or {}
    s = ScoredSession(
        id=row["id"], run=row.get("run") or "default", task_id=str(row["task_id"]), protocol=row["protocol"],
        agent=row.get("agent") or "", mode=row.get("mode") or "automated", annotator=row.get("annotator"),
        status=row.get("status") or "running", result=parse_result(row["protocol"], row.get("result")), user=row.get("user") or "",
        judge=row.get("judge") or "rule",
        difficulty=((task.get("discobench") or {}).get("difficulty") if row["protocol"] == "discobench" else None),
        created_at=row.get("created_at"),
    )
    config = row.get("config")
    s.deviations = settings_deviations(
        s.protocol, s.agent, s.user, row.get("search") or "", s.judge,
        config if isinstance(config, str) or config is None else json.dumps(config), task or None)
    for step in sorted(record.get("steps") or [], key=lambda st: st["index"]):
        add_step_usage(s, step["actor"], step.get("tokens_in"), step.get("tokens_out"), step.get("cost_usd"),
                       step.get("model"))
    judgments = [
        Judgment(int(j["id"]), j["judge"], j["kind"], j["verdict"], j.get("created_at"))
        for j in record.get("judgments") or []
    ]
    _finish(s, judgments, judge)
    return s


def read_export(lines: Iterable[str], source: str = "export") -> list[dict[str, Any]]:
    """The session records of an export, checked for the keys scoring needs."""
    records = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as err:
            raise ExportError(f"{source} line {number}: not JSON ({err.msg})") from err
        session = record.get("session") if isinstance(record, dict) else None
        if not isinstance(session, dict) or not {"id", "task_id", "protocol"} <= session.keys():
            raise ExportError(
                f"{source} line {number}: not a session record of `export --format jsonl` "
                "(needs session.id, session.task_id, session.protocol)"
            )
        if session["protocol"] not in RESULT_MODELS:
            raise ExportError(f"{source} line {number}: unknown protocol {session['protocol']!r}")
        records.append(record)
    return records


def load_export(
    path: str | Path,
    runs: Iterable[str] | None = None,
    benchmark: str | None = None,
    judge: str | None = None,
) -> list[ScoredSession]:
    """The sessions of an export file, selected and ordered as `load_sessions` would."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no export file {path}")
    with path.open(encoding="utf-8") as handle:
        records = read_export(handle, str(path))
    wanted = set(runs or [])
    chosen = [
        r for r in records
        if (not wanted or r["session"].get("run") in wanted)
        and not r["session"].get("counterfactual")  # `whatif` forks: never in a baseline score
        and (benchmark is None or r["session"]["protocol"] == benchmark)
    ]
    chosen.sort(key=lambda r: (r["session"].get("created_at") or "", r["session"]["id"]))
    return [_session(r, judge) for r in chosen]
