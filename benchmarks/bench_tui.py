"""TUI speed: first paint of the task picker, every screen and dialog opening, and a
long session's keys.

    python benchmarks/bench_tui.py                 # headless, prints each number beside its target
    python benchmarks/bench_tui.py --steps 200     # the long session's length (default 200)
    python benchmarks/bench_tui.py --session-only  # only the long session's numbers
    python benchmarks/bench_tui.py --json

Targets (issue 14): first paint under 0.5 s; every screen and dialog opens in under
100 ms (F2 sessions, F3 scores, replay, help, the step-mode editor, the skip
confirmation), measured from the key to the first paint of the new screen, first
opening in a fresh app; every key repaints in under 30 ms; a 200-step session
scrolls without lag (same 30 ms per key; issue 24: protocols cap a session at a few dozen
steps, so 200 and no longer 5,000). Since issue 24 the tasks are the bundled demo's, not
tests/conftest.py's (a benchmark imports nothing from tests/).

- first paint: a fresh interpreter imports the app, starts it headless on the bundled
  demo and stops at the first refresh after the picker's table holds the tasks (the
  refresh that draws them, as openings count "painted"); measured from interpreter start
  (so imports count), median of several runs. Until 2026-11-23 it stopped after
  `pilot.pause()`, which waits for the CPU to go idle: since the tasks are validated in a
  thread right after the first paint, that would time the warm-up too, so the warm-up is
  now printed on its own (its length and the longest event-loop stall meanwhile, which is
  how long a key would wait) with the cold number: enter pressed right at the first paint
  until the play screen is painted (it waits for the validation, then opens the screen).
  Measured on this 2-core machine (load ~1.6, median of 9, CPU includes the interpreter's
  start): before (e6946ca) 0.53 s wall / 0.52 s CPU by the refresh, 0.60 s / 0.55 s by
  `pilot.pause()`; after (2fed305) ~0.34 s / ~0.37 s; warm-up ~110 ms, stalls <= 17 ms.
  The command itself (`clarify-tui`: cli.main([]) run headless at 160x45, COMMAND_CHILD,
  printed too) went from 0.71 s / 0.58 s CPU to 0.38 s / 0.31 s CPU. What it is made
  of now: ~0.2 s imports (Textual ~0.1 s; no pydantic: task_rows.py), the rest the first
  frame (styles, the table's cells, ~20 ms of CSS parsing).
- openings: each screen or dialog's first opening in a fresh app, each run in a fresh
  interpreter (so the screen's module import counts), median of --runs. "Painted" is the
  first refresh of the new screen: what that frame already shows is the screen's own
  business (F3's numbers, for one, are computed in a worker and fill in after it).
  Since 2026-11-23 the workbench builds F2, F3 and ? while it is idle after the first
  paint and the tasks' validation (tui/speed/ahead.py), so two numbers are printed for them:
  settled (the key pressed once that warm-up is done: the number the target applies to)
  and cold (the key pressed at the picker's first paint, before anything is built: the
  screen is built at the key, as before). Every opening is now timed in a settled app
  (until then: after `pilot.pause()`, which returned before the warm-up was done). With
  the warm-up, the first paint's line also says how long it took, the longest event-loop
  stall meanwhile (wall, and the loop's own CPU: a wall stall can be another process
  holding the core) and how long down/up on the picker took to repaint while it ran.
  Before (the brief's baseline, load 0.44, --runs 5): F2 132 ms wall (118 CPU), F3 148
  (148), ? 118 (103); after (load ~1, --runs 3), settled: F2 ~27 (10), F3 ~31 (14), ?
  ~36 (19); cold F2 ~135-170, F3 ~130-150, ? ~86-91 (a key at the first paint also meets
  the startup's last frames; F2 at the first paint with the warm-up on or off: 133 vs
  136 ms median of 5). Warm-up: done ~0.4-0.6 s after the first paint, longest stall
  ~15-20 ms (the first layout of F2 or F3: one Textual call), down/up repainted in <= 17 ms
  meanwhile (92 keys). The first paint is unchanged by it (A/B of 10 interleaved runs).
- Beside each wall time the process's CPU time over the same span: on a loaded machine
  (the load is printed) the wall time also counts waiting for a core.
- long session: a play screen whose episode holds 200 synthetic steps (5,000 until issue 24) (search hits, asks,
  replies, judge verdicts) is shown once (time until the first paint that shows the last
  step, as a screen opening is timed; also until the app is idle, which Pilot detects in
  20 ms windows; and how many widgets that took), then each of down / up / pagedown / end / home is timed from the key to the
  repaint, pagedown also 30 times from the top through cards never drawn before; then `f`
  (unfold every card) and one more step arriving while the newest is followed, twice: a
  step that moves nothing the side panels show (as before), then one that moves the
  agent's round counter, so the question panel is drawn and the screen laid out again
  (added 2026-11-23, when refresh_all began skipping panels that did not change: the
  first case alone no longer stands for a typical step; both print wall and CPU).
  2026-11-26 (branch r2c): unfold all and show all got cheaper with exact heights kept:
  a card's Texts become lines through widgets/text_lines.py (Rich's segments without its
  generic render), a card keeps its folded and unfolded lines, and knows from its own
  drawing whether unfolding changes it. Median of 5 interleaved runs of
  `--steps N --session-only --json` (load ~2-3, 2 cores), before (35a2774) -> after,
  wall ms (CPU): 200 steps: f 100.7 (97.4) -> 27.0 (26.1), show all 67.8 -> 31.2 (30.5);
  60 steps: f 56.8 (49.8) -> 12.5 (12.5), show all 31.7 -> 15.9. Other keys unchanged
  (CPU 7-13 ms; `down` ~32-36 ms wall either way: frame phase, CPU 7 ms).
  Each key is posted KEY_GAP_S (20 ms) after the previous one is painted: a held key
  repeats ~30 times a second (33 ms apart), so a person's next key never comes sooner.
  Posted at once after the paint instead, a cheap key's frame waits for the next slot of
  Textual's 60 frames/s cap: ~17-40 ms whatever its CPU (Textual's update timer keeps its
  phase; the override that started a due frame at once, tui/frames.py, was removed with
  issue 24). Those back-to-back times are printed too (2026-11-26: `down` 7 ms at a 10-20
  ms gap, 11 ms at 5 ms, 17-40 ms at 0; CPU 7 ms throughout).
- CLARIFY_TUI_STOCK_TEXTUAL=1 in the environment times the workbench on stock Textual
  (tui/speed/ off): what the wall buys.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

KEY_GAP_S = 0.02  # a timed key is posted this long after the previous key's paint (see the docstring)

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CHILD = r"""
import time, asyncio, sys
t0 = time.perf_counter()
from clarify_tui.tui.app import ClarifyApp
from clarify_tui.store import Store

