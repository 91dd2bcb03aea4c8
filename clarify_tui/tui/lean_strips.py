"""Strips that make their caches when first used, not when made.

Textual's `Strip.__init__` makes seven FIFO caches per strip (crops, divisions, styles,
filters, ...); most strips never use one (a line drawn once, then dropped). Each cache is
an object Python's collector tracks, so a strip is eight of them, and drawing a frame makes
thousands. In a 5,000-step session the strips kept alive (drawn cards, finished lines, the
compositor's cuts) came to ~16,000 tracked objects, and the collector's full collections
walked them inside page keys (7-19 ms; the worst of 31 pagedowns 30-44 ms CPU, now ~22:
benchmarks/bench_tui.py). `install()` makes every Strip build each cache on first use;
what a strip draws, and when a cache hits, is unchanged (tests/test_lean_strips.py).
"""

from __future__ import annotations

from rich.segment import Segment
from textual.cache import FIFOCache
from textual.strip import Strip

CACHE_SIZES = {  # what textual.strip.Strip.__init__ (Textual 8.2) makes, and how big
    "_divide_cache": 4, "_crop_cache": 16, "_style_cache": 16, "_filter_cache": 4,
    "_line_length_cache": 4, "_crop_extend_cache": 4, "_offsets_cache": 4,
}
TEXTUAL_INIT = Strip.__init__


def _init(self: Strip, segments, cell_length: int | None = None) -> None:
    """Replaces `textual.strip.Strip.__init__`: the same fields, but no caches yet."""
    self._segments: list[Segment] = list(segments)
    self._cell_length = cell_length
    self._render_cache = None
    self._link_ids = None
    self._cell_count = None


def _make_cache(self: Strip, name: str) -> FIFOCache:
    """`Strip.__getattr__` (Textual defines none), called only when a slot is unset: a
    cache read for the first time is made then."""
    size = CACHE_SIZES.get(name)
    if size is None:
        raise AttributeError(name)
    cache: FIFOCache = FIFOCache(size)
    setattr(self, name, cache)
    return cache


def install() -> None:
    """Every Strip made from now on makes its caches on first use (idempotent)."""
    Strip.__init__ = _init  # type: ignore[method-assign]
    Strip.__getattr__ = _make_cache  # type: ignore[attr-defined]
