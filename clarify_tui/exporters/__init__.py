"""Exporters: name -> function(store, runs, out) writing one format."""

from __future__ import annotations

from clarify_tui.exporters.jsonl import export_jsonl

EXPORTERS = {"jsonl": export_jsonl}
