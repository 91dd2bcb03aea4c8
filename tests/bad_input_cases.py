"""Running one bad-input case and judging its outcome, shared by the tests
(tests/test_bad_input.py, tests/test_bad_input_more.py) and the census of issue 22:

    PYTHONPATH=$PWD python -m tests.bad_input_cases [-v] [-k SUBSTRING]

prints `tried / clean / traceback / silent / unclear` over every row of both tables, each
run in-process in a fresh folder: clean = exit code 2 (or the row's), one line (argparse:
its usage block, then one line; dataset and import problems: a header, then one line per
problem) naming the file, line or flag, no traceback, no file changed or created; a row
marked `warns` exits 0 after one `warning:` line naming the flag. traceback = an exception
escaped or was printed; silent = exit 0, nothing said, a file changed or created, or a
screen or server started on it; unclear = an error, but not one line naming the file, line
or flag (several lines, no name, another exit code). -v lists what is not clean.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib
import io
import logging
import os
import shutil
import sqlite3
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from clarify_tui.cli import main

# what a command creates by design beside a database it was pointed at (the log file)
EXPECTED_NEW = {"clarify-tui.log"}


@dataclass
class Case:
    name: str
    setup: Callable[[Path], list[str]]  # builds the files in a folder and returns the argv
    says: str  # what the one line must say ({tmp} is the folder)
    names: str = ""  # the file, line or flag it must name (census: "names it"); default: says
    lines: int = 1  # dataset and import problems: a header, then one line per problem
    code: int = 2
    env: dict[str, str] = field(default_factory=dict)
    warns: bool = False  # a flag that changes nothing here: one warning line, then the command goes on (exit 0)


@dataclass
class Outcome:
    """What a case did: the exit code, stderr, and the files it changed."""

    code: int | None
    err: str
    lines: list[str]
    crashed: str | None  # the traceback of an exception that escaped main
    changed: list[str]  # files changed or created
    seconds: float = 0.0

    def verdict(self, case: Case, tmp: Path) -> str:
        """clean | traceback | silent | unclear (an error, but not the one line naming the file,
        line or flag: it names neither, takes more lines, or exits with another code)."""
        if self.crashed and "ScreenStarted" in self.crashed:
            return "silent"  # not refused: the screen or server started (it would show the problem inside)
        if self.crashed or "Traceback" in self.err:
            return "traceback"
        if getattr(case, "warns", False):
            warnings = [line for line in self.lines if line.startswith("warning:")]
            if self.code != 0 or len(warnings) != 1:
                return "silent"
            return "clean" if (case.names or case.says).format(tmp=tmp) in warnings[0] else "unclear"
        if self.code in (0, None) or not self.lines or self.changed:
            return "silent"
        wanted = (getattr(case, "names", "") or case.says).format(tmp=tmp)
        if wanted not in self.err or self.code != getattr(case, "code", 2) or len(self.lines) != case.lines:
            return "unclear"
        return "clean"


def files(folder: Path) -> dict[str, str]:
    """Each file's digest; a database's is of its content (WAL checkpoints move bytes, not data)."""
    out = {}
    for p in folder.rglob("*"):
        if not p.is_file() or p.name.endswith(("-wal", "-shm", "-journal")) or p.name in EXPECTED_NEW:
            continue
        if "__pycache__" in p.parts:
            continue
        data = p.read_bytes()
        if data.startswith(b"SQLite format 3\x00"):
            try:
                with contextlib.closing(sqlite3.connect(f"file:{p}?mode=ro", uri=True)) as conn:
                    data = "\n".join(conn.iterdump()).encode()
            except sqlite3.Error:
                pass
        out[str(p.relative_to(folder))] = hashlib.sha256(data).hexdigest()
    return out


def message_lines(err: str) -> list[str]:
    """The lines a user reads: argparse's usage block (before its `error:` line) left out."""
    lines = [line for line in err.splitlines() if line.strip()]
    for i, line in enumerate(lines):
        if line.startswith("clarify-tui") and ": error: " in line and lines[0].startswith("usage:"):
            return lines[i:]
    return lines


@contextlib.contextmanager
def _in(folder: Path, env: dict[str, str]) -> Iterator[None]:
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    for key in [k for k in os.environ if k.startswith(("OPENAI_", "TAVILY_", "SERPER_", "CLARIFY_"))]:
        del os.environ[key]
    os.environ.update(env)
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)


