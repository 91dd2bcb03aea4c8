"""A modal dialog's dimmed backdrop (the screen underneath) drawn once, not per frame.

Textual draws a translucent screen's background by rendering the whole screen below it
again and tinting every segment (`BackgroundScreen`), each time the dialog's own screen
is refreshed: ~4 times while a dialog opens (resume, layout, focus), 15-30 ms each at
160x45. `Dialog` keeps the finished backdrop lines and reuses them for as long as the
screen below, the size and the tint are unchanged. Textual tells the top screen when the
screen below changes (a step arriving, a table refreshing): the background screen's
compositor calls `refresh(*changed_regions)` on it, which is what drops the copy here, so
the change still shows through, dimmed, on the next frame.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Self, TypeVar

from rich.console import RenderableType
from rich.segment import Segment
from rich.style import Style
from textual._context import visible_screen_stack
from textual.color import Color
from textual.geometry import Region
from textual.renderables.background_screen import BackgroundScreen
from textual.screen import ModalScreen
from textual.strip import Strip

ResultType = TypeVar("ResultType")


class _TintOncePerStyle(BackgroundScreen):
    """Textual's tint, worked out once per distinct style instead of once per segment (a
    screen holds a few dozen styles across thousands of segments); the same cells."""

    @classmethod
    def process_segments(cls, segments: Iterable[Segment], color: Color) -> Iterable[Segment]:
        if color.a == 0:
            yield from BackgroundScreen.process_segments(segments, color)
            return
        tinted: dict[Style | None, Style | None] = {}
        for segment in segments:
            text, style, control = segment
            if control:
                yield segment
                continue
            if style not in tinted:
                tinted[style] = next(iter(BackgroundScreen.process_segments([Segment(" ", style)], color))).style
            yield Segment(text, tinted[style], control)


class CachedBackdrop(ModalScreen[ResultType]):
    """A ModalScreen whose backdrop (the screen below, tinted) is cached between frames."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._backdrop: tuple[tuple[object, ...], list[Strip]] | None = None

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False) -> Self:
        if regions:  # the screen below changed there (Screen._compositor_refresh): draw it again
            self._backdrop = None
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def render(self) -> RenderableType:
        backdrop = super().render()
        if isinstance(backdrop, BackgroundScreen):
            return _TintOncePerStyle(backdrop.screen, backdrop.color)
        return backdrop

    def render_lines(self, crop: Region) -> list[Strip]:
        try:
            stack = visible_screen_stack.get()
        except LookupError:
            stack = []
        background = self.styles.background
        if not stack or stack[-1] is self or background.a >= 1:
            return super().render_lines(crop)  # nothing shows through: Textual's own path
        key = (stack[-1], self.size, background)
        if self._backdrop is None or self._backdrop[0] != key:
            self._set_dirty()  # render() (which takes the screen below off the stack) runs again
            self._backdrop = (key, super().render_lines(self.size.region))
        else:
            stack.pop()  # as Screen.render does: a screen further up the stack is not ours to draw
        lines = self._backdrop[1][crop.y : crop.bottom]
        if crop.x == 0 and crop.width == self.size.width:
            return lines
        return [line.crop(crop.x, crop.right) for line in lines]
