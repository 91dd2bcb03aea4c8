"""F2 (sessions), F3 (scores) and ? (help) built while the workbench is idle, so that
opening one only has to show it.

Why: a screen's first opening did everything at the key (import its module, parse its
widgets' CSS, compose, mount and style ~25 widgets, lay them out, draw them): 115-150 ms
on a 2-core machine, over the 100 ms target (benchmarks/bench_tui.py). `ScreensAhead`
does all of that after the picker's first paint and the tasks' validation, one step at
a time: one module import, one screen's mount (Textual mounts its widgets in their own
tasks), one layout, a few ms of drawing lines into the widgets' caches. A step starts
only when the screen on top has painted everything pending and no key or mouse event
came for QUIET_S, so a key pressed meanwhile waits for one step at most (the bench
prints the longest event-loop stall and the keys' repaint times during the warm-up).

What a built screen shows is current when it opens: the sessions and scores screens
read the database again at opening when it changed since they read it (`Store.data_mark`).
A screen built at another terminal size or before the CSS changed (a new theme) is
dropped and the key builds a new one, as before. A key pressed before its screen is
finished takes it as far as it got: Textual finishes mounting it as for any new screen.
Each kind is built once per app; once taken, later openings build as before.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import importlib
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import ScreenStackError
from textual.geometry import Region
from textual.widget import AwaitMount, Widget

from clarify_tui.tui.layout import breakpoint_classes

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen

QUIET_S = 0.05  # no key or mouse event for this long before a step
SLICE_S = 0.006  # drawing ahead stops for a break after this long
SETTLE_ROUNDS = 200  # at most this many quiet waits for a screen's widgets to finish mounting


def import_order(module: str, seen: set[str] | None = None) -> Iterator[str]:
    """`module`'s own project imports not loaded yet, deepest first, then `module`: imported
    one a step, no step is a whole screen's import tree (F3's: ~30 ms). Reads the sources
    without importing anything (importlib's find_spec imports a module's parents)."""
    import ast  # not at the app's import: the first paint needs none of this

    seen = set() if seen is None else seen
    if module in seen or module in sys.modules:
        return
    seen.add(module)
    path = _source(module)
    if path is None:
        return
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:  # top level only: imports inside functions run later, if ever
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        for name in names:
            if name.startswith("clarify_tui.") and _source(name) is not None:
                yield from import_order(name, seen)
            elif name.startswith("textual.widgets.") and name.count(".") == 2 and name not in seen:
                seen.add(name)
                yield name  # textual.widgets.DataTable: the widget's lazily imported module
    yield module


def _source(module: str) -> Path | None:
    """The project module's source file, None for a name that is not a module."""
    base = Path(sys.modules["clarify_tui"].__file__ or "").parent.joinpath(*module.split(".")[1:])
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def _load(name: str) -> None:
    if name.startswith("textual.widgets.") and name.count(".") == 2:
        getattr(importlib.import_module("textual.widgets"), name.rsplit(".", 1)[1])
    else:
        importlib.import_module(name)


STEPPED_MODULES = ("clarify_tui.", "textual.containers")


def steps_inside(widget: Widget) -> bool:
    """Whether `widget`'s own children may be mounted a step at a time: our widgets and
    Textual's plain containers, not Textual's compound widgets."""
    return type(widget).__module__.startswith(STEPPED_MODULES)


