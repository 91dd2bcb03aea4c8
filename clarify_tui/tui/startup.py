"""Garbage collection while the workbench starts: off, because nothing it can find is
garbage. Importing Textual and building the first screen allocate objects that all live
as long as the app (modules, classes, styles, widgets); Python's collector still walks
them again and again as they pile up (~40 ms of a ~0.35 s first paint on this machine,
benchmarks/bench_tui.py). After the first paint the collector is back on and that heap is
frozen out of its view (`gc.freeze`, freeze_startup_heap)."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """No automatic collection inside the block; as it was after it."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


_FROZEN: set[str] = set()


def freeze_startup_heap(stage: str = "first paint") -> None:
    """After the first paint, and again once the tasks (and pydantic) are loaded, move
    everything imported and built so far out of the garbage collector's view (`gc.freeze`):
    otherwise each full collection walks that whole heap (pydantic, textual, rich: ~100 ms
    on this machine) and one lands inside most screen openings. Once per stage and process
    (a test process runs many apps; their garbage is not frozen)."""
    if stage not in _FROZEN:
        _FROZEN.add(stage)
        gc.freeze()
