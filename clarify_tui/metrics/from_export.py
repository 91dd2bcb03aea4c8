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
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from clarify_tui.errors import UsageError
from clarify_tui.metrics.comparability import provenance_deviations, settings_deviations
from clarify_tui.metrics.records import Judgment, ScoredSession, _finish, add_step_usage
from clarify_tui.protocols import registry
from clarify_tui.results import parse_result


class ExportError(UsageError):
    """A line of the file is not a session record of `export --format jsonl`."""


def _difficulty(protocol: str, task: dict[str, Any]) -> Any:
    """The task's difficulty where its protocol keeps one (DiscoBench's), else None."""
    place = registry.get(protocol).difficulty
    return None if place is None else (task.get(place[0]) or {}).get(place[1])


def _session(record: dict[str, Any], judge: str | None) -> ScoredSession:
    row = record["session"]
    task = record.get("task") or {}
    s = ScoredSession(
        id=row["id"],
        run=row.get("run") or "default",
        task_id=str(row["task_id"]),
        protocol=row["protocol"],
        agent=row.get("agent") or "",
        mode=row.get("mode") or "automated",
        annotator=row.get("annotator"),
        status=row.get("status") or "running",
        result=parse_result(row["protocol"], row.get("result")),
        user=row.get("user") or "",
        judge=row.get("judge") or "rule",
        epoch=int(row.get("epoch") or 0),
        difficulty=_difficulty(row["protocol"], task),
        created_at=row.get("created_at"),
    )
    config = row.get("config")
    s.deviations = tuple(
        dict.fromkeys(
            [
                *settings_deviations(
                    s.protocol,
                    s.agent,
                    s.user,
                    row.get("search") or "",
                    s.judge,
                    config if isinstance(config, str) or config is None else json.dumps(config),
                    task or None,
                ),
                *provenance_deviations(s.protocol, record.get("provenance"), task or None),
            ]
        )
    )
    for step in sorted(record.get("steps") or [], key=lambda st: st["index"]):
        add_step_usage(
            s, step["actor"], step.get("tokens_in"), step.get("tokens_out"), step.get("cost_usd"), step.get("model")
        )
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
        except RecursionError:  # 100,000 nested brackets
            raise ExportError(f"{source} line {number}: not JSON (nested too deeply)") from None
        session = record.get("session") if isinstance(record, dict) else None
        if not isinstance(session, dict) or not {"id", "task_id", "protocol"} <= session.keys():
            raise ExportError(
                f"{source} line {number}: not a session record of `export --format jsonl` "
                "(needs session.id, session.task_id, session.protocol)"
            )
        if session["protocol"] not in registry.names():
            raise ExportError(f"{source} line {number}: unknown protocol {session['protocol']!r}")
        records.append(record)
    return records


def _utf8_lines(path: Path) -> Iterator[str]:
    """The file's lines; a line that is not UTF-8 is an ExportError naming the file and line."""
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, 1):
            try:
                yield raw.decode("utf-8")
            except UnicodeDecodeError as err:
                raise ExportError(
                    f"{path} line {number}: not UTF-8 (byte 0x{raw[err.start]:02x} at column "
                    f"{err.start + 1}); an export is written as UTF-8"
                ) from None


def load_export(
    path: str | Path,
    runs: Iterable[str] | None = None,
    benchmark: str | None = None,
    judge: str | None = None,
) -> list[ScoredSession]:
    """The sessions of an export file, selected and ordered as `load_sessions` would."""
    path = Path(path)
    if path.is_dir():
        raise ExportError(f"--from-export {path} is a directory; give the file `export --format jsonl` wrote")
    if not path.is_file():
        raise FileNotFoundError(f"no export file {path}")
    try:
        records = read_export(_utf8_lines(path), str(path))
    except OSError as exc:
        raise ExportError(f"cannot read {path}: {exc.strerror or exc}") from None
    if not records:  # an empty file must not score as a run with no sessions (exit 0, nothing said)
        raise ExportError(f"{path} holds no sessions (an empty file); nothing to score")
    wanted = set(runs or [])
    missing = sorted(wanted - {r["session"].get("run") for r in records})
    if missing:  # as `score --run` on a database: a typo is not an empty run
        present = sorted({str(r["session"].get("run")) for r in records})
        raise ExportError(f"no run {', '.join(repr(r) for r in missing)} in {path}; runs there: {', '.join(present)}")
    chosen = [
        r
        for r in records
        if (not wanted or r["session"].get("run") in wanted)
        and not r["session"].get("counterfactual")  # `whatif` forks: never in a baseline score
        and (benchmark is None or r["session"]["protocol"] == benchmark)
    ]
    chosen.sort(key=lambda r: (r["session"].get("created_at") or "", r["session"]["id"]))
    return [_session(r, judge) for r in chosen]
