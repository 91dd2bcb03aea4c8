"""A run's decision points and the labelling item each becomes.

The points are `whatif`'s (whatif.decision_points, intervention `ask` at searches and
answers; CTS: its clarify step while k < 3), so a label and an `ask` fork of the same step
line up on `(session_id, step)` and summary.py can ask whether people's `ask` labels predict
the forks that flipped. The item shows what the agent had seen before deciding, rebuilt by
the protocol's own rules (the engine's view, from `engine/view_at.py`'s `replay_episode`
as replay's is): the visible question and the agent's own past turns with what came back. Judge steps, hidden
task fields and anything after the decision (its outcome included) are left out.
"""

from __future__ import annotations

import random
from typing import Any

from clarify_tui.engine.view_at import replay_episode
from clarify_tui.models import ActionKind, Session, Step
from clarify_tui.store import Store
from clarify_tui.whatif import decision_points
from clarify_tui.whatif_results import DecisionPoint

HIT_TEXT = 300  # characters of each search hit's content shown (a labeller skims, the agent read all)


def run_sessions(store: Store, run: str) -> list[Session]:
    """The run's own completed sessions (forks live in RUN-whatif and are never labelled)."""
    return [s for s in store.sessions(runs=[run]) if not s.counterfactual and s.status == "completed"]


def points_of(session: Session, steps: list[Step]) -> list[DecisionPoint]:
    return decision_points(session, steps, "both", "ask")


def run_points(store: Store, run: str) -> list[tuple[Session, list[Step], DecisionPoint]]:
    """Every decision point of the run, sessions in database order, steps in order."""
    out = []
    for session in run_sessions(store, run):
        steps = store.steps(session.id)
        out += [(session, steps, point) for point in points_of(session, steps)]
    return out


def sample_points(points: list, n: int | None, seed: int) -> list:
    """A seeded sample of `n` points, kept in run order (the same seed gives the same queue)."""
    if n is None or n >= len(points):
        return list(points)
    chosen = set(random.Random(seed).sample(range(len(points)), n))
    return [p for i, p in enumerate(points) if i in chosen]


def _reply_index(step: Step, steps: list[Step]) -> int:
    """The index of the user's reply step to the agent's ask `step` (after a judge step in
    DiscoBench), as `export` numbers it: the number a labeller reads is the export's."""
    for later in steps:
        if later.index <= step.index:
            continue
        if later.actor == "agent":
            break
        if later.actor == "user":
            return later.index
    return step.index  # no reply step recorded: the ask's own (its observation holds the reply)


def _came_back(step: Step, steps: list[Step]) -> dict[str, Any] | None:
    obs = step.observation
    if step.action.kind in (ActionKind.ask, ActionKind.clarify):
        text = obs.text or "\n".join(obs.items)
        return {"index": _reply_index(step, steps), "actor": "user", "kind": "reply", "text": text}
    lines = [obs.text] if obs.text else []
    for i, hit in enumerate(obs.hits, 1):
        content = hit.content if len(hit.content) <= HIT_TEXT else hit.content[:HIT_TEXT] + "…"
        lines.append(f"{i}. {hit.title} ({hit.url}): {content}")
    if obs.error:
        lines.append(f"refused: {obs.error}")
    if not lines:
        return None
    return {"index": step.index, "actor": "environment", "kind": "results", "text": "\n".join(lines)}


def item_payload(store: Store, session: Session, steps: list[Step], point: DecisionPoint) -> dict[str, Any]:
    """The labels item of store/work.py: the question and turns as the agent saw them just
    before `point`, and the decision; never the outcome. Each of the agent's turns is two
    entries: its action, then what came back: the user's reply, under the index of the
    user's own reply step (as `export` numbers steps), or the search results, under the
    search's index (they are its output)."""
    task = store.task_for(session.id)
    before = [s for s in steps if s.index < point.step]
    episode = replay_episode(task, session)
    episode.restore(before)  # re-indexes its copies 0..n-1: mapped back through `before`
    view = episode.view(history=False)
    shown: list[dict[str, Any]] = []
    for turn in episode.rules.view_turns():
        original = before[turn.index]
        shown.append(
            {
                "index": original.index,
                "actor": "agent",
                "kind": original.action.kind.value,
                "text": original.action.summary(),
            }
        )
        if (back := _came_back(original, before)) is not None:
            shown.append(back)
    decision = next((s for s in steps if s.index == point.step), None)
    return {
        "kind": "labels",
        "protocol": session.protocol.value,
        "task_id": session.task_id,
        "language": task.language,
        "question": view.question,
        "steps": shown,
        "decision": {
            "index": point.step,
            "kind": decision.action.kind.value if decision else point.kind,
            "text": decision.action.summary() if decision else "",
        },
    }
