"""The wall: the only package that names Textual's private internals (tests/test_wall.py).

What is here makes screens open in one layout and one frame, builds F2, F3 and help
while the workbench is idle, caches a dialog's dimmed backdrop and draws the sessions and
scores screens' tables, selects and header with fewer widgets and renders
(benchmarks/bench_tui.py; docs/textual-internals.md lists each private name, why and
what upstream change would remove it). The screens inherit the bases below; on a Textual
outside the tested range (`version.TESTED`), or with CLARIFY_TUI_STOCK_TEXTUAL=1, those
bases are stock Textual classes and nothing here touches Textual: the app works the
same, only slower.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar, Union

from textual.app import App
from textual.geometry import Size
from textual.screen import ModalScreen, Screen
from textual.scroll_view import ScrollView
from textual.widgets import DataTable, Select
from textual.widgets import Header as TextualHeader

from clarify_tui.tui.speed.version import ACTIVE

if TYPE_CHECKING:
    from clarify_tui.tui.speed.ahead import ScreensAhead

ResultType = TypeVar("ResultType")

if ACTIVE and not TYPE_CHECKING:
    from clarify_tui.tui.speed.backdrop import CachedBackdrop
    from clarify_tui.tui.speed.fast_table import FastTable as _FastTable
    from clarify_tui.tui.speed.first_frame import FirstFrameDrawsAll, LaidOutOnOpen, StyledAtMount
    from clarify_tui.tui.speed.header import Header as _Header
    from clarify_tui.tui.speed.light_select import LightSelect as _LightSelect

    class LaidOutScreen(LaidOutOnOpen, Screen):
        """A screen laid out and styled once when it opens (the picker, F2, F3)."""

    class OpenedScreen(LaidOutOnOpen, FirstFrameDrawsAll, Screen):
        """A screen whose opening is one layout and one frame (play, replay)."""

    class Dialog(StyledAtMount, CachedBackdrop[ResultType]):
        """A modal dialog whose dimmed backdrop is drawn once; not restyled whole when shown."""

    class OpenedDialog(LaidOutOnOpen, FirstFrameDrawsAll, Dialog[ResultType]):
        """A dialog whose opening is one layout and one frame (the step-mode editor, confirmations)."""

    class FastTable(_FastTable):
        """A DataTable drawing one-line text cells directly."""

    class LightSelect(_LightSelect):
        """A Select whose current value is one widget."""

    class Header(_Header):
        """Textual's Header, its title redrawn only when it changes."""
else:

    class LaidOutScreen(Screen):
        """Stock Textual: a Screen."""

    class OpenedScreen(Screen):
        """Stock Textual: a Screen."""

    class Dialog(ModalScreen[ResultType]):
        """Stock Textual: a ModalScreen."""

    class OpenedDialog(Dialog[ResultType]):
        """Stock Textual: a ModalScreen."""

    class FastTable(DataTable):
        """Stock Textual: a DataTable."""

    class LightSelect(Select):
        """Stock Textual: a Select."""

    class Header(TextualHeader):
        """Stock Textual: a Header."""


class StockScreensAhead:
    """Stock Textual builds nothing ahead: F2, F3 and help are built at their key."""

    def __init__(self) -> None:
        self.finished = asyncio.Event()
        self.finished.set()
        self.error: BaseException | None = None
        self.ready: dict[str, object] = {}

    def note_input(self) -> None:
        pass

    def clear_to_start(self, reason: str) -> None:
        pass

    def stop(self) -> None:
        pass

    def take(self, kind: str) -> Screen | None:
        return None


ScreensAheadLike = Union["ScreensAhead", StockScreensAhead]


def set_virtual_size(view: ScrollView, size: Size) -> None:
    """Size a scroll view's content: in place when its scrollbar stays (speed/scroll.py),
    else (or on stock Textual) as Textual does, with a layout of the screen."""
    if view.virtual_size == size:
        return
    if ACTIVE:
        from clarify_tui.tui.speed.scroll import resize_in_place

        if resize_in_place(view, size):
            return
    view.virtual_size = size


def screens_ahead(app: App, builders: dict[str, tuple[str, Callable[..., Screen | None]]]) -> ScreensAheadLike:
    """The app's builder of screens ahead (speed/ahead.py), or one that builds nothing."""
    if ACTIVE:
        from clarify_tui.tui.speed.ahead import ScreensAhead

        return ScreensAhead(app, builders)
    return StockScreensAhead()


__all__ = [
    "ACTIVE",
    "Dialog",
    "FastTable",
    "Header",
    "LaidOutScreen",
    "LightSelect",
    "OpenedDialog",
    "OpenedScreen",
    "screens_ahead",
    "set_virtual_size",
]
