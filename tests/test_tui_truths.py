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


def drawn_in(app, widget) -> str:
    """The terminal's text within `widget`'s region (not the screen beneath a dialog)."""
    region = widget.region
    lines = shown(app).splitlines()[region.y : region.bottom]
    return "\n".join(line[region.x : region.right] for line in lines)


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
        await pilot.press("q")  # a person's stepped session: q asks first (keep for later, the default)
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
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
    assert (
        main(
            [
                "run",
                "--db",
                str(path),
                "--benchmark",
                "interactcomp",
                "--agent",
                "scripted:direct-guess",
                "--limit",
                "1",
                "--run",
                "one",
            ]
        )
        == 0
    )
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
    assert "clarify-tui whatif --run one --sessions all" in text, text
    # a long temporary path wraps at 80 columns (anywhere in it): read it without the breaks
    assert f"--db{one_run_db}" in "".join(text.split()), text


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
    inside = [
        line[line.find("█") + 1 : line.rfind("█")] if bordered else line
        for line in shown(app).splitlines()
        if line.count("█") >= 2 or not bordered
    ]
    lines = [" ".join(line.strip("▁▂▃▄▅▆▇▀▄ ").split()) for line in inside]  # noqa: B005 (a set of block characters)
    start = next(i for i, line in enumerate(lines) if "clarify-tui — keys" in line)
    return next(line for line in lines[start + 1 :] if line)


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
        found = {}
        for name in ("Compare", "Again", "Sessions", "Help", "Scores"):  # the screen's, then the app's
            app.screen.query_one("CommandInput").value = name.lower()
            for _ in range(100):  # the palette searches in a worker: until its list is drawn
                await pilot.pause(0.02)
                found[name] = drawn_in(app, app.screen.query_one("CommandList"))
                if name in found[name]:
                    break
        await pilot.press("enter")  # Scores, the best match
        await settle(pilot)
        opened = type(app.screen).__name__
    store.close()
    for name, listed in found.items():
        assert name in listed, (name, listed)
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


# ---- no key listed under ? does nothing in silence --------------------------------------


def listed_keys(screen) -> list[str]:
    """The keys of `screen` (as `?` lists them under its sections), as Pilot presses them:
    a play screen's bindings but those of another role's controllers."""
    from clarify_tui.tui.screens.play import OWNER

    mine = getattr(screen, "_controls", None)
    keys = []
    for binding in screen.BINDINGS:
        owner = OWNER.get(binding.action.partition("(")[0])
        if mine is not None and owner is not None and owner not in mine:
            continue
        keys += binding.key.split(",")
    return list(dict.fromkeys(keys))


async def silent_keys(app, pilot, keys: list[str], reset=None, settled: bool = True) -> list[str]:
    """The keys that change nothing drawn and say nothing, each pressed on the screen in
    front (any screen or dialog a key opens is closed again before the next; `reset`, if
    given, puts the screen back as it was). `settled`: wait for the workers after each key
    (not while a person plays the agent: that worker waits for them)."""
    said: list[str] = []
    notify = app.notify
    app.notify = lambda message, **kw: (said.append(str(message)), notify(message, **kw))[1]  # type: ignore
    home = app.screen
    silent = []
    for key in keys:
        before, heard = shown(app), len(said)
        await pilot.press(key)
        await (settle(pilot) if settled else pilot.pause())
        if app.screen is home and shown(app) == before and len(said) == heard:
            silent.append(key)
        while app.screen is not home:
            app.pop_screen()
            await pilot.pause()
        if reset is not None:
            await reset()
    return silent


LEAVES = {"q", "ctrl+q"}  # back or quit: they end the test's screen


async def test_every_replay_key_does_something_or_says_why(one_run_db):
    """At 80×24 at step 0 of a finished session: `left` on step 0, `h` with the hidden
    panel off screen, escape with no fork, s/k/v/enter (a fork's keys) said nothing."""
    store = Store(one_run_db)
    app = BrowseApp(store, start="replay", session_id=store.sessions()[0].id)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("home")
        await pilot.pause()
        keys = [k for k in listed_keys(app.screen) if k not in LEAVES]
        assert {"left", "h", "escape", "s", "enter"} <= set(keys)
        silent = await silent_keys(app, pilot, keys)
    store.close()
    assert silent == []


async def test_every_key_of_a_finished_play_screen_does_something_or_says_why(store):
    """At 80×24, a watched session that has ended: m switched mode unseen, h changed a
    panel off screen, escape cancelled nothing, + at the fastest pace, all in silence."""
    hook = Messages()
    app = play_app(store, task_id="i1")
    async with app.run_test(size=SMALL, message_hook=hook) as pilot:
        app.screen.pace = 0
        await hook.next(SessionEnded)
        await settle(pilot)
        keys = [k for k in listed_keys(app.screen) if k not in LEAVES | {"ctrl+n"}]  # ctrl+n: a note field
        assert {"m", "h", "escape", "plus", "space"} <= set(keys)
        silent = await silent_keys(app, pilot, keys)
    assert silent == []


async def test_h_in_a_persons_live_fork_says_the_panel_stays_locked(one_run_db):
    store = Store(one_run_db)
    session = store.sessions()[0]
    app = BrowseApp(store, start="replay", session_id=session.id)
    async with app.run_test(size=SMALL, message_hook=(hook := Messages())) as pilot:
        app.screen.start_fork(0, "human")
        await hook.next(AgentTurnStarted)
        await pilot.pause()
        app.screen.query_one("#replay-action-bar").close()  # the keys, not a form, have focus
        app.screen.focus()
        await pilot.press("h")
        await pilot.pause()
        said = notes(app)
    store.close()
    assert any("stays locked while you play" in n for n in said), said


