"""Errors that end a session as *errored* (infrastructure), never as a wrong answer."""


class BackendError(RuntimeError):
    """A backend call failed for good (retries exhausted, bad credentials, timeout).

    The engine marks the session errored with this message; metrics exclude it.
    """


class EndpointDown(BackendError):
    """A call not made: its endpoint's circuit breaker tripped (breaker.py) and the run is
    stopping. Always errors the session, also under `--compat reference`: the outage is
    the run's, not a failed call the harness would have read as an answer."""


class StoreError(RuntimeError):
    """The database cannot be used as asked (read-only, not SQLite, locked, full, newer
    schema, held by another writer). One line for the user; the CLI exits 2 and nothing
    more is written."""


class RunLeaseError(StoreError):
    """Another live process is writing this run (its holder is named in the message)."""


class AgentUnavailable(BackendError):
    """Raise this from your agent's `act` when *infrastructure* failed (its server is down,
    a quota ran out): the session ends errored and is counted apart, like a failed HTTP
    call, never as a wrong answer. Any other exception is the agent's own failure."""


class AgentFailed(RuntimeError):
    """A researcher's agent raised (anything but AgentUnavailable) or returned no Action:
    the agent's own failure. The engine records it as the agent's step, ends the task
    scored wrong (as running out of rounds) and shows the message; it is not errored."""
