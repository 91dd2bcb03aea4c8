"""`.env`: keys for the model and search services, read before any command runs.

Why python-dotenv: a `.env` line is shell-like (quotes, `export`, an inline `# comment`
after a value); our own parser sent `OPENAI_API_KEY=sk-… # work` with the comment as part
of the key. Where: the working directory, else its parents up to the repository root (the
first folder holding `.git`), as Inspect does; outside a repository only the working
directory is read (a `.env` in a home folder is not this project's). A variable already set
is never overridden. `--verbose` says which file was read and which keys it set.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

from clarify_tui.errors import UsageError


class DotenvError(UsageError):
    """`.env` cannot be read as text: one line naming it, before any command runs."""


def find_dotenv(start: Path | None = None) -> Path | None:
    """The `.env` to read from `start` (default: the working directory), or None."""
    here = (start or Path.cwd()).resolve()
    climbed: list[Path] = []
    for folder in (here, *here.parents):
        climbed.append(folder)
        if (folder / ".git").exists():
            break
    else:  # not in a repository: only the working directory
        climbed = [here]
    for folder in climbed:
        candidate = folder / ".env"
        if candidate.is_file():  # not a folder (a virtualenv named .env)
            return candidate
    return None


def load_dotenv(path: Path | None = None) -> list[str]:
    """Read `KEY=VALUE` lines of `path` (default: `find_dotenv()`) into the environment,
    never overriding a variable already set. Returns the keys set."""
    from dotenv import dotenv_values

    path = path or find_dotenv()
    if path is None or not path.is_file():
        return []
    try:
        data = path.read_bytes()
        text = data.decode("utf-8-sig")  # Notepad's BOM would otherwise start the first key's name
    except OSError as exc:
        raise DotenvError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:  # a key read with a replacement character fails later, far from here
        number = data[: exc.start].count(b"\n") + 1
        raise DotenvError(f"{path}:{number}: not UTF-8 (byte 0x{data[exc.start]:02x}); save it as UTF-8") from None
    added = []
    for key, value in dotenv_values(stream=io.StringIO(text), interpolate=False).items():
        if key and value is not None and key not in os.environ:
            os.environ[key] = value
            added.append(key)
    return added
