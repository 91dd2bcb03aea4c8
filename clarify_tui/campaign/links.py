"""Signed links: one per annotator, so a session's annotator is who the link says.

With the shared token anyone holding the link types any name. `serve --annotators FILE`
gives each listed name its own link instead, `?annotator=NAME&sig=S` where S is an
HMAC-SHA256 of the campaign's run and the name under a secret kept next to the database
(`DB.serve-secret`, mode 0600, made on first use). The secret outlives restarts, so the
links do too; a link opens only while its name is in the file, so removing a name and
restarting the server revokes its link. `--participant-param NAME` reads the annotator
from a crowdsourcing platform's parameter instead of `annotator` (e.g. `PROLIFIC_PID`).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
from collections.abc import Iterable
from pathlib import Path

from clarify_tui.errors import UsageError

ANNOTATOR = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,39}$")
SIG_PARAM = "sig"


def secret_path(db: Path) -> Path:
    return db.with_name(db.name + ".serve-secret")


def links_path(db: Path, run: str) -> Path:
    """Where `serve --annotators` writes the links: beside the database, one file per run."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", run)
    return db.with_name(f"{db.name}.links-{safe}.tsv")


def load_secret(path: Path) -> bytes:
    """The campaign's signing secret; made (32 random bytes, mode 0600) when absent."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        secret = path.read_bytes()
        if len(secret) < 32:
            raise UsageError(
                f"{path}: the signing secret is damaged (under 32 bytes); remove it to make a new one "
                "(every link given out stops working)"
            ) from None
        return secret
    with os.fdopen(fd, "wb") as out:
        secret = secrets.token_bytes(32)
        out.write(secret)
    return secret


def read_names(path: Path) -> list[str]:
    """One annotator a line; blank lines and `#` comments skipped. A name that could not be
    an annotator, or one given twice, is refused naming its line."""
    names: list[str] = []
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"--annotators {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise UsageError(
            f"--annotators {path} is not UTF-8 text (byte {exc.start}: {exc.reason}); save it as UTF-8"
        ) from None
    for number, line in enumerate(text.splitlines(), 1):
        name = line.strip()
        if not name or name.startswith("#"):
            continue
        if not ANNOTATOR.match(name):
            raise UsageError(
                f"--annotators {path}, line {number}: '{name}' is not a usable name (letters, digits "
                "and _ . @ -, up to 40 characters)"
            )
        if name in names:
            raise UsageError(f"--annotators {path}, line {number}: '{name}' is listed twice")
        names.append(name)
    if not names:
        raise UsageError(f"--annotators {path}: no names in it (one a line)")
    return names


class Signer:
    """Signs and checks annotator links of one campaign run."""

    def __init__(self, secret: bytes, run: str, names: Iterable[str]) -> None:
        self._secret = secret
        self.run = run
        self.names = frozenset(names)

    def sign(self, name: str) -> str:
        message = f"clarify-tui serve\0{self.run}\0{name}".encode()
        return hmac.new(self._secret, message, hashlib.sha256).hexdigest()[:32]

    def valid(self, name: str, sig: str) -> bool:
        """A listed name with its own signature (compared in constant time)."""
        return name in self.names and hmac.compare_digest(self.sign(name).encode(), sig.encode())


def write_links(path: Path, rows: list[tuple[str, str]]) -> None:
    """`NAME<TAB>LINK` lines, readable by the campaign's owner only (mode 0600)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)  # a file left by an earlier run keeps its mode otherwise
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.writelines(f"{name}\t{link}\n" for name, link in rows)
