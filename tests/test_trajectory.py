"""The trajectory draws a session line by line: a 200-step session adds no widgets,
the end shows the last step, a re-recorded last step shows its new content, judge steps
stay out while spoilers are hidden, and replay's cursor is scrolled into view.

What is checked is what the widget draws (`render_line`), the lines a person sees."""

from __future__ import annotations

import re

from textual.app import App, ComposeResult

from clarify_tui.models import Action, ActionKind, Observation, SearchHit, Step
from clarify_tui.tui.widgets.trajectory import Trajectory

N = 200  # more than any protocol allows (10 rounds, 20 for DiscoBench)


def count_draws(monkeypatch) -> list[int]:
    """The step index of every card the trajectory draws from now on, in order."""
    from clarify_tui.tui.widgets import trajectory as module

    drawn: list[int] = []
    draw = module.draw_card
    monkeypatch.setattr(module, "draw_card", lambda step, *a, **k: (drawn.append(step.index), draw(step, *a, **k))[1])
    return drawn


def make_steps(n: int) -> list[Step]:
    """Searches with hits, asks, replies and judge verdicts, in turn."""
    steps = []
    for i in range(n):
        kind = i % 4
        if kind == 0:
            hits = [
                SearchHit(
                    title=f"Result {i}.{j}",
                    url=f"https://example.org/{i}/{j}",
                    content="Lorem ipsum dolor sit amet, " * (j + 1),
                    score=5 - j,
                )
                for j in range(5)
            ]
            steps.append(
                Step(
                    index=i,
                    actor="agent",
                    action=Action.search(f"query number {i}"),
                    observation=Observation(text="5 results", hits=hits),
                )
            )
        elif kind == 1:
            steps.append(
                Step(
                    index=i,
                    actor="agent",
                    action=Action.ask(f"Do you mean option {i}?"),
                    observation=Observation(text="i don't know"),
                )
            )
        elif kind == 2:
            steps.append(Step(index=i, actor="user", action=Action(kind=ActionKind.reply, text="i don't know")))
        else:
            steps.append(
                Step(
                    index=i,
                    actor="judge",
                    action=Action(kind=ActionKind.judge, text="checkpoint"),
                    observation=Observation(text=f"verdict {i}"),
                )
            )
    return steps


class TrajectoryApp(App):
    CSS = "Trajectory { height: 1fr; border: round $primary; padding: 0 1; }"

    def on_mount(self) -> None:
        self.animation_level = "none"  # keys scroll at once

    def compose(self) -> ComposeResult:
        yield Trajectory()


def screen_text(trajectory: Trajectory) -> str:
    """The lines the trajectory draws now, top to bottom."""
    rows = trajectory.scrollable_content_region.height
    return "\n".join(trajectory.render_line(y).text.rstrip() for y in range(rows))


def headers(text: str) -> list[int]:
    """The step numbers of the cards whose first line is on screen."""
    return [int(m) for m in re.findall(r"^█?#(\d+)", text, flags=re.M)]


async def test_a_long_session_adds_no_widgets_and_its_end_shows_the_last_step():
    app = TrajectoryApp()
    async with app.run_test(size=(80, 24)) as pilot:
        trajectory = app.query_one(Trajectory)
        widgets = len(list(app.screen.query("*")))
        trajectory.sync(make_steps(N), reveal=True)
        await pilot.pause()
        assert len(list(app.screen.query("*"))) == widgets
        text = screen_text(trajectory)
        assert headers(text)[-1] == N - 1  # following the newest step
        assert f"#{N - 1} judge" in text  # a long session's step numbers stand apart from the actor
        assert f"verdict {N - 1}" in text
        trajectory.focus()
        await pilot.pause()  # focus lands on the next message loop turn
        await pilot.press("home")
        assert headers(screen_text(trajectory))[0] == 0
        await pilot.press("end")
        assert headers(screen_text(trajectory))[-1] == N - 1
        assert trajectory.scroll_y == trajectory.max_scroll_y


