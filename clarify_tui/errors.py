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


class UsageError(ValueError):
    """The user asked for something we refuse: a bad flag value, a file that is not what it
    should be, a run or session that does not exist. The CLI prints the message as one line
    and exits 2. Raise it (or a subclass) for a user's mistake only: a plain ValueError or
    KeyError is a bug, and the CLI lets its traceback show (exit 1, and in the log file).

    A ValueError so that code catching ValueError around a parse (the TUI's forms, the
    Python API's callers) still catches it."""


class NotFound(UsageError, KeyError):
    """A lookup by the user's name or id found nothing (no session 'x', no task 'y').
    Also a KeyError, for callers that catch the lookup's old KeyError; its text is the
    message itself (a KeyError's would be quoted)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""
