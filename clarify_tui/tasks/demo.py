"""Where the bundled demo sets live: data/demo/<protocol>.jsonl, in our own Task format;
an installed protocol's own bundled tasks are where its spec's `demo_tasks` says."""

from __future__ import annotations

from pathlib import Path

from clarify_tui.errors import UsageError
from clarify_tui.models import Protocol
from clarify_tui.paths import demo_dir
from clarify_tui.protocols import registry


def demo_file(protocol: Protocol) -> Path:
    if registry.is_builtin(protocol.value):
        return demo_dir() / f"{protocol.value}.jsonl"
    bundled = registry.get(protocol.value).demo_tasks
    if bundled is None:
        raise UsageError(f"the installed protocol {protocol.value!r} bundles no demo tasks (its spec's demo_tasks)")
    return bundled()


def demo_files(protocol: Protocol | None) -> list[tuple[Protocol, Path]]:
    """The demo file of one protocol, or of every one that has one (the no-argument TUI shows them all)."""
    if protocol is not None:
        return [(protocol, demo_file(protocol))]
    every = [Protocol(n) for n in registry.names()]
    return [(p, demo_file(p)) for p in every if registry.is_builtin(p.value) or registry.get(p.value).demo_tasks]
