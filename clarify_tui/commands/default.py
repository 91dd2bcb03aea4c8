"""What `clarify-tui` with no command does: open the TUI on the bundled demo."""

from __future__ import annotations

import argparse

from clarify_tui.tui.app import run_app


def open_default(args: argparse.Namespace) -> int:
    return run_app(db=None) or 0