async def main(cold_enter):
    app = ClarifyApp(store=Store(":memory:"))
    async with app.run_test(size=(160, 45)) as pilot:
        while not app.picker.shown:
            await asyncio.sleep(0.001)
        painted = asyncio.Event()
        app.screen.call_after_refresh(painted.set)  # the frame that shows the table
        await painted.wait()
        paint, cpu = time.perf_counter() - t0, time.process_time()  # CPU: this process, interpreter start included
        if cold_enter:  # enter right at the first paint: the task opens once validated
            from textual import events
            app.post_message(events.Key("enter", "\r"))
            while type(app.screen).__name__ != "PlayScreen":
                await asyncio.sleep(0.001)
            opened = asyncio.Event()
            app.screen.call_after_refresh(opened.set)
            await opened.wait()
            print(paint, cpu, (time.perf_counter() - t0 - paint) * 1000)
            return
        stall = 0.0  # the longest the event loop (so a key) waited while the tasks were validated
        while app.picker.loaded is None:
            t = time.perf_counter()
            await asyncio.sleep(0.001)
            stall = max(stall, time.perf_counter() - t - 0.001)
        validated = (time.perf_counter() - t0 - paint) * 1000
        ahead_stall = ahead_cpu = 0.0  # the same while F2, F3 and ? are built ahead (tui/speed/ahead.py), and
        while not app.ahead.finished.is_set():  # the event loop's own CPU time over the same gap
            t, c = time.perf_counter(), time.thread_time()
            await asyncio.sleep(0.001)
            ahead_stall = max(ahead_stall, time.perf_counter() - t - 0.001)
            ahead_cpu = max(ahead_cpu, time.thread_time() - c)
        assert app.ahead.error is None and set(app.ahead.ready) == {"sessions", "scores", "help"}, app.ahead.error
        print(paint, cpu, validated, stall * 1000, (time.perf_counter() - t0 - paint) * 1000, ahead_stall * 1000,
              ahead_cpu * 1000)

