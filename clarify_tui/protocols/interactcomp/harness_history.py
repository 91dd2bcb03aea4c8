"""The reference InteractComp harness's `history` text, parsed and rendered.

The harness (FoundationAgents/InteractComp, `LinearMemory.to_text`) renders the agent's
memory as one block per round:

    [Round 1]
    User: <question>                      (first round only; may span lines)
        Action: search (query: <text>)
    Observation: <text, may span lines>
    [Round 2]
        Action: answer (answer: <text>, confidence: <text>)
    Observation: {'answer': '<text>', 'confidence': '<text>'}

Action properties are rendered as `key: value` joined by ", " with no quoting, so a
value may itself contain ", " or ": "; the parser splits only at the property names the
harness's actions have (search: query; ask, ask_NL: question; answer: answer,
confidence), and only at the first occurrence of each. A round whose agent never acted
(the task was skipped in round 1) renders as `    Action:  ()` with an empty
observation. A block header is a line `[Round N]` with the next expected N followed by a
`User:` or `Action:` line, so an observation quoting "[Round 3]" stays an observation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# The error of a session imported from a harness row that raised (predicted_answer and
# history `Error`); the interactcomp-csv exporter writes such a session back as `Error`.
ERRORED_MESSAGE = (
    "the reference harness raised on this task (predicted_answer and history 'Error'); "
    "imported as errored, not as a wrong answer"
)

ACTION_KEYS: dict[str, tuple[str, ...]] = {
    "search": ("query",),
    "ask": ("question",),
    "ask_NL": ("question",),
    "answer": ("answer", "confidence"),
}
_ACTION = re.compile(r"Action:[ ]?(?P<name>[^\s(]*)[ ]?\((?P<props>.*)\)\s*\Z", re.DOTALL)


class HistoryError(ValueError):
    """The history text is not in the harness's [Round N] / Action / Observation form."""


@dataclass
class HarnessRound:
    number: int
    name: str  # "" when the round holds no action
    props: dict[str, str] = field(default_factory=dict)
    observation: str = ""
    action_text: str = ""  # the raw "Action: ..." text


def _is_header(lines: list[str], i: int, number: int) -> bool:
    if lines[i].strip() != f"[Round {number}]":
        return False
    if i + 1 >= len(lines):
        return False
    following = lines[i + 1]
    return following.startswith("User:") or following.lstrip().startswith("Action:")


def split_props(name: str, props: str) -> dict[str, str]:
    """`key: value, key: value` -> dict, splitting only at the action's own property names.

    The harness's final round records whatever the model emitted under the name `answer`
    (agent.py:137-146): `Action: answer (query: more)` / `Observation: No Answer` is a
    final-round non-answer, so an `answer` whose properties are not the answer's own is
    read with any property names."""
    if not props.strip():
        return {}
    keys = ACTION_KEYS.get(name)
    if name == "answer" and not re.match(r"(?:answer|confidence): ?", props):
        keys = None
    key_pattern = "|".join(re.escape(k) for k in keys) if keys else r"[A-Za-z_]\w*"
    cuts: list[tuple[int, int, str]] = []  # (start of separator, start of value, key)
    seen: set[str] = set()
    for m in re.finditer(rf"(?:^|, )({key_pattern}): ?", props):
        key = m.group(1)
        if key in seen:
            continue
        if not cuts and m.start() != 0:
            break
        seen.add(key)
        cuts.append((m.start(), m.end(), key))
    if not cuts or cuts[0][0] != 0:
        raise HistoryError(f"cannot read the properties of action '{name}': ({props})")
    out: dict[str, str] = {}
    for i, (_, value_start, key) in enumerate(cuts):
        end = cuts[i + 1][0] if i + 1 < len(cuts) else len(props)
        out[key] = props[value_start:end]
    return out


def parse_action_text(text: str) -> tuple[str, dict[str, str]] | None:
    """(name, props) of one `Action: name (key: value)` line; None when it is not one."""
    m = _ACTION.match(text.strip())
    if m is None:
        return None
    try:
        return m.group("name"), split_props(m.group("name"), m.group("props"))
    except HistoryError:
        return None


def parse_history(text: str) -> tuple[str | None, list[HarnessRound]]:
    """(the User: text of round 1, the rounds). Raises HistoryError naming what is wrong."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if not lines or not _is_header(lines, 0, 1):
        raise HistoryError("does not start with a '[Round 1]' block")
    blocks: list[list[str]] = []
    number = 1
    for i, line in enumerate(lines):
        if _is_header(lines, i, number):
            blocks.append([])
            number += 1
        else:
            blocks[-1].append(line)
    user: str | None = None
    rounds: list[HarnessRound] = []
    for n, block in enumerate(blocks, start=1):
        action_at = next((i for i, text in enumerate(block) if text.lstrip().startswith("Action:")), None)
        if action_at is None:
            raise HistoryError(f"round {n} has no 'Action:' line")
        if action_at > 0:
            if not block[0].startswith("User:"):
                raise HistoryError(f"round {n}: unexpected text before 'Action:': {block[0][:60]!r}")
            user_text = "\n".join(block[:action_at])
            user = user_text[len("User:") :].removeprefix(" ")
        obs_at = next((i for i in range(action_at, len(block)) if block[i].startswith("Observation:")), None)
        if obs_at is None:
            raise HistoryError(f"round {n} has no 'Observation:' line")
        action_text = "\n".join(block[action_at:obs_at]).lstrip()
        m = _ACTION.match(action_text)
        if m is None:
            raise HistoryError(f"round {n}: cannot read the action line: {action_text[:80]!r}")
        name = m.group("name")
        props = split_props(name, m.group("props")) if name else {}
        observation = "\n".join(block[obs_at:])[len("Observation:") :].removeprefix(" ")
        rounds.append(HarnessRound(n, name, props, observation, action_text))
    return user, rounds


def render_round(number: int, name: str, props: dict[str, str], observation: str, user: str | None) -> str:
    lines = [f"[Round {number}]"]
    if user is not None:
        lines.append(f"User: {user}")
    prop_str = ", ".join(f"{k}: {v}" for k, v in props.items())
    lines.append(f"    Action: {name} ({prop_str})")
    lines.append(f"Observation: {observation}")
    return "\n".join(lines)


def render_history(question: str, rounds: list[tuple[str, dict[str, str], str]]) -> str:
    """The harness's text for (name, props, observation) rounds; none -> the skipped form."""
    if not rounds:
        return render_round(1, "", {}, "", question)
    return "\n".join(
        render_round(i, name, props, obs, question if i == 1 else None)
        for i, (name, props, obs) in enumerate(rounds, start=1)
    )
