"""Errors that end a session as *errored* (infrastructure), never as a wrong answer."""


class BackendError(RuntimeError):
    """A backend call failed for good (retries exhausted, bad credentials, timeout).

    The engine marks the session errored with this message; metrics exclude it.
    """


class NotBuiltError(RuntimeError):
    """A part of clarify-tui that is named in the design but not built yet."""


class InvalidActionError(ValueError):
    """An action the protocol does not allow right now (e.g. ask in search_only mode)."""
