"""`play --queue NAME` and `serve --queue NAME` on an audit or labels queue (store/work.py).

Both commands already take `--queue RUN` for a human-baseline campaign; when NAME is a
work queue of the --db file (made by `audit --queue` or `labels --queue`), they open the
work-queue screen instead (tui/screens/work_queue.py), and the baseline's own options
do not apply.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from clarify_tui.errors import UsageError


def work_queue_kind(db: Path, name: str) -> str | None:
    """The kind ("audit" / "labels") of the work queue `name` in `db`, or None when there is
    none (no file, no work tables, no such queue). Reads SQLite only: no store import."""
    from clarify_tui import db_errors
    from clarify_tui.store.work import queue_kind

    if not db.is_file():
        return None
    with db_errors.translated(db):
        conn = db_errors.connect(db, readonly=True)
        try:
            return queue_kind(conn, name)
        finally:
            conn.close()


def refuse_baseline_options(args: argparse.Namespace, defaults: dict[str, object], kind: str) -> None:
    """A human-baseline option given with a work queue is a mistake worth one line."""
    given = [
        f"--{name.replace('_', '-')}" for name, default in defaults.items() if getattr(args, name, default) != default
    ]
    if given:
        article = "an" if kind[:1] in "aeiou" else "a"
        raise UsageError(
            f"'{args.queue}' is {article} {kind} queue: {', '.join(given)} belong to a human-baseline campaign; "
            "drop them"
        )


PLAY_DEFAULTS: dict[str, object] = {"task": None, "limit": None, "shuffle": None, "k": None, "step": False}


def play(args: argparse.Namespace, db: Path, kind: str) -> int:
    """`play --queue NAME`: the annotator (--annotator, else the login name) answers the queue."""
    from clarify_tui.tui.driver import default_annotator
    from clarify_tui.tui.work_app import run_work_queue

    refuse_baseline_options(args, PLAY_DEFAULTS, kind)
    annotator = args.annotator or default_annotator()
    if not annotator:
        parser: argparse.ArgumentParser = args.parser
        parser.error("cannot tell who you are: pass --annotator NAME")  # exits
    assert annotator
    return run_work_queue(db, args.queue, annotator)
