"""Where bundled files live, in a source checkout and in an installed wheel alike.

The wheel carries the top-level `prompts/` and `data/` folders inside the package, and
`docs/`'s published JSON Schemas as `clarify_tui/docs/` (pyproject's wheel target); a
checkout finds them beside the package.
"""

from __future__ import annotations

import os
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def _bundled(name: str) -> Path:
    inside = _PACKAGE / name
    if inside.is_dir():
        return inside
    beside = _PACKAGE.parent / name
    if beside.is_dir():
        return beside
    raise FileNotFoundError(f"bundled folder '{name}' not found in {inside} or {beside}")


def data_dir() -> Path:
    return _bundled("data")


def prompts_dir() -> Path:
    return _bundled("prompts")


def docs_dir() -> Path:
    """docs/ in a checkout; in a wheel, only its *.schema.json files."""
    return _bundled("docs")


def demo_dir() -> Path:
    return data_dir() / "demo"


def corpus_dir() -> Path:
    return data_dir() / "corpus"


def default_db_path() -> Path:
    """`CLARIFY_DB` if set, else sessions/clarify.db under the current directory."""
    return Path(os.environ.get("CLARIFY_DB") or Path.cwd() / "sessions" / "clarify.db")
