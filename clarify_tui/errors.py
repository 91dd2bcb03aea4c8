"""Errors that end a session as *errored* (infrastructure), never as a wrong answer."""


class BackendError(RuntimeError):
    """A backend call failed for good (retries exhausted, bad credentials, timeout).

    The engine marks the session errored with this message; metrics exclude it.
    """


class StoreError(RuntimeError):
    """The database cannot be used as asked (read-only, not SQLite, locked, full, newer
    schema, held by another writer). One line for the user; the CLI exits 2 and nothing
    more is written."""


class RunLeaseError(StoreError):
    """Another live process is writing this run (its holder is named in the message)."""
