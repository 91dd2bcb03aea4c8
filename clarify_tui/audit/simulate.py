"""Answering an audit queue with another simulator (`audit --with SPEC`), blind.

The auditor is built from SPEC by the code `run --user SPEC` uses (backends.py: the
rule user, openai:MODEL, py:FILE:NAME, http://...) and called exactly as the run's simulator
was at that ask (its protocol's `ask_user`: the same task, question and, in DiscoBench, the
same checkpoint and judgement); it never sees the simulator's reply. Each answer is stored as
it comes, so a crash loses at most the item in flight and a rerun skips answered items. CTS
answers are then compared with the simulator's through the run's judge (audit/compare.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from clarify_tui.audit import compare
from clarify_tui.audit.items import Found, asks, hooks
from clarify_tui.backend_spec import RoleSpecs
from clarify_tui.backends import build_backends, close_backends
from clarify_tui.store import Store


async def answer_with(
    store: Store,
    run: str,
    queue: str,
    spec: str,
    *,
    config_obj: Any = None,
    on_answer: Callable[[int, int], None] | None = None,
) -> int:
    """Answer every item of `queue` the auditor `spec` has not answered: how many it answered."""
    by_id = {f.item_id: f for f in asks(store, run)}
    user = build_backends(RoleSpecs.of(user=spec), config_obj).user
    made = 0
    try:
        todo = [i for i in store.work.items(queue) if i.item_id in by_id]
        answered = {a.item_id for a in store.work.answers(queue=queue) if a.annotator == spec}
        todo = [i for i in todo if i.item_id not in answered]
        for n, item in enumerate(todo, 1):
            found = by_id[item.item_id]
            answer = await hooks(found.session.protocol.value).ask_user(
                user, found.task, found.ask, found.session.config
            )
            store.work.record_answer(queue, item.item_id, spec, answer, source="simulator")
            made += 1
            if on_answer:
                on_answer(n, len(todo))
    finally:
        await close_backends(user)
    return made


async def compare_text(store: Store, run: str, config_obj: Any = None) -> int:
    """Judge every free-text answer of the run's audit queues not yet compared (CTS)."""
    by_id = {f.item_id: f for f in asks(store, run, strict=False)}
    todo: list[tuple[tuple[str, str, str], str, str, str, str]] = []
    for a in store.work.answers(run=run, kind="audit"):
        found: Found | None = by_id.get(a.item_id)
        if found is None or found.ask.reply.get("type") != "text":
            continue
        key = (a.queue, a.item_id, a.annotator)
        todo.append((key, found.session.judge, found.ask.ask, found.ask.simulator_reply, a.answer.get("reply") or ""))
    return await compare.compare_missing(store, todo, config_obj)
