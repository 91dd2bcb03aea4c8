"""A sweep file's matrix as cells: one `run` per combination of its lists (docs/sweeps.md).

Why a file and not a shell loop: the cells of a sweep share one process (one concurrency
budget per endpoint, one spending limit, one progress line), resume together, shard
together, and are laid out together by `report --sweep`. Each cell is exactly a `run`
command line (`Cell.argv`), so a cell means what that `run` would mean and is checked by
the same code.

The file:

    [sweep]
    name = "demo"                     # optional: the file's stem
    dataset = "demo"
    benchmarks = ["interactcomp", "discobench"]
    agents = ["scripted:direct-guess", "scripted:ask-first"]
    epochs = 2                        # any `run` setting: a list multiplies, a scalar applies to all
    limit = "1-3"

    [sweep.cts]                       # settings for one benchmark's cells only
    k = [0, 1]

A cell's name is `SWEEP.BENCHMARK.AGENT` then `KEY-VALUE` for every other setting the file
varies (a list of two or more), in the file's order, with `:` and `/` written `-`: e.g.
`demo.cts.scripted-ask-first.k-0`. Its run id is derived from the sweep's name, the cell's
name and its settings, so the shards of one cell, played on different machines, are one
run to `merge` (campaign/run_identity.py).
"""

from __future__ import annotations

import itertools
import json
import tomllib
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clarify_tui.errors import UsageError

ROLE_KEYS = {"benchmarks": "benchmark", "agents": "agent", "users": "user", "judges": "judge"}
LIST_VALUED = ("set", "agent_arg")  # repeatable `run` flags: a list is their values, not an axis
NOT_IN_A_SWEEP = {
    "run": "a cell's run is named by the sweep (docs/sweeps.md)",
    "resume": "a sweep always continues what its database holds",
    "take_over": "give --take-over to `clarify-tui run` for one cell",
    "retry_errored": "play a cell's errored sessions again with `clarify-tui run --resume --retry-errored`",
    "db": "give --db to `clarify-tui sweep`",
    "concurrency": "give --concurrency to `clarify-tui sweep` (one budget for every cell)",
    "fail_on_error": "give --fail-on-error to `clarify-tui sweep` (it counts over the whole sweep)",
    "benchmark": "list the benchmarks in [sweep] `benchmarks`",
}
RUN_ID_NAMESPACE = uuid.UUID("5b0f1d52-8a7e-4c1b-9d3e-2f6a0c7e91aa")  # fixed: run ids must not change


class SweepFileError(UsageError):
    """The sweep file cannot be read as a matrix of runs."""


@dataclass
class Cell:
    name: str
    benchmark: str
    agent: str
    settings: dict[str, Any]  # every key of the cell, as `run` flags without dashes (max_rounds, k, ...)
    axes: dict[str, Any] = field(default_factory=dict)  # the settings the file varies, beyond benchmark and agent
    run_id: str = ""

    @property
    def row(self) -> str:
        """The cell's row in `report --sweep`: its agent, then what else the file varies."""
        return " ".join([self.agent, *(f"{k}={_shown(v)}" for k, v in self.axes.items())])

    def argv(self) -> list[str]:
        """The cell as `clarify-tui run` arguments (without --db, --run, --concurrency)."""
        out: list[str] = []
        for key, value in self.settings.items():
            flag = "--" + key.replace("_", "-")
            for one in value if key in LIST_VALUED else [value]:
                out += [flag, _shown(one)]
        return out


@dataclass
class Sweep:
    name: str
    path: Path
    cells: list[Cell]


