"""What `clarify-tui` with no command does: open the TUI on the bundled demo."""

from __future__ import annotations

import argparse
from pathlib import Path

from clarify_tui.commands.common import refuse_unusable_db
from clarify_tui.paths import default_db_path
from clarify_tui.tui.app import run_app


def open_default(args: argparse.Namespace) -> int:
    """`clarify-tui [--db FILE]`: the picker on the bundled demo, sessions saved to FILE."""
    db: Path | None = getattr(args, "db", None)
    refuse_unusable_db(db or default_db_path())
    return run_app(db=db) or 0
