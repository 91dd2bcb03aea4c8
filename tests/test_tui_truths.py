"""Small truths a person reads at 80×24 (issue 30): an answer's icon follows its verdict,
counts are singular when they are one, every key listed under `?` does something or
says why not, and `?` and the command palette start from the screen in front."""

from __future__ import annotations

import re

import pytest

from clarify_tui.models import EpisodeConfig
from clarify_tui.search.local import LocalSearch
from clarify_tui.store import Store
from clarify_tui.tui.app import ClarifyApp
from clarify_tui.tui.browse import BrowseApp
from clarify_tui.tui.messages import AgentTurnStarted, SessionEnded
from tests.conftest import CTS, DISCO, DOCS, IC
from tests.test_tui import Messages, settle, type_text

SMALL = (80, 24)
RIGHT, WRONG, UNJUDGED = "✅", "❌", "📝"  # glyphs.EMOJI: right, wrong, not judged (yet)


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "truths.db")
    yield s
    s.close()


def shown(app) -> str:
    """The terminal's text, as a person reads it (the screen in front, dialogs included)."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def notes(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


def answer_lines(text: str) -> list[str]:
    """The head lines of the agent's answer cards."""
    return [line for line in text.splitlines() if re.search(r"#\d+\s+agent\s+\S+ answer ", line)]


def play_app(store, **kwargs) -> ClarifyApp:
    return ClarifyApp(tasks=[IC, DISCO, CTS], store=store, search=LocalSearch(DOCS), **kwargs)


# ---- an answer's icon ------------------------------------------------------------------


async def test_answer_icons_follow_the_verdict_in_replay_checkpoints_included(store):
    """A stored DiscoBench session: a wrong checkpoint answer and a wrong final answer are
    drawn wrong (the final verdict is the judge step's: the answer step holds none)."""
    hook = Messages()
    app = play_app(store, task_id="d1", as_="agent")
    async with app.run_test(size=SMALL, message_hook=hook) as pilot:
        await hook.next(AgentTurnStarted)
        for answer in ("My Time at Portia", "Focus Entertainment"):  # CP1 wrong, final right
            await pilot.press("enter")
            await type_text(pilot, answer)
            await pilot.press("enter")
            await hook.next(AgentTurnStarted if answer == "My Time at Portia" else SessionEnded)
        sid = app.screen.driver.session.id
    app = BrowseApp(store, start="replay", session_id=sid)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("home")
        await pilot.pause()
        lines = answer_lines(shown(app))
    assert len(lines) == 2, lines
    assert WRONG in lines[0] and "Portia" in lines[0] and RIGHT not in lines[0]
    assert RIGHT in lines[1] and "Focus" in lines[1]


async def test_a_human_agents_answer_is_unjudged_until_the_end(store):
    """Playing the agent, a checkpoint answer's verdict is hidden: its card may not say right."""
    hook = Messages()
    app = play_app(store, task_id="d1", as_="agent")
    async with app.run_test(size=SMALL, message_hook=hook) as pilot:
        await hook.next(AgentTurnStarted)
        await pilot.press("enter")
        await type_text(pilot, "My Time at Portia")
        await pilot.press("enter")
        await hook.next(AgentTurnStarted)
        await pilot.pause()
        lines = answer_lines(shown(app))
        assert len(lines) == 1 and UNJUDGED in lines[0], lines
        assert RIGHT not in lines[0] and WRONG not in lines[0]
        await pilot.press("enter")
        await type_text(pilot, "Team17")
        await pilot.press("enter")
        await hook.next(SessionEnded)
        await pilot.pause()
        lines = answer_lines(shown(app))
    assert [WRONG in line for line in lines] == [True, True], lines


# ---- counts ----------------------------------------------------------------------------


async def test_one_is_singular_on_the_play_status_line_and_in_the_sessions_list(store):
    app = play_app(store, task_id="i1", run_mode="step")
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("space")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert len(app.screen.driver.steps) == 1
        text = shown(app)
        assert "1 step ·" in text and "1 steps" not in text, text
        await pilot.press("q")
        await pilot.pause()
        await pilot.press("f2")
        await settle(pilot)
        text = shown(app)
    assert "1 of 1 session ·" in text and "1 sessions" not in text, text


# ---- the what-if hint ------------------------------------------------------------------


