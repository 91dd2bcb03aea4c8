"""`clarify-tui backends`: every backend spec this install accepts, per role, with the
agents installed packages register under the entry-point group `clarify_tui.agents`."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from clarify_tui.commands.common import Subparsers


def register(sub: Subparsers) -> None:
    p = sub.add_parser("backends", help="list the backend specs (agents, users, search, judges) and installed agents")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from clarify_tui.agents.scripted import POLICIES
    from clarify_tui.plugins import ENTRY_POINT_GROUP, entry_points

    own = "py:FILE.py:NAME | py:package.module:NAME | http://HOST:PORT/PATH (docs/agents.md)"
    print("agent:       " + " | ".join(f"scripted:{p}" for p in POLICIES) + " | openai:MODEL (openai/MODEL) | human")
    print("             " + own)
    print("user:        rule | openai:MODEL | human | " + own)
    print("judge:       rule | openai:MODEL | " + own)
    print("deep-search: any agent spec (CTS's fixed deep searcher)")
    print("search:      local | tavily | serper")
    eps = entry_points()
    print(f"installed agents (entry-point group {ENTRY_POINT_GROUP}):" + ("" if eps else " none"))
    for name, ep in sorted(eps.items()):
        dist = getattr(getattr(ep, "dist", None), "name", None)
        print(f"  py:{name}  ->  {ep.value}" + (f"  ({dist})" if dist else ""))
    return 0
