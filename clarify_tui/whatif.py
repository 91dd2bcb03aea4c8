"""What if it had asked? Counterfactual forks across a whole run (docs/whatif.md).

For each chosen session of a run, every *decision point* (an agent step that searched or
answered; in CTS the clarify step) gets one fork: the steps before it are copied, the
intervention replaces the agent's action there (`ask`: the agent asks instead; `answer`:
it commits its current best answer), and the same agent, user, judge and search play
on to the end through the normal engine. A fork is a session linked to its parent
(`parent_id`, `fork_step`) with a `counterfactual` field naming the intervention, stored
in the run `<RUN>-whatif`; scoring leaves counterfactuals out of every baseline.

The intervention asks the agent itself first, with a view that allows only the wanted
action and says so (InteractComp's forced_ask constraint line, reworded for one action);
an agent that still does something else gets the documented fallback (`fallback_action`)
and the fork records `"fallback": true`.

Reading the forks back and summarising them (what `report --whatif` prints) plays
nothing: whatif_results.py.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Literal

from clarify_tui.backend_spec import BackendSpec, RoleSpecs
from clarify_tui.backends import Backends, build_backends
from clarify_tui.engine import Episode, build_episode
from clarify_tui.errors import BackendError, UsageError
from clarify_tui.models import Action, ActionKind, Session, Step
from clarify_tui.protocols import registry
from clarify_tui.store import Store
from clarify_tui.whatif_results import RUN_SUFFIX, DecisionPoint, Fork, WhatIfResult, failed, fork_of

Intervention = Literal["ask", "answer", "reply"]  # reply: the simulator audit's (audit/forks.py)
At = Literal["answer", "search", "both"]
Which = Literal["failed", "all"]

FORCED_NOTICE = {
    # After the reference harness's forced_ask constraints line (run_benchmark.py:71-85).
    "ask": "Constraints: You must perform an ask action now. Other actions will be rejected.",
    "answer": "Constraints: You must answer now with your current best answer. Other actions will be rejected.",
}
_POINT_KINDS = {
    "answer": {ActionKind.answer},
    "search": {ActionKind.search},
    "both": {ActionKind.answer, ActionKind.search},
}


class WhatIfError(UsageError):
    """A what-if request that cannot be carried out (no such run, a person's sessions...)."""


# ---- decision points --------------------------------------------------------------------


def decision_points(session: Session, steps: Sequence[Step], at: At, intervention: Intervention) -> list[DecisionPoint]:
    """Where the intervention can replace the agent's action. Replacing an answer by an
    answer changes nothing, so `--intervention answer` forks searches only. CTS has one
    point, its clarify step, for `ask` (k + 1 questions) while k < 3 (a protocol that asks
    its questions up front: its spec's `clarify_budget`)."""
    if (budget := registry.get(session.protocol).clarify_budget) is not None:
        if intervention != "ask" or session.config.k >= budget:
            return []
        return [DecisionPoint(session.id, session.task_id, 0, "clarify")]
    kinds = set(_POINT_KINDS[at])
    if intervention == "answer":
        kinds.discard(ActionKind.answer)
    return [
        DecisionPoint(session.id, session.task_id, s.index, s.action.kind.value)
        for s in steps
        if s.actor == "agent" and s.action.kind in kinds and not s.error
    ]


# ---- the intervention ---------------------------------------------------------------------


def _latest_hits(history) -> list:
    for turn in reversed(history):
        if turn.action.kind == ActionKind.search and turn.observation.hits:
            return turn.observation.hits
    return []


def fallback_action(intervention: Intervention, episode: Episode, proposed: Action) -> Action:
    """What the intervention does when the agent would not: documented in docs/whatif.md.

    ask, InteractComp: "Is it X?" about what it would have answered (or the top hit of its
    latest search, or the scripted agents' opening question); DiscoBench: "Do you mean A or
    B?" about the two top hits of its latest search, else the scripted agents' generic ask.
    answer: the top hit of its latest search, else "unknown" (confidence 0).
    """
    from clarify_tui.agents.scripted import GENERIC_ASK, YESNO_FIRST_ASK

    view = episode.view()
    zh = view.language.startswith("zh")
    hits = _latest_hits(view.history)
    if intervention == "answer":
        return Action.answer(hits[0].title, 50) if hits else Action.answer("unknown", 0)
    if registry.get(episode.task.protocol).yes_no_user:  # a yes/no question about a guess
        own = (proposed.text or "").strip() if proposed.kind == ActionKind.answer else ""
        guess = own if own and own.lower() != "unknown" else (hits[0].title if hits else None)
        if guess:
            return Action.ask(f"是{guess}吗？" if zh else f"Is it {guess}?")
        return Action.ask(YESNO_FIRST_ASK["zh" if zh else "en"])
    titles = list(dict.fromkeys(h.title for h in hits))
    if len(titles) >= 2:
        a, b = titles[:2]
        return Action.ask(f"你是指{a}还是{b}？" if zh else f"Do you mean {a} or {b}?")
    return Action.ask(GENERIC_ASK["zh" if zh else "en"])


async def intervene(episode: Episode, intervention: Intervention) -> tuple[Action, bool]:
    """The agent's own action under the one-action constraint, or the fallback.
    Returns (action, fell_back). The proposal's usage is charged to the action taken."""
    wanted = ActionKind.ask if intervention == "ask" else ActionKind.answer
    view = episode.view()
    update: dict[str, Any] = {"allowed": [wanted], "notice": FORCED_NOTICE[intervention]}
    if registry.get(view.protocol).notice_in_question:  # as forced_ask does
        update["question"] = f"{FORCED_NOTICE[intervention]}\n\nQUESTION:\n{view.question}"
    view = view.model_copy(update=update)
    proposed = await episode.rules.acting_agent().act(view)
    if proposed.kind == wanted and (proposed.text or "").strip():
        return proposed, False
    action = fallback_action(intervention, episode, proposed)
    action.usage = proposed.usage
    return action, True


def _cts_fallback(episode: Episode, proposed: Action, k: int) -> Action:
    """CTS: the agent's own questions, topped up with the scripted templates (aspect order
    of scripted:ask-first) to exactly k."""
    from clarify_tui.agents.scripted import CTS_ORDER, CTS_TEMPLATES

    lang = "zh" if episode.task.language.startswith("zh") else "en"
    items = [q for q in (proposed.items or []) if q.strip()][:k] if proposed.kind == ActionKind.clarify else []
    for aspect in CTS_ORDER["ask-first"]:
        if len(items) >= k:
            break
        question = CTS_TEMPLATES[lang][aspect]
        if question not in items:
            items.append(question)
    action = Action.clarify(items)
    action.usage = proposed.usage
    return action


# ---- playing the forks --------------------------------------------------------------------


def with_run_seed(store: Store, run: str, config_obj: Any) -> Any:
    """The config the forks play under: the run's own `--seed`, when it had one and the
    config names none, so that a seeded agent (scripted:coin-flip, a model, a py: agent)
    continues as the run's agent would, not under another seed."""
    recorded = (store.run_row(run) or {}).get("config") or {}
    if isinstance(recorded, str):
        recorded = json.loads(recorded)
    seed = recorded.get("seed") if isinstance(recorded, dict) else None
    if seed is None:
        return config_obj
    from clarify_tui.config import load_config

    config_obj = config_obj if config_obj is not None else load_config()
    return config_obj if config_obj.seed is not None else config_obj.model_copy(update={"seed": seed})


class Player:
    """Plays forks of one database's sessions, building each backend spec once."""

    def __init__(self, store: Store, config_obj: Any = None) -> None:
        self.store, self.config_obj = store, config_obj
        self._built: dict[tuple, Backends] = {}

    def backends(self, parent: Session) -> Backends:
        key = (parent.agent, parent.user, parent.judge, parent.search, parent.config.deep_search)
        if key not in self._built:
            for role, spec in (("agent", parent.agent), ("user", parent.user)):
                if BackendSpec.parse(spec).is_human:
                    raise WhatIfError(
                        f"session {parent.id} was played by a person as the {role}: what-if forks "
                        "need automated backends"
                    )
            deep = parent.config.deep_search
            specs = RoleSpecs.of(
                agent=parent.agent,
                user=parent.user,
                judge=parent.judge,
                search=parent.search,
                deep_search=deep if deep != "stored" else None,
            )
            # the run's recorded searches are served from the cache; new ones are searched and recorded
            self._built[key] = build_backends(specs, self.config_obj, db=self.store.db, cache_mode="record")
        return self._built[key]

    async def close(self) -> None:
        for b in self._built.values():
            await b.aclose()

    def _episode(
        self, parent: Session, point: DecisionPoint, intervention: Intervention, sink: Any, user: Any = None, **cf: Any
    ) -> Episode:
        """`user`: another user for this fork (the audit's reply fork); `cf`: more for its record."""
        task = self.store.task_for(parent.id)
        b = self.backends(parent)
        config = parent.config.model_copy()
        if intervention == "ask" and registry.get(parent.protocol).clarify_budget is not None:  # one more up front
            config = config.model_copy(update={"k": parent.config.k + 1})
        session = Session(
            run=parent.run + RUN_SUFFIX,
            task_id=task.id,
            protocol=task.protocol,
            agent=parent.agent,
            user=parent.user,
            search=parent.search,
            judge=parent.judge,
            mode="automated",
            config=config,
            parent_id=parent.id,
            fork_step=point.step - 1,
            epoch=parent.epoch,
            counterfactual={"intervention": intervention, "step": point.step, "kind": point.kind, **cf},
        )
        episode = build_episode(
            task,
            agent=b.agent,
            user=user if user is not None else b.user,
            search=b.search,
            judge=b.judge,
            config=config,
            session=session,
            sink=sink,
            deep_search=b.deep_search,
        )
        return episode

    def forkable(self, parent: Session, point: DecisionPoint, intervention: Intervention) -> str | None:
        """None, or why the protocol does not allow the intervention at this point."""
        if registry.get(parent.protocol).clarify_budget is not None:  # decision_points checked the budget
            return None
        episode = self._episode(parent, point, intervention, sink=None)
        episode.restore(self.store.steps(parent.id)[: point.step])
        wanted = ActionKind.ask if intervention == "ask" else ActionKind.answer
        if wanted not in episode.allowed():
            return f"{intervention} not allowed there (final round or ablation)"
        return None

    async def play(self, parent: Session, point: DecisionPoint, intervention: Intervention) -> Session:
        episode = self._episode(parent, point, intervention, sink=self.store)
        steps = self.store.steps(parent.id)

        async def first_action() -> Action:
            if registry.get(parent.protocol).clarify_budget is not None:
                episode.restore([])
                proposed = await episode.propose()
                k = episode.config.k
                fell_back = not (proposed.kind == ActionKind.clarify and len(proposed.items or []) == k)
                action = _cts_fallback(episode, proposed, k) if fell_back else proposed
            else:
                episode.restore(steps[: point.step])
                action, fell_back = await intervene(episode, intervention)
            if fell_back:
                episode.session.counterfactual = {**(episode.session.counterfactual or {}), "fallback": True}
                self.store.update_session(episode.session)
            return action

        return await play_out(episode, first_action)


async def play_out(episode: Episode, first_action: Callable[[], Awaitable[Action]]) -> Session:
    """A fork from its first action to its end: `first_action` restores the steps before the
    fork and makes the action put in place (it may call a backend). A backend failure ends
    the fork errored (never scored); a cancellation abandons it. `whatif` and the audit's
    reply forks both play through here."""
    try:
        await episode.apply(await first_action())
    except asyncio.CancelledError:
        episode.abandon()
        raise
    except BackendError as exc:
        episode.fail(str(exc))
        return episode.session
    if not episode.done:
        await episode.run()
    return episode.session


# ---- the whole run ---------------------------------------------------------------------


def existing_forks(store: Store, run: str) -> dict[tuple[str, int, str], Session]:
    """Completed forks already made for `run`, by (parent, step, intervention)."""
    out: dict[tuple[str, int, str], Session] = {}
    for s in store.sessions(runs=[run + RUN_SUFFIX]):
        cf = s.counterfactual or {}
        if s.parent_id and cf and s.status == "completed":
            out[(s.parent_id, int(cf.get("step", -1)), str(cf.get("intervention")))] = s
    return out


def _retire_unfinished(store: Store, run: str) -> int:
    """Forks a crash left running (or that errored) are superseded, so they are played again."""
    count = 0
    for s in store.sessions(runs=[run + RUN_SUFFIX]):
        if s.counterfactual and s.status in ("running", "errored", "abandoned"):
            s.status = "superseded"
            store.update_session(s)
            count += 1
    return count


def plan(
    store: Store, run: str, which: Which, at: At, intervention: Intervention, player: Player
) -> tuple[WhatIfResult, list[tuple[Session, DecisionPoint]], dict]:
    """The run's chosen sessions and decision points, and which forks exist already."""
    parents = [s for s in store.sessions(runs=[run]) if not s.counterfactual]
    if not parents:
        known = [r for r in store.run_names() if not r.endswith(RUN_SUFFIX)]
        raise WhatIfError(
            f"no sessions in run '{run}' in {store.path}" + (f"; runs there: {', '.join(known)}" if known else "")
        )
    chosen = [s for s in parents if s.status == "completed" and (which == "all" or failed(s))]
    protocols = {s.protocol.value for s in parents}
    result = WhatIfResult(
        run=run,
        protocol=next(iter(protocols)) if len(protocols) == 1 else None,
        intervention=intervention,
        sessions=len(chosen),
    )
    done = existing_forks(store, run)
    todo: list[tuple[Session, DecisionPoint]] = []
    for parent in chosen:
        for point in decision_points(parent, store.steps(parent.id), at, intervention):
            if (parent.id, point.step, intervention) not in done:
                why = player.forkable(parent, point, intervention)
                if why:
                    result.skipped[why] = result.skipped.get(why, 0) + 1
                    continue
            result.points.append(point)
            todo.append((parent, point))
    return result, todo, done


async def whatif(
    store: Store,
    run: str,
    *,
    which: Which = "failed",
    at: At = "both",
    intervention: Intervention = "ask",
    concurrency: int = 4,
    limit: int | None = None,
    config_obj: Any = None,
    on_plan: Callable[[WhatIfResult, int, int], None] | None = None,
    on_fork: Callable[[Fork], None] | None = None,
) -> WhatIfResult:
    """Make (or reuse) the forks of `run` and return them with their outcomes.
    `on_plan(result, reused, to_play)` is called before any fork is played."""
    held = store.acquire_run(run + RUN_SUFFIX)  # one what-if writer per run
    player = Player(store, with_run_seed(store, run, config_obj))
    try:
        _retire_unfinished(store, run)
        result, todo, done = plan(store, run, which, at, intervention, player)
        by_id = {s.id: s for s in store.sessions(runs=[run])}
        reused = [
            (by_id[p.id], pt, done[(p.id, pt.step, intervention)])
            for p, pt in todo
            if (p.id, pt.step, intervention) in done
        ]
        new = [(p, pt) for p, pt in todo if (p.id, pt.step, intervention) not in done]
        if limit is not None:
            new = new[:limit]
            kept = {(p.id, pt.step) for p, pt in new} | {(p.id, pt.step) for p, pt, _ in reused}
            result.points = [pt for pt in result.points if (pt.session_id, pt.step) in kept]
        if on_plan:
            on_plan(result, len(reused), len(new))
        for parent, point, fork in reused:
            result.forks.append(fork_of(store, parent, point, fork, True))
        gate = asyncio.Semaphore(max(1, concurrency))

        async def one(parent: Session, point: DecisionPoint) -> None:
            async with gate:
                fork = await player.play(parent, point, intervention)
                made = fork_of(store, parent, point, fork, False)
                result.forks.append(made)
                store.heartbeat_run(held)
                if on_fork:
                    on_fork(made)

        await asyncio.gather(*(one(p, pt) for p, pt in new))
        order = {(pt.session_id, pt.step): i for i, pt in enumerate(result.points)}
        result.forks.sort(key=lambda f: order.get((f.point.session_id, f.point.step), 0))
        return result
    finally:
        await player.close()
        store.release_run(held)
