"""Exporters: name -> function(store, runs, out) writing one format.

- jsonl: full sessions (session row, task snapshot, every step)
- csv: one row per session with its per-session metrics (exporters/sessions_csv.py)
- interactcomp-csv: the reference InteractComp harness's results CSV (exporters/interactcomp_csv.py)
- cts-candidates: a Clarify-Then-Search candidate JSONL for eval_gold.py (exporters/cts_candidates.py)
"""

from __future__ import annotations

from clarify_tui.exporters.cts_candidates import export_cts_candidates
from clarify_tui.exporters.interactcomp_csv import export_interactcomp_csv
from clarify_tui.exporters.jsonl import export_jsonl
from clarify_tui.exporters.sessions_csv import export_sessions_csv

EXPORTERS = {
    "jsonl": export_jsonl,
    "csv": export_sessions_csv,
    "interactcomp-csv": export_interactcomp_csv,
    "cts-candidates": export_cts_candidates,
}

FORMATS = {  # what `export --help-formats` prints, one line each
    "jsonl": "full sessions: the session row, its task snapshot and every step (score --from-export reads it)",
    "csv": "one row per session with its per-session metrics",
    "interactcomp-csv": "the reference InteractComp harness's results CSV, one row per counted task",
    "cts-candidates": "a Clarify-Then-Search candidate JSONL for the release's eval_gold.py",
    "inspect": "Inspect AI .eval logs, one per run, into the folder --out (needs the 'inspect' extra)",
}
