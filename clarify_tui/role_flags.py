"""The role and settings flags `run` and `serve` share: `--user`, `--judge`, `--deep-search`,
`--config`, `--set`, defined once with the same names, defaults and parsing.

Why one place: `serve` (and each of its visitor processes, campaign/visitor.py, which sits
below the commands) must read them exactly as `run` does, so that a campaign's sessions
are played with the paper's user simulator and judge and compare with a run's."""

from __future__ import annotations

import argparse

from clarify_tui.argtypes import file_path, spec
from clarify_tui.errors import UsageError


def add_user(p: argparse.ArgumentParser) -> None:
    p.add_argument("--user", default="rule", type=spec, help="rule | openai:MODEL | py:... | http://...")


def add_judge(p: argparse.ArgumentParser) -> None:
    p.add_argument("--judge", default="rule", type=spec, help="rule | openai:MODEL | py:... | http://...")


def add_deep_search(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--deep-search",
        default=None,
        metavar="SPEC",
        type=spec,
        help="CTS: the fixed deep-search agent (any agent spec: scripted:POLICY | openai:MODEL | py:... | "
        "http://...; or `spec` in [deep_search] of clarify.toml, with its settings); required for a "
        "clarifier that is not scripted (paper 001 varies only the clarifier); scripted clarifiers "
        "without it search themselves",
    )


def add_config(p: argparse.ArgumentParser) -> None:
    """`--config FILE` and the repeatable `--set ROLE.FIELD=VALUE` (read with `parse_overrides`)."""
    p.add_argument("--config", default=None, type=file_path, help="clarify.toml with endpoints and model settings")
    p.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="ROLE.FIELD=VALUE",
        help="override a config field, e.g. --set agent.temperature=0.2 --set judge.model=gpt-4o (wins over clarify.toml)",
    )


def parse_overrides(items: list[str]) -> dict:
    """`agent.temperature=0.2` -> {"agent": {"temperature": 0.2}} (values parsed as TOML)."""
    import tomllib

    out: dict = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or "." not in key:
            raise UsageError(f"--set expects ROLE.FIELD=VALUE, got '{item}'")
        try:
            value = tomllib.loads(f"v = {raw}")["v"]
        except tomllib.TOMLDecodeError:
            value = raw
        node = out
        *parents, leaf = key.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    return out
