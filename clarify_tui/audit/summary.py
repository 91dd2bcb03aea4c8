"""The audit's numbers from what is stored: the answers of the run's audit queues, the CTS
comparisons and the reply forks. No model is called here (`report --audit` reads it).

Per queue (one auditor: a simulator spec, or the people who played it) and benchmark: the
asks of the run, those audited, the auditors' agreement with the simulator and Cohen's kappa
(simulator against the auditors' majority reply, bootstrap CI over items), Fleiss' kappa among
the auditors where items have several, the confusion table, per reply class the same counts,
the disagreements, their forks, the flips and the accuracy shift (docs/audit.md)."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from clarify_tui.audit import compare
from clarify_tui.audit.forks import fork_key, stored_forks
from clarify_tui.audit.items import AuditError, Found, asks
from clarify_tui.audit.items import hooks as audit_hooks
from clarify_tui.metrics.agreement import categorical_agreement
from clarify_tui.metrics.common import bootstrap_mean_ci
from clarify_tui.protocols import registry
from clarify_tui.store import Store
from clarify_tui.store.work import WorkAnswer
from clarify_tui.whatif_results import outcome

SIMULATOR = "simulator"


def _verdict(found: Found, answers: list[WorkAnswer], judged: dict) -> dict[str, Any]:
    """The auditors' reply to one item: their classes (or, free text, whether each matches the
    simulator's reply), the majority, and the answer a fork plays when it differs."""
    text = found.ask.reply.get("type") == "text"
    hooks = audit_hooks(found.session.protocol.value)
    if text:
        same = {a.annotator: judged.get((a.queue, a.item_id, a.annotator), (None, ""))[0] for a in answers}
        votes = [v for v in same.values() if v is not None]
        agree = None if not votes else Counter(votes).most_common(1)[0][0]
        pick = next((a.answer for a in answers if same[a.annotator] is False), None) if agree is False else None
        return {"text": True, "classes": {}, "agree": agree, "pick": pick, "uncompared": len(same) - len(votes)}
    classes = {
        a.annotator: a.answer.get("class") or hooks.reply_class(a.answer.get("reply") or "", found.task, found.ask)
        for a in answers
    }
    majority = Counter(classes.values()).most_common(1)[0][0]
    agree = majority == found.ask.simulator_class
    pick = None if agree else next(a.answer for a in answers if classes[a.annotator] == majority)
    return {"text": False, "classes": classes, "majority": majority, "agree": agree, "pick": pick, "uncompared": 0}


def _shift(rows: list[dict[str, Any]], nuggets: bool, seed: int) -> tuple[dict[str, Any], dict[str, int]]:
    """Flips and the accuracy shift: per audited session, the mean change its forks made (0
    without a disagreement; left out while a fork is missing), per task the mean of its
    sessions, then the mean over tasks with a paired bootstrap CI."""
    by_session: dict[str, list[float]] = {}
    tasks: dict[str, str] = {}
    flips = Counter(
        {
            k: 0
            for k in (
                ("improved", "worsened", "unchanged") if nuggets else ("wrong_to_right", "right_to_wrong", "unchanged")
            )
        }
    )
    unknown: set[str] = set()  # sessions whose shift is not known yet (a fork or a comparison missing)
    for row in rows:
        sid = row["found"].session.id
        tasks[sid] = row["found"].task.id
        diffs = by_session.setdefault(sid, [])
        agree = row["verdict"]["agree"]
        if agree is None:
            unknown.add(sid)
        if agree is not False:
            continue
        fork = row.get("fork")
        before, after = outcome(row["found"].session), None if fork is None else outcome(fork)
        if before is None or after is None:
            unknown.add(sid)
            continue
        diffs.append(after - before)
        if nuggets:
            flips["improved" if after > before else "worsened" if after < before else "unchanged"] += 1
        else:
            flips["wrong_to_right" if after > before else "right_to_wrong" if after < before else "unchanged"] += 1
    per_task: dict[str, list[float]] = defaultdict(list)
    for sid, diffs in by_session.items():
        if sid not in unknown:
            per_task[tasks[sid]].append(sum(diffs) / len(diffs) if diffs else 0.0)
    values = [sum(v) / len(v) for v in per_task.values()]
    ci = bootstrap_mean_ci(values, seed=seed) if len(values) >= 2 else None
    shift: dict[str, Any] = {
        "delta": sum(values) / len(values) if values else None,
        "ci95": list(ci) if ci else None,
        "tasks": len(values),
        "unit": "restore score (0-100)" if nuggets else "accuracy (fraction)",
    }
    if len(values) == 1:  # the bootstrap resamples tasks: one task has no spread to show
        shift["note"] = "no CI: a CI needs at least 2 tasks (1 here)"
    return shift, dict(flips)


