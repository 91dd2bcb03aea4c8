"""No configured secret is stored, exported or printed, even when a server quotes it back.

Why: a 401 from an OpenAI-compatible server or a search API often echoes the key it was
sent ("Incorrect API key provided: sk-proj-…"). That text became the session's error, the
step's error and the run's printed summary, so the key landed in the database, in every
export of it, and on screen. Every error text passes through `redact` before it is stored
or shown: the secrets a client was built with (`register`) and the values of environment
variables whose names say they hold one (`*_API_KEY`, `*_TOKEN`, `*_SECRET`, `*_PASSWORD`)
are replaced by `[redacted]`.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Mapping

REDACTED = "[redacted]"
MIN_LENGTH = 8  # shorter values ("no-key", "1", "true") would redact ordinary words
_SECRET_NAME = re.compile(r".*(API_KEY|APIKEY|_TOKEN|_SECRET|PASSWORD)$", re.IGNORECASE)
_registered: set[str] = set()
_lock = threading.Lock()


def register(secret: str | None) -> None:
    """Remember a secret a client was built with (an API key read from any variable)."""
    if secret and len(secret) >= MIN_LENGTH:
        with _lock:
            _registered.add(secret)


def secrets(environ: Mapping[str, str] | None = None) -> list[str]:
    """Every secret to hide, longest first (a key that contains another is hidden whole)."""
    env = os.environ if environ is None else environ
    found = {v for k, v in env.items() if _SECRET_NAME.match(k) and len(v) >= MIN_LENGTH}
    with _lock:
        found |= _registered
    return sorted(found, key=len, reverse=True)


def redact(text: str | None, environ: Mapping[str, str] | None = None) -> str | None:
    """`text` with every secret replaced by `[redacted]` (None stays None)."""
    if not text:
        return text
    for secret in secrets(environ):
        if secret in text:
            text = text.replace(secret, REDACTED)
    return text
