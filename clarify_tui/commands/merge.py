"""`clarify-tui merge A.db B.db ... --out ALL.db`: one database from annotators' files.

Sessions, steps, judgments, tasks, runs and recorded searches are merged by id; a session
that differs between files is reported and left out; the tasks must be the same release;
independent runs that share a name are kept apart (renamed, reported) unless --pool.
Audit and labelling queues come along with every answer people gave, their unsent drafts and
what was shown to whom (an annotator's differing answers, or drafts, of one item in two files
are listed, the draft not kept with its full text).
Exit 0 when everything merged, 1 when some sessions, answers or drafts conflicted (the rest is merged).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from clarify_tui.argtypes import output_file

if TYPE_CHECKING:
    from clarify_tui.commands.common import Subparsers


def register(sub: Subparsers) -> None:
    p = sub.add_parser("merge", help="merge annotators' databases into one (sessions, judgments, tasks, cache)")
    p.add_argument("inputs", nargs="+", type=Path, metavar="DB", help="databases to merge (read only)")
    p.add_argument("--out", required=True, type=output_file, help="the merged database (created, or added to)")
    p.add_argument(
        "--pool",
        action="store_true",
        help="pool runs that share a name even when they are independent runs (default: keep them "
        "apart, the later one renamed NAME~2)",
    )
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from clarify_tui.campaign.merge import merge

    report = merge(args.inputs, args.out, pool=args.pool)
    added = ", ".join(f"{n} {table}" for table, n in sorted(report.added.items()) if n) or "nothing new"
    print(f"{args.out}: added {added}; {report.present} session(s) already there")
    for r in report.renamed:
        print(f"renamed: {r.source}: run '{r.old}' merged as '{r.new}': {r.why}; --pool pools them", file=sys.stderr)
    for line in report.queues_renamed:
        print(f"renamed: {line}", file=sys.stderr)
    if report.answer_conflicts:
        print(
            f"{len(report.answer_conflicts)} answer(s) differ between files for the same queue, item and annotator "
            "(the one already in the output, else the earliest, is kept; every file's is listed):",
            file=sys.stderr,
        )
        for line in report.answer_conflicts:
            print(f"  {line}", file=sys.stderr)
    if report.draft_conflicts:
        print(
            f"{len(report.draft_conflicts)} unsent draft(s) differ between files for the same queue, item and "
            "annotator (the one with the most typed text is kept; the other text is listed here, nothing else holds it):",
            file=sys.stderr,
        )
        for line in report.draft_conflicts:
            print(f"  {line}", file=sys.stderr)
    if report.conflicts:
        print(f"{len(report.conflicts)} session(s) differ between files and were NOT merged:", file=sys.stderr)
        for sid, files in sorted(report.conflicts.items()):
            print(f"  {sid}: {', '.join(files)}", file=sys.stderr)
        return 1
    return 1 if report.answer_conflicts or report.draft_conflicts else 0
