"""The Textual workbench driven through Pilot: what each mode saves, the barrier in
play-the-agent mode, mode switching, cancelling a slow backend, the task picker."""

from __future__ import annotations

import asyncio

import pytest

from clarify_tui.models import ActionKind, EpisodeConfig
from clarify_tui.search.base import SearchResult
from clarify_tui.search.local import LocalSearch
from clarify_tui.store import Store
from clarify_tui.tui.app import ClarifyApp
from clarify_tui.tui.messages import AgentTurnStarted, ReplyRequested, SessionEnded
from clarify_tui.tui.screens.play import PlayScreen
from clarify_tui.tui.widgets.hidden import HiddenPanel
from clarify_tui.tui.widgets.reply_box import ReplyBox
from tests.conftest import CTS, DISCO, DOCS, IC

SIZE = (160, 45)


class Messages:
    """A message_hook that lets a test await the next message of a type (no polling).
    Each `next` consumes messages in order, so one that arrived early is not missed."""

    def __init__(self) -> None:
        self.seen: list = []
        self.cursor = 0
        self._waiter: tuple[type, asyncio.Future] | None = None

    def __call__(self, message) -> None:
        self.seen.append(message)
        if self._waiter and isinstance(message, self._waiter[0]) and not self._waiter[1].done():
            self._waiter[1].set_result(len(self.seen) - 1)

    async def next(self, cls: type, timeout: float = 5.0):
        for i in range(self.cursor, len(self.seen)):
            if isinstance(self.seen[i], cls):
                self.cursor = i + 1
                return self.seen[i]
        fut = asyncio.get_running_loop().create_future()
        self._waiter = (cls, fut)
        try:
            index = await asyncio.wait_for(fut, timeout)
        finally:
            self._waiter = None
        self.cursor = index + 1
        return self.seen[index]


@pytest.fixture
def store(tmp_path):
    return Store(tmp_path / "tui.db")


@pytest.fixture(scope="module")
def search():
    return LocalSearch(DOCS)


def make_app(store, search, **kwargs) -> ClarifyApp:
    kwargs.setdefault("tasks", [IC, DISCO, CTS])
    return ClarifyApp(store=store, search=search, **kwargs)


async def type_text(pilot, text: str) -> None:
    """Type into the focused input at once (pressing each key is slow in tests)."""
    await pilot.pause()
    pilot.app.focused.insert_text_at_cursor(text)


async def settle(pilot) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def _plain(visual) -> str:
    from rich.console import Console

    visual = getattr(visual, "_renderable", visual)  # a RichVisual wraps a Rich renderable
    if hasattr(visual, "plain"):
        return visual.plain
    if isinstance(visual, str):
        return visual
    console = Console(width=1000, record=True, file=open("/dev/null", "w"))
    try:
        console.print(visual)
    except Exception:  # textual-only visuals (Blank etc.) carry no text
        return ""
    return console.export_text()


def rendered_text(screen) -> str:
    """Every widget's rendered text (and every input's value) on the screen, scrolled out or not."""
    parts = [str(screen.title or "")]
    for widget in screen.query("*"):
        parts.append(_plain(widget.render()))
        if hasattr(widget, "card_text"):  # the trajectory draws its cards line by line
            parts += [widget.card_text(i) for i in widget.shown_indexes]
        if isinstance(getattr(widget, "value", None), str):
            parts.append(widget.value)
    return "\n".join(parts)


def assert_barrier(screen, task) -> None:
    text = rendered_text(screen).casefold()
    leaked = [h for h in task.hidden_strings() if h.casefold() in text]
    assert not leaked, f"hidden strings on screen: {leaked}"


# ---- task picker ---------------------------------------------------------------------


async def test_picker_filters_by_text_and_opens_the_task(store, search):
    app = make_app(store, search, run_mode="step")
    async with app.run_test(size=SIZE) as pilot:
        picker = app.picker
        assert [t.id for t in picker.shown] == ["i1", "d1", "c1"]
        await pilot.press("slash")
        await type_text(pilot, "matcha")
        await pilot.press("enter")
        assert [t.id for t in picker.shown] == ["c1"]
        await pilot.press("enter")
        assert isinstance(app.screen, PlayScreen) and app.screen.task_.id == "c1"
        await pilot.press("q")
        assert app.screen is picker


# ---- watch and step (observer) ---------------------------------------------------------


