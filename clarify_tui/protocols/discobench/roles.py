"""DiscoBench as agents, users and the task model see it (protocols/roles.py): the
generic play (the scripted agents' hops, the LLM agent's ReAct prompts with its own
`discobench_neutral`/`discobench_guided` system prompts, found by file name)."""

from __future__ import annotations

from clarify_tui.protocols.roles import GENERIC

ROLES = GENERIC
