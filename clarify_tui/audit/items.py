"""The audit's items: every ask the agent made in a run's completed sessions (or a seeded
sample), each shown as its protocol lets the simulator see it and never with its reply.

The item's step is the user step that replied (store/work.py: item id `session:step`); the
simulator's reply stays in the run's steps, read back only when answers are compared."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from clarify_tui.errors import UsageError
from clarify_tui.models import Session, Task
from clarify_tui.protocols import registry
from clarify_tui.protocols.audit_hooks import AuditAsk, ProtocolAudit
from clarify_tui.store import Store
from clarify_tui.whatif_results import RUN_SUFFIX


class AuditError(UsageError):
    """An audit that cannot be made (no such run, a protocol without audit hooks...)."""


@dataclass(frozen=True)
class Found:
    session: Session
    task: Task
    ask: AuditAsk

    @property
    def item_id(self) -> str:
        return f"{self.session.id}:{self.ask.reply_step}"


def hooks(protocol: str) -> ProtocolAudit:
    spec = registry.get(protocol)
    if spec.audit is None:
        raise AuditError(
            f"cannot audit protocol '{spec.name}': it has no audit hooks (ProtocolSpec.audit, "
            "protocols/audit_hooks.py; docs/audit.md says what a protocol needs to offer)"
        )
    return spec.audit


def completed(store: Store, run: str) -> list[Session]:
    if run.endswith(RUN_SUFFIX):
        raise AuditError(f"'{run}' holds what-if forks: audit the run they were forked from")
    sessions = [s for s in store.sessions(runs=[run]) if not s.counterfactual]
    if not sessions:
        known = [r for r in store.run_names() if not r.endswith(RUN_SUFFIX)]
        raise AuditError(
            f"no sessions in run '{run}' in {store.path}" + (f"; runs there: {', '.join(known)}" if known else "")
        )
    return [s for s in sessions if s.status == "completed"]


def asks(store: Store, run: str, *, strict: bool = True) -> list[Found]:
    """Every ask of the run's completed sessions, in session then step order. `strict`: a
    protocol without hooks is an error (False: its sessions are left out)."""
    found: list[Found] = []
    for session in completed(store, run):
        try:
            audit = hooks(session.protocol.value)
        except AuditError:
            if strict:
                raise
            continue
        task = store.task_for(session.id)
        found += [Found(session, task, a) for a in audit.asks(task, store.steps(session.id))]
    return found


def sample(found: list[Found], n: int | None, seed: int | None) -> list[Found]:
    """A seeded sample of `n` asks, kept in run order (all when n is None or larger)."""
    if n is None or n >= len(found):
        return list(found)
    if n < 1:
        raise AuditError("--sample must be at least 1")
    keep = set(random.Random(seed or 0).sample(range(len(found)), n))
    return [f for i, f in enumerate(found) if i in keep]


def payload(found: Found) -> dict[str, Any]:
    """The item as store/work.py's contract has it: the user's side, never the reply."""
    return {
        "kind": "audit",
        "protocol": found.session.protocol.value,
        "task_id": found.task.id,
        "language": found.task.language,
        "question": found.task.question,
        **found.ask.payload_parts(),
    }


def fill(store: Store, queue: str, found: list[Found]) -> int:
    """Add the items to the queue (those already there are kept): how many were new."""
    return store.work.add_items(queue, [(f.session.id, f.ask.reply_step, payload(f)) for f in found])