@pytest.fixture
def one_run_db(tmp_path):
    """A database (not the default one) with one InteractComp session, run `one`."""
    from clarify_tui.cli import main

    path = tmp_path / "one.db"
    assert main(["run", "--db", str(path), "--benchmark", "interactcomp", "--agent", "scripted:direct-guess",
                 "--limit", "1", "--run", "one"]) == 0
    return path


async def test_the_whatif_hint_names_the_database_it_was_opened_with(one_run_db):
    store = Store(one_run_db)
    session = store.sessions()[0]
    app = BrowseApp(store, start="replay", session_id=session.id)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("i")
        await pilot.pause()
        text = " ".join(shown(app).split())
    store.close()
    assert "clarify-tui whatif --run one --sessions all" in text and f"--db {one_run_db}" in text, text


# ---- c in a CTS game -------------------------------------------------------------------


async def test_c_on_the_clarify_form_that_opened_by_itself_is_not_typed(store):
    """The action bar reads "c clarify" over the form that opened by itself: c is taken
    as meant (the form is open), not typed into question 1; what follows is typed."""
    hook = Messages()
    app = play_app(store, task_id="c1", as_="agent", config=EpisodeConfig(k=1))
    async with app.run_test(size=SMALL, message_hook=hook) as pilot:
        await hook.next(AgentTurnStarted)
        await pilot.pause()
        await pilot.press("c")
        await pilot.pause()
        assert "question 1" in shown(app)  # the field's placeholder: nothing typed
        assert any("The form is open" in n for n in notes(app)), notes(app)
        await pilot.press(*"can")
        await pilot.pause()
        assert " can " in shown(app)
        await pilot.press("enter")
        await hook.next(AgentTurnStarted)
        sid = app.screen.driver.session.id
    assert store.steps(sid)[0].action.items == ["can"]


# ---- ? starts with the screen's own keys ------------------------------------------------


def first_section(app) -> str:
    """The first section title the help dialog draws (the line after its own title)."""
    bordered = "█" in shown(app)  # the workbench draws help as a dialog over the screen; BrowseApp full screen
    inside = [line[line.find("█") + 1:line.rfind("█")] if bordered else line for line in shown(app).splitlines()
              if line.count("█") >= 2 or not bordered]
    lines = [" ".join(line.strip("▁▂▃▄▅▆▇▀▄ ").split()) for line in inside]
    start = next(i for i, line in enumerate(lines) if "clarify-tui — keys" in line)
    return next(line for line in lines[start + 1:] if line)


async def test_question_mark_lists_the_screens_own_keys_first(store, one_run_db):
    app = play_app(store, task_id="i1", run_mode="step")
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        assert first_section(app) == "Step mode · this screen"
        await pilot.press("escape", "m", "question_mark")  # watch mode: its keys first
        await pilot.pause()
        assert first_section(app) == "Watch mode · this screen"
        await pilot.press("escape", "q", "question_mark")
        await pilot.pause()
        assert first_section(app) == "Task picker · this screen"
    replay_store = Store(one_run_db)
    app = BrowseApp(replay_store, start="replay", session_id=replay_store.sessions()[0].id)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        assert first_section(app) == "Replay and fork · this screen"
        text = shown(app)
    replay_store.close()
    assert "one step back" in text  # its keys right below the title, in view at 80×24


# ---- the command palette on every screen --------------------------------------------------


async def test_the_demos_palette_has_the_apps_and_the_screens_commands(tmp_path):
    """ctrl+p in `clarify-tui demo ask-vs-guess` offered Textual's commands only."""
    from clarify_tui.commands.demo import pick_task

    store = Store(tmp_path / "avg.db")
    app = BrowseApp(store, start="ask-vs-guess", task=pick_task(None), pace=0)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await pilot.pause()
        listed = shown(app)
        await type_text(pilot, "scores")
        await pilot.pause(0.2)  # the palette searches in a worker
        await pilot.press("enter")
        await settle(pilot)
        opened = type(app.screen).__name__
    store.close()
    for name in ("Compare", "Again", "Sessions", "Scores", "Help"):
        assert name in listed, listed
    assert opened == "ScoresScreen"


async def test_the_demos_keys_before_the_end_say_why(tmp_path):
    from clarify_tui.commands.demo import pick_task

    store = Store(tmp_path / "avg.db")
    app = BrowseApp(store, start="ask-vs-guess", task=pick_task(None), pace=600)  # never ends in the test
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        await pilot.press("c", "r")
        await pilot.pause()
        said = notes(app)
        assert type(app.screen).__name__ == "AskVsGuessScreen"
    store.close()
    assert sum("still playing" in n for n in said) == 2, said
