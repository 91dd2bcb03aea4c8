"""Logging for the CLI: one line per problem on stderr, full tracebacks in a log file.

Why: a batch run whose episodes crash the same way printed one traceback per episode
(49 copies). The stderr handler prints `level: message (Error: text; traceback in FILE)`;
the file handler (opened only when something is logged) keeps the traceback.
The file is $CLARIFY_LOG, else `clarify-tui.log` beside the database.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

from clarify_tui import redaction


class OneLine(logging.Formatter):
    def __init__(self, log_path: Path | None) -> None:
        super().__init__()
        self.log_path = log_path

    def format(self, record: logging.LogRecord) -> str:
        text = f"{record.levelname.lower()}: {record.getMessage()}"
        if record.exc_info and record.exc_info[1] is not None:
            exc = record.exc_info[1]
            where = f"; traceback in {self.log_path}" if self.log_path else ""
            first = (str(exc).splitlines() or [""])[0]
            text += f" ({type(exc).__name__}: {first}{where})"
        return text


class Console(logging.StreamHandler):
    """stderr, showing the first `keep` errors of each kind (logger, exception type); the
    rest go only to the log file, with one line saying so."""

    def __init__(self, keep: int = 3) -> None:
        super().__init__()
        self.keep = keep
        self.seen: dict[tuple[str, str], int] = {}

    def emit(self, record: logging.LogRecord) -> None:
        if sys.stderr is not self.stream and self.stream is sys.__stderr__:
            # stderr was taken over after setup: a full-screen Textual app owns the terminal
            # (it redirects sys.stderr while it runs), so a line written past it would garble
            # its screen. The log file keeps the record; the TUI tells the person itself.
            return
        if record.exc_info and record.exc_info[1] is not None:
            key = (record.name, type(record.exc_info[1]).__name__)
            count = self.seen[key] = self.seen.get(key, 0) + 1
            if count == self.keep + 1:
                self.stream.write(f"more {key[1]} errors from {key[0]}: only in the log\n")
            if count > self.keep:
                return
        super().emit(record)


def log_path_for(db: Path | None) -> Path | None:
    if os.environ.get("CLARIFY_LOG"):
        return Path(os.environ["CLARIFY_LOG"])
    if db is None:
        return None
    return Path(db).parent / "clarify-tui.log"


def setup(verbose: bool, log_path: Path | None) -> None:
    root = logging.getLogger()
    # A library's logging.config.dictConfig (disable_existing_loggers, its default) turns off
    # every logger that existed then, ours included: an agent's warning would vanish.
    for name, logger in logging.Logger.manager.loggerDict.items():
        if name.startswith("clarify_tui") and isinstance(logger, logging.Logger):
            logger.disabled = False
    for handler in list(root.handlers):
        root.removeHandler(handler)
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
    console = Console()
    console.setLevel(logging.DEBUG if verbose else logging.WARNING)
    console.setFormatter(OneLine(log_path))
    console.addFilter(RedactConfigured())
    root.addHandler(console)
    if log_path is not None and _can_write(log_path):
        file = logging.FileHandler(log_path, delay=True, encoding="utf-8")
        file.setLevel(logging.WARNING)
        file.setFormatter(logging.Formatter("%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s"))
        file.addFilter(RedactConfigured())
        root.addHandler(file)
    else:
        console.setFormatter(OneLine(None))


def _can_write(path: Path) -> bool:
    if path.exists():
        return os.access(path, os.W_OK)
    return path.parent.is_dir() and os.access(path.parent, os.W_OK)


class Redact(logging.Filter):
    """Replaces a secret (the campaign token, raw or URL-encoded) in every record before
    any handler writes it. Why: aiohttp logs a request line over 8 KB (LineTooLong) with
    the line in the exception text, and the campaign link carries the token."""

    def __init__(self, secret: str, shown: str = "[token]") -> None:
        super().__init__()
        from urllib.parse import quote, quote_plus

        self.secrets = sorted(
            {s for s in (secret, quote(secret, safe=""), quote_plus(secret)) if s}, key=len, reverse=True
        )
        self.shown = shown

    def current(self) -> list[str]:
        return self.secrets

    def clean(self, text: str) -> str:
        for secret in self.current():
            text = text.replace(secret, self.shown)
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        clean = self.clean(message)
        if clean != message:
            record.msg, record.args = clean, ()
        exc = record.exc_info[1] if record.exc_info else None
        if exc is not None:
            if not record.exc_text:
                record.exc_text = logging.Formatter().formatException(record.exc_info)  # type: ignore[arg-type]
            text = self.clean(record.exc_text)
            if text != record.exc_text or self.clean(str(exc)) != str(exc):
                # the traceback is kept as redacted text; the exception itself (its text holds the secret) is dropped
                first = (self.clean(str(exc)).splitlines() or [""])[0]
                record.msg, record.args = f"{clean} ({type(exc).__name__}: {first})", ()
                record.exc_info = None
            record.exc_text = text
        return True


class RedactConfigured(Redact):
    """Replaces every configured secret (an API key a client was built with, or a value of a
    `*_API_KEY` variable: see redaction.py) in every record: a server's 401 that quotes the
    key is logged with it."""

    def __init__(self) -> None:
        logging.Filter.__init__(self)
        self.secrets: list[str] = []
        self.shown = redaction.REDACTED

    def current(self) -> list[str]:
        return redaction.secrets()


def redact(secret: str) -> None:
    """Keep `secret` out of every log handler of this process (stderr and the log file)."""
    for handler in logging.getLogger().handlers:
        handler.addFilter(Redact(secret))


def log_crash() -> Path | None:
    """Write the exception being handled, with its traceback, to the log file only (the CLI
    prints it on stderr itself, not as a one-line record). The log file's path, or None."""
    root = logging.getLogger()
    record = root.makeRecord(
        "clarify_tui.crash", logging.CRITICAL, __file__, 0, "clarify-tui crashed", (), sys.exc_info()
    )
    files = [h for h in root.handlers if isinstance(h, logging.FileHandler)]
    for handler in files:
        handler.handle(record)
    return Path(files[0].baseFilename) if files else None
