"""The workbench's first paint pays for its imports: opening the picker must not import
sqlite-utils (which imports pandas, numpy and dateutil when they are installed) nor the
play screen's module; the store's own paths use sqlite3 and sqlite-utils stays available."""

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
heavy = ("pandas", "numpy", "dateutil", "sqlite_utils", "clarify_tui.tui.screens.play")
print(",".join(sorted(m for m in heavy if m in sys.modules)))
"""

STORE_PATHS = """
import sys
from clarify_tui.models import Action, Observation, Session, Step
from clarify_tui.store import Store
from tests.conftest import IC

store = Store(sys.argv[1])
session = Session(run="r", task_id=IC.id, protocol=IC.protocol, agent="a", user="u", search="local")
store.ensure_run("r", agent="a", config={"k": 1})
store.start_session(session, IC)
store.add_step(session, Step(index=0, actor="agent", action=Action.search("q"), observation=Observation(text="o")))
store.add_judgment(session.id, "rule", "final", {"ok": True})
session.status = "completed"
store.finish_session(session)
assert [s.status for s in store.sessions()] == ["completed"]
assert store.steps(session.id)[0].action.text == "q" and store.judgments(session.id)[0]["verdict"] == {"ok": True}
assert store.task_for(session.id).id == IC.id and store.run_row("r")["config"] == '{"k": 1}'
print("sqlite_utils" in sys.modules, "pandas" in sys.modules)
"""


def test_picker_imports_no_sqlite_utils_pandas_numpy_dateutil_nor_play_screen():
    out = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, check=True).stdout
    assert out.splitlines()[0] == ""


def test_store_writes_and_reads_without_sqlite_utils(tmp_path):
    out = subprocess.run(
        [sys.executable, "-c", STORE_PATHS, str(tmp_path / "x.db")],
        capture_output=True,
        text=True,
        check=True,
        cwd=str(__import__("pathlib").Path(__file__).parent.parent),
    ).stdout
    assert out.split() == ["False", "False"]


def test_sqlite_utils_still_offered_over_the_same_connection(tmp_path):
    from clarify_tui.store import Store

    store = Store(tmp_path / "x.db")
    store.ensure_run("r", agent="a")
    assert store.db["runs"].get("r")["agent"] == "a"  # the store's own write, seen through sqlite-utils
    assert store.db.journal_mode == "wal"


SCORES = """
import asyncio, sys
from clarify_tui.cli import main
from clarify_tui.store import Store
from clarify_tui.tui.browse import BrowseApp

db = sys.argv[1]
main(["run", "--benchmark", "interactcomp", "--agent", "scripted:direct-guess", "--db", db, "--run", "a", "--limit", "2"])

async def scores():
    app = BrowseApp(Store(db), start="scores")
    async with app.run_test(size=(120, 40)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        print("textual_plotext" in sys.modules, len(app.screen.query("#chart-accuracy")))
        await pilot.press("t")
        await pilot.pause()
        await pilot.pause()
        chart = app.screen.query_one("#chart-accuracy")
        print("textual_plotext" in sys.modules, app.screen.query_one("TabbedContent").active, "accuracy by run" in chart.render().plain)

asyncio.run(scores())
"""


def test_scores_load_the_charts_when_their_tab_opens(tmp_path):
    """F3 opens on the numbers without importing plotext; `t` mounts the charts, drawn from
    the numbers already computed."""
    out = subprocess.run(
        [sys.executable, "-c", SCORES, str(tmp_path / "s.db")], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert out[-2] == "False 0"
    assert out[-1] == "True charts True"