class ScreensAhead:
    """Builds one screen of each kind in `builders` (kind: (module, factory called with the
    imported module, None: not now)) while the app is idle; `take(kind)` hands it over."""

    def __init__(self, app: App, builders: dict[str, tuple[str, Callable[..., Screen | None]]]) -> None:
        self.app = app
        self.builders = builders
        self.built: dict[str, Screen] = {}  # registered with the app (mounting or mounted), not taken
        self.ready: dict[str, tuple[object, int]] = {}  # finished: the size and CSS generation it was laid out for
        self.finished = asyncio.Event()  # every kind built (or given up)
        self.error: BaseException | None = None
        self.stepped: list[Widget] = []  # widgets whose children were mounted a step at a time
        self.steps: list[tuple[float, str]] = []  # (ms, what) of each step (the bench prints the longest)
        self._last_input = 0.0
        self._top: Screen | None = None  # the screen on top at the last quiet moment
        self._waiting_for = {"first paint", "tasks"}
        self._task: asyncio.Task | None = None
        self._closing = False  # the app is closing: the widgets still mounting in steps are dropped

    # ---- what the app tells it -----------------------------------------------------------

    def note_input(self) -> None:
        self._last_input = time.monotonic()

    def clear_to_start(self, reason: str) -> None:
        """Starts once the first paint is done and the tasks are loaded."""
        self._waiting_for.discard(reason)
        if not self._waiting_for and self._task is None:
            self._task = asyncio.create_task(self._run(), name="screens ahead")

    def stop(self) -> None:
        """The app is closing: the widgets still mounting a step at a time are dropped, and
        no screen left half-built is handed out any more."""
        self._closing = True
        self.built.clear()
        self.ready.clear()
        if self._task is not None:
            self._task.cancel()

    def take(self, kind: str) -> Screen | None:
        """The screen built ahead for `kind`, if any (built once: later calls get None)."""
        screen = self.built.pop(kind, None)
        made_for = self.ready.pop(kind, None)
        if screen is None:
            return None
        if made_for is not None and made_for != self._conditions():
            screen.remove()  # the terminal or the CSS changed since: as if never built
            return None
        return screen

    def _conditions(self) -> tuple[object, int]:
        return self.app.size, self.app._css_update_count

    # ---- the warm-up ---------------------------------------------------------------------

    async def _run(self) -> None:
        try:
            for kind in self.builders:
                await self._build(kind)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # never the user's problem: the key builds the screen as before
            self.error = exc
            self.app.log.error(f"building screens ahead: {exc!r}")
        finally:
            gc.freeze()  # what was built lives on until taken: out of the collector's scans (app.freeze_startup_heap)
            self.finished.set()

    async def _quiet(self, kind: str | None = None, building: Screen | None = None) -> None:
        """Until the screen on top has painted what it had pending and neither input nor a
        new screen on top came for QUIET_S (a key's effect can come later than the key: enter
        pressed while the tasks load opens the task once they are loaded). Given the `kind`
        and the screen `building`: also as soon as it is taken (opened), since the screen
        on top may then be that screen, which cannot paint while the step waiting here
        holds up its mounting (a click on F3 in the footer once hung a test 300 s so)."""
        while True:
            if self._closing or self.app._exit:
                return
            if kind is not None and self.built.get(kind) is not building:
                return
            try:
                screen = self.app.screen
            except ScreenStackError:  # the app is closing: give up what is being built
                self.stop()
                return
            if screen is not self._top:
                self._top = screen
                self.note_input()
            painted = asyncio.Event()
            screen.call_after_refresh(painted.set)
            try:
                await asyncio.wait_for(painted.wait(), 0.5)  # the screen may close meanwhile
            except TimeoutError:
                continue
            wait = QUIET_S - (time.monotonic() - self._last_input)
            if wait <= 0 and self.app.screen is screen:
                return
            await asyncio.sleep(max(wait, 0))

    async def _build(self, kind: str) -> None:
        module, factory = self.builders[kind]
        names = import_order(module)  # reads one source file at a time, as it goes
        while True:
            await self._quiet()
            with self._step(f"{kind}: find imports"):
                name = next(names, None)
            if name is None:
                break
            await self._quiet()
            with self._step(f"import {name}"):
                _load(name)
        await self._quiet()
        app = self.app
        with self._step(f"{kind}: new screen"):
            screen = factory(sys.modules[module])
            if screen is None:
                return
            screen.update_classes(breakpoint_classes(*app.size), update=False)  # as PresetBreakpoints at a push
            app._load_screen_css(screen)
        self.built[kind] = screen
        await self._quiet(kind, screen)
        if self.built.get(kind) is not screen:
            return
        setattr(screen, "mount_composed_widgets", functools.partial(self._mount_in_steps, screen, screen, kind))  # noqa: B010 (per instance; mypy refuses a method assignment)
        with self._step(f"{kind}: register"):
            widgets = app._register(app, screen)  # what push_screen does (App._get_screen)
        await AwaitMount(screen, widgets)
        del screen.mount_composed_widgets
        if not await self._settled(screen, kind):
            return
        for widget in [w for w in screen.walk_children() if hasattr(w, "draw_ahead")]:  # help's text
            steps = iter(widget.draw_ahead())
            while True:
                await self._quiet(kind, screen)
                if self.built.get(kind) is not screen:
                    return
                with self._step(f"{kind}: {type(widget).__name__} ahead"):
                    if next(steps, StopIteration) is StopIteration:
                        break
        for _ in range(4):  # a layout's Resize events may ask for another (F3: its tabs)
            await self._quiet(kind, screen)
            if self.built.get(kind) is not screen:
                return
            with self._step(f"{kind}: layout"):
                screen._refresh_layout(app.size)
                screen._layout_required = False  # as Screen._on_timer_update after a layout
            if not await self._settled(screen, kind):
                return
            if screen.focused is None:  # a scrolling container takes focus once laid out (as at ScreenResume)
                with self._step(f"{kind}: focus"):
                    screen._update_auto_focus()
                if not await self._settled(screen, kind):
                    return
            if not screen._layout_required:
                break
        if await self._draw(screen, kind):
            self.ready[kind] = self._conditions()

    async def _mount_in_steps(self, parent: Widget, screen: Screen, kind: str, widgets: list[Widget]) -> None:
        """In place of `parent.mount_composed_widgets` (a hook Textual documents for lazy
        mounting, as textual.lazy.Lazy uses it): the composed widgets one at a time, each
        composing its own the same way. Textual mounts siblings together: all styled in one
        call, then all composed in one turn of the event loop (F2's filter bar: 20-40 ms
        without a break). Once the screen is taken, the rest at once, as Textual does.
        Only our own widgets and Textual's plain containers are opened up this way: a
        Textual widget with parts (TabbedContent, Tabs, Select, DataTable) composes them at
        once, as it expects (Tabs reads its Underline as soon as a tab is active: mounted a
        step apart, F3 built ahead crashed with NoMatches 'Underline' under load)."""
        self.stepped.append(parent)
        for i, widget in enumerate(widgets):
            if self.built.get(kind) is screen:
                await self._quiet(kind, screen)
            if self._closing or self.app._exit:  # as Textual cancels a widget's task at exit
                raise asyncio.CancelledError()
            if self.built.get(kind) is not screen:
                await parent.mount_all(widgets[i:])
                return
            if steps_inside(widget):
                setattr(widget, "mount_composed_widgets", functools.partial(self._mount_in_steps, widget, screen, kind))  # noqa: B010
            await parent.mount(widget)
            widget.__dict__.pop("mount_composed_widgets", None)

    @contextlib.contextmanager
    def _step(self, what: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.steps.append(((time.perf_counter() - start) * 1000, what))

    async def _settled(self, screen: Screen, kind: str) -> bool:
        """Until the screen's widgets are mounted, their messages handled and its workers
        done (F3 computes its numbers in a thread); False if the screen was taken meanwhile."""
        for _ in range(SETTLE_ROUNDS):
            await self._quiet(kind, screen)
            if self.built.get(kind) is not screen:
                return False
            workers = [w for w in self.app.workers if w.node is screen and not w.is_finished]
            nodes = list(screen.walk_children(with_self=True))
            if not workers and all(n.is_mounted and not n.message_queue_size for n in nodes if isinstance(n, Widget)):
                return True
        return True

    async def _draw(self, screen: Screen, kind: str) -> bool:
        """Draw every visible widget's lines into its cache, as the compositor will crop
        them (Compositor._get_renders), a slice at a time. Not the screen itself: a dialog's
        backdrop is whatever is below it when it opens."""
        compositor = screen._compositor
        for widget, (region, clip) in list(compositor.visible_widgets.items()):
            if widget is screen:
                continue
            crop = region.intersection(clip).translate((-region.x, -region.y))
            y = crop.y
            while y < crop.bottom:
                await self._quiet(kind, screen)
                if self.built.get(kind) is not screen:
                    return False
                if not widget.is_attached or screen._compositor is not compositor:
                    break
                start = time.perf_counter()
                with self._step(f"{kind}: draw {type(widget).__name__}"):
                    while y < crop.bottom and time.perf_counter() - start < SLICE_S:
                        widget.render_lines(Region(crop.x, y, crop.width, min(4, crop.bottom - y)))
                        y += 4
        return True