async def keys_during_warm_up():
    # down / up on the picker every 60 ms from the tasks' validation (the first warm-up,
    # timed by main) until the screens are built ahead: each key's time to its repaint
    # (then the same keys once all is settled)
    from clarify_tui.tui.app import ClarifyApp
    from clarify_tui.store import Store
    from benchmarks.bench_tui import key_to_paint_ms
    app = ClarifyApp(store=Store(sys.argv[2]))
    async with app.run_test(size=(160, 45)) as pilot:
        while app.picker.loaded is None:
            await asyncio.sleep(0.001)
        table = app.picker.query_one("#tasks")
        during, after, stall = [], [], [0.0, 0.0]

        async def watch_stalls():  # the longest the event loop waited, as main() measures it
            while not app.ahead.finished.is_set():
                t, c = time.perf_counter(), time.thread_time()
                await asyncio.sleep(0.001)
                stall[0] = max(stall[0], time.perf_counter() - t - 0.001)
                stall[1] = max(stall[1], time.thread_time() - c)

        watcher = asyncio.create_task(watch_stalls())
        keys = iter(["down", "up"] * 1000)
        while not app.ahead.finished.is_set():
            during.append(await key_to_paint_ms(app, next(keys), lambda: table.cursor_row))
            await asyncio.sleep(0.06)
        await watcher
        await pilot.pause()
        for _ in range(6):
            after.append(await key_to_paint_ms(app, next(keys), lambda: table.cursor_row))
            await asyncio.sleep(0.06)
        assert app.ahead.ready, app.ahead.error
        print(max(during), len(during), max(after), stall[0] * 1000, stall[1] * 1000)

if sys.argv[1:2] == ["keys"]:
    asyncio.run(keys_during_warm_up())
else:
    asyncio.run(main(sys.argv[1:] == ["cold-enter"]))
"""


COMMAND_CHILD = r"""
import time
t0 = time.perf_counter()
from clarify_tui.tui import app as tui_app
from clarify_tui.tui.screens import picker

refilter = picker.PickerScreen.refilter

def timed_refilter(self):  # the first time the table holds tasks: report at the refresh that draws them
    refilter(self)
    if self.shown and not getattr(tui_app, "timed", False):
        tui_app.timed = True
        def report():
            print(time.perf_counter() - t0, time.process_time(), flush=True)
            self.app.exit()
        self.call_after_refresh(report)

picker.PickerScreen.refilter = timed_refilter
run = tui_app.ClarifyApp.run
tui_app.ClarifyApp.run = lambda self, **kwargs: run(self, headless=True, size=(160, 45))
from clarify_tui.cli import main
main([])
"""


def command_first_paint(runs: int) -> tuple[float, float]:
    """`clarify-tui` as a person types it (argument parsing, the command's imports), headless:
    median wall and CPU seconds to the picker's painted table."""
    import os
    import tempfile

    times = []
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "CLARIFY_DB": str(Path(tmp) / "c.db")}
        for _ in range(runs):
            out = subprocess.run(
                [sys.executable, "-c", COMMAND_CHILD], capture_output=True, text=True, cwd=tmp, env=env, check=True
            )
            times.append(tuple(map(float, out.stdout.split()[:2])))
    return statistics.median(w for w, _ in times), statistics.median(c for _, c in times)


def first_paint(runs: int = 5, db: Path | None = None) -> dict:
    """The picker's first paint (the refresh that shows the table, as openings count
    "painted"), then the warm-up that follows it: validating the tasks (pydantic), with
    the longest event-loop stall meanwhile; and, in other fresh interpreters, enter
    pressed right at the first paint until the play screen is painted (cold)."""
    times, warm, cold, ahead, keys = [], [], [], [], []
    for _ in range(runs):
        start = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, cwd=ROOT, check=True)
        total = time.perf_counter() - start
        wall, cpu, warm_ms, stall_ms, ahead_ms, ahead_stall_ms, ahead_cpu_ms = map(
            float, out.stdout.strip().splitlines()[-1].split()
        )
        times.append((wall, total, cpu))
        warm.append((warm_ms, stall_ms))
        ahead.append((ahead_ms, ahead_stall_ms, ahead_cpu_ms))
        if db is not None:
            out = subprocess.run(
                [sys.executable, "-c", CHILD, "keys", str(db)], capture_output=True, text=True, cwd=ROOT, check=True
            )
            keys.append(tuple(map(float, out.stdout.strip().splitlines()[-1].split())))
        out = subprocess.run(
            [sys.executable, "-c", CHILD, "cold-enter"], capture_output=True, text=True, cwd=ROOT, check=True
        )
        cold.append(float(out.stdout.strip().splitlines()[-1].split()[2]))
    command = command_first_paint(runs)
    in_process = [t for t, _, _ in times]
    with_interpreter = [t for _, t, _ in times]
    return {
        "first_paint_s_median": round(statistics.median(in_process), 3),
        "first_paint_with_interpreter_start_s_median": round(statistics.median(with_interpreter), 3),
        "first_paint_cpu_s_median": round(statistics.median(c for _, _, c in times), 3),
        "warm_up_ms_median": round(statistics.median(w for w, _ in warm), 1),
        "warm_up_longest_stall_ms_max": round(max(s for _, s in warm), 1),
        "enter_at_first_paint_ms_median": round(statistics.median(cold), 1),
        "screens_ahead_done_ms_median": round(statistics.median(a[0] for a in ahead), 1),
        "screens_ahead_longest_stall_ms_max": round(max(a[1] for a in ahead), 1),
        "screens_ahead_longest_stall_cpu_ms_max": round(max(a[2] for a in ahead), 1),
        "key_during_screens_ahead_ms_max": round(max(k[0] for k in keys), 1) if keys else None,
        "keys_timed_during_screens_ahead": int(sum(k[1] for k in keys)),
        "key_after_screens_ahead_ms_max": round(max(k[2] for k in keys), 1) if keys else None,
        "screens_ahead_stall_with_demo_db_ms_max": round(max(k[3] for k in keys), 1) if keys else None,
        "screens_ahead_stall_cpu_with_demo_db_ms_max": round(max(k[4] for k in keys), 1) if keys else None,
        "command_s_median": round(command[0], 3),
        "command_cpu_s_median": round(command[1], 3),
        "runs": runs,
    }


