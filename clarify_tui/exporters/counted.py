"""The per-task exports count a task once, as `score` does (metrics/once.py).

Why: a harness's results file has one row per task; a pooled run (`merge --pool`) or one
person's task played twice under one name would otherwise give a task two rows, and the
harness's analysis would weigh it twice. Every session left out is named on stderr, the
way `score` warns. `whatif` forks are counterfactuals, never the baseline: they pass
through untouched, as they do in the jsonl export.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import IO

from clarify_tui.models import Session


def counted_once(sessions: Sequence[Session], format_: str, err: IO[str] | None = None) -> list[Session]:
    """`sessions` less every later completed duplicate of a task, each reported on `err`
    (default stderr) as `warning: ... (FORMAT)`."""
    from clarify_tui.metrics.once import count_once

    _, duplicates = count_once([s for s in sessions if not s.counterfactual])
    if not duplicates:
        return list(sessions)
    stream = err if err is not None else sys.stderr
    for d in duplicates:
        print(f"warning: {d.describe('exported')} ({format_}: one row per task)", file=stream)
    left_out = {d.left_out.id for d in duplicates}
    return [s for s in sessions if s.id not in left_out]