def _benchmark(protocol: str, rows: list[dict[str, Any]], all_asks: list[Found], seed: int) -> dict[str, Any]:
    spec = registry.get(protocol)
    text = any(r["verdict"]["text"] for r in rows)
    choices = [] if text or not all_asks else list(all_asks[0].ask.reply.get("choices", []))
    out: dict[str, Any] = {"asks": len(rows), "asks_in_run": len(all_asks)}
    if text:
        judged = [r for r in rows if r["verdict"]["agree"] is not None]
        judges = sorted({r["found"].session.judge for r in rows})
        out.update(
            agreement=sum(r["verdict"]["agree"] for r in judged) / len(judged) if judged else None,
            kappa=None,
            kappa_ci95=None,
            method=None,
            confusion=None,
            comparison=f"free text: equivalent by the run's judge ({', '.join(judges)})",
            uncompared=sum(r["verdict"]["uncompared"] for r in rows),
            by_class={},
            among_auditors=None,
        )
    else:
        stats = categorical_agreement(
            {r["id"]: {SIMULATOR: r["found"].ask.simulator_class, "auditor": r["verdict"]["majority"]} for r in rows},
            choices,
            seed=seed,
        )
        several = {r["id"]: r["verdict"]["classes"] for r in rows if len(r["verdict"]["classes"]) >= 2}
        out.update(
            agreement=stats["agreement"],
            kappa=stats["kappa"],
            kappa_ci95=stats["kappa_ci95"],
            method=stats["method"],
            confusion=_simulator_rows(stats.get("confusion")),
            comparison="reply classes (simulator's reply class against the auditors' majority)",
            by_class={
                c: {
                    "asks": len(mine := [r for r in rows if r["found"].ask.simulator_class == c]),
                    "asks_in_run": sum(f.ask.simulator_class == c for f in all_asks),
                    "agreement": sum(r["verdict"]["agree"] for r in mine) / len(mine) if mine else None,
                }
                for c in choices
            },
            among_auditors=categorical_agreement(several, choices, seed=seed) if several else None,
        )
    disagreeing = [r for r in rows if r["verdict"]["agree"] is False]
    shift, flips = _shift(rows, spec.graded_by == "nuggets", seed)
    out.update(
        disagreements=len(disagreeing),
        forks=sum(r.get("fork") is not None for r in disagreeing),
        forks_errored=sum(r.get("fork") is not None and r["fork"].status == "errored" for r in disagreeing),
        flips=flips,
        accuracy_shift=shift,
    )
    return out


def _simulator_rows(confusion: dict[str, Any] | None) -> dict[str, Any] | None:
    """The confusion table with the simulator's classes by row, the auditor's by column."""
    if not confusion or confusion["rows"] == SIMULATOR:
        return confusion
    table = [list(col) for col in zip(*confusion["table"])]
    return {**confusion, "rows": SIMULATOR, "columns": confusion["rows"], "table": table}


def collect(store: Store, run: str) -> tuple[list[Found], dict[str, list[dict[str, Any]]]]:
    """The run's asks and, per audit queue, a row per answered item: its verdict and its fork."""
    found = asks(store, run, strict=False)
    by_id = {f.item_id: f for f in found}
    judged = compare.stored(store)
    forks = stored_forks(store, run)
    grouped: dict[str, dict[str, list[WorkAnswer]]] = defaultdict(lambda: defaultdict(list))
    for a in store.work.answers(run=run, kind="audit"):
        if a.item_id in by_id:
            grouped[a.queue][a.item_id].append(a)
    queues: dict[str, list[dict[str, Any]]] = {}
    for q in store.work.queues(run=run, kind="audit"):
        rows = []
        for iid, answers in grouped.get(q.name, {}).items():
            f = by_id[iid]
            verdict = _verdict(f, answers, judged)
            fork = forks.get(fork_key(f.session.id, f.ask.reply_step, verdict["pick"])) if verdict["pick"] else None
            rows.append({"id": iid, "found": f, "answers": answers, "verdict": verdict, "fork": fork})
        queues[q.name] = rows
    return found, queues


def audit_summary(store: Store, run: str, *, seed: int = 0) -> dict[str, Any]:
    """The audit's JSON (`audit --format json`, `report --audit`): `run`, `asks_in_run`, `audits`
    (one per queue, per benchmark) and, at the top, the numbers of the audit that covers most
    asks (the latest on a tie; its `queue` named in `auditor`) for a run of one benchmark:
    `asks` (audited; 0: no audit answers yet), `agreement`, `kappa`, `confusion`, ..."""
    try:
        found, queues = collect(store, run)
    except AuditError as exc:  # no such run, a what-if run: nothing audited, said in `note`
        return {"run": run, "asks_in_run": 0, "unauditable": [], "audits": [], "note": str(exc), **_EMPTY}
    protocols = sorted({f.session.protocol.value for f in found})
    audits: list[dict[str, Any]] = []
    for q in store.work.queues(run=run, kind="audit"):
        rows = queues.get(q.name, [])
        annotators = sorted({a.annotator for r in rows for a in r["answers"]})
        audits.append(
            {
                "queue": q.name,
                "auditor": q.config.get("with") or "people",
                "annotators": annotators,
                "items": store.work.progress(q.name)["items"],
                "asks": len(rows),  # audited
                "benchmarks": {
                    p: _benchmark(
                        p,
                        [r for r in rows if r["found"].session.protocol.value == p],
                        [f for f in found if f.session.protocol.value == p],
                        seed,
                    )
                    for p in protocols
                },
            }
        )
    unauditable = sorted({s.protocol.value for s in _sessions(store, run) if registry.get(s.protocol).audit is None})
    out: dict[str, Any] = {"run": run, "asks_in_run": len(found), "unauditable": unauditable, "audits": audits}
    head = max(reversed(audits), key=lambda a: a["asks"], default=None)  # the latest on a tie
    if head is not None and len(protocols) == 1:
        out.update(head["benchmarks"][protocols[0]])
        out["auditor"] = head["queue"]
    else:
        out.update(_EMPTY, asks=head["asks"] if head is not None else 0)
    return out


_EMPTY: dict[str, Any] = {
    "asks": 0,
    "agreement": None,
    "kappa": None,
    "confusion": None,
    "disagreements": 0,
    "forks": 0,
    "flips": {},
    "accuracy_shift": {"delta": None, "ci95": None},
    "auditor": None,
}


def _sessions(store: Store, run: str) -> list:
    return [s for s in store.sessions(runs=[run]) if not s.counterfactual and s.status == "completed"]
