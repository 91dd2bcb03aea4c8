"""The registry: the one place a protocol's name becomes its `ProtocolSpec`.

The built-in protocols are listed here by name, in the order the demo's files are read;
installed packages add theirs through the `clarify_tui.protocols` entry point group
(`[project.entry-points."clarify_tui.protocols"] NAME = "package.spec:SPEC"`), after the
built-ins. `names()` is the one spelling of the protocol list (`models.PROTOCOLS`, the
commands' choices). A spec is loaded on first use, by its module name or its entry point,
so this module stays light (no pydantic: `play` opens the TUI faster) and sits below the
engine and the metrics that ask it; never call `get` while modules are still being imported.
"""

from __future__ import annotations

import importlib
import re
from functools import cache
from typing import TYPE_CHECKING, Any

from clarify_tui.errors import UsageError

if TYPE_CHECKING:
    from clarify_tui.protocols.base import ProtocolSpec
    from clarify_tui.protocols.roles import ProtocolRoles

BUILTIN: tuple[str, ...] = ("discobench", "interactcomp", "cts")
ENTRY_POINT_GROUP = "clarify_tui.protocols"
_NAME = re.compile(r"[a-z][a-z0-9_]*\Z")  # it becomes a flag value, a file name and a Task key


@cache
def installed() -> dict[str, Any]:
    """Installed packages' protocols by name (their entry points, not yet loaded). A name
    that is a built-in's or not a lower-case identifier is left out: it could not be told apart."""
    from importlib.metadata import entry_points

    return {
        ep.name: ep
        for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name)
        if ep.name not in BUILTIN and _NAME.match(ep.name)
    }


def names() -> tuple[str, ...]:
    """Every protocol's name: the built-ins, then the installed ones by name."""
    return BUILTIN + tuple(installed())


def is_builtin(name: str) -> bool:
    return name in BUILTIN


@cache
def get(name: str) -> ProtocolSpec:
    """The spec of the protocol called `name` (KeyError: no such protocol; UsageError: an
    installed one that does not load, or is no spec of that name)."""
    if name in BUILTIN:
        spec: ProtocolSpec = importlib.import_module(f"clarify_tui.protocols.{name}.spec").SPEC
        return spec
    entry = installed().get(name)
    if entry is None:
        raise KeyError(f"no protocol {name!r} (known: {', '.join(names())})")
    try:
        loaded = entry.load()
    except Exception as exc:  # a broken package: one line naming it, never a traceback
        raise UsageError(
            f"the installed protocol {name!r} ({entry.value}) failed to load: {type(exc).__name__}: {exc}"
        ) from exc
    if getattr(loaded, "name", None) != name:
        raise UsageError(f"the installed protocol {name!r} ({entry.value}) is not a ProtocolSpec named {name!r}")
    return loaded


@cache
def roles(name: str) -> ProtocolRoles:
    """What agents, users and the task model ask of the protocol (its spec's `roles`): a
    built-in's from its low tier (`protocols/<name>/roles.py`), without loading its spec,
    the engine or the metrics; an installed one's from its spec (KeyError: no such protocol)."""
    if name in BUILTIN:
        found: ProtocolRoles = importlib.import_module(f"clarify_tui.protocols.{name}.roles").ROLES
        return found
    return get(name).roles


def in_report_order() -> tuple[str, ...]:
    """The protocols in the order `score` and `report` list their tables."""
    return tuple(sorted(names(), key=lambda n: get(n).report_rank))