async def key_to_paint_ms(app, key: str, observe) -> float:
    """From posting a key event until its effect is visible in the app's state (`observe()`
    returns something different) and the screen refresh after that has completed
    (`call_after_refresh`). Waiting for the state change first makes sure the refresh we
    time is the one that paints this key, not an unrelated earlier one. Pilot's own round
    trip also waits for every widget to go idle, which grows with the widget count, so it is
    reported separately."""
    from textual import events

    before = observe()
    painted = asyncio.Event()
    t = time.perf_counter()
    app.post_message(events.Key(key, None))
    deadline = t + 5
    while observe() == before:
        if time.perf_counter() > deadline:
            raise RuntimeError(f"key {key!r} changed nothing within 5 s")
        await asyncio.sleep(0)
    app.screen.call_after_refresh(painted.set)
    await painted.wait()
    return (time.perf_counter() - t) * 1000


def demo_tasks() -> list:
    """The bundled demo's first InteractComp, DiscoBench and CTS tasks, in that order (the
    picker opens the first on enter); searched in the demo's corpus (the app's default).
    Not tests/conftest.py's tiny world: a benchmark runs from an installed package too."""
    from clarify_tui.tasks.collection import load_all

    tasks, _ = load_all("demo", None)
    return [next(t for t in tasks if t.protocol.value == p) for p in ("interactcomp", "discobench", "cts")]


def demo_search():
    """The demo corpus's search index, built before the timed spans (as the tests pass a
    built one). The workbench builds it at the first play opening of a process (~170 ms of
    CPU on this machine for the demo corpus), not counted in the openings here."""
    from clarify_tui.backends import make_search

    return make_search("local")


def synthetic_steps(n: int):
    from clarify_tui.models import Action, ActionKind, Observation, SearchHit, Step

    steps = []
    for i in range(n):
        kind = i % 4
        if kind == 0:
            hits = [
                SearchHit(
                    title=f"Result {i}.{j}",
                    url=f"https://example.org/{i}/{j}",
                    content="Lorem ipsum dolor sit amet, " * 8,
                    score=10 - j,
                )
                for j in range(5)
            ]
            steps.append(
                Step(
                    index=i,
                    actor="agent",
                    action=Action.search(f"query number {i}"),
                    observation=Observation(text="5 results", hits=hits),
                    latency_ms=12.5,
                )
            )
        elif kind == 1:
            steps.append(
                Step(
                    index=i,
                    actor="agent",
                    action=Action.ask(f"Do you mean option {i}?"),
                    observation=Observation(text="i don't know"),
                    latency_ms=800,
                )
            )
        elif kind == 2:
            steps.append(
                Step(index=i, actor="user", action=Action(kind=ActionKind.reply, text="i don't know"), latency_ms=2)
            )
        else:
            steps.append(
                Step(
                    index=i,
                    actor="judge",
                    action=Action(kind=ActionKind.judge, text="checkpoint"),
                    observation=Observation(text="checkpoint 1 passed"),
                    latency_ms=1,
                )
            )
    return steps


