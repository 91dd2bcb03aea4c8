"""Database writes of a batch run, off the event loop, plus the run lease's heartbeat.

Why: SQLite calls block. When another process holds the write lock, a write made on the
event loop freezes every concurrent episode until the lock is free (12 s were measured).
`BackgroundWriter` is the engine's StepSink for a run: each call snapshots what it writes
and queues it for one thread with its own connection, so model calls go on while the
thread waits. The queue is drained as fast as SQLite takes it, so a kill -9 still loses
only the step in flight. The same thread refreshes the run's lease; if the lease was taken
over, or a write fails (disk full, locked too long), the next sink call raises that
StoreError and the run stops.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
import time
from pathlib import Path

from clarify_tui import lease as leases
from clarify_tui.errors import StoreError
from clarify_tui.models import Session, Step, Task

log = logging.getLogger(__name__)
_STOP = object()


class BackgroundWriter:
    def __init__(
        self, path: Path, held: leases.Lease | None, heartbeat_every: float = leases.HEARTBEAT_EVERY_S
    ) -> None:
        self.path = path
        self.held = held
        self.heartbeat_every = heartbeat_every
        self.failure: StoreError | None = None
        self._queue: queue.Queue = queue.Queue()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._work, name="clarify-db-writer", daemon=True)

    def start(self) -> BackgroundWriter:
        self._thread.start()
        self._ready.wait()
        self._raise_failure()
        return self

    # ---- the StepSink protocol (called on the event loop; never blocks on SQLite) ----

    def start_session(self, session: Session, task: Task) -> None:
        self._put("start_session", session.model_copy(deep=True), task)

    def add_step(self, session: Session, step: Step) -> None:
        self._put("add_step", session, step.model_copy(deep=True))

    def finish_session(self, session: Session) -> None:
        self._put("finish_session", session.model_copy(deep=True))

    def update_session(self, session: Session) -> None:
        self._put("update_session", session.model_copy(deep=True))

    async def flush(self) -> None:
        """Wait (off the loop) until everything queued is on disk."""
        await asyncio.to_thread(self._queue.join)
        self._raise_failure()

    def close(self) -> None:
        if self._thread.is_alive():
            self._queue.put(_STOP)
            self._thread.join()

    # ---- internals -----------------------------------------------------------------

    def _put(self, method: str, *args) -> None:
        self._raise_failure()
        self._queue.put((method, args))

    def _raise_failure(self) -> None:
        if self.failure is not None:
            raise self.failure

    def _work(self) -> None:
        from clarify_tui.store import Store

        try:
            store = Store(self.path)
        except StoreError as exc:
            self.failure = exc
            self._ready.set()
            return
        self._ready.set()
        next_beat = time.monotonic() + self.heartbeat_every
        try:
            while True:
                try:
                    item = self._queue.get(timeout=max(0.0, next_beat - time.monotonic()))
                except queue.Empty:
                    item = None
                try:
                    if item is _STOP:
                        return
                    if time.monotonic() >= next_beat:
                        next_beat = time.monotonic() + self.heartbeat_every
                        self._beat(store)
                    if item is not None and self.failure is None:
                        method, args = item
                        getattr(store, method)(*args)
                except StoreError as exc:
                    self.failure = self.failure or exc
                except Exception as exc:  # a bug here must stop the run, not lose writes silently
                    log.exception("database writer failed")
                    self.failure = self.failure or StoreError(
                        f"writing {self.path} failed: {type(exc).__name__}: {exc}"
                    )
                finally:
                    if item is not None:
                        self._queue.task_done()
        finally:
            store.close()

    def _beat(self, store) -> None:
        if self.held is not None and not store.heartbeat_run(self.held):
            raise StoreError(
                f"run '{self.held.run}' was taken over by another process (this one's lease went stale); stopping"
            )
