"""Riddle's own rule user: it gives the task's hint to a question, and says nothing else."""

from __future__ import annotations

from clarify_tui.models import Task


def reply(task: Task, question: str) -> str:
    """The hint, whatever was asked (the riddle cannot be solved without it)."""
    return str(task.own_part["hint"])