async def long_session(n: int = 5000) -> dict:
    """A play screen whose episode holds `n` synthetic steps: the time to show them all,
    then each key's repaint while scrolling (also through cards not drawn yet), unfolding
    every card, and one more step arriving (the engine recording the next step)."""
    from clarify_tui.store import Store
    from clarify_tui.tui.app import ClarifyApp
    from clarify_tui.tui.screens.play import PlayScreen
    from clarify_tui.tui.widgets.trajectory import Trajectory

    ic = demo_tasks()[0]
    app = ClarifyApp(tasks=[ic], store=Store(":memory:"), search=demo_search(), task_id=ic.id, run_mode="step")
    app.animation_level = "none"  # time the repaint, not a smooth-scroll animation
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, PlayScreen)
        widgets_before = len(list(screen.query("*")))
        steps = synthetic_steps(n + 2)
        screen.driver.episode.steps = steps[:n]
        trajectory = screen.query_one(Trajectory)
        t0, c0 = time.perf_counter(), time.process_time()
        screen.refresh_all()
        sync_all_ms = _ms_since(t0)  # refresh_all's part; the trajectory's own is timed below
        painted = asyncio.Event()
        screen.call_after_refresh(painted.set)
        await painted.wait()  # painted, as a screen opening is timed (open_to_paint_ms)
        shown_ms, shown_cpu_ms = _ms_since(t0), (time.process_time() - c0) * 1000
        assert trajectory.shown_indexes[-1] == n - 1 and trajectory.scroll_y == trajectory.max_scroll_y, (
            "the first paint does not show the last step"
        )
        await pilot.pause()  # Pilot's idle wait: 20 ms windows until one uses < 1 ms of CPU
        await app.workers.wait_for_complete()
        await pilot.pause()
        render = time.perf_counter() - t0
        t = time.perf_counter()
        trajectory.rebuild(steps[:n])  # the trajectory alone, all steps afresh
        rebuild_ms = _ms_since(t)
        await pilot.pause()
        assert trajectory.shown_indexes[-1] == n - 1, "the trajectory does not show the last step"
        widgets_after = len(list(screen.query("*")))
        trajectory.focus()
        trajectory.scroll_end(animate=False)
        await pilot.pause()
        offset = lambda: round(trajectory.scroll_y, 3)  # noqa: E731
        keys: dict[str, list[float]] = {}
        pilot_keys: dict[str, list[float]] = {}
        cpu: list[float] = []
        key_cpu: dict[str, list[float]] = {}
        stuck: list[str] = []  # keys after which the view did not move (reported, not timed)

        burst: dict[str, list[float]] = {}  # the same keys posted at once after the previous paint

        async def timed(key: str, gap: float = KEY_GAP_S) -> float:
            await asyncio.sleep(gap)
            c = time.process_time()
            try:
                ms = await key_to_paint_ms(app, key, offset)
            except RuntimeError:
                stuck.append(f"{key} at line {trajectory.scroll_y:.0f} of {trajectory.max_scroll_y:.0f}")
                return 0.0
            cpu.append((time.process_time() - c) * 1000)
            key_cpu.setdefault(key, []).append(cpu[-1])
            return ms

        for key in ("home", "down", "down", "pagedown", "up", "pageup", "end", "home", "end"):
            keys.setdefault(key, []).append(await timed(key))
        for key in ("home", "down", "down", "pagedown", "up", "pageup", "end", "home", "end"):
            burst.setdefault(key, []).append(await timed(key, gap=0))
        await key_to_paint_ms(app, "home", offset)
        for _ in range(30):  # page through cards never drawn before
            keys["pagedown"].append(await timed("pagedown"))
        for key in ("down", "end", "home"):
            t = time.perf_counter()
            await pilot.press(key)
            pilot_keys.setdefault(key, []).append((time.perf_counter() - t) * 1000)
        # a key that changes every card: unfold everything
        c = time.process_time()
        fold_ms = await key_to_paint_ms(app, "f", lambda: trajectory.expanded)
        fold_cpu_ms = (time.process_time() - c) * 1000
        # the engine records one more step while the newest is followed
        await key_to_paint_ms(app, "end", offset)
        step_ms, step_cpu_ms = await _one_more_step(screen, steps[: n + 1])
        assert trajectory.shown_indexes[-1] == n
        # ... and one that moves the agent's round counter: the question panel changes too
        screen.driver.episode.rounds_used += 1
        counted_ms, counted_cpu_ms = await _one_more_step(screen, steps[: n + 2])
        steps = steps[: n + 2]
        steps[-1] = steps[-1].model_copy(update={"latency_ms": 3.0})  # re-recorded by the engine
        t = time.perf_counter()
        trajectory.sync(steps, True)
        resync_ms = _ms_since(t)
    per_key = {k: round(max(v), 1) for k, v in keys.items()}
    return {
        "steps": n,
        "render_all_s": round(render, 3),
        "show_all_painted_ms": round(shown_ms, 1),
        "show_all_painted_cpu_ms": round(shown_cpu_ms, 1),
        "refresh_all_call_ms": round(sync_all_ms, 1),
        "trajectory_rebuild_ms": round(rebuild_ms, 1),
        "trajectory_sync_last_step_ms": round(resync_ms, 1),
        "keypress_cpu_ms_median": round(statistics.median(cpu), 1),
        "keypress_cpu_ms_max": round(max(cpu), 1),
        "keys_that_did_not_scroll": stuck,
        "widgets": {"empty": widgets_before, "with_steps": widgets_after},
        "keypress_repaint_ms_max": round(max(per_key.values()), 1),
        "keypress_repaint_ms": per_key,
        "keypress_back_to_back_ms": {k: round(max(v), 1) for k, v in burst.items()},
        "keypress_cpu_ms": {k: round(max(v), 1) for k, v in key_cpu.items()},
        "unfold_all_ms": round(fold_ms, 1),
        "unfold_all_cpu_ms": round(fold_cpu_ms, 1),
        "one_more_step_ms": round(step_ms, 1),
        "one_more_step_cpu_ms": round(step_cpu_ms, 1),
        "one_more_counted_step_ms": round(counted_ms, 1),
        "one_more_counted_step_cpu_ms": round(counted_cpu_ms, 1),
        "pilot_press_roundtrip_ms": {k: round(max(v), 1) for k, v in pilot_keys.items()},
    }


