"""A scroll view's content height changed: resize it in place when the scrollbar stays.

Setting `Widget.virtual_size` asks the whole screen for a new layout (and a repaint of
every widget), even when only the scrollbar's thumb moves. The trajectory's height
changes when a step arrives and when it is first drawn at its width (right after the
screen's first layout: one more full layout on every play and replay opening,
tests/test_first_frame.py). When the vertical scrollbar neither comes nor goes, the
widget's own scroll state is updated instead (`Widget._scroll_update`, what Textual's
layout calls for it).
"""

from __future__ import annotations

from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.widget import Widget


def resize_in_place(view: ScrollView, size: Size) -> bool:
    """Set `view`'s virtual size without a layout if its vertical scrollbar stays as it
    is; False (nothing done) when a layout is needed."""
    needs_bar = size.height > view.container_size.height
    if view.styles.overflow_y != "auto" or view.show_vertical_scrollbar != needs_bar or not view.container_size:
        return False
    view.set_reactive(Widget.virtual_size, size)
    view._scroll_update(size)
    view.refresh()
    return True
