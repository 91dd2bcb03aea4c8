"""The Textual workbench. It drives the engine (`clarify_tui.engine.Episode`) and never
re-implements protocol rules: what is allowed, what a reply may be and how a session is
scored all come from the engine and its backends.

Nothing outside this package imports it; the core stays free of textual.
"""

import sys as _sys


def _import_sqlite_utils_without_pandas() -> None:
    """sqlite_utils imports pandas and numpy whenever they are installed (statsmodels brings
    them) only to map their scalar types to column types. The workbench never stores such
    values through it, and those two imports were about half of the first paint (benchmarks/
    bench_tui.py). So sqlite_utils is imported here with them hidden; whatever needs pandas
    later (statsmodels on the scores screen) still imports it normally."""
    if "sqlite_utils" in _sys.modules:
        return
    hidden = [name for name in ("pandas", "numpy") if name not in _sys.modules]
    for name in hidden:
        _sys.modules[name] = None  # type: ignore[assignment]  # `import name` raises ImportError
    try:
        import sqlite_utils  # noqa: F401
    finally:
        for name in hidden:
            if _sys.modules.get(name) is None:
                del _sys.modules[name]


_import_sqlite_utils_without_pandas()
