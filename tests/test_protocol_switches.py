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
MOST = 0  # docs/protocols.md: none left; a new one needs a spec field instead


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


def test_run_checks_compat_and_the_graders_sampling_follow_the_spec_not_the_name(monkeypatch, tmp_path, capsys):
    """The last name switches of `run` and deviations.py became spec fields: `check_config`
    (InteractComp's forced-ask check), `reads_compat` (--compat changes nothing elsewhere)
    and `paper.grader_sampling` (only InteractComp's paper states its grader's sampling)."""
    import argparse

    from clarify_tui.cli import main
    from clarify_tui.commands.run import compat_changes_nothing
    from clarify_tui.deviations import Setting, sampling
    from clarify_tui.errors import UsageError

    args = argparse.Namespace(benchmark="discobench", compat="reference", user="rule", judge="rule", search="local")
    assert compat_changes_nothing(args) == "changes nothing: it applies to InteractComp only, not discobench"
    _swapped(monkeypatch, "discobench", reads_compat=True)
    assert "InteractComp only" not in (compat_changes_nothing(args) or "")

    grader = Setting(benchmark="discobench", calls={"grader": {"temperature": 0.7}})
    assert list(sampling(grader)) == []  # DiscoBench's grader at T=0 is our choice, no paper's
    paper = dataclasses.replace(registry.get("discobench").paper, grader_sampling=True)
    _swapped(monkeypatch, "discobench", paper=paper)
    assert list(sampling(grader)) == ["grader temperature: 0.7, the paper used 0.0 (paper 003 A.4, line 745)"]

    def refuse(config) -> None:
        raise UsageError("this protocol's harness refuses it")

    _swapped(monkeypatch, "discobench", check_config=refuse)
    db = tmp_path / "x.db"
    assert main(["run", "--benchmark", "discobench", "--agent", "scripted:direct-guess", "--db", str(db)]) == 2
    assert "this protocol's harness refuses it" in capsys.readouterr().err
    assert not db.exists()  # refused before anything played