async def test_paging_from_the_top_shows_every_card_in_order():
    """No card is skipped, cut or shown twice on the way down, and each card's place in
    the scroll area is its drawn height."""
    app = TrajectoryApp()
    async with app.run_test(size=(80, 24)) as pilot:
        trajectory = app.query_one(Trajectory)
        trajectory.sync(make_steps(N), reveal=True)
        trajectory.focus()
        await pilot.pause()  # focus lands on the next message loop turn
        await pilot.press("home")
        seen: list[int] = []
        for _ in range(400):
            seen += headers(screen_text(trajectory))
            if trajectory.scroll_y == trajectory.max_scroll_y:
                break
            await pilot.press("pagedown")
        assert sorted(set(seen)) == list(range(N))
        tops = trajectory.lines_from
        for index in range(N):
            lines = trajectory.card_text(index).count("\n") + 1
            assert tops[index + 1] - tops[index] == lines + Trajectory.GAP


async def test_a_re_recorded_last_step_shows_its_new_content():
    app = TrajectoryApp()
    async with app.run_test(size=(80, 24)) as pilot:
        trajectory = app.query_one(Trajectory)
        steps = make_steps(N)
        steps[-1] = Step(index=N - 1, actor="agent", action=Action.answer("first draft"))
        trajectory.sync(steps, reveal=True)
        await pilot.pause()
        assert "first draft" in screen_text(trajectory)
        steps[-1] = Step(index=N - 1, actor="agent", action=Action.answer("Tokyo Tower"))
        trajectory.sync(steps, reveal=True)
        await pilot.pause()
        text = screen_text(trajectory)
        assert "Tokyo Tower" in text and "first draft" not in text
        steps[-1].action.text = "Sapporo TV Tower"  # changed in place, same object
        trajectory.sync(steps, reveal=True)
        await pilot.pause()
        assert "Sapporo TV Tower" in screen_text(trajectory)
        assert trajectory.shown_indexes == list(range(N))


async def test_judge_steps_are_hidden_while_spoilers_are_hidden():
    app = TrajectoryApp()
    async with app.run_test(size=(80, 24)) as pilot:
        trajectory = app.query_one(Trajectory)
        steps = make_steps(40)
        trajectory.sync(steps, reveal=False)
        await pilot.pause()
        assert all(steps[i].actor != "judge" for i in trajectory.shown_indexes)
        trajectory.focus()
        await pilot.pause()  # focus lands on the next message loop turn
        await pilot.press("home")
        for _ in range(30):
            text = screen_text(trajectory)
            assert "judge" not in text and "verdict" not in text
            await pilot.press("pagedown")
        trajectory.sync(steps, reveal=True)  # the session ended: verdicts are shown
        await pilot.pause()
        assert "verdict 39" in screen_text(trajectory)
        assert trajectory.shown_indexes == list(range(40))


async def test_new_steps_are_followed_only_while_follow_is_on():
    app = TrajectoryApp()
    async with app.run_test(size=(80, 24)) as pilot:
        trajectory = app.query_one(Trajectory)
        steps = make_steps(60)
        trajectory.follow = False
        trajectory.sync(steps[:30], reveal=True)
        await pilot.pause()
        assert headers(screen_text(trajectory))[0] == 0
        trajectory.sync(steps[:31], reveal=True)
        await pilot.pause()
        assert headers(screen_text(trajectory))[0] == 0
        trajectory.follow = True
        trajectory.sync(steps, reveal=True)
        await pilot.pause()
        assert headers(screen_text(trajectory))[-1] == 59


async def test_unfolding_shows_every_hit_and_a_click_unfolds_one_card():
    app = TrajectoryApp()
    async with app.run_test(size=(80, 24)) as pilot:
        trajectory = app.query_one(Trajectory)
        trajectory.follow = False
        trajectory.sync(make_steps(8), reveal=True)
        await pilot.pause()
        assert "2 more hits (click to unfold)" in screen_text(trajectory)
        assert "Result 0.4" not in trajectory.card_text(0)
        await pilot.click(Trajectory, offset=(3, 1))  # on the first card
        await pilot.pause()
        assert "Result 0.4" in trajectory.card_text(0) and "Result 4.4" not in trajectory.card_text(4)
        trajectory.set_expanded(True)
        await pilot.pause()
        assert "Result 4.4" in trajectory.card_text(4)
        assert "more hits" not in screen_text(trajectory)


