"""ProtocolSpec: everything the rest of the program asks of a protocol, in one typed place.

A protocol is a folder `protocols/<name>/` whose `spec.py` holds one `SPEC`; the registry
(`protocols/registry.py`) is the one place a name becomes a spec. Callers ask the spec
(`get(name).title`, `.rules`, `.score(...)`) instead of comparing names, so adding a
protocol means adding a folder, not extending switches across the program.

It sits above the engine and the metrics (a spec holds their pieces); the registry, far
below, names `ProtocolSpec` for mypy only and loads each spec by its module's name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from clarify_tui.protocols.roles import GENERIC, ProtocolRoles
from clarify_tui.results import OwnState
from clarify_tui.state_panel import generic_panel, verdict

if TYPE_CHECKING:
    from rich.console import RenderableType
    from rich.text import Text

    from clarify_tui.deviations import PaperSetting, Setting
    from clarify_tui.engine.rules import Rules
    from clarify_tui.metrics.charts import ScoresData
    from clarify_tui.metrics.model import ProtocolMetrics
    from clarify_tui.metrics.options import ScoreOptions
    from clarify_tui.metrics.paper_tables import PaperTable
    from clarify_tui.metrics.records import ScoredSession
    from clarify_tui.models import ActionKind, EpisodeConfig, Session
    from clarify_tui.protocols.audit_hooks import ProtocolAudit
    from clarify_tui.results import AnyResult, AnyState


# A protocol's scorer: every session of the protocol being scored (in load order) and
# their groups; one metrics object per group, in the groups' order (`score --format json`):
# its typed model (a `ProtocolMetrics`, metrics/model.py), or a plug-in's plain dict of
# numbers with the usage and exclusions every protocol reports (read as `OwnMetrics`).
Scorer = Callable[
    ["Sequence[ScoredSession]", "Sequence[Sequence[ScoredSession]]", "ScoreOptions"],
    "Sequence[ProtocolMetrics | Mapping[str, Any]]",
]


def _judged(s: ScoredSession) -> bool:
    return s.scorable and s.result.correct is not None


def _answer_value(s: ScoredSession) -> float | None:
    return None if s.result.correct is None else float(bool(s.result.correct))


def _answer_intervals(sessions: Sequence[ScoredSession]) -> dict[str, list[float] | None]:
    from clarify_tui.metrics.intervals import wilson

    graded = [bool(s.result.correct) for s in sessions if s.scorable and s.result.correct is not None]
    return {"accuracy_ci95": wilson(sum(graded), len(graded))}


def _no_score_notes(sessions: Sequence[ScoredSession]) -> list[str]:
    return []


def _no_words(config: dict) -> str:
    return ""


def _no_refusal(kind: ActionKind, phase: str) -> str | None:
    return None


def _any_rounds(config: EpisodeConfig) -> bool:
    return False


def _any_setting(config: EpisodeConfig) -> None:
    return None


def _never(session: Session) -> bool:
    return False


def _no_notes(sessions: Sequence[Session], done: Sequence[Session]) -> list[str]:
    return []


# Its words after `run`, appended to "run NAME: N completed, M errored" (given the completed
# sessions, at least one, and the errored ones), and the lines printed below it.
RunLine = Callable[["Sequence[Session]", "Sequence[Session]"], str]
PaperTables = Callable[["Sequence[ScoredSession]", "dict[str, dict]", str, "ScoreOptions"], "list[PaperTable]"]
RunNotes = Callable[["Sequence[Session]", "Sequence[Session]"], "list[str]"]


@dataclass(frozen=True)
class ProtocolSpec:
    """One protocol as the program sees it (protocols/README.md says what each field is for)."""

    name: str  # as flags, files and the database spell it
    title: str  # as people read it: "InteractComp"
    rules: type[Rules]  # the engine's rules for one episode
    result: type[AnyResult]  # the result model its episodes store
    score: Scorer  # its metrics (DESIGN.md names)
    report_rank: int  # where its tables stand in `score`/`report` (the papers' order)
    run_line: RunLine
    table_rows: tuple[tuple[str, str, str], ...]  # its rows in the score tables: (metric, label, kind)
    ci_rows: tuple[tuple[str, str, str], ...]  # its intervals' rows (score --by annotator)
    metric_inputs: Mapping[str, str]  # metric -> the judgment kind it reads (exports' score_inputs)
    summary_columns: Mapping[str, str]  # the wide score table's columns: metric -> short header
    paper: PaperSetting  # what its paper used for each role (deviations.py)
    deviations: tuple[Callable[[Setting], Iterable[str]], ...]  # its own ways to depart from the paper
    graded_by: Literal["answer", "nuggets"] = "answer"  # a right/wrong answer, or a 0-100 restore score
    run_flags: tuple[str, ...] = ()  # `run` flags (argparse dests) only this protocol reads
    run_notes: RunNotes = field(default=_no_notes)
    # lines `score` (api.score's on_note) prints under the numbers, given every session scored
    score_notes: Callable[[Sequence[ScoredSession]], list[str]] = field(default=_no_score_notes)
    task_attempts: int = 1  # `run --task-attempts` default (attempts of a task whose session errored)
    task_attempts_source: str = ""  # where its harness says so, when more than one
    counted: Callable[[ScoredSession], bool] = field(default=_judged)  # a scorable session with a verdict
    value: Callable[[ScoredSession], float | None] = field(default=_answer_value)  # 1/0, or its restore score
    # a group's interval metrics (score --by annotator): accuracy's Wilson interval by default
    intervals: Callable[[Sequence[ScoredSession]], dict[str, list[float] | None]] = field(default=_answer_intervals)
    # its paper's tables in `report` (None: it has none) and what sets a session apart from
    # their main setting, in words ("": the main setting), from the session's stored config
    paper_tables: PaperTables | None = None
    # None: the agent asks inside its rounds; a number: it asks up to that many questions up
    # front, in one clarify step (CTS, k <= 3), and a what-if `ask` asks one more there
    clarify_budget: int | None = None
    # its own series in the TUI's scores charts, given a group's label, metrics and sessions
    charts: Callable[[str, ProtocolMetrics, Sequence[ScoredSession], ScoresData], None] | None = None
    # what the TUI's state panel shows (Rich renderables, from the engine's state snapshot:
    # task, state, its protocol state, reveal, spoilers) and the one-line verdict at the end
    state_panel: Callable[..., RenderableType] = field(default=generic_panel)
    score_card: Callable[[AnyResult], Text] = field(default=verdict)
    setting_words: Callable[[dict], str] = field(default=_no_words)
    # An installed protocol (an entry point, docs/protocols.md): the state model its rules
    # snapshot (an `OwnState`; its `result` is an `OwnResult`) and its bundled tasks
    # (`--dataset demo`: a JSONL file of tasks in our format, None: it has none).
    state: type[AnyState] = OwnState
    demo_tasks: Callable[[], Path] | None = None
    # the play screen's words for an action not allowed now, given its kind and the phase
    # (None: the generic "not allowed now (allowed: ...)")
    refusal: Callable[[ActionKind, str], str | None] = field(default=_no_refusal)
    # actions its rules never allow: replay's fork keys for them stay off and say so
    never_offers: tuple[ActionKind, ...] = ()
    # where a task's difficulty lives in its stored data: (its part of the task, the key);
    # None: its tasks have none (score's --by difficulty, the records read it)
    difficulty: tuple[str, str] | None = None
    # its answers carry a 0-100 confidence (InteractComp): the TUI's answer box asks for one
    answer_confidence: bool = False
    # its user replies only yes, no or unknown (InteractComp): a what-if ask is "Is it X?"
    yes_no_user: bool = False
    # its agent's prompts show no notice: a constraint goes into the question's text
    # (InteractComp's reference prompts), as a what-if's forced action does
    notice_in_question: bool = False
    # a session re-judged with its reference harness's grader (the grading it was played under)
    graded_as_reference: Callable[[Session], bool] = field(default=_never)
    # its one verdict is the answer's: a re-judgment records its unreadable verdicts
    counts_unreadable: bool = False
    # replay opens at the first failed checkpoint and highlights the guess (DiscoBench)
    opens_at_failure: bool = False
    # what a user step's action holds: its reply (the agent's ask came before it), or the
    # question it was asked, its answer in the observation (CTS): the Inspect export reads it
    user_step: Literal["reply", "question"] = "reply"
    # the prompt files its LLM agent reads besides its own `<name>_*.txt` (None: the shared
    # ReAct prompts, `action_*` and `react_*`, which a deep searcher reads too): provenance
    agent_prompts: tuple[str, ...] | None = None
    # its setting plays a set number of rounds whatever `--max-rounds` says (InteractComp's
    # answer_only: one), so a round limit there is no deviation
    set_rounds: Callable[[EpisodeConfig], bool] = field(default=_any_rounds)
    # refuses a setting its harness refuses (a UsageError naming our flags), before `run`
    # or a sweep plays anything (InteractComp: --mode forced_ask without rounds to answer)
    check_config: Callable[[EpisodeConfig], None] = field(default=_any_setting)
    # `--compat` chooses how its model users' and judges' replies are read (InteractComp's
    # reference harness); for another protocol it changes nothing, and `run` says so
    reads_compat: bool = False
    # what agents, users and the task model ask of it (protocols/roles.py: the scripted and
    # LLM agents' play, whether a task needs an answer, a user's generic reply); a
    # built-in's lives in its low tier, `roles.py`, which `registry.roles` reads by name
    roles: ProtocolRoles = GENERIC
    # the simulator audit's hooks (protocols/audit_hooks.py): its asks, what its user sees,
    # its reply classes (None: `audit` says it cannot audit this protocol)
    audit: ProtocolAudit | None = None
