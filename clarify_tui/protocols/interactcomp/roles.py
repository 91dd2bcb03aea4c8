"""InteractComp as agents, users and the task model see it (protocols/roles.py): the
scripted agents ask "Is it X?" down their candidates, and the LLM agent plays with its
reference harness's prompts and parsing (lenient parsing when the run chose it). The task loader reads its
release (JSONL records with a canary), and presumes it when `--benchmark interactcomp`
is given and no record tells."""

from __future__ import annotations

from clarify_tui.agent_view import AgentView
from clarify_tui.models import Action
from clarify_tui.protocols.interactcomp import tasks
from clarify_tui.protocols.interactcomp.actions import lenient_action, reference_action
from clarify_tui.protocols.interactcomp.prompts import prompts
from clarify_tui.protocols.roles import LLMPlay, ProtocolRoles, Release


def read(text: str, view: AgentView) -> Action:
    """The reference harness's parsing, unless the run chose lenient (`--actions lenient`)."""
    return (lenient_action if view.actions == "lenient" else reference_action)(text, view.allowed)


ROLES = ProtocolRoles(
    scripted="is_it",
    llm=LLMPlay(prompts=prompts, read=read),
    release=Release(
        title="InteractComp", is_record=tasks.is_release_record, read=tasks.tasks_from_records, presumed=True
    ),
)