async def test_watch_mode_runs_the_agent_to_the_end_and_saves_an_automated_session(store, search):
    app = make_app(store, search, task_id="i1")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        screen.pace = 0
        await settle(pilot)
        assert screen.driver.done
        session = store.session(screen.driver.session.id)
    assert session.status == "completed" and session.mode == "automated"
    assert session.result.answer == "Sapporo TV Tower"
    saved = store.steps(session.id)
    assert [s.actor for s in saved][-1] == "judge" and len(saved) == len(screen.driver.steps)


async def test_step_mode_runs_nothing_until_asked_then_records_a_stepped_session(store, search):
    app = make_app(store, search, task_id="i1", run_mode="step")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        driver = screen.driver
        await pilot.press("space")
        await settle(pilot)
        assert driver.pending is not None and driver.pending.kind == ActionKind.search
        assert driver.steps == []  # proposed, not applied
        await pilot.press("enter")
        await settle(pilot)
        assert [s.action.kind for s in driver.steps] == [ActionKind.search] and driver.pending is None
        # replace the agent's next action with one we type
        await pilot.press("r", "k")
        await type_text(pilot, "Is it Tokyo Tower?")
        await pilot.press("enter")
        await pilot.pause()
        assert driver.pending.kind == ActionKind.ask and driver.pending.text == "Is it Tokyo Tower?"
        await pilot.press("enter")
        await settle(pilot)
        # edit the next proposal before applying it
        await pilot.press("space")
        await settle(pilot)
        await pilot.press("e")
        await pilot.pause()
        field = app.screen.query("Input").first()
        field.value = "Sapporo TV Tower"
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("enter")
        await settle(pilot)
        sid = driver.session.id
    saved = store.steps(sid)
    assert [(s.actor, s.action.kind.value) for s in saved[:3]] == [
        ("agent", "search"),
        ("agent", "ask"),
        ("user", "reply"),
    ]
    assert saved[1].action.text == "Is it Tokyo Tower?" and saved[2].action.text == "no"
    session = store.session(sid)
    assert session.mode == "stepped" and "edited or replaced steps" in (session.note or "")


async def test_switching_from_step_to_watch_runs_on_and_back_to_step_stops(store, search):
    app = make_app(store, search, task_id="d1", run_mode="step")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        screen.pace = 0
        await pilot.press("space")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert len(screen.driver.steps) >= 1 and not screen.driver.done
        await pilot.press("m")  # to watch: the agent runs by itself to the end
        assert screen.run_mode == "watch"
        await settle(pilot)
        assert screen.driver.done
        await pilot.press("m")  # the session is over: m says so instead of switching in silence
        await pilot.pause()
        assert screen.run_mode == "watch"
        assert any("The session is over" in str(n.message) for n in app._notifications)
        session = store.session(screen.driver.session.id)
    assert session.mode == "stepped" and session.status == "completed"


async def test_escape_cancels_a_slow_search_and_leaves_the_session_unchanged(store, search):
    class SlowSearch:
        spec = "test:slow"

        async def search(self, query, max_results=5):
            await asyncio.sleep(30)
            return SearchResult(query=query)

        async def visit(self, url):
            return None

    app = make_app(store, SlowSearch(), task_id="i1", run_mode="step")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await pilot.press("space")
        await settle(pilot)
        await pilot.press("enter")
        await pilot.pause(0.05)
        assert screen.busy  # the spinner is up; the screen still takes keys
        await pilot.press("escape")
        await settle(pilot)
        ep = screen.driver.episode
        assert ep.steps == [] and ep.rounds_used == 0 and ep.rules.state.searches == 0
        assert not ep.done and screen.busy is None
        assert store.session(ep.session.id).status == "running"


async def test_a_failing_backend_is_reported_once_by_the_app_and_stops_auto_run(store, search):
    """A worker's error reaches the app's one handler (a toast titled by what failed);
    the play screen also stops running the agent by itself."""

    class BrokenSearch:
        spec = "test:broken"

        async def search(self, query, max_results=5):
            raise RuntimeError("search index unreadable")

        async def visit(self, url):
            return None

    app = make_app(store, BrokenSearch(), task_id="i1", run_mode="step")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await pilot.press("space")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        toasts = [(n.title, n.message) for n in app._notifications]
        assert toasts.count(("backend failed", "RuntimeError: search index unreadable")) == 1
        assert not screen.auto and screen.driver.session.status == "errored"