async def _one_more_step(screen, steps) -> tuple[float, float]:
    """The engine recorded one more step (the episode holds `steps`): refresh_all, until
    painted; wall and CPU ms."""
    screen.driver.episode.steps = steps
    t, c = time.perf_counter(), time.process_time()
    screen.refresh_all()
    painted = asyncio.Event()
    screen.call_after_refresh(painted.set)
    await painted.wait()
    return _ms_since(t), (time.process_time() - c) * 1000


def _ms_since(t: float) -> float:
    return (time.perf_counter() - t) * 1000


TARGETS = {"first_paint_s": 0.5, "open_ms": 100.0, "key_ms": 30.0}


async def open_to_paint_ms(app, key: str, screen_name: str) -> float:
    """From posting `key` until the screen named `screen_name` is on top and painted.
    The process's CPU time over the same span goes to `open_to_paint_ms.cpu_ms` (what
    other processes on a loaded machine cannot inflate)."""
    from textual import events

    c = time.process_time()
    t = time.perf_counter()
    app.post_message(events.Key(key, None))
    deadline = t + 10
    while type(app.screen).__name__ != screen_name:
        if time.perf_counter() > deadline:
            raise RuntimeError(f"{key!r} did not open {screen_name} within 10 s")
        await asyncio.sleep(0)
    painted = asyncio.Event()
    app.screen.call_after_refresh(painted.set)
    await painted.wait()
    wall = (time.perf_counter() - t) * 1000
    open_to_paint_ms.cpu_ms = (time.process_time() - c) * 1000  # type: ignore[attr-defined]
    return wall


def _demo_db(path: Path) -> Path:
    from clarify_tui.cli import main as cli

    for benchmark in ("interactcomp", "discobench", "cts"):
        cli(
            [
                "run",
                "--benchmark",
                benchmark,
                "--dataset",
                "demo",
                "--agent",
                "scripted:search-then-ask",
                "--db",
                str(path),
                "--run",
                f"bench-{benchmark}",
                "--limit",
                "4",
                "--concurrency",
                "1",
            ]
        )
    return path


async def screen_openings(db: Path) -> dict[str, tuple[float, float]]:
    """Each screen and dialog, the first time it opens in a fresh app (the slow case: the
    screen's module is imported then too): (wall ms, CPU ms) from key to painted."""
    from clarify_tui.store import Store
    from clarify_tui.tui.app import ClarifyApp
    from clarify_tui.tui.screens.play_queue import QueueSpec

    tasks, search = demo_tasks(), demo_search()

    async def fresh(setup, key, name, cold=False, **kwargs) -> tuple[float, float]:
        # The apps before this one in this process left their widgets behind as cyclic
        # garbage, which a user's process (one app) never has; collect it now, or a full
        # collection of it lands inside whichever opening comes next (~+90 ms of CPU).
        gc.collect()
        app = ClarifyApp(store=Store(db), tasks=tasks, search=search, **kwargs)
        app.animation_level = "none"
        async with app.run_test(size=(160, 45)) as pilot:
            if cold:  # the key at the picker's first paint: nothing built ahead yet
                while not app.picker.shown:
                    await asyncio.sleep(0.001)
                painted = asyncio.Event()
                app.screen.call_after_refresh(painted.set)
                await painted.wait()
            else:  # settled: the screens built ahead while idle (tui/speed/ahead.py; not in the queue)
                await pilot.pause()
                if app.queue is None:
                    await app.ahead.finished.wait()
                    assert app.ahead.error is None and len(app.ahead.ready) == 3, app.ahead.error
                await pilot.pause()
            for k in setup:
                await pilot.press(k)
                await app.workers.wait_for_complete()
                await pilot.pause()
            wall = await open_to_paint_ms(app, key, name)
            return round(wall, 1), round(open_to_paint_ms.cpu_ms, 1)  # type: ignore[attr-defined]

    return {
        "F2 sessions": await fresh([], "f2", "SessionsScreen"),
        "F3 scores": await fresh([], "f3", "ScoresScreen"),
        "? help": await fresh([], "question_mark", "HelpScreen"),
        "replay (enter on a session)": await fresh(["f2"], "enter", "ReplayScreen"),
        "play (enter on a task)": await fresh([], "enter", "PlayScreen"),
        "e edit dialog": await fresh(["space"], "e", "ComposeScreen", task_id=tasks[0].id, run_mode="step"),
        "r replace dialog": await fresh([], "r", "ComposeScreen", task_id=tasks[0].id, run_mode="step"),
        "ctrl+o skip confirmation": await fresh(
            [], "ctrl+o", "ConfirmScreen", queue=QueueSpec(run="bench-queue", annotator="bench")
        ),
        COLD + "F2 sessions": await fresh([], "f2", "SessionsScreen", cold=True),
        COLD + "F3 scores": await fresh([], "f3", "ScoresScreen", cold=True),
        COLD + "? help": await fresh([], "question_mark", "HelpScreen", cold=True),
    }


