"""Reading a stored session's steps: action groups, and where a failure began.

*Action groups*: one agent step with the user, judge and environment steps that answer
it. Forks continue after a whole group (an ask is never separated from its reply) and
the compare screen aligns two sessions group by group.

*Where replay opens*: a failed DiscoBench session at its first failed checkpoint, with
the step where the agent guessed (searched or answered) instead of asking.
"""

from __future__ import annotations

from clarify_tui.models import ActionKind, Session, Step
from clarify_tui.plural import plural
from clarify_tui.protocols import registry
from clarify_tui.results import DiscoBenchState

GUESS_KINDS = (ActionKind.search, ActionKind.answer)


def action_groups(steps: list[Step]) -> list[list[Step]]:
    """Steps cut before every agent step (leading non-agent steps form their own group)."""
    groups: list[list[Step]] = []
    for step in steps:
        if step.actor == "agent" or not groups:
            groups.append([step])
        else:
            groups[-1].append(step)
    return groups


def action_group_end(steps: list[Step], index: int) -> int:
    """The index of the last step in the action group holding step `index`."""
    if not 0 <= index < len(steps):
        raise IndexError(f"step {index} does not exist (the session has {plural(len(steps), 'step')})")
    end = -1
    for group in action_groups(steps):
        end += len(group)
        if end >= index:
            break
    return end


def first_failure(steps: list[Step]) -> int | None:
    """The first step after which a DiscoBench checkpoint is `failed`, if any."""
    for step in steps:
        proto = step.state.protocol
        checkpoints = proto.checkpoints if isinstance(proto, DiscoBenchState) else []
        if any(cp.status == "failed" for cp in checkpoints):
            return step.index
    return None


def guess_step(steps: list[Step], failure: int) -> int | None:
    """The agent's search or answer at or before the failure: where it guessed instead of asking."""
    for step in reversed(steps[: failure + 1]):
        if step.actor == "agent" and step.action.kind in GUESS_KINDS:
            return step.index
    return None


def opening_step(session: Session, steps: list[Step]) -> tuple[int, int | None]:
    """Where replay opens: (the step under the cursor, the guess step to highlight or None)."""
    if steps and registry.get(session.protocol).opens_at_failure:
        failure = first_failure(steps)
        if failure is not None:
            return failure, guess_step(steps, failure)
    return 0, None
