"""One place that tells the person a backend call failed in a worker.

Screens run engine calls in workers with `exit_on_error=False`, so a failing model or
search never kills the app. Textual reports the failure with `Worker.StateChanged` to
the worker's screen only (it does not bubble): `ForwardsWorkerErrors` turns it into a
`WorkerFailed` message, which bubbles, and `NotifiesWorkerErrors` (on both apps) shows
it. The title names what failed, by the worker's group.
"""

from __future__ import annotations

from textual.worker import Worker, WorkerState

from clarify_tui.tui.messages import WorkerFailed

FAILURE_TITLES = {
    "engine": "backend failed",  # play
    "fork": "the fork failed",  # replay
    "ask-vs-guess": "an agent failed",
}


class ForwardsWorkerErrors:
    """Screen mixin: a worker that ended in error becomes a bubbling `WorkerFailed`."""

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR and event.worker.error is not None:
            self.post_message(WorkerFailed(event.worker.group, event.worker.error))  # type: ignore[attr-defined]


class NotifiesWorkerErrors:
    """App mixin: the one handler that shows a worker's failure."""

    def on_worker_failed(self, message: WorkerFailed) -> None:
        error = message.error
        from clarify_tui.errors import AgentFailed

        if isinstance(error, AgentFailed):  # a researcher's agent failed: its own wrong answer, not a backend
            self.notify(  # type: ignore[attr-defined]
                f"{error} (scored wrong)",
                title="the agent failed",
                severity="error",
                timeout=8,
            )
            return
        self.notify(  # type: ignore[attr-defined]
            f"{type(error).__name__}: {error}",
            title=FAILURE_TITLES.get(message.group, "a background task failed"),
            severity="error",
            timeout=8,
        )
