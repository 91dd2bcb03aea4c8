"""The trajectory's own line drawing (`widgets/text_lines.py`) gives exactly the segments
Rich's `Console.render_lines` gives: for every kind of step card, folded and unfolded, at
narrow and wide widths, in every replay mark, and for random texts (random words, spaces,
newlines, wide and zero-width characters, words longer than a line, styles over one
another). Rich stays the reference: if it changes how it wraps, these fail."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.cells import cell_len
from rich.console import Console, Group
from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from clarify_tui.models import Action, ActionKind, Observation, SearchHit, Step
from clarify_tui.tui.widgets import step_card
from clarify_tui.tui.widgets.text_lines import ONE_CELL, render_lines

BASE = Style(color="#e0e0e0", bgcolor="#1e1e1e")
WIDTHS = (1, 9, 20, 37, 80, 155)


def console() -> Console:
    return Console(width=200, color_system="truecolor", force_terminal=True, legacy_windows=False)


def rich_lines(renderables, con: Console, width: int, base: Style):
    return con.render_lines(Group(*renderables), con.options.update_width(width), style=base)


LONG = (
    "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor "
    "incididunt ut labore et dolore magna aliqua. " * 3
)


def every_kind_of_step() -> list[Step]:
    """One step of each kind the card draws differently (as `render_step` branches)."""
    hits = [
        SearchHit(
            title=f"Result {j} “quoted” — café",
            url=f"https://example.org/a/very/long/path/{j}" * (j + 1),
            content=(LONG if j % 2 else "short   spaced\tcontent é 中文 😀") * (j + 1),
            score=5 - j,
        )
        for j in range(5)
    ]
    return [
        Step(
            index=0, actor="agent", action=Action.search("query"), observation=Observation(text="5 results", hits=hits)
        ),
        Step(
            index=1,
            actor="agent",
            action=Action.search("q"),
            observation=Observation(text="Search failed", data={"search_failed": "timeout\n" * 4}),
        ),
        Step(
            index=2,
            actor="agent",
            action=Action.ask("Do you mean the one from 1999?"),
            observation=Observation(text="i don't know"),
        ),
        Step(
            index=3,
            actor="agent",
            action=Action(kind=ActionKind.clarify, items=["Which year?", "Which city? " * 20]),
            observation=Observation(items=["1999", "unknown"]),
        ),
        Step(index=4, actor="agent", action=Action(kind=ActionKind.clarify, items=[])),
        Step(
            index=5,
            actor="user",
            action=Action(kind=ActionKind.reply, text="yes"),
            observation=Observation(
                text="i don't know", data={"question": "Is it red?\nReally?", "released_clue": True, "fault": True}
            ),
        ),
        Step(
            index=6,
            actor="judge",
            action=Action(kind=ActionKind.judge, text="checkpoint"),
            observation=Observation(text="verdict: wrong " * 30),
        ),
        Step(
            index=7,
            actor="agent",
            action=Action(kind=ActionKind.answer, text="Paris", confidence=0.8),
            observation=Observation(data={"correct": True}),
        ),
        Step(
            index=8,
            actor="agent",
            action=Action(kind=ActionKind.answer, text="Lyon " * 50),
            observation=Observation(data={"correct": False}),
        ),
        Step(index=9, actor="agent", action=Action(kind=ActionKind.invalid, raw="<garbled>\n" * 5, text="")),
        Step(index=10, actor="agent", action=Action.search("q"), error="HTTP 500\n" + "x" * 500 + "\n" * 6 + "end"),
        Step(
            index=11,
            actor="environment",
            action=Action(kind=ActionKind.visit, text="https://example.org"),
            observation=Observation(text="\n".join(f"line {i}\twith a tab" for i in range(9))),
        ),
        Step(
            index=120,
            actor="agent",
            action=Action(kind=ActionKind.answer, text="42", human="edited"),
            tokens_in=1200,
            tokens_out=34,
            latency_ms=1234.5,
            observation=Observation(text=""),
        ),
        Step(
            index=13,
            actor="agent",
            action=Action.ask("Wide: 中文字符和表情😀😀 " * 12),
            observation=Observation(text="e\u0301 combining, zero\u200bwidth " * 10),
        ),
    ]


def test_every_card_kind_draws_as_rich_renders_it():
    """Each card, folded and unfolded, with and without spoilers, in each replay mark, at
    each width: the same lines, segment for segment, as Rich's render."""
    con = console()
    styles = {
        "": BASE,
        "trajectory--judge": Style(color="#808080"),
        "trajectory--error": Style(bgcolor="#400000"),
        "trajectory--current": Style(color="#00aaff", bgcolor="#002040"),
        "trajectory--guess": Style(color="red", bgcolor="#300000"),
        "trajectory--guess-current": Style(color="red", bgcolor="#500000"),
    }
    checked = 0
    for step in every_kind_of_step():
        for reveal in (True, False):
            for expanded in (False, True):
                card = step_card.render_step(step, reveal=reveal, expanded=expanded)
                for width in WIDTHS:
                    assert render_lines(card.renderables, con, width, BASE) == rich_lines(
                        card.renderables, con, width, BASE
                    ), (step.index, reveal, expanded, width)
                    checked += 1
                for marks in (set(), {"current"}, {"future"}, {"guess", "current"}):
                    drawn = step_card.draw_card(
                        step, marks, styles.__getitem__, con, 60, reveal=reveal, expanded=expanded, gap=1
                    )
                    assert [Strip(line).cell_length for line in drawn.lines] == [60] * len(drawn.lines)
    assert checked == len(every_kind_of_step()) * 4 * len(WIDTHS)


