"""The `clarify-tui` command. Each subcommand lives in `clarify_tui/commands/<name>.py`
with `register(subparsers)`; this module only assembles them and maps errors to exit codes.

The commands are the README's (`clarify-tui --help` lists them); errors and exit codes: docs/runs.md.
"""

from __future__ import annotations

import argparse
import importlib
import sqlite3
import sys

from rich.console import Console

from clarify_tui import __version__
from clarify_tui.argtypes import file_path
from clarify_tui.envfile import DotenvError, find_dotenv, load_dotenv
from clarify_tui.redaction import redact

# Every name is a module clarify_tui/commands/<name>.py; add a command here when its module lands.
COMMANDS = (
    "run",
    "score",
    "judge",
    "export",
    "datasets",
    "sessions",
    "play",
    "replay",
    "demo",
    "cache",
    "importing",
    "serve",
    "merge",
    "queue",
    "whatif",
    "labels",
    "audit",
    "report",
    "backends",
    "show",
    "sweep",
)

err = Console(stderr=True, soft_wrap=True)


def build_parser(only: tuple[str, ...] = COMMANDS) -> argparse.ArgumentParser:
    """The parser with the subcommands `only` (each import costs: see `_commands_for`)."""
    parser = argparse.ArgumentParser(
        prog="clarify-tui",
        description="A terminal workbench for clarification-aware search agents. "
        "Without a command it opens the TUI on the bundled demo.",
    )
    parser.add_argument("--verbose", action="store_true", help="log debug output to stderr")
    parser.add_argument("--version", action="version", version=f"clarify-tui {__version__}")
    parser.add_argument(
        "--db",
        dest="top_db",
        metavar="DB",
        type=file_path,
        help="SQLite file for the TUI (or the command after it); default: $CLARIFY_DB or "
        "sessions/clarify.db under the current directory",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in only:
        importlib.import_module(f"clarify_tui.commands.{name}").register(sub)
    return parser


_MODULES = {"import": "importing"}  # subcommands whose module has another name


def _commands_for(argv: list[str]) -> tuple[str, ...]:
    """The subcommands to register for `argv`: the one it names, none when it names none
    (`clarify-tui` opens the TUI), every one for help or an unknown name. Registering a
    command imports its module, and all of them together (pydantic, asyncio, metrics...)
    cost the TUI's first paint ~0.2 s."""
    args = iter(argv)
    for arg in args:
        if arg in ("-h", "--help"):
            return COMMANDS
        if arg == "--db":  # the top-level option's value is no command
            next(args, None)
            continue
        if not arg.startswith("-"):
            module = _MODULES.get(arg, arg)
            return (module,) if module in COMMANDS else COMMANDS
    return ()


class _NeverRaised(Exception):
    pass


def _raised(module: str, name: str) -> type[BaseException]:
    """The exception class `module.name` if that module is loaded, else one nothing raises:
    an exception of a module never imported cannot have been raised, and importing the
    module only to name it in an `except` costs (the runner, the task loaders, pydantic).
    An `except` clause's expression is evaluated only when an exception reaches it."""
    loaded = sys.modules.get(module)
    return getattr(loaded, name) if loaded is not None else _NeverRaised


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        dotenv = find_dotenv()
        dotenv_keys = load_dotenv(dotenv) if dotenv is not None else []
    except DotenvError as exc:
        err.print("[red]error:[/red] ", end="")
        err.print(str(exc), markup=False, highlight=False)
        return 2
    parser = build_parser(_commands_for(argv))
    args = parser.parse_args(argv)
    args.argv = list(argv)  # the command line as typed (a run's provenance records it)
    if args.top_db and getattr(args, "db", None) is None:  # `clarify-tui --db X [command]`
        args.db = args.top_db
    from clarify_tui import logsetup
    from clarify_tui.paths import default_db_path

    logsetup.setup(args.verbose, logsetup.log_path_for(getattr(args, "db", None) or default_db_path()))
    if dotenv is not None:
        import logging

        logging.getLogger(__name__).debug(
            "read %s: set %s", dotenv, ", ".join(dotenv_keys) or "nothing (all set already)"
        )
    from clarify_tui.atomic_write import OutputError
    from clarify_tui.errors import BackendError, StoreError, UsageError

    try:
        if args.command is None:
            from clarify_tui.commands.default import open_default

            return open_default(args)
        return int(args.func(args) or 0)
    except _raised("clarify_tui.tasks.problems", "DatasetError") as exc:
        err.print("[red]Invalid dataset[/red]")
        err.print(str(exc), markup=False, highlight=False)
        return 2
    except sqlite3.Error as exc:  # a database problem met outside the Store (e.g. the search cache)
        from clarify_tui.db_errors import describe

        err.print("[red]error:[/red] ", end="")
        err.print(describe(exc, getattr(args, "db", None) or default_db_path()), markup=False, highlight=False)
        return 2
    except _raised("clarify_tui.runner", "RunStopped") as exc:  # an endpoint is down: sessions errored
        err.print("[red]error:[/red] ", end="")
        err.print(redact(str(exc)), markup=False, highlight=False)
        return 1
    except BrokenPipeError:  # `export ... | head` closed the pipe: the reader has what it wanted
        _silence_stdout()
        return 0
    except (
        UsageError,
        BackendError,
        StoreError,
        OutputError,
        _raised("clarify_tui.runner", "RunExistsError"),
        FileNotFoundError,
    ) as exc:  # the user's mistake or the world's: one line, exit 2
        err.print("[red]error:[/red] ", end="")
        err.print(redact(str(exc)), markup=False, highlight=False)
        return 2
    except KeyboardInterrupt:
        again = "run the same command again" if args.command == "sweep" else "continue with --resume"
        err.print(f"[yellow]interrupted[/yellow]: finished sessions are saved; {again}")
        return 130
    except Exception:  # a bug (a plain ValueError or KeyError included): its traceback shows, exit 1
        import traceback

        where = logsetup.log_crash()
        sys.stderr.write(redact(traceback.format_exc()) or "")  # a key the exception quotes stays hidden
        err.print("[red]clarify-tui hit a bug[/red] ", end="")
        err.print(
            f"(not a mistake of yours); please report the traceback above{f', also in {where}' if where else ''}",
            markup=False,
            highlight=False,
        )
        return 1


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush does not fail again."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    sys.exit(main())
