"""The picker's first paint shows rows read without pydantic (task_rows.py); the tasks are
validated right after it, and only validated tasks open."""

from __future__ import annotations

import json
import subprocess
import sys
import threading

from clarify_tui.models import PROTOCOLS
from clarify_tui.search.local import LocalSearch
from clarify_tui.store import Store
from clarify_tui.task_rows import PROTOCOL_NAMES, quick_rows, row_of
from clarify_tui.tasks import load_all
from clarify_tui.tui.app import ClarifyApp
from clarify_tui.tui.screens.play import PlayScreen
from tests.conftest import DOCS, IC

FIRST_PAINT = """
import asyncio, sys
from clarify_tui.tui.app import ClarifyApp
from clarify_tui.store import Store

at_paint = []

load = ClarifyApp.on_picker_screen_rows_painted

def painted(self, message):  # the rows are on screen: the load starts now
    at_paint.extend(["pydantic" in sys.modules, self.picker.loaded is None, len(self.picker.shown)])
    load(self, message)

ClarifyApp.on_picker_screen_rows_painted = painted

async def main():
    app = ClarifyApp(store=Store(":memory:"))
    async with app.run_test(size=(100, 30)) as pilot:
        while app.picker.loaded is None:
            await asyncio.sleep(0.01)
        print(*at_paint, "pydantic" in sys.modules, len(app.picker.loaded))

asyncio.run(main())
"""


def test_the_demo_rows_are_what_the_loader_gives():
    tasks, problems = load_all("demo")
    assert not problems
    assert quick_rows("demo") == [row_of(t) for t in tasks]
    assert PROTOCOL_NAMES == PROTOCOLS


def test_rows_are_not_guessed_for_other_formats_or_incomplete_records(tmp_path):
    no_language = tmp_path / "t.jsonl"
    no_language.write_text(json.dumps({"id": "a", "protocol": "cts", "question": "q?"}) + "\n")
    assert quick_rows(no_language) is None  # the loader detects the language: load the tasks first
    assert quick_rows(tmp_path / "missing.jsonl") is None
    assert quick_rows(tmp_path) is None  # a CTS release folder
    assert quick_rows("demo", "nope") is None


def test_first_paint_builds_no_models_and_the_tasks_follow():
    out = subprocess.run([sys.executable, "-c", FIRST_PAINT], capture_output=True, text=True, check=True).stdout
    pydantic_at_paint, not_yet_validated, shown, pydantic_after, loaded = out.split()
    assert (pydantic_at_paint, not_yet_validated, pydantic_after) == ("False", "True", "True")
    assert int(shown) == int(loaded) > 0


def held_load(monkeypatch) -> threading.Event:
    """The app's task load waits for the returned event (the test chooses a row first)."""
    from clarify_tui.tasks import collection

    go, load = threading.Event(), collection.load_all

    def held(*args, **kwargs):
        go.wait(10)
        return load(*args, **kwargs)

    monkeypatch.setattr(collection, "load_all", held)
    return go


async def test_a_task_chosen_before_validation_opens_once_validated(tmp_path, monkeypatch):
    go = held_load(monkeypatch)
    data = tmp_path / "tasks.jsonl"
    data.write_text(IC.model_dump_json() + "\n")
    app = ClarifyApp(store=Store(tmp_path / "t.db"), dataset=data, search=LocalSearch(DOCS), run_mode="step")
    async with app.run_test(size=(100, 30)) as pilot:
        assert [t.id for t in app.picker.shown] == [IC.id] and app.picker.loaded is None  # the preview
        app.picker.action_open_selected()
        go.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, PlayScreen) and app.screen.task_.id == IC.id


async def test_a_malformed_line_is_named_and_its_rows_do_not_open(tmp_path, monkeypatch):
    go = held_load(monkeypatch)
    bad = json.loads(IC.model_dump_json())
    del bad["answer"]  # readable for the preview, invalid for the loader
    data = tmp_path / "tasks.jsonl"
    data.write_text(IC.model_dump_json().replace(IC.id, "ok") + "\n" + json.dumps(bad) + "\n")
    app = ClarifyApp(store=Store(tmp_path / "t.db"), dataset=data, search=LocalSearch(DOCS))
    async with app.run_test(size=(100, 30)) as pilot:
        assert [t.id for t in app.picker.shown] == ["ok", IC.id]
        app.picker._choose(app.picker.shown[1])  # chosen before validation
        go.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        toasts = [str(n.message) for n in app._notifications]
        assert any(t.startswith(f"{data}:2: ") and "needs an answer" in t for t in toasts), toasts
        assert any(f"task {IC.id} did not load" in t for t in toasts), toasts
        assert app.picker.shown == [] and app.screen is app.picker


CLI_PATH = """
import sys
from clarify_tui.tui.app import ClarifyApp

seen = []
ClarifyApp.run = lambda self, **kwargs: seen.append("pydantic" in sys.modules)  # where the TUI would start
from clarify_tui.cli import main

main([])
main(["play", "--as", "user"])
print(*seen)
"""


def test_the_commands_that_open_the_tui_import_no_pydantic_before_it(tmp_path):
    env = {**__import__("os").environ, "CLARIFY_DB": str(tmp_path / "c.db")}
    out = subprocess.run(
        [sys.executable, "-c", CLI_PATH], capture_output=True, text=True, check=True, env=env, cwd=tmp_path
    ).stdout
    assert out.split() == ["False", "False"]


async def test_the_startup_heap_is_frozen_once_the_tasks_are_loaded(tmp_path):
    """Full collections then skip the startup heap (app.freeze_startup_heap: a full
    collection of it landed in play and replay openings and in page keys, ~60-120 ms)."""
    import gc

    from clarify_tui.store import Store
    from clarify_tui.tui.app import ClarifyApp

    gc.unfreeze()
    app = ClarifyApp(store=Store(tmp_path / "t.db"), dataset="demo")
    async with app.run_test(size=(120, 36)) as pilot:
        for _ in range(1000):  # the tasks load in a thread: until they are shown, at most ~10 s
            if gc.get_freeze_count():
                break
            await pilot.pause(0.01)
        assert gc.get_freeze_count() > 0 and app.picker.tasks
    gc.unfreeze()