# ---- play the user ---------------------------------------------------------------------


async def test_play_the_user_interactcomp_accepts_only_yes_no_idk(store, search):
    hook = Messages()
    app = make_app(store, search, task_id="i1", as_="user")
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        screen = app.screen
        screen.pace = 0
        await hook.next(ReplyRequested)
        await pilot.pause()
        box = screen.query_one(ReplyBox)
        assert box.has_focus and "Is it Tokyo Tower?" in rendered_text(screen)
        await pilot.press("x", "z")  # nothing else is accepted
        assert screen.driver.episode.user.pending is not None
        await pilot.press("n")
        await hook.next(ReplyRequested)
        await pilot.pause()
        await pilot.press("y")
        await hook.next(SessionEnded)
        await pilot.pause()
        sid = screen.driver.session.id
    saved = store.steps(sid)
    assert [s.action.text for s in saved if s.actor == "user"] == ["no", "yes"]
    session = store.session(sid)
    assert session.mode == "human_user" and session.user == "human" and session.result.correct


async def test_play_the_user_discobench_releases_the_clue_with_one_key(store, search):
    hook = Messages()
    app = make_app(store, search, task_id="d1", as_="user")
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        app.screen.pace = 0
        request = (await hook.next(ReplyRequested)).request
        await pilot.pause()
        assert request.asked_right and request.clue == DISCO.discobench.checkpoints[0].clue
        await pilot.press("c")
        await hook.next(SessionEnded)
        sid = app.screen.driver.session.id
    saved = store.steps(sid)
    [reply] = [s for s in saved if s.actor == "user"]
    assert reply.action.text == DISCO.discobench.checkpoints[0].clue and reply.observation.data["released_clue"]
    assert store.session(sid).result.checkpoints[0].clue_released


async def test_play_the_user_cts_types_an_answer_or_u_for_unknown(store, search):
    hook = Messages()
    app = make_app(store, search, task_id="c1", as_="user", config=EpisodeConfig(k=2))
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        app.screen.pace = 0
        await hook.next(ReplyRequested)
        await pilot.pause()
        await pilot.press("U", "j")  # typing starts a reply; enter sends
        await type_text(pilot, "i matcha")
        await pilot.press("enter")
        await hook.next(ReplyRequested)
        await pilot.pause()
        await pilot.press("u")
        await hook.next(SessionEnded)
        sid = app.screen.driver.session.id
    session = store.session(sid)
    assert session.result.answers == ["Uji matcha", "unknown"] and session.mode == "human_user"


# ---- play the agent --------------------------------------------------------------------


async def test_play_the_agent_interactcomp_keeps_the_barrier_and_records_time(store, search):
    hook = Messages()
    app = make_app(store, search, task_id="i1", as_="agent")
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        screen = app.screen
        await hook.next(AgentTurnStarted)
        await pilot.pause()
        assert_barrier(screen, IC)
        await pilot.press("h")  # the hidden panel stays locked
        assert screen.query_one(HiddenPanel).has_class("locked")
        await pilot.press("k")
        await type_text(pilot, "Is it Tokyo Tower?")
        await pilot.press("enter")
        await hook.next(AgentTurnStarted)
        await pilot.pause()
        assert_barrier(screen, IC)
        assert "no" in rendered_text(screen)
        await pilot.press("enter")
        await type_text(pilot, "Sapporo TV Tower")
        await pilot.press("enter", "8", "0", "enter")
        await hook.next(SessionEnded)
        await pilot.pause()
        assert not screen.query_one(HiddenPanel).has_class("locked")
        assert IC.interactcomp.context in rendered_text(screen)  # opened at the end
        sid = screen.driver.session.id
    session = store.session(sid)
    assert session.mode == "human_agent" and session.agent == "human"
    assert session.result.correct and session.result.confidence == 80
    agent_steps = [s for s in store.steps(sid) if s.actor == "agent"]
    assert [s.action.kind.value for s in agent_steps] == ["ask", "answer"]
    assert all(s.latency_ms > 0 for s in agent_steps)


