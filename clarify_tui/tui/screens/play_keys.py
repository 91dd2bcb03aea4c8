"""Why a play-screen key does nothing right now, in a few words.

The play screen's `check_action` hides or greys out what cannot run; a person pressing
such a key (or picking it in the command palette) gets one of these reasons instead of
silence. Only keys that mean something in this role get a reason: an observer pressing
`s` is not told about the human agent's search.
"""

from __future__ import annotations

from clarify_tui.models import ActionKind, Protocol


def parse_action(action: str) -> tuple[str, tuple[str, ...]]:
    """"compose('search')" -> ("compose", ("search",))."""
    name, _, args = action.partition("(")
    params = tuple(a.strip(" '\")") for a in args.rstrip(")").split(",") if a.strip(" )")) if args else ()
    return name, params


def _compose_refusal(screen, kind: ActionKind) -> str | None:
    driver = screen.driver
    view = driver.episode.view()
    protocol = screen.task_.protocol
    if kind not in view.allowed:
        if protocol == Protocol.interactcomp and kind in (ActionKind.visit, ActionKind.clarify):
            return f"InteractComp has no {kind.value}: search (s), ask (k) or answer (enter)."
        if protocol == Protocol.cts and kind != ActionKind.clarify and view.phase == "clarify":
            return f"CTS: clarify first (c); {kind.value} comes after the clarification."
        if protocol == Protocol.cts and kind == ActionKind.clarify:
            return "CTS: the clarification is over; search (s) or answer (enter)."
        allowed = ", ".join(k.value for k in view.allowed) or "nothing"
        return f"{kind.value} is not allowed now (allowed: {allowed})."
    if driver.clock.paused:
        return "Paused: p resumes the clock first."
    if not screen.agent_turn:
        return "Wait: your last action is still running."
    return None


def refusal(screen, action: str, params: tuple[str, ...]) -> str | None:
    """The reason `action` cannot run now, or None (it can, or it is not for this role)."""
    driver = screen.driver
    done = driver.done
    agent = screen.role == "agent"
    queue = bool(screen.setup.queue)
    if action == "compose":
        if not agent:
            return None
        if done:
            return "The task has ended." + (" n goes to the next one." if queue else "")
        return _compose_refusal(screen, ActionKind(params[0]))
    if action == "next_task" and queue and not done:
        return "n moves on once this task has ended: answer it, or ctrl+o gives it up for good."
    if action == "skip_task" and queue and done:
        return "The task has ended: n goes to the next one."
    if action == "toggle_hidden" and agent and not done:
        return "The hidden panel opens when the task ends."
    if action == "pause_clock" and agent and done:
        return "The task has ended; the clock has stopped."
    if agent:
        return None
    if action in ("propose", "apply", "edit", "replace"):
        if screen.run_mode != "step":
            return "Watch mode: m switches to step mode first."
        if done:
            return "The session is over."
        if screen.busy:
            return "Busy: wait, or escape cancels."
        if action == "propose" and driver.pending is not None:
            return "An action is pending: enter applies it, escape drops it."
        if action in ("apply", "edit") and driver.pending is None:
            return "Nothing pending: space asks the agent for its next action."
    if action in ("toggle_auto", "pace"):
        if screen.run_mode != "watch":
            return "Step mode: m switches to watch mode first."
        if done:
            return "The session is over."
    return None


def key_refusal(screen, key: str) -> str | None:
    """The reason for `key`, if no enabled binding takes it and one of the screen's does
    not run now."""
    active = screen.active_bindings.get(key)
    if active is not None and active.enabled:
        return None
    for binding in screen.BINDINGS:
        if key in binding.key.split(","):
            reason = refusal(screen, *parse_action(binding.action))
            if reason:
                return reason
    return None
