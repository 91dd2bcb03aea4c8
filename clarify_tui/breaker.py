"""Circuit breakers: one per remote endpoint (a model server, Tavily, Serper).

Why: a server that accepts connections and never answers (or answers 5xx every time)
costs timeout x attempts on every call, so a batch run would pay it for every task left.
Each endpoint counts its calls that ran out of retries in a row; at `stop_after` it is
*down*: it takes no more calls (`EndpointDown`) and runner.py stops the run with one line
saying which endpoint and how to resume (docs/runs.md "Dead endpoints"). An answer resets
the count; a 4xx is never counted (retrying would not help, the request is ours).

Every breaker registers here, so the runner asks one place whichever backend tripped.
Nothing heavy is imported: a run without model backends asks for free.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from clarify_tui.errors import EndpointDown

_BREAKERS: weakref.WeakSet[Breaker] = weakref.WeakSet()


def shown_url(url: str) -> str:
    """A url fit for a message: no user:password and no query (a key may hide in either)."""
    parts = urlsplit(url)
    if not parts.netloc:
        return url
    host = parts.netloc.rsplit("@", 1)[-1]
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


@dataclass(eq=False)
class Breaker:
    """Consecutive failures of one endpoint. `call` names one in the stop line ("model
    call", "tavily call"); `where` is the endpoint (shown without secrets)."""

    call: str
    where: str
    stop_after: int = 0  # failures in a row before the endpoint is down; 0: never
    failures: int = 0
    down: str | None = None  # why it is down, once tripped

    def __post_init__(self) -> None:
        self.where = shown_url(self.where)
        _BREAKERS.add(self)

    def check(self, describe: str = "") -> None:
        """Raise EndpointDown when tripped: no more calls into a dead server."""
        if self.down:
            raise EndpointDown(f"{describe}not called: {self.down}")

    def failed(self, why: str) -> None:
        """A call ran out of retries on an infrastructure fault (timeout, connection, 5xx)."""
        self.failures += 1
        if self.stop_after and self.failures >= self.stop_after and self.down is None:
            calls = self.call + ("s" if self.failures > 1 else "")
            self.down = f"{self.failures} {calls} in a row failed at {self.where} (the last: {why})"

    def answered(self) -> None:
        self.failures = 0


def tripped() -> str | None:
    """Why an endpoint is down (the first breaker that tripped), or None."""
    return next((b.down for b in list(_BREAKERS) if b.down), None)


def reset_all() -> None:
    """A new run starts every endpoint afresh (one process may run several batches)."""
    for breaker in list(_BREAKERS):
        breaker.failures, breaker.down = 0, None
