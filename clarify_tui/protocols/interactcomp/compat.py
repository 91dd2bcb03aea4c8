"""InteractComp reply readings (`run --compat`): which setting gives the paper's numbers.

Why three settings: the paper's numbers come from the reference harness, whose readings of
a responder's and a grader's replies are substring tests that we think read some replies
wrongly; but a default that reads them otherwise gives numbers that cannot sit next to the
paper's (issue 23). So the reference's readings are the default, ours are a named opt-in
that says it is not the paper, and the reference's conversion of failed calls into answers
(which counts an outage as a model failure) needs its own explicit flag.

- `paper` (default): the reference's readings (core/responder.py:48-66,
  core/benchmark.py:143-148; the grader is shown the gold text only, :132-141). A failed
  call (after our retries) errors the session, counted apart, as on every benchmark.
- `strict`: our readings (`llm/yesno.py`; gold aliases shown to the grader). Not the paper's.
- `reference`: `paper`, plus the harness's handling of failed calls: a responder becomes
  "i don't know" (responder.py:100-102), a search "Search failed" (action.py:134-136), a
  grader a wrong answer (benchmark.py:150-152); each fault is recorded on its step.
"""

from __future__ import annotations

from collections.abc import Iterable

from clarify_tui.models import Compat

DEFAULT_COMPAT: Compat = "paper"
STRICT_DEVIATION = "InteractComp readings: strict (ours), not the reference harness's"


def is_strict(compat: str | None) -> bool:
    """Our readings; "ours" is what results stored before issue 23 call them."""
    return compat in ("strict", "ours")


def reads_as_reference(compat: str | None) -> bool:
    """The responder's and grader's replies are read as the reference harness reads them."""
    return not is_strict(compat)


def failures_as_reference(compat: str | None) -> bool:
    """Failed responder / search / grader calls become answers, as the harness does."""
    return compat == "reference"


def compat_deviations(compat: str | None) -> list[str]:
    """Plain words for each way this setting's numbers differ from the paper's."""
    return [STRICT_DEVIATION] if is_strict(compat) else []


def strict_note(compats: Iterable[str | None]) -> str | None:
    """One line for a run summary or `score`: how many InteractComp sessions were read
    with `--compat strict` (their numbers are not comparable with the paper's)."""
    strict = sum(1 for c in compats if is_strict(c))
    if not strict:
        return None
    return (
        f"{strict} InteractComp session(s) read replies with --compat strict (ours): "
        "not the reference harness's readings, so not comparable with the paper's numbers"
    )
