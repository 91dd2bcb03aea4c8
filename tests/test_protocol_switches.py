"""Issue 32: the program asks a protocol's spec instead of comparing its name.

The count below is docs/protocols.md's measure; a new `if protocol == "cts"` outside
`clarify_tui/protocols/` fails here, and says to add a field to `ProtocolSpec` instead.
The other tests swap a spec's field and watch the behaviour follow it, not the name.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from clarify_tui.models import Action, ActionKind
from clarify_tui.protocols import registry

ROOT = Path(__file__).resolve().parents[1] / "clarify_tui"
# A switch compares a value with one protocol's NAME (a string literal or a `Protocol.`
# member), by ==, !=, is, in, not in or a match's case: adding a protocol means finding
# and extending it. Comparing two protocols with each other (`s.protocol ==
# task.protocol`), or a protocol with a collection the registry built, names none: a new
# protocol passes through it unchanged, so it is not counted (docs/protocols.md).
NAME = r"""(Protocol\.(cts|interactcomp|discobench)\b|["'](cts|interactcomp|discobench)["'])"""
SWITCH = re.compile(
    rf"(==|!=|\bis(\s+not)?\b|\bin\b|\bcase\b)\s*[(\[{{]?\s*{NAME}|{NAME}\s*(==|!=|\bin\b|\bnot\s+in\b)"
)
MOST = 3  # docs/protocols.md: what is left, and why


def _switches() -> list[str]:
    return [
        f"{path.relative_to(ROOT.parent)}:{n}"
        for path in sorted(ROOT.rglob("*.py"))
        if "protocols" not in path.relative_to(ROOT).parts[:1]
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if SWITCH.search(line)
    ]


def test_the_measure_counts_a_name_and_not_two_protocols_compared():
    counted = [
        "if view.protocol == Protocol.interactcomp:",
        'if benchmark != "interactcomp" or mode:',
        'if "cts" in benchmarks:',
        "if protocol is not Protocol.cts:",
        "kind = 'task' if p in ('cts', 'discobench') else p",
        'case "cts":',
    ]
    not_counted = [
        "and s.protocol == task.protocol",
        "if protocol in releases and releases[protocol].presumed:",
        "for path, protocol in files:",
        'Task(protocol="cts", id="x")',
    ]
    assert [bool(SWITCH.search(line)) for line in counted + not_counted] == [True] * 6 + [False] * 4


def test_name_switches_outside_the_protocols_folder_do_not_grow():
    found = _switches()
    assert len(found) <= MOST, "ask the protocol's spec (protocols/base.py) instead:\n" + "\n".join(found)


def _swapped(monkeypatch, name: str, **fields) -> None:
    spec = dataclasses.replace(registry.get(name), **fields)
    real = registry.get
    monkeypatch.setattr(registry, "get", lambda n: spec if n == name else real(n))


def test_the_play_screens_refusal_is_the_specs_words():
    cts, disco = registry.get("cts"), registry.get("discobench")
    assert cts.refusal(ActionKind.search, "clarify") == "CTS: clarify first (c); search comes after the clarification."
    assert cts.refusal(ActionKind.clarify, "search") == "CTS: the clarification is over; search (s) or answer (enter)."
    assert registry.get("interactcomp").refusal(ActionKind.visit, "act").startswith("InteractComp has no visit")
    assert disco.refusal(ActionKind.clarify, "act") is None  # the generic "not allowed now" words


def test_a_what_if_ask_is_a_yes_no_question_where_the_spec_says_its_user_answers_yes_or_no(make_episode, monkeypatch):
    from clarify_tui.whatif import fallback_action
    from tests.conftest import DISCO

    episode = make_episode(DISCO, "direct-guess")
    proposed = Action.answer("Hornussen", 80)
    assert not fallback_action("ask", episode, proposed).text.startswith("Is it")
    _swapped(monkeypatch, "discobench", yes_no_user=True)
    assert fallback_action("ask", episode, proposed).text == "Is it Hornussen?"
