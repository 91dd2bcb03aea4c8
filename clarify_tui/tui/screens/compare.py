"""Two sessions side by side, steps aligned by agent action, a verdict over each column.

An *action group* is one agent step with the user, judge and environment steps that
follow it. Groups are aligned on the agent action (kind and text) with difflib, so a
fork's copied prefix lines up row by row and the rows after it show where the two
trajectories part. `verdict_text` is also the verdict line of the ask-versus-guess demo.
"""

from __future__ import annotations

import difflib

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Header, Static

from clarify_tui.models import ActionKind, Session, Step
from clarify_tui.protocols import registry
from clarify_tui.results import CTSResult
from clarify_tui.trajectory import action_groups
from clarify_tui.tui.screens.back import back_bindings, back_enabled, go_back
from clarify_tui.tui.widgets.footer import Footer
from clarify_tui.tui.widgets.step_card import render_step


def _key(group: list[Step]) -> tuple[str, str]:
    head = group[0]
    return head.action.kind.value, " ".join(head.action.summary().split()).casefold()


def align(a: list[list[Step]], b: list[list[Step]]) -> list[tuple[list[Step] | None, list[Step] | None, bool]]:
    """Rows of (group of A, group of B, same action?); None where one side has no match."""
    matcher = difflib.SequenceMatcher(None, [_key(g) for g in a], [_key(g) for g in b], autojunk=False)
    rows: list[tuple[list[Step] | None, list[Step] | None, bool]] = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            rows += [(a[i], b[j], True) for i, j in zip(range(i1, i2), range(j1, j2))]
            continue
        left, right = a[i1:i2], b[j1:j2]
        for k in range(max(len(left), len(right))):
            rows.append((left[k] if k < len(left) else None, right[k] if k < len(right) else None, False))
    return rows


def verdict_parts(session: Session, steps: list[Step]) -> dict:
    """answer, correct (or restore score), asks, searches and tokens of one session."""
    r = session.result
    agent = [s for s in steps if s.actor == "agent"]
    asks = sum(1 for s in agent if s.action.kind == ActionKind.ask)
    asks += sum(len(s.action.items) for s in agent if s.action.kind == ActionKind.clarify)
    return {
        "answer": r.answer,
        "correct": r.correct,
        "restore_score": r.restore_score if isinstance(r, CTSResult) else None,
        "asks": asks,
        "searches": sum(1 for s in agent if s.action.kind == ActionKind.search),
        "tokens": sum(s.tokens_in + s.tokens_out for s in steps),
        "status": session.status,
    }


def verdict_text(session: Session, steps: list[Step]) -> Text:
    """One line: answer · correct or not (CTS: restore score) · asks · searches · tokens."""
    v = verdict_parts(session, steps)
    text = Text()
    if v["status"] != "completed":
        text.append(f"{v['status']} ", style="bold red" if v["status"] == "errored" else "bold yellow")
    if registry.get(session.protocol).graded_by == "nuggets":
        if v["restore_score"] is not None:
            score = v["restore_score"]
            text.append(f"restore {score:.1f}/100", style="bold green" if score >= 100 else "bold yellow")
    else:
        answer = v["answer"]
        text.append("answer ", style="dim")
        text.append(f'"{answer}"' if answer is not None else "none", style="bold")
        if v["correct"] is not None:
            text.append(
                "  ✓ correct" if v["correct"] else "  ✗ wrong", style="bold green" if v["correct"] else "bold red"
            )
    text.append(f" · {v['asks']} ask{'s' if v['asks'] != 1 else ''}")
    text.append(f" · {v['searches']} search{'es' if v['searches'] != 1 else ''}")
    text.append(f" · {v['tokens']} tokens", style="dim")
    return text


def session_title(session: Session) -> Text:
    text = Text()
    text.append(session.id, style="bold")
    text.append(f"  {session.agent}", style="cyan")
    text.append(f"  run {session.run}", style="dim")
    if session.parent_id:
        text.append(f"  fork of {session.parent_id} @{session.fork_step}", style="magenta")
    return text


def render_group(group: list[Step] | None):
    if group is None:
        return Text("—", style="dim")
    return Group(*(render_step(s, reveal=True, after=group[i + 1 :]) for i, s in enumerate(group)))


class CompareScreen(Screen):
    """Session A | session B."""

    BINDINGS = [
        Binding("x", "swap", "Swap", id="compare-swap", tooltip="swap the two columns"),
        *back_bindings("compare"),
    ]

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        allowed = back_enabled(self, action)
        return True if allowed is None else allowed

    def __init__(self, store, session_a: str, session_b: str, *, at_divider: bool = False) -> None:
        super().__init__()
        self.store = store
        self.ids = [store.session(session_a).id, store.session(session_b).id]
        self.at_divider = at_divider  # open scrolled to where the trajectories part (what-if forks)

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="compare-heads"):
            for side in ("a", "b"):
                with Vertical(classes="compare-head"):
                    yield Static(id=f"compare-title-{side}")
                    yield Static(id=f"compare-verdict-{side}", classes="verdict")
        yield VerticalScroll(id="compare-rows")
        yield Footer()

    def on_mount(self) -> None:
        self.show()

    def show(self) -> None:
        sessions = [self.store.session(i) for i in self.ids]
        steps = [self.store.steps(i) for i in self.ids]
        self.title = f"compare · {sessions[0].task_id}"
        if sessions[0].task_id != sessions[1].task_id:
            self.notify("The two sessions are on different tasks.", severity="warning")
        for side, session, st in zip(("a", "b"), sessions, steps):
            self.query_one(f"#compare-title-{side}", Static).update(session_title(session))
            self.query_one(f"#compare-verdict-{side}", Static).update(verdict_text(session, st))
        rows = align(action_groups(steps[0]), action_groups(steps[1]))
        self.rows = rows
        container = self.query_one("#compare-rows", VerticalScroll)
        container.remove_children()
        widgets: list[Widget] = []
        diverged = False
        for n, (left, right, same) in enumerate(rows, 1):
            classes = "compare-row " + ("same" if same else "differs")
            if not same and not diverged:
                diverged = True
                widgets.append(Static(f"── the trajectories part here (action {n}) ──", classes="compare-divider"))
            widgets.append(
                Horizontal(
                    Static(render_group(left), classes="compare-cell"),
                    Static(render_group(right), classes="compare-cell"),
                    classes=classes,
                )
            )
        if not rows:
            widgets.append(Static("Neither session has steps.", classes="hint"))
        container.mount_all(widgets)
        divider = next((w for w in widgets if w.has_class("compare-divider")), None)
        if self.at_divider and divider is not None:
            self.call_after_refresh(container.scroll_to_widget, divider, animate=False, top=True)

    def action_swap(self) -> None:
        self.ids.reverse()
        self.show()

    def action_back(self) -> None:
        go_back(self)

    def action_back_quits(self) -> None:
        self.app.exit()
