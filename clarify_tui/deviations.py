"""What makes a run's numbers differ from the paper's protocol, in plain words.

Defaults follow the papers (docs/paper-readings.md); anything else is a *deviation*: an
offline stand-in for a role the paper filled with a model or the web (`rule` user,
`rule` judge, `local` search), a non-paper option, or a setting other than the paper's
(a model role's temperature / top_p, the round limit, InteractComp's task attempts, a CTS
deep search that is the clarifier's own model). `run` prints them at its start and
records them on the run (`runs.deviations`); `score` carries them on every group as
`"comparable"` and `"deviations"`, the table footnotes them and the TUI's scores screen
shows them. The bundled demo is exempt: its offline stand-ins are the point of it.

A source is a function from the run's `Setting` to its deviation lines; adding one is one
line in `SOURCES` (e.g. a provenance check), or, for one protocol's, one in its folder's
`protocols/<name>/deviations.py` (e.g. InteractComp's `--compat`), with its `PAPER`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clarify_tui.backend_spec import BackendSpec
from clarify_tui.models import EpisodeConfig
from clarify_tui.paths import demo_dir
from clarify_tui.protocols import registry


@dataclass(frozen=True)
class Setting:
    """What a run (or a session) was played with: the specs as given and its protocol config."""

    benchmark: str
    agent: str = ""
    user: str = "rule"
    search: str = "local"
    judge: str = "rule"
    config: EpisodeConfig = field(default_factory=EpisodeConfig)
    # what a run's provenance knows beyond the specs (empty / None: not known, e.g. a TUI play):
    calls: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # call purpose -> request params sent
    task_attempts: int | None = None


def spec_kind(spec: str) -> str:
    """A role spec's kind: `openai` of `openai:gpt-4o`, `rule` of `rule`."""
    return BackendSpec.parse(spec).kind.split("/")[0]


@dataclass(frozen=True)
class PaperSetting:
    """What a protocol's paper used for each role (paper lines in docs/paper-readings.md,
    "Deviations"): the user, the judge, the search backend's kind (None: any) and its words,
    and the round limit its rules play by default (engine rules' default_max_rounds)."""

    user: str
    judge: str
    search: tuple[str | None, str]
    rounds: tuple[int, str]
    grader_sampling: bool = False  # its paper states its answer grader's sampling (PAPER_SAMPLING's "grader")


def paper_of(benchmark: str) -> PaperSetting | None:
    """The protocol's paper setting (its spec's); None for no one protocol."""
    return registry.get(benchmark).paper if benchmark in registry.names() else None


def protocol_own(s: Setting) -> Iterable[str]:
    """The protocol's own deviations (its spec's `deviations`: protocols/<name>/deviations.py)."""
    if s.benchmark in registry.names():
        for source in registry.get(s.benchmark).deviations:
            yield from source(s)


def stand_in_user(s: Setting) -> Iterable[str]:
    if spec_kind(s.user) == "rule" and (paper := paper_of(s.benchmark)) is not None:
        yield f"user simulator: rule (offline stand-in), the paper used {paper.user}"


def stand_in_judge(s: Setting) -> Iterable[str]:
    if spec_kind(s.judge) == "rule" and (paper := paper_of(s.benchmark)) is not None:
        yield f"judge: rule (offline stand-in), the paper used {paper.judge}"


def stand_in_search(s: Setting) -> Iterable[str]:
    if (setting := paper_of(s.benchmark)) is None:
        return
    paper, words = setting.search
    kind = _searched_by(s)
    if kind == "local" or (paper is not None and kind not in (paper, "stored", "")):
        what = "local (offline corpus)" if kind == "local" else kind
        yield f"search: {what}, the paper searched {words}"


# The specs of searches an imported run recorded, and the backend that searched: the
# InteractComp reference harness searched Google through Serper (core/engine/search.py).
REFERENCE_SERPER = "import:reference-serper"
HARNESS_IMPORT = "import:interactcomp-harness"  # importers/harness.py's agent spec


def _searched_by(s: Setting) -> str:
    """The search backend's kind; an imported reference-harness run searched through Serper
    (files imported before its search was named so record `import:recorded`)."""
    if s.search == REFERENCE_SERPER or (s.agent == HARNESS_IMPORT and s.search == "import:recorded"):
        return "serper"
    return spec_kind(s.search)