COLD = "cold: "  # a key pressed at the picker's first paint, before anything is built ahead


def openings_median(db: Path, runs: int) -> tuple[dict[str, float], dict[str, float]]:
    """`screen_openings` in `runs` fresh interpreters (each screen's first opening happens
    once per process); median wall and CPU ms per screen."""
    samples: list[dict] = []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, __file__, "--openings-of", str(db)], capture_output=True, text=True, cwd=ROOT, check=True
        )
        samples.append(json.loads(out.stdout.strip().splitlines()[-1]))
    names = list(samples[0])
    wall = {n: round(statistics.median(s[n][0] for s in samples), 1) for n in names}
    cpu = {n: round(statistics.median(s[n][1] for s in samples), 1) for n in names}
    return wall, cpu


def machine() -> dict:
    """What the numbers depend on besides the code: the load on this machine's cores, and
    whether Python may cache compiled modules (PYTHONDONTWRITEBYTECODE makes every fresh
    interpreter compile the project's sources again, which an installed copy never does)."""
    import os

    return {
        "load_avg_1min": round(os.getloadavg()[0], 2),
        "cpus": os.cpu_count(),
        "bytecode_cache": not sys.dont_write_bytecode,
    }


def _verdict(value: float, target: float) -> str:
    return "ok" if value < target else "OVER"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--steps", type=int, default=200, help="length of the long session")
    parser.add_argument("--session-only", action="store_true", help="only the long session's numbers")
    parser.add_argument("--openings-of", type=Path, help=argparse.SUPPRESS)  # one child run of openings_median
    args = parser.parse_args()
    if args.openings_of:
        print(json.dumps(asyncio.run(screen_openings(args.openings_of))))
        return
    import tempfile

    load_before = machine()
    result: dict = {"targets": TARGETS}
    if not args.session_only:
        with tempfile.TemporaryDirectory() as tmp:
            db = _demo_db(Path(tmp) / "bench.db")
            result["open_ms"], result["open_cpu_ms"] = openings_median(db, args.runs)
            result["first_paint"] = first_paint(args.runs, db)
    result["session"] = asyncio.run(long_session(args.steps))
    result["machine"] = {"before": load_before, "after": machine()}
    if args.json:
        print(json.dumps(result, indent=2))
        return
    m = result["machine"]
    print(
        f"machine: {m['before']['cpus']} cpus, 1-min load {m['before']['load_avg_1min']} before and "
        f"{m['after']['load_avg_1min']} after; bytecode cache {'on' if m['before']['bytecode_cache'] else 'off'}"
    )
    if not args.session_only:
        print_openings(result["first_paint"], result["open_ms"], result["open_cpu_ms"])
    print_session(result["session"])


