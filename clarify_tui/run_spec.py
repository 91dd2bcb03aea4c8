"""A run's spec, and what `--resume` checks against the run it continues.

Its own module because it is what makes two runs the same experiment (the backends, the
dataset, the episode settings, the seed, each `py:` file's sha256, the provenance), apart
from how a run is played (runner.py): `sweep` checks a cell with it before playing, `api`
before opening the database. Resuming under a different spec, a changed file or a
dataset that changed is refused, naming each difference; `--resume` of a run that does
not exist is refused too, instead of starting a fresh one under a typo.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from clarify_tui.backend_spec import RoleSpecs
from clarify_tui.errors import UsageError
from clarify_tui.models import EpisodeConfig
from clarify_tui.protocols import registry
from clarify_tui.search.cache import CacheMode
from clarify_tui.store import Store


class NothingToResume(UsageError):
    """--resume named a run the database does not have."""


class RunSpecMismatch(UsageError):
    """--resume asked for a different benchmark, dataset, agent, mode, ... than the run has."""


class ProvenanceMismatch(UsageError):
    """--resume with other role settings, prompt files or dataset contents than the run has."""


@dataclass
class RunSpec:
    name: str
    agent: str
    user: str = "rule"
    search: str = "local"
    judge: str = "rule"
    benchmark: str = ""
    dataset: str = ""
    config: EpisodeConfig = field(default_factory=EpisodeConfig)
    concurrency: int = 4
    search_cache: CacheMode = "off"
    task_attempts: int | None = None  # None: the benchmark's default (default_task_attempts)
    epochs: int = 1  # each task is played this many times (Session.epoch 0..epochs-1)
    seed: int | None = None  # sent to model APIs and to py: backends that take one (config.seed)
    agent_object: object = None  # api.run(agent=obj): the object itself, recorded as its `py:module:Class` spec
    prebuilt: object = None  # the agent validate_spec built, used by the run (a py: class is made once)
    provenance: dict | None = None  # clarify_tui/provenance.py: recorded on the run, compared on --resume
    agent_args: dict | None = None  # a py: agent's keyword arguments (--agent-arg, [agent.args], an object's own)
    run_id: str | None = None  # None: a fresh uuid; a sweep derives it from its file and cell (sweep/cells.py)

    @property
    def attempts(self) -> int:
        return self.task_attempts or default_task_attempts(self.benchmark)

    def roles(self) -> RoleSpecs:
        """Its backends' specs, parsed (backends.build_backends makes them)."""
        return RoleSpecs.of(
            agent=self.agent, user=self.user, judge=self.judge, search=self.search, deep_search=self.config.deep_search
        )


def default_task_attempts(benchmark: str) -> int:
    """The protocol's own (InteractComp: as its reference harness; DiscoBench and CTS publish
    no harness: once); once for a run of no one benchmark."""
    return registry.get(benchmark).task_attempts if benchmark in registry.names() else 1


SPEC_FIELDS = ("benchmark", "dataset", "agent", "user", "search", "judge")


def spec_of(spec: RunSpec) -> dict:
    """What makes two runs the same experiment: backends, dataset and episode settings,
    the seed, a py: agent's arguments and the sha256 of every `py:` backend's file (a
    changed file is another agent)."""
    return {**{k: getattr(spec, k) for k in SPEC_FIELDS}, **run_config(spec)}


def run_config(spec: RunSpec) -> dict:
    """The settings recorded on the run (`runs.config`) and compared by --resume: the
    episode settings, the attempts, the seed (absent: none), a py: agent's arguments
    (absent: none) and the sha256 of each py: backend's file."""
    return {
        **spec.config.model_dump(mode="json"),
        "task_attempts": spec.attempts,
        **({"seed": spec.seed} if spec.seed is not None else {}),
        **({"agent_args": spec.agent_args} if spec.agent_args else {}),
        **file_hashes(spec),
    }


# Settings whose absence from a run's config means "not given" (so adding or dropping one is a
# change); other keys absent from an older run's config were not recorded then and are skipped.
ABSENT_IS_NONE = ("seed", "agent_args")