async def test_marking_a_step_scrolls_it_into_view_and_marks_it():
    app = TrajectoryApp()
    async with app.run_test(size=(80, 24)) as pilot:
        trajectory = app.query_one(Trajectory)
        trajectory.follow = False
        trajectory.sync(make_steps(N), reveal=True)
        await pilot.pause()
        trajectory.mark(151, guess=150, dim_future=True)
        await pilot.pause()
        assert 151 in headers(screen_text(trajectory))
        assert trajectory.marks(151) == {"current"}
        assert trajectory.marks(150) == {"guess"}
        assert trajectory.marks(152) == {"future"} and trajectory.marks(7) == set()
        # the current card has a coloured left edge the others lack
        row = screen_text(trajectory).splitlines()
        top = next(i for i, line in enumerate(row) if line.startswith("█#151"))
        assert not any(line.startswith("█") for line in row[top + 3 :])  # the gap line after is the card's
        trajectory.mark(10, dim_future=True)
        await pilot.pause()
        assert headers(screen_text(trajectory))[0] <= 10 and "#10 " in screen_text(trajectory)
        assert trajectory.marks(151) == {"future"}
        trajectory.scroll_to_step(9)
        await pilot.pause()
        strips = [trajectory.render_line(y) for y in range(trajectory.scrollable_content_region.height)]
        heads = {strip.text.split()[0]: strip for strip in strips if strip.text.startswith(("#", "█#"))}
        past, future = heads["#9"], heads["#11"]
        colour = lambda strip: next(iter(strip)).style.color  # noqa: E731  (the step number's)
        assert colour(future) != colour(past)  # later steps are faded


async def test_an_empty_trajectory_says_so():
    app = TrajectoryApp()
    async with app.run_test(size=(80, 24)) as pilot:
        trajectory = app.query_one(Trajectory)
        await pilot.pause()
        assert screen_text(trajectory).startswith("No steps yet.")
        trajectory.rebuild(make_steps(3))
        await pilot.pause()
        assert headers(screen_text(trajectory)) == [0, 1, 2]


async def test_keys_scroll_from_where_the_view_is_after_the_cards_grew():
    """Unfolding every card while the end is in view keeps the end in view; `up` then
    moves one line up from there (not back to where the end was before)."""
    app = TrajectoryApp()
    async with app.run_test(size=(80, 18)) as pilot:
        trajectory = app.query_one(Trajectory)
        trajectory.sync(make_steps(13), reveal=True)
        await pilot.pause()
        trajectory.set_expanded(True)
        await pilot.pause()
        end = trajectory.scroll_y
        assert end == trajectory.max_scroll_y and "verdict 11" not in screen_text(trajectory)
        trajectory.focus()
        await pilot.pause()  # focus lands on the next message loop turn
        await pilot.press("up")
        assert trajectory.scroll_y == end - 1


def painted(trajectory: Trajectory) -> list[str]:
    """The trajectory's rows as the screen gets them (border, padding and content), each
    as wide as the widget."""
    strips = trajectory.render_lines(trajectory.region.size.region)
    assert {strip.cell_length for strip in strips} == {trajectory.region.width}
    return [strip.text for strip in strips]


async def test_lines_kept_across_scrolls_paint_what_a_fresh_paint_shows():
    """After every key the rows are whole (both borders) and the same as a paint from
    nothing (every card drawn again)."""
    app = TrajectoryApp()
    async with app.run_test(size=(80, 24)) as pilot:
        trajectory = app.query_one(Trajectory)
        trajectory.sync(make_steps(300), reveal=True)
        trajectory.focus()
        await pilot.pause()
        for key in ("home", "down", "down", "pagedown", "up", "pagedown", "pageup", "end", "up", "home"):
            await pilot.press(key)
            rows = painted(trajectory)
            assert all(row[0] in "│╭╰" and row[-1] in "│╮╯" for row in rows), key
            trajectory.notify_style_update()  # forget every drawn card
            assert painted(trajectory) == rows, key
        trajectory.mark(5)
        await pilot.pause()
        assert any(row.startswith("│ █#5 ") for row in painted(trajectory))  # the marked card is drawn again


