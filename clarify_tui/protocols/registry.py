"""The registry: the one place a protocol's name becomes its `ProtocolSpec`.

The built-in protocols are listed here by name, in the order the demo's files are read
(the one spelling of the protocol list: `models.PROTOCOLS` and the commands' choices are
this). A spec is loaded on first use by its module name, as an entry point is, so this
module stays light (no pydantic: `play` opens the TUI faster) and sits below the engine
and the metrics that ask it; never call `get` while modules are still being imported.
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from clarify_tui.protocols.base import ProtocolSpec

BUILTIN: tuple[str, ...] = ("discobench", "interactcomp", "cts")


def names() -> tuple[str, ...]:
    """Every protocol's name."""
    return BUILTIN


@cache
def get(name: str) -> ProtocolSpec:
    """The spec of the protocol called `name` (KeyError: no such protocol)."""
    if name not in BUILTIN:
        raise KeyError(f"no protocol {name!r} (known: {', '.join(BUILTIN)})")
    spec: ProtocolSpec = importlib.import_module(f"clarify_tui.protocols.{name}.spec").SPEC
    return spec


def in_report_order() -> tuple[str, ...]:
    """The protocols in the order `score` and `report` list their tables."""
    return tuple(sorted(BUILTIN, key=lambda n: get(n).report_rank))
