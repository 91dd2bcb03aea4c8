"""Options several subcommands share, so they read and behave the same everywhere."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, get_args

# the argparse types live below the commands (campaign.visitor's options use them too)
from clarify_tui.argtypes import at_least, file_path, id_list, port, run_name, seconds, spec  # noqa: F401
from clarify_tui.errors import UsageError
from clarify_tui.paths import default_db_path
from clarify_tui.protocols import registry

if TYPE_CHECKING:
    from clarify_tui.store import Store

    # what `add_subparsers()` returns: every command's `register(sub)` adds its parser to it
    Subparsers = argparse._SubParsersAction[argparse.ArgumentParser]

BENCHMARKS = registry.names()  # the registry's list (it imports no pydantic: `play` opens the TUI faster)


def config_choices(field: str) -> tuple[str, ...]:
    """The values EpisodeConfig accepts for `field`, so a flag offers exactly those."""
    from clarify_tui.models import EpisodeConfig

    return get_args(EpisodeConfig.model_fields[field].annotation)


def add_runs(parser: argparse.ArgumentParser, required: bool = False, help: str = "only these runs") -> None:
    """`--run a b` or a repeated `--run`, into `args.runs` (None: every run)."""
    parser.add_argument(
        "--run",
        dest="runs",
        action="extend",
        nargs="+",
        type=run_name,
        default=None,
        required=required,
        metavar="NAME",
        help=f"{help} (--run a b, or repeat --run)",
    )


def add_db(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db",
        type=file_path,
        default=None,
        help="SQLite file (default: $CLARIFY_DB or sessions/clarify.db under the current directory)",
    )


def db_path(args: argparse.Namespace) -> Path:
    return args.db or default_db_path()


def open_store(args: argparse.Namespace, must_exist: bool = False) -> Store:
    """The command's Store. A command that reads an existing file (`must_exist`) opens a
    read-only file read-only, so `score` works on a file it may not write."""
    from clarify_tui.db_errors import writable
    from clarify_tui.store import Store

    path = db_path(args)
    if must_exist and not path.exists():
        raise FileNotFoundError(f"no database at {path} (run something first, or pass --db)")
    readonly = must_exist and path.is_file() and not writable(path)
    return Store(path, readonly=readonly, existing=must_exist)


def require_runs(store: Store, runs: list[str] | None) -> None:
    """A `--run` naming no run of the database is refused naming the runs there: a typo must
    not look like a run with no sessions (an empty listing or export, exit 0); as `score`."""
    known = store.run_names()
    missing = [r for r in runs or [] if r not in known]
    if missing:
        raise UsageError(
            f"no run {', '.join(repr(r) for r in missing)} in {store.path}; runs there: {', '.join(known) or 'none'}"
        )


def refuse_unusable_db(path: Path) -> None:
    """The TUI opens its store only after the first paint, so a file that cannot be our
    database would surface inside the screen on the first write; refuse it here, as the
    one-line error every command gives, before the screen takes over the terminal.
    Reads nothing but SQLite's own header (no store import, so first paint stays cheap)."""
    from clarify_tui import db_errors

    db_errors.preflight(path, readonly=False)
    db_errors.refuse_foreign(path)
