"""Importers: results written by other tools, turned into sessions played through the engine.

    IMPORTERS[format](store, path, dataset, run=...) -> ImportSummary

Formats: `interactcomp-harness` (the reference InteractComp harness's results CSV) and
`cts-candidates` (Clarify-Then-Search candidate JSONL). Bad input raises
`ImportFileError` listing every problem with file and line; nothing is written then.
"""

from __future__ import annotations

from clarify_tui.importers.common import ImportFileError, ImportSummary
from clarify_tui.importers.cts_candidates import import_cts_candidates
from clarify_tui.importers.harness import import_harness

IMPORTERS = {"interactcomp-harness": import_harness, "cts-candidates": import_cts_candidates}

__all__ = ["IMPORTERS", "ImportFileError", "ImportSummary", "import_cts_candidates", "import_harness"]
