"""The README's examples say what they show (issue 26: its ask-vs-guess example paired an
InteractComp asking run with a DiscoBench guessing run, which compares nothing)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"
ASKING = {"scripted:search-then-ask", "scripted:ask-first"}
GUESSING = {"scripted:direct-guess", "scripted:search-heavy-guess"}


def offline_runs() -> list[dict[str, str]]:
    block = README.read_text(encoding="utf-8").split("## Offline, no key", 1)[1].split("```", 2)[1]
    runs = []
    for line in block.splitlines():
        if re.match(r"clarify-tui run\b", line):
            words = shlex.split(line.split("#")[0])
            runs.append({w.lstrip("-"): words[i + 1] for i, w in enumerate(words[:-1]) if w.startswith("--")})
    return runs


def test_every_asking_run_has_a_guessing_run_on_the_same_benchmark():
    runs = offline_runs()
    for bench in ("interactcomp", "discobench"):
        agents = {r["agent"] for r in runs if r["benchmark"] == bench}
        assert agents & ASKING and agents & GUESSING, f"{bench}: {agents}"
    cts = {r.get("k", "1") for r in runs if r["benchmark"] == "cts"}
    assert "0" in cts and cts - {"0"}  # CTS: orig (no clarification) beside a k > 0 run