async def test_unfolding_every_card_keeps_the_top_card_at_the_top():
    """Unfold all redraws every card (the card at the top stays at the top), and paging
    then shows every card unfolded, in order."""
    app = TrajectoryApp()
    async with app.run_test(size=(80, 24)) as pilot:
        trajectory = app.query_one(Trajectory)
        trajectory.follow = False
        trajectory.sync(make_steps(N), reveal=True)
        trajectory.focus()
        await pilot.pause()
        trajectory.scroll_to(y=trajectory.lines_from[100], animate=False, immediate=True)
        await pilot.pause()
        assert headers(screen_text(trajectory))[0] == 100
        trajectory.set_expanded(True)
        await pilot.pause()
        assert headers(screen_text(trajectory))[0] == 100
        assert "Result 100.4" in screen_text(trajectory)  # unfolded: all five hits
        seen: list[int] = []
        for _ in range(20):
            await pilot.press("pagedown")
            seen += headers(screen_text(trajectory))
        assert sorted(set(seen)) == list(range(min(seen), max(seen) + 1)) and max(seen) > 105
        assert "Result 104.4" in trajectory.card_text(104)


def drawn(trajectory: Trajectory) -> list[int]:
    """How many lines each card drawn so far has (its longest way, folded or unfolded)."""
    return [max(len(card.lines) for card in cards.values()) for _, cards in trajectory._drawn.values()]


class MarkedBeforeLayoutApp(TrajectoryApp):
    """As replay opens: the cursor is marked while the widgets mount (no size yet), then
    again once the screen is painted."""

    def on_mount(self) -> None:
        super().on_mount()
        trajectory = self.query_one(Trajectory)
        trajectory.follow = False
        trajectory.sync(make_steps(120), reveal=True)
        trajectory.mark(101, dim_future=True)
        self.unsized_drawn = drawn(trajectory)
        self.call_after_refresh(trajectory.mark, 101, None, True)


async def test_a_step_marked_before_the_first_layout_is_scrolled_into_view_once_laid_out():
    app = MarkedBeforeLayoutApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        trajectory = app.query_one(Trajectory)
        assert app.unsized_drawn == []  # no card drawn at no width (one was ~500 lines, 45 ms)
        assert 101 in headers(screen_text(trajectory)) and trajectory.marks(101) == {"current"}
        assert drawn(trajectory) and max(drawn(trajectory)) < 40


async def test_a_step_arriving_draws_only_its_own_card(monkeypatch):
    """Every card is drawn once at the view's width (less the scrollbar once the cards
    overflow); a new step draws its card and no other, a scroll draws none."""
    drawn_steps = count_draws(monkeypatch)
    app = TrajectoryApp()
    async with app.run_test(size=(80, 24)) as pilot:
        trajectory = app.query_one(Trajectory)
        steps = make_steps(N + 1)
        trajectory.sync(steps[:N], reveal=True)
        await pilot.pause()
        assert sorted(drawn_steps) == list(range(N))  # each once, at the width beside the scrollbar
        assert trajectory.show_vertical_scrollbar
        drawn_steps.clear()
        trajectory.sync(steps, reveal=True)
        await pilot.pause()
        assert sorted(drawn_steps) == [N - 1, N]  # the new one, and the last one (the engine may re-record it)
        assert headers(screen_text(trajectory))[-1] == N
        drawn_steps.clear()
        trajectory.focus()
        await pilot.pause()
        for key in ("home", "pagedown", "down", "end"):
            await pilot.press(key)
        assert drawn_steps == []


