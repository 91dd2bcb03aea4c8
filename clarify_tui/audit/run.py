"""`audit`'s steps in order, for the command (and tests): make the queue, answer it with a
simulator, compare free text, fork the disagreements, summarise. Each step resumes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from clarify_tui.audit.forks import fork_disagreements
from clarify_tui.audit.items import AuditError, asks, fill, sample
from clarify_tui.audit.simulate import answer_with, compare_text
from clarify_tui.audit.summary import audit_summary, collect
from clarify_tui.backend_spec import BackendSpec
from clarify_tui.store import Store


def queue_name(run: str, spec: str) -> str:
    return f"audit:{run}:{spec}"


def make_queue(
    store: Store, run: str, name: str, *, n: int | None, seed: int | None, per_item: int, with_spec: str | None
) -> tuple[int, int]:
    """Create (or resume) the queue and add the run's asks (a seeded sample of n): (new, total).
    Resuming a queue without a new sample size keeps its own sample (size and seed)."""
    existing = store.work.queue(name)
    if existing is not None and n is None:
        n, seed = existing.config.get("sample"), existing.config.get("seed")
    found = asks(store, run)
    if not found:
        raise AuditError(f"run '{run}' has no asks to audit: its agent never asked the user")
    chosen = sample(found, n, seed)
    config = {"sample": n, "seed": seed, **({"with": with_spec} if with_spec else {})}
    store.work.create_queue(name, "audit", run, per_item, config)
    added = fill(store, name, chosen)
    return added, store.work.progress(name)["items"]


async def play_forks(
    store: Store,
    run: str,
    *,
    config_obj: Any = None,
    on_fork: Callable[[Any], None] | None = None,
    say: Callable[[str], None] | None = None,
) -> int:
    """Fork every disagreement of the run's audit queues that has no fork yet."""
    _, queues = collect(store, run)
    todo, by_people = [], 0
    for name, rows in queues.items():
        q = store.work.queue(name)
        auditor = (q.config.get("with") if q else None) or name
        for r in rows:
            if r["verdict"]["pick"] is None:
                continue
            if played_by_a_person(r["found"].session):
                by_people += 1
                continue
            todo.append((r["found"], r["verdict"]["pick"], auditor))
    if by_people and say:
        say(f"{by_people} disagreement(s) not forked: a person played that session (forks need automated backends)")
    return await fork_disagreements(store, run, todo, config_obj=config_obj, on_fork=on_fork)


def played_by_a_person(session: Any) -> bool:
    return any(BackendSpec.parse(spec).is_human for spec in (session.agent, session.user))


async def audit(
    store: Store,
    run: str,
    *,
    with_spec: str | None = None,
    queue: str | None = None,
    n: int | None = None,
    seed: int | None = None,
    per_item: int = 1,
    forks: bool = True,
    config_obj: Any = None,
    say: Callable[[str], None] = lambda _: None,
) -> dict[str, Any]:
    """The whole audit: `with_spec` answers a queue of its own; `queue` only creates one for
    people; neither reports on every answer so far (forking the disagreements not yet forked)."""
    if with_spec and BackendSpec.parse(with_spec).is_human:
        raise AuditError("--with human: people answer through a queue (--queue NAME, then play/serve --queue NAME)")
    if with_spec:
        name = queue or queue_name(run, with_spec)
        added, total = make_queue(store, run, name, n=n, seed=seed, per_item=per_item, with_spec=with_spec)
        say(f"audit queue '{name}': {total} item(s), {added} new; answering with {with_spec}")

        def progress(i: int, total: int) -> None:
            if i % 25 == 0 or i == total:
                say(f"  answered {i}/{total}")

        made = await answer_with(store, run, name, with_spec, config_obj=config_obj, on_answer=progress)
        say(f"{with_spec} answered {made} item(s) ({total - made} already answered)")
    elif queue:
        added, total = make_queue(store, run, queue, n=n, seed=seed, per_item=per_item, with_spec=None)
        q = store.work.queue(queue)
        say(f"audit queue '{queue}': {total} item(s), {added} new, {q.per_item if q else per_item} answer(s) per item")
        return audit_summary(store, run, seed=seed or 0)
    compared = await compare_text(store, run, config_obj)
    if compared:
        say(f"compared {compared} free-text answer(s) through the run's judge")
    if forks:
        played = await play_forks(store, run, config_obj=config_obj, say=say)
        if played:
            say(f"played {played} fork(s) with the auditor's reply")
    return audit_summary(store, run, seed=seed or 0)