# The sampling the papers state, per call purpose (llm/client.PAPER_SAMPLING sends these by
# default): (temperature, top_p, who, where). A purpose whose default is our own choice is absent.
PAPER_SAMPLING = {
    "interactcomp.agent": (0.6, 0.95, "agent", "paper 003 §4.1, line 303; the reference's exp_config.yaml"),
    "interactcomp.responder": (1.0, None, "responder", "paper 003 A.3, line 713"),
    "grader": (0.0, None, "grader", "paper 003 A.4, line 745"),
    "cts.clarifier": (0.0, None, "clarifier", "paper 001 §5.1: deterministic decoding"),
    "cts.answerer": (0.0, None, "User Answerer", "paper 001 line 223"),
    "cts.rewriter": (0.0, None, "Rewriter", "paper 001 line 225"),
    "cts.judge": (0.0, None, "nugget judge", "paper 001 line 181"),
}


def sampling(s: Setting) -> Iterable[str]:
    """A model role sampled at another temperature or top_p than its paper states (a
    model that takes no top_p, which the reference omits too, is not one)."""
    setting = paper_of(s.benchmark)
    grader_stated = setting is not None and setting.grader_sampling
    for purpose, params in s.calls.items():
        if purpose not in PAPER_SAMPLING or (purpose == "grader" and not grader_stated):
            continue  # (DiscoBench's answer-equivalence grader: our choice of T=0, no paper's)
        paper_t, paper_p, who, where = PAPER_SAMPLING[purpose]
        for name, paper, sent in (
            ("temperature", paper_t, params.get("temperature")),
            ("top_p", paper_p, params.get("top_p", paper_p)),
        ):
            if paper is not None and sent != paper:
                shown = "not sent (the server's default)" if sent is None else sent
                yield f"{who} {name}: {shown}, the paper used {paper} ({where})"


def round_limit(s: Setting) -> Iterable[str]:
    """`--max-rounds` other than the protocol's. Not for an imported session: the importer
    sizes its limit to the recorded history; nor InteractComp's answer_only (one round)."""
    rounds = s.config.max_rounds
    if rounds is None or (setting := paper_of(s.benchmark)) is None or spec_kind(s.agent) == "import":
        return
    if registry.get(s.benchmark).set_rounds(s.config):
        return
    paper, words = setting.rounds
    if rounds != paper:
        yield f"max rounds: {rounds}, the protocol plays {paper} ({words})"


def single_attempt(s: Setting) -> Iterable[str]:
    """InteractComp's reference re-runs a task whose agent raised up to 3 times
    (core/benchmark.py:106); fewer attempts score some of those tasks otherwise."""
    if s.benchmark not in registry.names() or s.task_attempts is None:
        return
    spec = registry.get(s.benchmark)
    if spec.task_attempts > 1 and s.task_attempts != spec.task_attempts:  # its harness re-runs failing tasks
        yield (
            f"task attempts: {s.task_attempts}, the reference harness plays a failing task up to "
            f"{spec.task_attempts} times ({spec.task_attempts_source})"
        )


SOURCES: tuple[Callable[[Setting], Iterable[str]], ...] = (
    stand_in_user,
    stand_in_judge,
    stand_in_search,
    protocol_own,
    sampling,
    round_limit,
    single_attempt,
)


def calls_of(provenance: Any) -> dict[str, dict]:
    """Each call purpose's request parameters, as a run's provenance records them per role
    (provenance.py `roles.<role>.calls`); {} when it records none."""
    roles = provenance.get("roles") if isinstance(provenance, dict) else None
    if not isinstance(roles, dict):
        return {}
    return {
        purpose: params
        for role in roles.values()
        if isinstance(role, dict)
        for purpose, params in (role.get("calls") or {}).items()
        if isinstance(params, dict)
    }


def deviations(setting: Setting, *, demo: bool = False) -> list[str]:
    """Every way `setting` departs from its paper's protocol; none on the bundled demo."""
    if demo:
        return []
    return [line for source in SOURCES for line in source(setting)]


def is_demo_dataset(dataset: str | Path | None) -> bool:
    """`--dataset demo` or a file of the bundled demo folder."""
    if dataset is None:
        return False
    if str(dataset) == "demo":
        return True
    try:
        return Path(dataset).resolve().is_relative_to(demo_dir().resolve())
    except (OSError, ValueError):
        return False


def banner(lines: list[str]) -> str | None:
    """The line `run` prints at its start (None: nothing to say)."""
    if not lines:
        return None
    return "not comparable with the paper: " + "; ".join(lines)