@pytest.mark.parametrize("key, screen_name", [("f2", "SessionsScreen"), ("f3", "ScoresScreen")])
async def test_r_with_nothing_new_says_so(store, key, screen_name):
    app = play_app(store, task_id="i1")
    async with app.run_test(size=SMALL, message_hook=(hook := Messages())) as pilot:
        app.screen.pace = 0
        await hook.next(SessionEnded)
        await pilot.press("q")
        await pilot.press(key)
        await settle(pilot)
        assert type(app.screen).__name__ == screen_name
        await pilot.press("r")
        await settle(pilot)
        said = notes(app)
    assert any(n.startswith("Reloaded: 1 session") and "nothing new" in n for n in said), said


async def test_a_campaign_lists_no_f2_or_f3_under_question_mark(tmp_path):
    """They are shut for a campaign's visitors: `?` listed them, and they did nothing;
    now they are not listed, and pressed anyway they say why."""
    from clarify_tui.tui.campaign import CampaignApp
    from tests.test_campaign_claims import TASKS, book

    db = tmp_path / "c.db"
    store = Store(db)
    app = CampaignApp(book(db, n=1), "ana", [TASKS["t00"]], store=store, search=LocalSearch(DOCS))
    async with app.run_test(size=(80, 60), message_hook=(hook := Messages())) as pilot:
        await hook.next(AgentTurnStarted)
        await pilot.pause()
        await pilot.press("f2", "f3")  # shut, unlisted, and still not silent
        await pilot.pause()
        said = notes(app)
        await pilot.press("ctrl+t")  # paused: keys, not the form
        await pilot.press("question_mark")
        await pilot.pause()
        help_text = shown(app)
        while "Everywhere" not in help_text:
            await pilot.press("pagedown")
            help_text += shown(app)
    store.close()
    assert "Everywhere" in help_text and "every stored session" not in help_text
    assert "F2" not in help_text and "F3" not in help_text
    assert sum("Not in a campaign" in n for n in said) == 2, said


@pytest.fixture
def two_run_db(tmp_path):
    """Two sessions of one task: a guess and an ask (compare has two columns that differ)."""
    from clarify_tui.cli import main

    path = tmp_path / "two.db"
    for agent in ("direct-guess", "search-then-ask"):
        assert (
            main(
                [
                    "run",
                    "--db",
                    str(path),
                    "--benchmark",
                    "interactcomp",
                    "--agent",
                    f"scripted:{agent}",
                    "--limit",
                    "1",
                    "--run",
                    agent,
                ]
            )
            == 0
        )
    return path


@pytest.mark.parametrize("start", ["sessions", "scores", "compare", "whatif", "picker"])
async def test_every_key_of_the_browsing_screens_does_something_or_says_why(two_run_db, start):
    store = Store(two_run_db)
    a, b = (s.id for s in store.sessions())
    if start == "picker":
        app = play_app(store)
    elif start == "whatif":
        app = BrowseApp(store, start="replay", session_id=a)
    else:
        app = BrowseApp(store, start=start, session_id=a, other_id=b)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        if start == "whatif":
            await pilot.press("i")
            await settle(pilot)
        keys = [k for k in listed_keys(app.screen) if k not in LEAVES | {"escape"}]
        silent = await silent_keys(app, pilot, keys)
    store.close()
    assert silent == []


@pytest.mark.parametrize("task", ["i1", "d1", "c1"])
async def test_every_key_of_a_person_playing_the_agent_does_something_or_says_why(store, task):
    """In turn, each key listed under ? for the agent (one at a time: a form a key opens
    is closed, a paused clock resumed, before the next)."""
    from clarify_tui.tui.screens.play_human import TaskClockControls
    from clarify_tui.tui.widgets.action_bar import ActionBar

    hook = Messages()
    app = play_app(store, task_id=task, as_="agent", config=EpisodeConfig(k=1))
    async with app.run_test(size=SMALL, message_hook=hook) as pilot:
        await hook.next(AgentTurnStarted)
        await pilot.pause()
        screen = app.screen
        screen.query_one(ActionBar).close()  # CTS: the clarify form opened by itself
        screen.focus()

        async def reset() -> None:
            if screen.driver.clock.paused:
                screen.controls_of(TaskClockControls).set_paused(False)
            screen.query_one(ActionBar).close()
            app.set_focus(None)
            await pilot.pause()

        keys = [k for k in listed_keys(screen) if k not in LEAVES | {"ctrl+n"}]
        silent = await silent_keys(app, pilot, keys, reset, settled=False)
    assert silent == []


@pytest.mark.parametrize("task", ["i1", "d1", "c1"])
async def test_every_reply_key_of_a_person_playing_the_user_does_something_or_says_why(store, task):
    """The agent asks; each reply box key listed under ? (another benchmark's too)."""
    from clarify_tui.tui.messages import ReplyRequested
    from clarify_tui.tui.widgets.reply_box import ReplyBox

    hook = Messages()
    app = play_app(store, task_id=task, as_="user", agent_spec="scripted:ask-first", config=EpisodeConfig(k=1))
    async with app.run_test(size=SMALL, message_hook=hook) as pilot:
        app.screen.pace = 0
        await hook.next(ReplyRequested)
        await pilot.pause()
        box = app.screen.query_one(ReplyBox)
        replies = {"i1": "yni", "d1": "c", "c1": "u"}[task]  # they reply: the session moves on
        keys = [k for b in ReplyBox.BINDINGS for k in b.key.split(",") if k not in replies]

        async def reset() -> None:  # a typed letter: the field emptied, the box focused again
            box.query_one("#reply-input").value = ""
            box.focus()
            await pilot.pause()

        silent = await silent_keys(app, pilot, keys, reset, settled=False)
    assert silent == []
