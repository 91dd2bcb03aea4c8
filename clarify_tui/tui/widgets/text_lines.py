"""A card's Texts as lines, as `Console.render_lines` draws them stacked, for less.

The trajectory draws every card of a session (200 steps are ~1,000 lines) and draws the
search cards again when they unfold (each snippet then wraps). Rich's generic path (a
Group, each Text split, wrapped, joined, rendered and split again, through generators)
costs ~40 µs a line. Here a Text's styles are laid out once as runs (where each style
starts and ends), its lines are cut at the newlines and where Rich's word wrap breaks
them, and each line's segments are the runs it covers. The result is the same segments:
tests/test_text_lines.py compares both for every card kind and for random texts. What
this path does not cover is left to Rich: a line to wrap with characters other than
single-cell ones (Rich's `Text.wrap` wraps it), spans over one another, a tab, an empty
Text, a justify, overflow or end other than Rich's defaults, a renderable that is not a
Text, no base style.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from operator import itemgetter

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType
from rich.segment import Segment
from rich.style import Style
from rich.text import Span, Text

_NULL = Style.null()  # the style of the Text Rich joins the wrapped lines into
# Characters one cell wide each, none of them white space but " " (so a word ends at a
# space, as Rich's `\s` splits words): lines made only of these are wrapped here.
ONE_CELL = re.compile("[\x20-\x7e\u00a1-\u00ac\u00ae-\u02ff\u2010-\u2027\u2030-\u205e]*")


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
    """`text`'s lines: split at newlines (as `Text.split(allow_blank=True)`), each
    wrapped (as `Text.wrap`), padded to `width` on `base`."""
    runs = _runs(text, console, base)
    if runs is None:
        return [_pad(_segments_overlapping(line, console, base), width, base) for line in _rich_wrap(text, console, width)]
    plain = text.plain
    out = []
    a = 0
    for part in plain.split("\n"):
        b = a + len(part)
        ranges = _wrap(part, a, width)
        if ranges is None:  # Rich wraps it (the runs of the part are its own spans' segments)
            out += [_pad(_segments(line, console, base), width, base) for line in _rich_wrap(text[a:b], console, width)]
        else:
            out += [_pad(_cut(plain, runs, s, e), width, base) for s, e in ranges]
        a = b + 1
    return out


def _rich_wrap(text: Text, console: Console, width: int) -> list[Text]:
    """Rich's own wrap, with what `Text.__rich_console__` passes it."""
    return list(text.wrap(console, width, justify="default", overflow="fold", tab_size=8, no_wrap=False))


def _wrap(part: str, a: int, width: int) -> list[tuple[int, int]] | None:
    """Where the line `part` (at `a` in its Text) is cut into lines `width` wide, as
    `Text.wrap` cuts it: at the start of each word that would end past the width (Rich's
    `divide_line`), each line's trailing spaces past the width cropped (`rstrip_end`).
    None where Rich has to do it: a character not one cell wide, a word wider than a line."""
    if len(part) <= width and cell_len(part) <= width:
        return [(a, a + len(part))]
    if not ONE_CELL.fullmatch(part):
        return None
    breaks = [0]
    end = len(part.rstrip(" "))  # where the last word's letters end
    start = 0
    while end - start > width:
        over = start + width  # the first column past the line; a word still there does not fit
        while part[over] == " ":
            over += 1
        word = part.rfind(" ", start, over) + 1  # the start of the word that does not fit
        if word <= start or not part[start:word].strip(" "):  # the line's first word: Rich folds it
            return None
        breaks.append(word)
        start = word
    breaks.append(len(part))
    ranges = []
    for s, e in zip(breaks, breaks[1:]):
        if e - s > width:  # spaces past the width: cropped
            e = s + max(width, len(part[s:e].rstrip(" ")))
        ranges.append((a + s, a + e))
    return ranges


def _runs(text: Text, console: Console, base: Style) -> list[tuple[int, int, Style]] | None:
    """Where each style of `text` starts and ends, on `base`, as Rich's `Text.render`
    styles a line: the text's style, then the span's, combined on a null style. None for
    spans over one another (not as `Text.append` makes them)."""
    plain = text.plain
    end = 0
    for span in text.spans:
        if span.start < end or span.end > len(plain):
            return None
        end = max(end, span.end)
    get_style = console.get_style
    inner = _NULL + get_style(text.style, default=_NULL) if text.style else _NULL
    gap = base + inner
    runs = []
    at = 0
    for start, end, style in text.spans:
        if start > at:
            runs.append((at, start, gap))
        if end > start:
            runs.append((start, end, base + (inner + get_style(style, default=_NULL))))
            at = end
    if at < len(plain):
        runs.append((at, len(plain), gap))
    return runs


def _cut(plain: str, runs: list[tuple[int, int, Style]], start: int, end: int) -> list[Segment]:
    """The segments of the line from `start` to `end`: the runs it covers, cut to it."""
    out: list[Segment] = []
    if start == end:  # a blank line: no segment (Rich drops the empty ones)
        return out
    for s, e, style in runs:
        if e <= start:
            continue
        if s >= end:
            break
        out.append(Segment(plain[max(s, start):min(e, end)], style))
    return out


def _pad(segments: list[Segment], width: int, base: Style) -> list[Segment]:
    return Segment.adjust_line_length(segments, width, style=base, pad=True)


def _segments(line: Text, console: Console, base: Style) -> list[Segment]:
    """One line's segments (a line Rich wrapped)."""
    runs = _runs(line, console, base)
    if runs is None:
        return _segments_overlapping(line, console, base)
    return _cut(line.plain, runs, 0, len(line.plain))


def _segments_overlapping(line: Text, console: Console, base: Style) -> list[Segment]:
    """One line's segments, for spans over one another: Rich's own walk through their
    starts and ends (`Text.render`), each segment's style the active ones combined."""
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
            out.append(Segment(plain[offset:next_offset], base + Style.combine(style_map[n] for n in sorted(stack))))
    return out
