"""The simulator audit (docs/audit.md): every ask of a run answered blind by another simulator
or by people, the agreement with the run's simulator, and how much its mistakes move the score.

items.py builds the queue's items, simulate.py answers them with a simulator, compare.py
compares free-text answers through the run's judge, forks.py plays the disagreements with the
auditor's reply, summary.py reads it all back without calling a model (`audit_summary`)."""

from clarify_tui.audit.summary import audit_summary

__all__ = ["audit_summary"]
