"""Where the bundled demo sets live: data/demo/<protocol>.jsonl, in our own Task format."""

from __future__ import annotations

from pathlib import Path

from clarify_tui.models import Protocol
from clarify_tui.paths import demo_dir


def demo_file(protocol: Protocol) -> Path:
    return demo_dir() / f"{protocol.value}.jsonl"


def demo_files(protocol: Protocol | None) -> list[tuple[Protocol, Path]]:
    """The demo file of one protocol, or of all three (the no-argument TUI shows them all)."""
    protocols = [protocol] if protocol is not None else list(Protocol)
    return [(p, demo_file(p)) for p in protocols]
