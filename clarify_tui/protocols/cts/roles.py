"""CTS as agents, users and the task model see it (protocols/roles.py): the scripted
agents ask their k questions in one clarify step, and a task is graded by its nuggets,
with no single answer. Its LLM agent is the generic ReAct deep searcher (after its own
clarify step, which the view's phase announces) and its users answer with their own
`answer_clarification`. Its release (a folder: queries CSV and gold JSONL) is
read by the task loader."""

from __future__ import annotations

from clarify_tui.protocols.cts import tasks
from clarify_tui.protocols.roles import ProtocolRoles, Release

RELEASE = Release(
    title="Clarify-Then-Search",
    is_record=tasks.is_gold_record,
    read=tasks.read_gold_file,
    folder=tasks.read_folder,
)
ROLES = ProtocolRoles(scripted="clarify_first", answer_required=False, release=RELEASE)
