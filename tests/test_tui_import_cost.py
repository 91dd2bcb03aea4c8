"""The workbench's first paint pays for its imports: opening the picker must not import
pandas/numpy (sqlite_utils would, only for type mapping) nor the play screen's module."""

import subprocess
import sys

CHECK = """
import asyncio, sys
from clarify_tui.tui.app import ClarifyApp
from clarify_tui.store import Store

async def first_paint():
    app = ClarifyApp(store=Store(":memory:"))
    async with app.run_test(size=(80, 24)) as pilot:
        while not app.picker.shown:
            await asyncio.sleep(0.01)
        await pilot.pause()

asyncio.run(first_paint())
heavy = sorted(m for m in ("pandas", "numpy", "clarify_tui.tui.screens.play") if m in sys.modules)
print(",".join(heavy))
import pandas  # still importable afterwards (statsmodels needs it on the scores screen)
print(pandas.DataFrame({"a": [1]}).shape)
"""


def test_picker_imports_skip_pandas_numpy_and_play_screen():
    out = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[0] == ""
    assert out[1] == "(1, 1)"


def test_store_works_after_the_light_import(tmp_path):
    import clarify_tui.tui  # noqa: F401  (imports sqlite_utils the light way if not yet imported)
    from clarify_tui.store import Store

    store = Store(tmp_path / "x.db")
    assert store.sessions() == []
