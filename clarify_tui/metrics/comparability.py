"""Whether a score group's numbers can sit beside its paper's (docs/scoring.md).

Each session's deviations are those recorded on its run when it started (`runs.deviations`,
which may hold lines only known then), those its run's recorded settings show (sampling
per call from `runs.provenance`, task attempts from `runs.config`), and those its own stored settings show
(user, judge and search specs, protocol config: `deviations.SOURCES`), so databases written
before runs recorded them, and sessions played in the TUI, are judged too. A session whose
task is a bundled demo task has none from its settings. A group is `comparable` when none
of its sessions has any; `deviations` lists them once each, in first-seen order.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from clarify_tui.deviations import Setting, deviations
from clarify_tui.models import EpisodeConfig
from clarify_tui.protocols import registry
from clarify_tui.store import scoring

if TYPE_CHECKING:  # report imports this module
    from clarify_tui.metrics.model import Group


@functools.cache
def demo_task_keys() -> frozenset[str]:
    """The snapshot keys of the bundled demo's tasks (a session on one is on the demo)."""
    from clarify_tui.store import task_key
    from clarify_tui.tasks import load_tasks

    return frozenset(task_key(t) for b in registry.names() for t in load_tasks(b, "demo"))


def _config(text: str | None) -> EpisodeConfig:
    try:
        data = json.loads(text or "{}")
        known = {k: v for k, v in data.items() if k in EpisodeConfig.model_fields}
        return EpisodeConfig.model_validate(known)
    except (ValueError, ValidationError, AttributeError):
        return EpisodeConfig()


def recorded_deviations(conn: Any) -> dict[str, list[str]]:
    """Run name -> the deviations recorded when it started (older files: none recorded)."""
    out = {}
    for name, text in scoring.recorded_deviations(conn):
        try:
            lines = json.loads(text)
        except ValueError:
            continue
        if isinstance(lines, list):
            out[name] = [str(line) for line in lines]
    return out


def run_settings_deviations(conn: Any) -> dict[str, list[str]]:
    """Run name -> the deviations its recorded settings show beyond the sessions' own: the
    sampling its provenance records per call and its task attempts (so runs recorded before
    these were deviations are judged too). None for a run on the bundled demo."""
    from clarify_tui.deviations import calls_of, is_demo_dataset, sampling, single_attempt

    out: dict[str, list[str]] = {}
    for name, benchmark, dataset, config, provenance in scoring.run_settings(conn):
        if is_demo_dataset(dataset):
            continue
        try:
            settings, prov = json.loads(config or "{}"), json.loads(provenance or "{}")
        except ValueError:
            continue
        if not isinstance(settings, dict) or not isinstance(prov, dict):
            continue
        attempts = settings.get("task_attempts")
        setting = Setting(
            benchmark=benchmark or "",
            calls=calls_of(prov),
            task_attempts=attempts if isinstance(attempts, int) else None,
        )
        lines = [*sampling(setting), *single_attempt(setting)]
        if lines:
            out[name] = lines
    return out


@functools.lru_cache(maxsize=1024)
def _from_settings(
    protocol: str, agent: str, user: str, search: str, judge: str, config: str | None, demo: bool
) -> tuple[str, ...]:
    setting = Setting(benchmark=protocol, agent=agent, user=user, search=search, judge=judge, config=_config(config))
    return tuple(deviations(setting, demo=demo))


def settings_deviations(
    protocol: str, agent: str, user: str, search: str, judge: str, config: str | None, task: Any = None
) -> tuple[str, ...]:
    """A session's deviations from its settings alone; `task` (a Task or its stored dict), when
    given, tells whether it is a bundled demo task."""
    return _from_settings(protocol, agent, user, search, judge, config, _is_demo_task(task))


def provenance_deviations(protocol: str, provenance: Any, task: Any = None) -> tuple[str, ...]:
    """The sampling deviations a run's provenance shows (an export line carries it); none
    on a bundled demo task."""
    from clarify_tui.deviations import calls_of, sampling

    if _is_demo_task(task):
        return ()
    return tuple(sampling(Setting(benchmark=protocol, calls=calls_of(provenance))))


def _is_demo_task(task: Any) -> bool:
    if task is None:
        return False
    from clarify_tui.models import Task
    from clarify_tui.store import task_key

    try:
        return task_key(task if isinstance(task, Task) else Task.model_validate(task)) in demo_task_keys()
    except (ValueError, ValidationError, TypeError):
        return False


def load_deviations(conn: Any, sessions: dict[str, Any], sel: scoring.Selection) -> None:
    """Set `deviations` on each loaded ScoredSession (by id) from its run and its settings."""
    by_run = recorded_deviations(conn)
    for run, lines in run_settings_deviations(conn).items():
        by_run[run] = list(dict.fromkeys([*by_run.get(run, ()), *lines]))
    demo = demo_task_keys()
    for sid, run, protocol, agent, user, search, judge, config, key in scoring.setting_rows(conn, sel):
        s = sessions.get(sid)
        if s is None:
            continue
        own = _from_settings(
            protocol or "", agent or "", user or "", search or "", judge or "rule", config, key in demo
        )
        s.deviations = tuple(dict.fromkeys([*by_run.get(run, ()), *own]))


def comparability(members: Iterable[Any]) -> dict[str, Any]:
    """`comparable` and `deviations` of one score group."""
    lines: dict[str, None] = {}
    for s in members:
        lines.update(dict.fromkeys(s.deviations))
    return {"comparable": not lines, "deviations": list(lines)}


def footnotes(groups: Iterable[Group], label: Any) -> list[str]:
    """One line per distinct set of deviations among score groups, naming the groups
    (`label(group)`): what the table output and the TUI's scores screen print."""
    by_lines: dict[tuple[str, ...], list[str]] = {}
    for g in groups:
        if not g.comparable:
            by_lines.setdefault(tuple(g.deviations), []).append(str(label(g)))
    return [
        f"not comparable with the paper — {', '.join(names)}: {'; '.join(lines)}" for lines, names in by_lines.items()
    ]
