"""A card's Texts as lines, as `Console.render_lines` draws them stacked, for less.

The trajectory draws every card of a session (200 steps are ~1,000 lines) and draws a
search card again when it unfolds. Rich's generic path (Group, then each Text wrapped,
joined, rendered and split again, through chained generators) costs ~40 µs a line, most
of it wrapping lines that already fit. Here a line that fits the width is rendered
straight to segments, and one that does not is wrapped by Rich itself (`Text.wrap`,
with the arguments `Text.__rich_console__` passes). The result is the same segments:
tests/test_text_lines.py compares both for every card kind and for random text. What
this path does not cover (a tab, an empty Text, a justify, overflow or end other than
Rich's defaults, a renderable that is not a Text, no base style) is left to Rich.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import itemgetter

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType
from rich.segment import Segment
from rich.style import Style
from rich.text import Span, Text

_NULL = Style.null()  # the style of the Text Rich joins the wrapped lines into


def render_lines(renderables: Sequence[RenderableType], console: Console, width: int,
                 base: Style) -> list[list[Segment]]:
    """`renderables` one below the other, `width` cells wide on `base`: what
    `console.render_lines(Group(*renderables), options at width, style=base)` returns."""
    options = console.options.update_width(width)
    if not base or not all(isinstance(r, Text) and r.end == "\n" for r in renderables):
        return console.render_lines(Group(*renderables), options, style=base)
    lines: list[list[Segment]] = []
    for text in renderables:
        assert isinstance(text, Text)
        if _plain_enough(text, options):
            lines.extend(_text_lines(text, console, width, base))
        else:  # each Text ends its last line: stacking them is rendering them one by one
            lines.extend(console.render_lines(text, options, style=base))
    return lines


def _plain_enough(text: Text, options: ConsoleOptions) -> bool:
    """Whether `text` renders as Rich's defaults do (left as is, long words folded)."""
    plain = text.plain
    return (bool(plain) and "\t" not in plain
            and (text.justify or options.justify or "default") == "default"
            and (text.overflow or options.overflow or "fold") == "fold"
            and not (options.no_wrap if text.no_wrap is None else text.no_wrap))


def _text_lines(text: Text, console: Console, width: int, base: Style) -> list[list[Segment]]:
    parts = text.split("\n", allow_blank=True) if "\n" in text.plain else [text]
    out = []
    for part in parts:
        plain = part.plain
        if len(plain) <= width and cell_len(plain) <= width:  # Text.wrap leaves it as it is
            wrapped: Sequence[Text] = [part]
        else:
            wrapped = part.wrap(console, width, justify="default", overflow="fold", tab_size=8, no_wrap=False)
        for line in wrapped:
            out.append(Segment.adjust_line_length(_segments(line, console, base), width, style=base, pad=True))
    return out


def _segments(line: Text, console: Console, base: Style) -> list[Segment]:
    """One line's segments on `base`, cut where Rich's `Text.render` cuts them (at every
    span's start and end) and styled as it styles them: the line's style, then the
    spans' styles in order, combined on a null style, all on `base`."""
    plain = line.plain
    spans = line.spans
    end = 0
    for span in spans:  # as `Text.append` makes them: in order, none over another
        if span.start < end or span.end > len(plain):
            return _segments_overlapping(line, console, base)
        end = max(end, span.end)
    get_style = console.get_style
    inner = _NULL + get_style(line.style, default=_NULL) if line.style else _NULL
    out = []
    at = 0
    for start, end, style in spans:
        if start > at:
            out.append(Segment(plain[at:start], base + inner))
        if end > start:
            out.append(Segment(plain[start:end], base + (inner + get_style(style, default=_NULL))))
            at = end
    if at < len(plain):
        out.append(Segment(plain[at:], base + inner))
    return out


def _segments_overlapping(line: Text, console: Console, base: Style) -> list[Segment]:
    """`_segments` for spans over one another: Rich's own walk through their starts and
    ends (`Text.render`)."""
    plain = line.plain
    spans = [Span(0, len(plain), line.style), *line.spans] if line.style else line.spans
    style_map = {0: _NULL}
    for number, span in enumerate(spans, 1):
        style_map[number] = console.get_style(span.style, default=_NULL)
    events = [(0, False, 0), *((span.start, False, n) for n, span in enumerate(spans, 1)),
              *((span.end, True, n) for n, span in enumerate(spans, 1)), (len(plain), True, 0)]
    events.sort(key=itemgetter(0, 1))
    stack: list[int] = []
    out = []
    for (offset, leaving, number), (next_offset, _, _) in zip(events, events[1:]):
        if leaving:
            stack.remove(number)
        else:
            stack.append(number)
        if next_offset > offset:
            style = Style.combine(style_map[n] for n in sorted(stack))
            out.append(Segment(plain[offset:next_offset], base + style))
    return out
