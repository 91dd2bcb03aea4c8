"""Strips make their caches on first use (tui/lean_strips.py) and otherwise behave as
Textual's: the same fields, the same lines after every operation the compositor and the
trajectory use, caches that still hit. The first test fails if Textual's Strip changes
what it sets up, so the replacement cannot silently drift from it."""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.cache import FIFOCache
from textual.strip import Strip

from clarify_tui.tui import lean_strips
from clarify_tui.tui.app import ClarifyApp  # noqa: F401  (installs it, as the app does)
from clarify_tui.tui.browse import BrowseApp  # noqa: F401

SEGMENTS = [Segment("#12 ", Style(dim=True)), Segment("agent ", Style(bold=True, color="cyan")),
            Segment("🔎 search tower clock", Style(color="white", bgcolor="black"))]


def textual_strip(segments, cell_length=None) -> Strip:
    strip = object.__new__(Strip)
    lean_strips.TEXTUAL_INIT(strip, segments, cell_length)
    return strip


def test_textuals_strip_sets_up_the_fields_the_lean_one_does_and_these_caches():
    textual, lean = textual_strip(SEGMENTS, 30), Strip(SEGMENTS, 30)
    caches = {}
    for name in Strip.__slots__:
        value = getattr(textual, name)
        if isinstance(value, FIFOCache):
            caches[name] = value._maxsize
        else:
            assert object.__getattribute__(lean, name) == value, name  # set at once, as Textual does
    assert caches == lean_strips.CACHE_SIZES


def test_the_app_installs_it():
    assert Strip.__init__ is lean_strips._init
    strip = Strip(SEGMENTS)
    try:
        object.__getattribute__(strip, "_crop_cache")
        made = True
    except AttributeError:
        made = False
    assert not made  # no cache until one is used


def test_a_lean_strip_draws_and_caches_as_textuals_does():
    textual, lean = textual_strip(SEGMENTS), Strip(SEGMENTS)
    red = Style(color="red")
    for op in (lambda s: s.crop(2, 14), lambda s: s.divide([4, 10, 40]), lambda s: s.adjust_cell_length(40, red),
               lambda s: s.crop_extend(1, 35, red), lambda s: s.apply_style(red), lambda s: s.extend_cell_length(50),
               lambda s: s.simplify(), lambda s: s.text, lambda s: s.cell_length, lambda s: s.render(_console())):
        assert op(lean) == op(textual)
    assert lean.crop(2, 14) is lean.crop(2, 14)  # the cache, made on first use, hits
    assert lean.divide([4, 10]) is lean.divide([4, 10])
    try:
        lean._no_such_field
        raise AssertionError("an unknown attribute must still raise")
    except AttributeError:
        pass


def _console():
    from rich.console import Console

    return Console(width=80, color_system="truecolor", file=open("/dev/null", "w"))