async def test_the_scrollbar_thumb_is_where_the_view_is_once_the_cards_overflow():
    """Following the newest step scrolls to the end before the layout that shows the
    scrollbar: the thumb is at the end too (it stayed at the top)."""
    app = TrajectoryApp()
    async with app.run_test(size=(80, 24)) as pilot:
        trajectory = app.query_one(Trajectory)
        trajectory.sync(make_steps(12), reveal=True)
        await pilot.pause()
        assert trajectory.show_vertical_scrollbar and trajectory.scroll_y == trajectory.max_scroll_y > 0
        assert trajectory.vertical_scrollbar.position == trajectory.scroll_y


async def test_unfold_all_draws_again_only_the_cards_it_changes(monkeypatch):
    """Searches with more hits than shown unfold; a short ask, reply or verdict looks the
    same either way and is not drawn again (unfold all on a long session stays quick)."""
    from clarify_tui.tui.widgets.step_card import folds

    drawn_steps = count_draws(monkeypatch)
    app = TrajectoryApp()
    async with app.run_test(size=(80, 24)) as pilot:
        trajectory = app.query_one(Trajectory)
        steps = make_steps(40)
        trajectory.sync(steps, reveal=True)
        await pilot.pause()
        drawn_steps.clear()
        trajectory.set_expanded(True)
        await pilot.pause()
        assert sorted(drawn_steps) == [s.index for s in steps if s.index % 4 == 0]  # the searches
        assert [s.index for s in steps if folds(s, reveal=True)] == sorted(drawn_steps)
        assert "Result 36.4" in trajectory.card_text(36) and "verdict 39" in trajectory.card_text(39)
        long_reply = Step(
            index=40,
            actor="agent",
            action=Action.ask("Which one?"),
            observation=Observation(text="\n".join(f"line {i}" for i in range(8))),
        )
        trajectory.sync(steps + [long_reply], reveal=True)
        await pilot.pause()
        assert "line 7" in trajectory.card_text(40)  # unfolded: every line
        trajectory.set_expanded(False)
        await pilot.pause()
        assert "line 7" not in trajectory.card_text(40) and "more lines" in trajectory.card_text(40)


async def test_folding_back_and_unfolding_again_draws_no_card(monkeypatch):
    """A card keeps its lines both ways: after the first unfold all (which draws the
    cards it changes), folding all back and unfolding all again draw none; a click on a
    card unfolded before draws none either. What shows is what a fresh drawing shows."""
    drawn_steps = count_draws(monkeypatch)
    app = TrajectoryApp()
    async with app.run_test(size=(80, 24)) as pilot:
        trajectory = app.query_one(Trajectory)
        trajectory.follow = False
        steps = make_steps(N)
        trajectory.sync(steps, reveal=True)
        await pilot.pause()
        folded = {i: trajectory.card_text(i) for i in (0, 1, 196)}
        drawn_steps.clear()
        trajectory.set_expanded(True)
        await pilot.pause()
        assert sorted(drawn_steps) == [s.index for s in steps if s.index % 4 == 0]  # the searches, once
        unfolded = {i: trajectory.card_text(i) for i in (0, 1, 196)}
        assert "Result 196.4" in unfolded[196] and "Result 196.4" not in folded[196]
        lines_unfolded = trajectory.lines_from
        drawn_steps.clear()
        trajectory.set_expanded(False)
        await pilot.pause()
        assert {i: trajectory.card_text(i) for i in (0, 1, 196)} == folded
        trajectory.set_expanded(True)
        await pilot.pause()
        assert {i: trajectory.card_text(i) for i in (0, 1, 196)} == unfolded
        assert trajectory.lines_from == lines_unfolded
        await pilot.click(Trajectory, offset=(3, 1))  # folds the card at the top, unfolds it again
        await pilot.pause()
        await pilot.click(Trajectory, offset=(3, 1))
        await pilot.pause()
        assert drawn_steps == []
        trajectory.notify_style_update()  # forget every drawn card: a fresh drawing is the same
        assert {i: trajectory.card_text(i) for i in (0, 1, 196)} == unfolded
        assert trajectory.lines_from == lines_unfolded