def print_openings(fp: dict, openings: dict, openings_cpu: dict) -> None:
    first = fp["first_paint_s_median"]
    print(
        f"first paint of the picker: {first:.3f} s after interpreter start "
        f"({fp['first_paint_with_interpreter_start_s_median']:.3f} s including the interpreter; "
        f"CPU {fp['first_paint_cpu_s_median']:.3f} s); "
        f"target < {TARGETS['first_paint_s']} s: {_verdict(first, TARGETS['first_paint_s'])}"
    )
    print(
        f"  then validating the tasks (warm-up): {fp['warm_up_ms_median']:.0f} ms, the event loop stalled "
        f"at most {fp['warm_up_longest_stall_ms_max']:.0f} ms at a time (keys wait that long); "
        f"enter pressed at the first paint shows the play screen after {fp['enter_at_first_paint_ms_median']:.0f} ms"
    )
    print(
        f"  the command `clarify-tui` to the same paint: {fp['command_s_median']:.3f} s "
        f"(CPU {fp['command_cpu_s_median']:.3f} s)"
    )
    if fp.get("screens_ahead_done_ms_median") is not None:
        print(
            f"  then F2, F3 and ? built ahead (tui/speed/ahead.py): done {fp['screens_ahead_done_ms_median']:.0f} ms after "
            f"the first paint; the event loop stalled at most {fp['screens_ahead_longest_stall_ms_max']:.0f} ms wall, "
            f"{fp['screens_ahead_longest_stall_cpu_ms_max']:.0f} ms of its CPU (empty database) / "
            f"{fp['screens_ahead_stall_with_demo_db_ms_max']:.0f} ms wall, "
            f"{fp['screens_ahead_stall_cpu_with_demo_db_ms_max']:.0f} ms CPU (the demo sessions) at a time; "
            f"keys (down/up on the picker, {fp['keys_timed_during_screens_ahead']} timed) repainted in at most "
            f"{fp['key_during_screens_ahead_ms_max']:.0f} ms meanwhile, {fp['key_after_screens_ahead_ms_max']:.0f} ms after"
        )
    for name, ms in openings.items():
        if name.startswith(COLD):
            continue
        cold = openings.get(COLD + name)
        also = f"; {COLD}{cold:.1f} ms (CPU {openings_cpu[COLD + name]:.0f} ms)" if cold is not None else ""
        print(
            f"open {name:<28} {ms:7.1f} ms  target < {TARGETS['open_ms']:.0f} ms: {_verdict(ms, TARGETS['open_ms'])}"
            f"  (CPU {openings_cpu[name]:.0f} ms){also}"
        )


def print_session(ls: dict) -> None:
    key, n = TARGETS["key_ms"], ls["steps"]
    shown_ms = ls["show_all_painted_ms"]
    print(
        f"{n}-step session: show all steps {shown_ms:.1f} ms to the first paint showing the last step "
        f"(CPU {ls['show_all_painted_cpu_ms']:.0f} ms), target < {TARGETS['open_ms']:.0f} ms "
        f"(a screen opening): {_verdict(shown_ms, TARGETS['open_ms'])}; until the app is idle (Pilot's "
        f"20 ms polls; cards around the view are drawn while idle) {ls['render_all_s'] * 1000:.1f} ms; "
        f"widgets on the screen {ls['widgets']['empty']} empty, {ls['widgets']['with_steps']} with {n} steps"
    )
    for name, ms in ls["keypress_repaint_ms"].items():
        print(
            f"  key {name:<10} {ms:7.1f} ms  target < {key:.0f} ms: {_verdict(ms, key)}"
            f"  (CPU {ls['keypress_cpu_ms'].get(name, 0):.0f} ms)"
        )
    print(
        f"  keys {KEY_GAP_S * 1000:.0f} ms after the previous key's paint (above); posted at once after it, "
        f"waiting for the next frame of Textual's 60/s cap: {ls['keypress_back_to_back_ms']}"
    )
    print(
        f"  key f (unfold all) {ls['unfold_all_ms']:7.1f} ms  target < {key:.0f} ms: "
        f"{_verdict(ls['unfold_all_ms'], key)}  (CPU {ls['unfold_all_cpu_ms']:.0f} ms)"
    )
    print(
        f"  one more step arriving {ls['one_more_step_ms']:.1f} ms  target < {key:.0f} ms: "
        f"{_verdict(ls['one_more_step_ms'], key)} (CPU {ls['one_more_step_cpu_ms']:.0f} ms; the trajectory's "
        f"own sync of a re-recorded last step: {ls['trajectory_sync_last_step_ms']:.1f} ms)"
    )
    print(
        f"  one more step moving the round counter {ls['one_more_counted_step_ms']:.1f} ms  target < {key:.0f} ms: "
        f"{_verdict(ls['one_more_counted_step_ms'], key)} (CPU {ls['one_more_counted_step_cpu_ms']:.0f} ms; "
        f"the question panel changes too)"
    )
    print(
        f"  CPU time of this process per key: median {ls['keypress_cpu_ms_median']:.1f} ms, "
        f"max {ls['keypress_cpu_ms_max']:.1f} ms (wall time above includes waiting for a busy machine)"
    )
    print(
        f"  the trajectory alone: rebuild with all {n} steps {ls['trajectory_rebuild_ms']:.1f} ms; "
        f"the screen's refresh_all call {ls['refresh_all_call_ms']:.1f} ms"
    )
    if ls["keys_that_did_not_scroll"]:
        print(f"  keys after which the view did not move (not timed): {ls['keys_that_did_not_scroll']}")
    print(f"  Pilot press round trip (waits for every widget to go idle): {ls['pilot_press_roundtrip_ms']}")


if __name__ == "__main__":
    main()
