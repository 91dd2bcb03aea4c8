"""How much a simulator's mistakes matter: each disagreement forked once from its ask with the
auditor's reply in place of the simulator's (the what-if intervention `reply`).

The fork is a what-if fork (whatif.Player: same agent, judge and search, stored in
`<RUN>-whatif`, left out of every baseline score); only its user differs: it gives the
auditor's reply to the audited ask (and, in CTS, the simulator's own earlier answers of the
same clarify step first), then the run's own simulator answers every later ask."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from clarify_tui.audit.items import Found, hooks
from clarify_tui.models import Action, Session
from clarify_tui.store import Store
from clarify_tui.whatif import Player, play_out, with_run_seed
from clarify_tui.whatif_results import RUN_SUFFIX, DecisionPoint

INTERVENTION = "reply"


class ScriptedFirst:
    """A user that gives scripted replies to one of its methods first, then defers to `user`."""

    def __init__(self, user: Any, method: str, replies: list[Any]) -> None:
        self.user, self.method, self.left = user, method, list(replies)
        self.spec = getattr(user, "spec", "")

    async def _call(self, name: str, *args: Any) -> Any:
        if name == self.method and self.left:
            return self.left.pop(0)
        return await getattr(self.user, name)(*args)

    async def reply_interactcomp(self, *args: Any) -> Any:
        return await self._call("reply_interactcomp", *args)

    async def reply_discobench(self, *args: Any) -> Any:
        return await self._call("reply_discobench", *args)

    async def answer_clarification(self, *args: Any) -> Any:
        return await self._call("answer_clarification", *args)

    async def rewrite(self, *args: Any) -> Any:
        return await self._call("rewrite", *args)


def fork_key(parent_id: str, reply_step: int, answer: dict[str, Any]) -> tuple[str, int, str, str]:
    """One fork per (ask, reply): auditors who gave the same reply share it."""
    return parent_id, reply_step, str(answer.get("reply") or ""), str(answer.get("class") or "")


def stored_forks(store: Store, run: str, *, finished: bool = True) -> dict[tuple[str, int, str, str], Session]:
    """The run's reply forks by fork_key: completed or errored ones (finished), or all."""
    out: dict[tuple[str, int, str, str], Session] = {}
    for s in store.sessions(runs=[run + RUN_SUFFIX]):
        cf = s.counterfactual or {}
        if s.parent_id and cf.get("intervention") == INTERVENTION:
            if not finished or s.status in ("completed", "errored"):
                out[fork_key(s.parent_id, int(cf.get("reply_step", -1)), cf.get("answer") or {})] = s
    return out


async def play_reply(player: Player, store: Store, found: Found, answer: dict[str, Any], auditor: str) -> Session:
    parent, ask = found.session, found.ask
    method, replies = hooks(parent.protocol.value).fork_replies(ask, answer)
    user = ScriptedFirst(player.backends(parent).user, method, replies)
    point = DecisionPoint(parent.id, parent.task_id, ask.ask_step, "ask")
    answer = {"reply": answer.get("reply"), "class": answer.get("class")}
    episode = player._episode(
        parent, point, "reply", sink=store, user=user, reply_step=ask.reply_step, answer=answer, auditor=auditor
    )
    steps = store.steps(parent.id)

    async def the_agents_own_ask() -> Action:  # replayed as it was: the auditor's reply follows it
        episode.restore(steps[: ask.ask_step])
        return steps[ask.ask_step].action.model_copy(update={"usage": None})

    return await play_out(episode, the_agents_own_ask)


async def fork_disagreements(
    store: Store,
    run: str,
    todo: list[tuple[Found, dict[str, Any], str]],
    *,
    config_obj: Any = None,
    on_fork: Callable[[Session], None] | None = None,
) -> int:
    """Play the forks `todo` (found, auditor's answer, auditor) that are not stored yet, one at a
    time (a crash loses at most the one in flight: it is superseded and played again)."""
    held = store.acquire_run(run + RUN_SUFFIX)  # one what-if writer per run, as `whatif`
    player = Player(store, with_run_seed(store, run, config_obj))
    played = 0
    try:
        for s in stored_forks(store, run, finished=False).values():
            if s.status in ("running", "abandoned", "errored"):  # played again, as `whatif` does
                s.status = "superseded"
                store.update_session(s)
        done = stored_forks(store, run)
        for found, answer, auditor in todo:
            key = fork_key(found.session.id, found.ask.reply_step, answer)
            if key in done:
                continue
            done[key] = fork = await play_reply(player, store, found, answer, auditor)
            played += 1
            store.heartbeat_run(held)
            if on_fork:
                on_fork(fork)
        return played
    finally:
        await player.close()
        store.release_run(held)