def attempt(case: Case, tmp: Path) -> Outcome:
    """Run the case in `tmp` (its working directory: a default database lands there)."""
    with _in(tmp, getattr(case, "env", {})):
        argv = case.setup(tmp)
        before = files(tmp)
        err = io.StringIO()
        crashed = None
        code: int | None
        started = time.monotonic()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()), _no_screens():
            try:
                code = main(argv)
            except SystemExit as exit_:
                code = exit_.code if isinstance(exit_.code, int) else 1
            except BaseException:  # noqa: BLE001 - a crash is what is being counted
                crashed, code = traceback.format_exc(), None
        seconds = time.monotonic() - started
        after = files(tmp)
    changed = sorted(k for k in after if before.get(k) != after[k])
    text = err.getvalue()
    return Outcome(code, text, message_lines(text), crashed, changed, seconds)


class ScreenStarted(AssertionError):
    """A bad command line reached the TUI or the web server instead of being refused."""


@contextlib.contextmanager
def _no_screens() -> Iterator[None]:
    """The TUI and `serve` must refuse bad input before they take the terminal or a port."""
    from unittest import mock

    def never(*_a, **_k):
        raise ScreenStarted("started a screen or server on bad input")

    with contextlib.ExitStack() as stack:
        for target in (
            "clarify_tui.tui.app.ClarifyApp.run",
            "clarify_tui.tui.browse.BrowseApp.run",
            "clarify_tui.campaign.server.CampaignServer.serve",
        ):
            stack.enter_context(mock.patch(target, never))
        yield


TABLES = ("tests/test_bad_input.py", "tests/test_bad_input_more.py")


def _load(relative: str):
    return importlib.import_module(relative.removesuffix(".py").replace("/", "."))


def census() -> int:
    parser = argparse.ArgumentParser(description="Count the bad-input cases (issue 22).")
    parser.add_argument("-v", "--verbose", action="store_true", help="show each case that is not clean")
    parser.add_argument("-k", default="", help="only cases whose name contains this")
    args = parser.parse_args()
    cases = [case for table in TABLES for case in _load(table).CASES if args.k in case.name]
    verdicts: Counter[str] = Counter()
    for case in cases:
        folder = Path(tempfile.mkdtemp(prefix="r2b-census-"))
        try:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                outcome = attempt(case, folder)
            verdict = outcome.verdict(case, folder)
        finally:
            logging.shutdown()
            shutil.rmtree(folder, ignore_errors=True)
        verdicts[verdict] += 1
        if outcome.seconds > 2 and args.verbose:
            print(f"(slow: {case.name}: {outcome.seconds:.1f} s)")
        if verdict != "clean" and args.verbose:
            shown = (outcome.crashed or outcome.err).strip().splitlines()
            print(f"[{verdict}] {case.name}: exit {outcome.code}; changed {outcome.changed}; {outcome.seconds:.1f} s")
            for line in shown[-3:]:
                print(f"      {line[:200]}")
    print(
        f"tried {len(cases)} / clean {verdicts['clean']} / traceback {verdicts['traceback']} / "
        f"silent {verdicts['silent']} / unclear {verdicts['unclear']}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(census())


# ---- files the cases of both tables build ----------------------------------------------

PLAYED_RUN = ["run", "--benchmark", "interactcomp", "--agent", "scripted:direct-guess"]
_TEMPLATE: list[Path] = []


def played(tmp: Path) -> Path:
    """A database holding run 'a' (2 InteractComp sessions), copied from one made once."""
    if not _TEMPLATE:
        folder = Path(tempfile.mkdtemp(prefix="clarify-bad-input-"))
        assert main([*PLAYED_RUN, "--db", str(folder / "t.db"), "--run", "a", "--limit", "2"]) == 0
        _TEMPLATE.append(folder / "t.db")
    db = tmp / "ok.db"
    with sqlite3.connect(_TEMPLATE[0]) as src, sqlite3.connect(db) as dst:
        src.backup(dst)
    sqlite3.connect(db).close()
    return db


def drop_template() -> None:
    """The database `played` copies from, removed once a module's cases are done."""
    for db in _TEMPLATE:
        shutil.rmtree(db.parent, ignore_errors=True)
    _TEMPLATE.clear()


def write(path: Path, data: bytes | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def foreign_db(tmp: Path) -> Path:
    """Another application's SQLite file."""
    db = tmp / "other-app.db"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE invoices (id INTEGER, total REAL)")
    return db


def make_dir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path