async def test_play_the_agent_discobench_hides_judge_steps_and_checkpoints_until_the_end(store, search):
    hook = Messages()
    app = make_app(store, search, task_id="d1", as_="agent")
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        screen = app.screen
        await hook.next(AgentTurnStarted)
        await pilot.press("k")
        await type_text(pilot, "Which one do you mean?")
        await pilot.press("enter")
        await hook.next(AgentTurnStarted)
        await pilot.pause()
        assert any(s.actor == "judge" for s in screen.driver.steps)
        assert "ask does not target" not in rendered_text(screen)
        assert "details hidden" in rendered_text(screen)
        assert_barrier(screen, DISCO)
        await pilot.press("enter")
        await type_text(pilot, "Team17")
        await pilot.press("enter")
        # a wrong CP1 answer: checkpoint 2 is current and nothing says CP1 failed (paper 000
        # appendix I case 1, line 477: "no local indication of the upstream error")
        await hook.next(AgentTurnStarted)
        await pilot.pause()
        text = rendered_text(screen)
        assert "checkpoint 2 of 2" in text and "checkpoint 1 failed" not in text and "wrong" not in text
        await pilot.press("enter")
        await type_text(pilot, "Team17")
        await pilot.press("enter")
        await hook.next(SessionEnded)
        await pilot.pause()
        text = rendered_text(screen)
        assert "ask does not target" in text and "wrong" in text
        sid = screen.driver.session.id
    assert store.session(sid).mode == "human_agent"


async def test_play_the_agent_cts_types_k_questions_then_searches_and_answers(store, search):
    hook = Messages()
    app = make_app(store, search, task_id="c1", as_="agent", config=EpisodeConfig(k=2))
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        screen = app.screen
        await hook.next(AgentTurnStarted)
        await pilot.pause()
        assert_barrier(screen, CTS)
        # the clarify form opens by itself: two questions
        await type_text(pilot, "Which year do you mean?")
        await pilot.press("enter")
        await type_text(pilot, "Which brand or region?")
        await pilot.press("enter")
        await hook.next(AgentTurnStarted)
        await pilot.pause()
        assert_barrier(screen, CTS)
        await pilot.press("s")
        await type_text(pilot, "Uji matcha 2023")
        await pilot.press("enter")
        await hook.next(AgentTurnStarted)
        await pilot.press("enter")
        await type_text(pilot, "Uji matcha prices rose 20 percent in 2023 after a poor harvest")
        await pilot.press("enter")
        await hook.next(SessionEnded)
        sid = screen.driver.session.id
    session = store.session(sid)
    assert session.result.questions == ["Which year do you mean?", "Which brand or region?"]
    assert session.result.answers[0] == "2023" and session.result.restore_score > 0
    assert session.mode == "human_agent"


async def test_play_the_agent_cts_with_no_questions_is_the_orig_baseline(store, search):
    hook = Messages()
    app = make_app(store, search, task_id="c1", as_="agent")
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await hook.next(AgentTurnStarted)
        await pilot.press("enter")  # empty clarify form: no clarification
        await hook.next(AgentTurnStarted)
        sid = app.screen.driver.session.id
        assert app.screen.driver.episode.rules.state.orig
    assert [s.action.kind.value for s in store.steps(sid)] == ["clarify"]


async def test_palette_offers_the_actions_usable_now(store, search):
    app = make_app(store, search, task_id="i1", run_mode="step")
    async with app.run_test(size=SIZE) as pilot:
        names = [name for name, _, _ in app.screen.palette_actions()]
        assert "Propose" in names and "Apply" not in names
        await pilot.press("space")
        await settle(pilot)
        names = [name for name, _, _ in app.screen.palette_actions()]
        assert "Apply" in names and "Edit" in names and "Search" not in names


async def test_help_screen_opens_with_question_mark(store, search):
    app = make_app(store, search)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")
        assert type(app.screen).__name__ == "HelpScreen"
        await pilot.press("escape")
        assert app.screen is app.picker


def test_help_lists_every_key_of_the_play_screen_and_the_reply_box():
    """The help is generated from the bindings: each key says what its binding says."""
    from clarify_tui.tui.screens.help import help_table, key_text
    from clarify_tui.tui.widgets.reply_box import ReplyBox

    text = _plain(help_table(ClarifyApp.BINDINGS))
    rows = {" ".join(line.split()) for line in text.splitlines()}
    for binding in [*PlayScreen.BINDINGS, *ReplyBox.BINDINGS, *ClarifyApp.BINDINGS]:
        what = binding.tooltip or binding.description
        assert any(row.startswith(key_text(binding)) and " ".join(what.split()[:4]) in row for row in rows), what
    assert "p / ctrl+t" in text and "InteractComp: i don't know" in text
