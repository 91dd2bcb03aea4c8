"""What `clarify-tui` with no command does: open the TUI on the bundled demo."""

from __future__ import annotations

import argparse

from clarify_tui.commands.common import refuse_unusable_db
from clarify_tui.paths import default_db_path
from clarify_tui.tui.app import run_app


def open_default(args: argparse.Namespace) -> int:
    refuse_unusable_db(default_db_path())
    return run_app(db=None) or 0