def test_a_card_says_whether_unfolding_changes_it():
    """`draw_card` reports what `folds` says, and it is true exactly when the unfolded
    card reads differently from the folded one."""
    con = console()
    for step in every_kind_of_step():
        for reveal in (True, False):
            plain = {
                e: [t.plain for t in step_card.render_step(step, reveal=reveal, expanded=e).renderables]
                for e in (False, True)
            }
            changes = plain[False] != plain[True]
            assert step_card.folds(step, reveal=reveal) == changes, step.index
            for expanded in (False, True):
                card = step_card.draw_card(
                    step, set(), lambda name="": BASE, con, 80, reveal=reveal, expanded=expanded, gap=1
                )
                assert card.folds == changes, step.index


def test_the_characters_wrapped_here_are_one_cell_and_only_the_space_is_white():
    """The characters this module wraps itself (`ONE_CELL`) are each one cell wide, and
    none but the space is white space to Rich's word splitter (`\\s`)."""
    chars = [chr(c) for c in range(0x3000) if ONE_CELL.fullmatch(chr(c))]  # the class ends at U+205E
    assert len(chars) > 700
    assert all(cell_len(c) == 1 for c in chars)
    assert [c for c in chars if re.match(r"\s", c)] == [" "]


WORDS = st.sampled_from(
    [
        "a",
        "word",
        "lorem",
        "ipsum,",
        "x" * 30,
        "https://example.org/" + "p" * 50,
        " ",
        "  ",
        "\n",
        "é",
        "“quoted”",
        "—",
        "…",
        "中文",
        "😀",
        "e\u0301",
        "zero\u200bwidth",
        "\u00a0",
        "-",
    ]
)
STYLES = st.sampled_from(["", "bold", "dim underline", "italic", "red", "on blue", Style(color="green", bold=True)])


@st.composite
def texts(draw) -> Text:
    text = Text(style=draw(STYLES))
    for _ in range(draw(st.integers(1, 25))):
        text.append("".join(draw(st.lists(WORDS, min_size=1, max_size=6))), style=draw(STYLES) or None)
    if draw(st.booleans()):  # a style over others (as `stylize` makes it)
        start = draw(st.integers(0, len(text)))
        text.stylize(draw(STYLES) or "bold", start, draw(st.integers(start, len(text) + 3)))
    return text


@settings(max_examples=300, deadline=None)
@given(st.lists(texts(), min_size=1, max_size=3), st.integers(1, 90))
def test_random_texts_draw_as_rich_renders_them(renderables, width):
    con = console()
    assert render_lines(renderables, con, width, BASE) == rich_lines(renderables, con, width, BASE)


def test_what_is_left_to_rich_is_rich_s_render():
    """Texts outside the quick path (an empty one, a tab, a justify, an end that joins
    lines, a renderable that is not a Text, no base style) come out as Rich renders them."""
    con = console()
    cases = [
        [Text("")],
        [Text("a\tb c " * 20)],
        [Text("centred " * 9, justify="center")],
        [Text("joined ", end=""), Text("to the next")],
        [Text("one"), Group(Text("nested"))],
        [Text("ellipsis " * 20, overflow="ellipsis")],
        [Text("no wrap " * 20, no_wrap=True)],
    ]
    for renderables in cases:
        for width in (5, 33):
            assert render_lines(renderables, con, width, BASE) == rich_lines(renderables, con, width, BASE)
            assert render_lines(renderables, con, width, Style()) == rich_lines(renderables, con, width, Style())


async def test_in_the_app_cards_draw_as_rich_renders_them():
    """With the app's own console and the trajectory's own colours, as the workbench draws."""
    from textual.app import App, ComposeResult

    from clarify_tui.tui.widgets.trajectory import Trajectory

    class One(App):
        def compose(self) -> ComposeResult:
            yield Trajectory()

    app = One()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        base = app.query_one(Trajectory).rich_style
        assert base
        for step in every_kind_of_step():
            for expanded in (False, True):
                card = step_card.render_step(step, reveal=True, expanded=expanded)
                for width in (37, 97):
                    assert render_lines(card.renderables, app.console, width, base) == rich_lines(
                        card.renderables, app.console, width, base
                    ), (step.index, expanded, width)
        # the quick path is the one taken: Rich renders none of a plain card's Texts itself
        rendered: list[object] = []
        render = app.console.render_lines
        app.console.render_lines = lambda r, *a, **k: (rendered.append(r), render(r, *a, **k))[1]
        for step in every_kind_of_step():
            for expanded in (False, True):
                card = step_card.render_step(step, reveal=True, expanded=expanded)
                if not any("\t" in text.plain for text in card.renderables):  # a tab is Rich's
                    render_lines(card.renderables, app.console, 97, base)
        assert rendered == []