def load_sweep(path: Path, known: set[str]) -> Sweep:
    """The file's cells; `known`: the `run` settings a cell may set (the keys of `run`'s flags)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SweepFileError(f"no sweep file at {path}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise SweepFileError(f"{path} is not a TOML file ({exc})") from None
    table = data.get("sweep")
    if not isinstance(table, dict):
        raise SweepFileError(f"{path} has no [sweep] table (docs/sweeps.md shows one)")
    name = str(table.get("name") or path.stem)
    benchmarks = _values(table, "benchmarks")
    if not benchmarks:
        raise SweepFileError(f"{path}: [sweep] needs `benchmarks` (one or a list)")
    per_benchmark = {k: v for k, v in table.items() if isinstance(v, dict)}
    for key in per_benchmark:
        if key not in benchmarks:
            raise SweepFileError(f"{path}: [sweep.{key}] names no benchmark of the sweep ({', '.join(benchmarks)})")
    common = _settings(
        {k: v for k, v in table.items() if not isinstance(v, dict) and k not in ("name", "benchmarks", "benchmark")},
        known,
        path,
        "[sweep]",
    )
    if "agent" not in common and not any("agent" in _settings(t, known, path, "") for t in per_benchmark.values()):
        raise SweepFileError(f"{path}: [sweep] needs `agents` (one or a list)")
    varied = [k for k, v in common.items() if isinstance(v, list) and k not in LIST_VALUED and len(v) > 1]
    cells: list[Cell] = []
    for benchmark in benchmarks:
        own = _settings(per_benchmark.get(benchmark, {}), known, path, f"[sweep.{benchmark}]")
        merged = {**common, **own}
        axes_here = [
            *varied,
            *(
                k
                for k, v in own.items()
                if isinstance(v, list) and k not in LIST_VALUED and len(v) > 1 and k not in varied
            ),
        ]
        keys = list(merged)
        choices = [v if isinstance(v, list) and k not in LIST_VALUED else [v] for k, v in merged.items()]
        if any(not c for c in choices):
            empty = next(k for k, c in zip(keys, choices) if not c)
            raise SweepFileError(f"{path}: `{empty}` is an empty list (no cell would play)")
        for combo in itertools.product(*choices):
            settings = {"benchmark": benchmark, **dict(zip(keys, combo))}
            axes = {k: settings[k] for k in axes_here if k != "agent"}
            agent = str(settings.get("agent"))
            cell_name = ".".join(
                [name, benchmark, _slug(agent), *(f"{_slug(k)}-{_slug(_shown(v))}" for k, v in axes.items())]
            )
            cells.append(
                Cell(
                    name=cell_name,
                    benchmark=benchmark,
                    agent=agent,
                    settings=settings,
                    axes=axes,
                    run_id=run_id(name, cell_name, settings),
                )
            )
    seen: dict[str, Cell] = {}
    for c in cells:
        if c.name in seen:
            raise SweepFileError(
                f"{path}: two cells would both be named {c.name} ({seen[c.name].settings} and "
                f"{c.settings}); make their settings differ in more than punctuation"
            )
        seen[c.name] = c
    return Sweep(name=name, path=path, cells=cells)


def run_id(sweep: str, cell: str, settings: dict[str, Any]) -> str:
    """The same on every machine for the same sweep and cell: its shards are one run."""
    blob = json.dumps([sweep, cell, settings], sort_keys=True, default=str)
    return uuid.uuid5(RUN_ID_NAMESPACE, blob).hex


def _values(table: dict, plural: str) -> list[str]:
    singular = ROLE_KEYS[plural]
    if plural in table and singular in table:
        raise SweepFileError(f"[sweep] gives both `{plural}` and `{singular}`; keep one")
    value = table.get(plural, table.get(singular))
    if value is None:
        return []
    return [str(v) for v in (value if isinstance(value, list) else [value])]


def _settings(table: dict, known: set[str], path: Path, where: str) -> dict[str, Any]:
    """`table`'s keys as `run` settings (agents -> agent, max-rounds -> max_rounds)."""
    out: dict[str, Any] = {}
    for raw, value in table.items():
        key = ROLE_KEYS.get(raw, raw).replace("-", "_")
        if key in NOT_IN_A_SWEEP:
            raise SweepFileError(f"{path}: {where} `{raw}` cannot be set in a sweep: {NOT_IN_A_SWEEP[key]}")
        if key not in known:
            raise SweepFileError(
                f"{path}: {where} `{raw}` is no `clarify-tui run` setting (settings: "
                f"{', '.join(sorted(known - set(NOT_IN_A_SWEEP)))})"
            )
        if key in out:
            raise SweepFileError(f"{path}: {where} gives `{key}` twice (as `{raw}` and another spelling)")
        if isinstance(value, dict):
            raise SweepFileError(f"{path}: {where} `{raw}` is a table; a setting is a value or a list of values")
        if key in LIST_VALUED and not isinstance(value, list):
            value = [value]
        out[key] = value
    return out


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def _slug(text: str) -> str:
    return text.replace(":", "-").replace("/", "-").replace(" ", "_")


def shard_keep(offset: int, task_ids: list[str], shard: tuple[int, int] | None):
    """Which (task id, epoch) pairs of a cell this shard plays: the sweep's sessions numbered
    in order (cells in the file's order, then epochs, then tasks), session i going to shard
    i mod N + 1. The same file gives the same split every time. None: every pair."""
    if shard is None:
        return None
    index, count = shard
    position = {t: i for i, t in enumerate(task_ids)}

    def keep(task_id: str, epoch: int) -> bool:
        return (offset + epoch * len(task_ids) + position[task_id]) % count == index - 1

    return keep
