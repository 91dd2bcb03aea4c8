"""A session's steps cut into *action groups*: one agent step with the user, judge and
environment steps that answer it. Forks continue after a whole group (an ask is never
separated from its reply) and the compare screen aligns two sessions group by group.
"""

from __future__ import annotations

from clarify_tui.models import Step


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
        raise IndexError(f"step {index} does not exist (the session has {len(steps)} steps)")
    end = -1
    for group in action_groups(steps):
        end += len(group)
        if end >= index:
            break
    return end
