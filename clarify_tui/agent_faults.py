"""The agent's own failures in a run, counted and named, and `run --fail-on-error`.

Why: an own agent (`py:` / `http://`) that returns None, garbage over HTTP, or an action
the protocol forbids is scored wrong (docs/agents.md), so a broken agent looked like a
weak one: the run printed nothing. `agent_faults` counts its invalid outputs (every
refused or failed agent step) and the sessions they ended, and keeps the first cause, for
the run summary; `over_tolerance` is the `--fail-on-error` test (docs/runs.md).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass

from clarify_tui.models import Session
from clarify_tui.results import InteractCompResult


@dataclass
class AgentFaults:
    outputs: int = 0  # invalid or failed agent outputs (refused actions, None, garbage, exceptions)
    sessions: int = 0  # sessions with at least one
    ended: int = 0  # completed sessions those outputs ended (scored wrong)
    first: str = ""  # "task T: cause" of the first one

    def line(self) -> str:
        """One line for the run summary (empty when there were none)."""
        if not self.outputs and not self.ended:
            return ""
        plural = "s" if self.outputs != 1 else ""
        return (
            f"agent: {self.outputs} invalid output{plural} in {self.sessions} session(s), {self.ended} "
            f"ended by them (scored wrong); first: {self.first}"
        )


def ended_by_agent(session: Session) -> bool:
    """A completed session the agent's own output ended: it raised or returned no Action
    (the session's error), invalid outputs ran out (`invalid_skip`), or an InteractComp
    action the harness could not call (`call_error`)."""
    if session.status != "completed":
        return False
    r = session.result
    if session.error:
        return True
    if isinstance(r, InteractCompResult):
        return r.outcome in ("invalid_skip", "call_error")
    return bool(r.invalid_skip)  # DiscoBench, CTS


def agent_faults(sessions: Sequence[Session], step_errors: Sequence[tuple[str, str, str]]) -> AgentFaults:
    """`step_errors`: (session id, task id, error) from `Store.agent_step_errors`."""
    live = {s.id for s in sessions}
    errors = [e for e in step_errors if e[0] in live]
    faults = AgentFaults(
        outputs=len(errors), sessions=len({e[0] for e in errors}), ended=sum(1 for s in sessions if ended_by_agent(s))
    )
    if errors:
        _, task, cause = errors[0]
        faults.first = f"task {task}: {' '.join(cause.split())[:200]}"
    return faults


# ---- run --fail-on-error [N|FRACTION] ------------------------------------------------------

ANY = 0  # the bare flag: any failed session fails the run


def tolerance(text: str) -> float:
    """`--fail-on-error`'s value: an integer N (more than N sessions fail the run) or a
    number below 1 (more than that share of them)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a count N or a share below 1, got {text!r}") from None
    if value < 0 or (value >= 1 and not value.is_integer()):
        raise argparse.ArgumentTypeError(f"expected a count N (0, 1, 2, ...) or a share below 1, got {text!r}")
    return value


def over_tolerance(failed: int, total: int, allowed: float) -> bool:
    """More failed sessions than `allowed` (a count, or a share of `total` when below 1)?"""
    if 0 < allowed < 1:
        return total > 0 and failed / total > allowed
    return failed > allowed
