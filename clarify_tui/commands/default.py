"""What `clarify-tui` with no command does: open the TUI on the bundled demo."""

from __future__ import annotations

import argparse


def open_default(args: argparse.Namespace) -> int:
    try:
        from clarify_tui.tui.app import run_app
    except ImportError:
        run_app = None
    if run_app is not None:
        return run_app(db=None) or 0
    return _demo_through_cli()


def _demo_through_cli() -> int:
    """Until the TUI lands: play the demo with a guessing and an asking agent and print both."""
    from clarify_tui.cli import main

    code = 0
    for benchmark in ("interactcomp", "discobench", "cts"):
        for agent in ("scripted:direct-guess", "scripted:search-then-ask"):
            code |= main(["run", "--benchmark", benchmark, "--agent", agent, "--k", "2"])
    return code
