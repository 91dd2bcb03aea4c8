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
Text, no base style, no width.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType
from rich.segment import Segment
from rich.style import Style
from rich.text import Span, Text

_NULL = Style.null()  # the style of the Text Rich joins the wrapped lines into
# Characters one cell wide each, none of them white space but " " (so a word ends at a
# space, as Rich's `\s` splits words): lines made only of these are wrapped here.
ONE_CELL = re.compile("[\x20-\x7e\u00a1-\u00ac\u00ae-\u02ff\u2010-\u2027\u2030-\u205e]*")


def render_lines(
    renderables: Sequence[RenderableType], console: Console, width: int, base: Style
) -> list[list[Segment]]:
    """`renderables` one below the other, `width` cells wide on `base`: what
    `console.render_lines(Group(*renderables), options at width, style=base)` returns."""
    options = console.options.update_width(width)
    if not base or width < 1 or not all(isinstance(r, Text) and r.end == "\n" for r in renderables):
        return console.render_lines(Group(*renderables), options, style=base)
    lines: list[list[Segment]] = []
    styles = _Styles(console, base)
    for text in renderables:
        assert isinstance(text, Text)
        if _plain_enough(text, options):
            lines.extend(_text_lines(text, styles, width))
        else:  # each Text ends its last line: stacking them is rendering them one by one
            lines.extend(console.render_lines(text, options, style=base))
    return lines


def _plain_enough(text: Text, options: ConsoleOptions) -> bool:
    """Whether `text` renders as Rich's defaults do (left as is, long words folded)."""
    plain = text.plain
    return (
        bool(plain)
        and "\t" not in plain
        and (text.justify or options.justify or "default") == "default"
        and (text.overflow or options.overflow or "fold") == "fold"
        and not (options.no_wrap if text.no_wrap is None else text.no_wrap)
    )


def _text_lines(text: Text, styles: _Styles, width: int) -> list[list[Segment]]:
    """`text`'s lines: split at newlines (as `Text.split(allow_blank=True)`), each
    wrapped (as `Text.wrap`), padded to `width`."""
    runs = _runs(text, styles)
    base, console = styles.base, styles.console
    if runs is None:
        return [_pad(_segments_overlapping(line, styles), width, base) for line in _rich_wrap(text, console, width)]
    plain = text.plain
    out = []
    a = 0
    for part in plain.split("\n"):
        b = a + len(part)
        ranges = _wrap(part, a, width)
        if ranges is None:  # Rich wraps it (the runs of the part are its own spans' segments)
            out += [_pad(_segments(line, styles), width, base) for line in _rich_wrap(text[a:b], console, width)]
        else:
            for s, e, cells in ranges:
                line = _cut(plain, runs, s, e)
                if cells < width:
                    line.append(Segment(" " * (width - cells), base))
                out.append(line)
        a = b + 1
    return out


def _rich_wrap(text: Text, console: Console, width: int) -> list[Text]:
    """Rich's own wrap, with what `Text.__rich_console__` passes it."""
    return list(text.wrap(console, width, justify="default", overflow="fold", tab_size=8, no_wrap=False))


def _wrap(part: str, a: int, width: int) -> list[tuple[int, int, int]] | None:
    """Where the line `part` (at `a` in its Text) is cut into lines `width` wide, as
    `Text.wrap` cuts it: at the start of each word that would end past the width (Rich's
    `divide_line`), each line's trailing spaces past the width cropped (`rstrip_end`);
    with each line's width in cells. None where Rich has to do it: a character not one
    cell wide, a word wider than a line."""
    if len(part) <= width:
        cells = cell_len(part)
        if cells <= width:
            return [(a, a + len(part), cells)]
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
        ranges.append((a + s, a + e, e - s))
    return ranges


class _Styles:
    """The styles of one call's segments, as Rich's `Text.render` styles a line (the
    text's style, then a span's, combined on a null style), on `base`; each worked out
    once."""

    def __init__(self, console: Console, base: Style) -> None:
        self.console, self.base = console, base
        self._known: dict[tuple, Style] = {}

    def of(self, text_style: str | Style, span_style: str | Style | None = None) -> Style:
        key = (text_style, span_style)
        style = self._known.get(key)
        if style is None:
            get_style = self.console.get_style
            inner = _NULL + get_style(text_style, default=_NULL) if text_style else _NULL
            if span_style is not None:
                inner = inner + get_style(span_style, default=_NULL)
            style = self._known[key] = self.base + inner
        return style

    def combined(self, styles: list[str | Style]) -> Style:
        """Spans over one another: their styles combined in order."""
        get_style = self.console.get_style
        return self.base + Style.combine([_NULL, *(get_style(s, default=_NULL) for s in styles)])


def _runs(text: Text, styles: _Styles) -> list[tuple[int, int, Style]] | None:
    """Where each style of `text` starts and ends. None for spans over one another (not
    as `Text.append` makes them)."""
    plain = text.plain
    end = 0
    for span in text.spans:
        if span.start < end or span.end > len(plain):
            return None
        end = max(end, span.end)
    gap = styles.of(text.style)
    runs = []
    at = 0
    for start, end, style in text.spans:
        if start > at:
            runs.append((at, start, gap))
        if end > start:
            runs.append((start, end, styles.of(text.style, style)))
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
        out.append(Segment(plain[max(s, start) : min(e, end)], style))
    return out


def _pad(segments: list[Segment], width: int, base: Style) -> list[Segment]:
    return Segment.adjust_line_length(segments, width, style=base, pad=True)


def _segments(line: Text, styles: _Styles) -> list[Segment]:
    """One line's segments (a line Rich wrapped)."""
    runs = _runs(line, styles)
    if runs is None:
        return _segments_overlapping(line, styles)
    return _cut(line.plain, runs, 0, len(line.plain))


def _segments_overlapping(line: Text, styles: _Styles) -> list[Segment]:
    """One line's segments, for spans over one another: Rich's own walk through their
    starts and ends (`Text.render`), each segment's style the active ones combined in
    order."""
    plain = line.plain
    spans = [Span(0, len(plain), line.style), *line.spans] if line.style else line.spans
    cuts = sorted({0, len(plain), *(span.start for span in spans), *(span.end for span in spans)})
    out = []
    for start, end in zip(cuts, cuts[1:]):
        active = [span.style for span in spans if span.start <= start and span.end >= end]
        out.append(Segment(plain[start:end], styles.combined(active)))
    return out