def file_hashes(spec: RunSpec) -> dict[str, str]:
    """`<role>_sha256` of each `py:` backend's source file (recorded on the run)."""
    from clarify_tui.plugins import file_sha256

    roles = {"agent": spec.agent, "user": spec.user, "judge": spec.judge, "deep_search": spec.config.deep_search}
    return {f"{role}_sha256": digest for role, value in roles.items() if (digest := file_sha256(value))}


def check_same_spec(store: Store, spec: RunSpec) -> None:
    """Refuse to resume a run under a different spec, showing both."""
    row = store.run_row(spec.name)
    if row is None:
        return
    config = json.loads(row.get("config") or "{}")
    stored = {**{k: row.get(k) for k in SPEC_FIELDS}, **config}
    wanted = spec_of(spec)
    for key in ABSENT_IS_NONE:
        if key in stored or key in wanted:
            stored.setdefault(key, None)
            wanted.setdefault(key, None)
    # a stored None is a setting (max_rounds None: the benchmark's default) except in the run's
    # columns, which an older file may have left empty
    differ = [
        k
        for k in wanted
        if k in stored and not (stored[k] is None and k in SPEC_FIELDS) and not _same(k, stored[k], wanted[k])
    ]
    changed = [k for k in differ if k.endswith("_sha256")]
    if changed:
        k = changed[0]
        role = k.removesuffix("_sha256")
        raise RunSpecMismatch(
            f"run '{spec.name}': the {role}'s file changed since the run started ({wanted.get(role) or row.get(role)}: "
            f"sha256 {str(stored[k])[:12]}… then, {str(wanted[k])[:12]}… now); --resume refuses a changed file: "
            "restore it or start a new run with --run NEW"
        )
    if differ:

        def show(d: dict) -> str:
            return " ".join(f"{k}={_setting(k, d.get(k))}" for k in wanted)

        each = "; ".join(f"{k} {_setting(k, stored[k])} then, {_setting(k, wanted[k])} now" for k in differ)
        raise RunSpecMismatch(
            f"run '{spec.name}' differs in {', '.join(differ)} ({each}); resume it with the same options or use --run NEW\n"
            f"  run has:      {show(stored)}\n  this command: {show(wanted)}"
        )


def check_resumable(store: Store, name: str) -> None:
    """`--resume --run TYPO` must not start a fresh run under the typo: say there is
    nothing to resume and list the runs there are."""
    if store.run_row(name) is not None or store.sessions(runs=[name]):
        return
    names = store.run_names()
    there = f"runs in {store.path}: {', '.join(names)}" if names else f"{store.path} has no runs yet"
    raise NothingToResume(f"--resume: there is no run '{name}' to resume ({there}); drop --resume to start it")


def check_provenance(store: Store, spec: RunSpec) -> str | None:
    """Refuse to resume when role settings, prompt hashes or the dataset hash changed,
    naming each change; return a note when only the clarify-tui version differs."""
    from clarify_tui.provenance import changes, version_note

    row = store.run_row(spec.name)
    if row is None or not row.get("provenance") or spec.provenance is None:
        return None
    stored = json.loads(row["provenance"])
    changed = changes(stored, spec.provenance)
    if changed:
        raise ProvenanceMismatch(
            f"run '{spec.name}' cannot be resumed: {'; '.join(changed)}. Its sessions were made with the "
            "recorded settings; restore them or use --run NEW"
        )
    return version_note(stored, spec.provenance)


def _setting(key: str, value) -> str:
    """A recorded setting as the refusal shows it: None in words (max_rounds: the default)."""
    if value is None:
        return "(the benchmark's default)" if key == "max_rounds" else "(none)"
    if isinstance(value, dict):
        return ",".join(f"{k}={v}" for k, v in value.items()) or "(none)"
    return str(value)


def _same(key: str, old, new) -> bool:
    if old == new:
        return True
    if key == "dataset" and Path(str(old)).exists() and Path(str(new)).exists():
        return Path(str(old)).resolve() == Path(str(new)).resolve()
    return False
