"""The wall around Textual's internals (clarify_tui/tui/speed/, docs/textual-internals.md).

- No module outside tui/speed/ imports a private Textual module or name, reads a
  private attribute it does not define itself, overrides a private member of a Textual
  base class (a `_name` its class defines that a Textual class above it defines too), or
  looks at the call stack. The campaign server's textual-serve subclass keeps its own
  short list, which docs/textual-internals.md lists in full.
- The speed-ups run only on the tested Textual versions (the range pyproject pins);
  outside it, or with CLARIFY_TUI_STOCK_TEXTUAL=1, the workbench runs on stock Textual
  classes and still opens every screen.
- A campaign visitor's crash shows a short message, never the traceback's locals.
"""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.util
import os
import re
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

from clarify_tui.tui.speed import version

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "clarify_tui"
WALL = PACKAGE / "tui" / "speed"
SERVER = PACKAGE / "campaign" / "server.py"
SERVER_INTERNALS = {
    "_make_app",  # textual_serve.server.Server's routes, overridden (docs/textual-internals.md)
    "_process_messages",  # Server's websocket loop
    "_process",
}  # an AppService's app process, which textual-serve never waits for (campaign/server.py reap)
DOCS = ROOT / "docs" / "textual-internals.md"


def defined_here(tree: ast.AST) -> set[str]:
    """Underscore names the module defines itself: attributes it assigns, functions,
    methods and classes it defines."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            targets = [node.target]
        for target in targets:  # `self._x = ...` defines _x; `self._compositor.y = ...` does not
            for sub in target.elts if isinstance(target, ast.Tuple) else [target]:
                if isinstance(sub, ast.Attribute):
                    names.add(sub.attr)
                elif isinstance(sub, ast.Name):
                    names.add(sub.id)
    return {n for n in names if n.startswith("_")}


TEXTUAL = ("textual", "textual_serve", "textual_plotext")


def other_modules(tree: ast.AST) -> set[str]:
    """Names bound by `import X` of a module that is not Textual's (os, argparse, ...):
    `os._exit` or `argparse._SubParsersAction` are theirs, not Textual's internals."""
    return {
        (a.asname or a.name).split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for a in node.names
        if a.name.split(".")[0] not in (*TEXTUAL, "sys")
    }  # sys._getframe: the call stack


def sees_textual(tree: ast.AST, path: Path) -> bool:
    """The TUI, and any module that imports Textual itself: only they hold Textual objects
    (import-linter keeps Textual out of the core)."""
    if PACKAGE / "tui" in path.parents:
        return True
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in TEXTUAL:
            return True
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] in TEXTUAL for a in node.names):
            return True
    return False


def private_uses(path: Path) -> list[str]:
    """Each private Textual import and each read of a private attribute the module does not
    define, as 'file:line: what' (modules that hold no Textual object are not read)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    if not sees_textual(tree, path):
        return []
    own = defined_here(tree)
    others = other_modules(tree)
    found = []
    where = path.relative_to(ROOT) if ROOT in path.parents else path.name
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.module.split(".")[0] in ("textual", "textual_serve")
        ):
            names = [a.name for a in node.names]
            if any(p.startswith("_") for p in node.module.split(".")) or any(n.startswith("_") for n in names):
                found.append(f"{where}:{node.lineno}: from {node.module} import {', '.join(names)}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "textual" and any(p.startswith("_") for p in alias.name.split(".")):
                    found.append(f"{where}:{node.lineno}: import {alias.name}")
        elif isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            if node.attr not in own and not (isinstance(node.value, ast.Name) and node.value.id in others):
                found.append(f"{where}:{node.lineno}: .{node.attr}")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "setattr"):
            name = str(node.args[1].value) if len(node.args) > 1 and isinstance(node.args[1], ast.Constant) else ""
            if name.startswith("_") and not name.startswith("__"):
                if node.args[1].value not in own:
                    found.append(f"{where}:{node.lineno}: {node.func.id}(..., {node.args[1].value!r})")
    return found


def _classes(body: list[ast.stmt]):
    """The classes a module defines at its top level (also under `if`/`try`), each once."""
    for node in body:
        if isinstance(node, ast.ClassDef):
            yield node
        elif isinstance(node, (ast.If, ast.Try)):
            yield from _classes(
                node.body
                + node.orelse
                + getattr(node, "finalbody", [])
                + [s for h in getattr(node, "handlers", []) for s in h.body]
            )


def _members(node: ast.ClassDef):
    """(name, line) of each method and class attribute the class body defines."""
    for item in node.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield item.name, item.lineno
        elif isinstance(item, ast.Assign):
            for target in item.targets:
                if isinstance(target, ast.Name):
                    yield target.id, item.lineno
        elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            yield item.target.id, item.lineno


def _module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def _load(path: Path):
    """The module at `path`: the package's by its dotted name, any other file (a test's
    sample) by its own spec."""
    if PACKAGE in path.parents:
        return importlib.import_module(_module_name(path))
    spec = importlib.util.spec_from_file_location(f"_wall_sample_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _is_textual(cls: type) -> bool:
    return cls.__module__.split(".")[0] in TEXTUAL


def _classes_of(module) -> list[type]:
    return [v for v in vars(module).values() if isinstance(v, type) and v.__module__ == module.__name__]


@functools.cache
def _package_classes() -> tuple[type, ...]:
    """Every class the package defines at a module's top level (each module imported)."""
    found: list[type] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name != "__main__.py":
            found += _classes_of(_load(path))
    return tuple(found)


def _textual_after(classes) -> dict[type, list[type]]:
    """For each class of ours, the Textual classes after it in the MRO of any of `classes`:
    what its members override, also when it is a mixin (`class App(ShortCrash, App)`)."""
    after: dict[type, list[type]] = {}
    for cls in classes:
        mro = cls.__mro__
        for i, ours in enumerate(mro):
            if _is_textual(ours) or ours is object:
                continue
            below = after.setdefault(ours, [])
            below += [base for base in mro[i + 1 :] if _is_textual(base) and base not in below]
    return after


def private_overrides(path: Path) -> list[str]:
    """Each private member (`_name`, not `__dunder__`) that a class of the module defines
    while a Textual class after it in some class's MRO defines it too: an override of
    Textual's internals, which the attribute scan cannot see (defining
    `_on_mouse_scroll_down` reads nothing). The modules are imported so that bases are
    resolved through our own classes (`PlayScreen(LaidOutScreen)` overriding
    `Screen._refresh_layout` is caught, and so is a mixin combined with a Textual class)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    module = _load(path)
    after = _textual_after((*_package_classes(), *_classes_of(module)))
    where = path.relative_to(ROOT) if ROOT in path.parents else path.name
    found = []
    for node in _classes(tree.body):
        cls = getattr(module, node.name, None)
        if not isinstance(cls, type):
            continue
        for name, line in _members(node):
            if not name.startswith("_") or (name.startswith("__") and name.endswith("__")):
                continue
            owner = next((base for base in after.get(cls, []) if name in vars(base)), None)
            if owner is not None:
                found.append(f"{where}:{line}: {node.name}.{name} overrides {owner.__name__}.{name}")
    return found


def _outside_the_wall() -> list[Path]:
    return [
        path
        for path in sorted(PACKAGE.rglob("*.py"))
        if WALL not in path.parents and path != SERVER and path.name != "__main__.py"
    ]


def test_no_private_textual_name_outside_the_wall():
    found = []
    for path in _outside_the_wall():
        found += private_uses(path)
    assert found == [], "private Textual names belong in clarify_tui/tui/speed/:\n" + "\n".join(found)


def test_no_override_of_a_private_textual_member_outside_the_wall():
    found = []
    for path in _outside_the_wall():
        found += private_overrides(path)
    assert found == [], "overriding Textual's private members belongs in clarify_tui/tui/speed/:\n" + "\n".join(found)


def test_the_campaign_server_touches_only_its_listed_textual_serve_internals():
    used = {line.rsplit(".", 1)[-1] for line in private_uses(SERVER) if ": ." in line}
    overridden = {line.rsplit(".", 1)[-1] for line in private_overrides(SERVER)}
    imports = [line for line in private_uses(SERVER) if ": ." not in line]
    assert imports == [] and used | overridden == SERVER_INTERNALS, (imports, used | overridden, SERVER_INTERNALS)


def _touched(path: Path) -> set[str]:
    """What the module reaches, as docs/textual-internals.md names it: a private module
    (`textual.widgets._select`), a private attribute or an overridden member (`_size_updated`)."""
    names = {line.rsplit(".", 1)[-1] for line in private_overrides(path)}
    for line in private_uses(path):
        what = line.split(": ", 1)[1]
        if what.startswith("from "):
            module, imported = what[len("from ") :].split(" import ")
            names |= {module if "._" in module else f"{module}.{n.strip()}" for n in imported.split(",")}
        elif what.startswith("import "):
            names.add(what[len("import ") :])
        elif what.startswith("."):
            names.add(what[1:])
        else:  # getattr(..., '_name')
            names.add(what.split("'")[1])
    return names


@pytest.mark.parametrize("path", sorted(WALL.glob("*.py")), ids=lambda p: p.name)
def test_the_docs_list_every_private_name_the_wall_touches(path):
    """Each module of the wall has a section of docs/textual-internals.md naming all it reaches."""
    touched = _touched(path)
    if not touched:
        return
    sections = DOCS.read_text(encoding="utf-8").split("\n## ")
    section = next((s for s in sections if f"`speed/{path.name}`" in s.splitlines()[0]), "")
    assert section, f"docs/textual-internals.md has no section for speed/{path.name}"
    assert sorted(n for n in touched if n not in section) == []


def test_the_docs_list_every_textual_serve_internal_the_server_touches():
    text = DOCS.read_text(encoding="utf-8")
    section = text.split("## The campaign server", 1)[1].split("\n## ", 1)[0]
    listed = set(re.findall(r"^\| `\w+\.(_\w+)`", section, re.M))
    assert listed == SERVER_INTERNALS, (listed, SERVER_INTERNALS)


def test_the_scanner_sees_what_the_wall_keeps_out(tmp_path):
    """The check above is not vacuous: each kind of reach into Textual is caught."""
    sample = tmp_path / "sample.py"
    sample.write_text(
        textwrap.dedent("""
        import sys
        from textual import _time
        from textual.widgets._header import HeaderTitle
        import textual._context
        from textual.screen import Screen

        class Mine(Screen):
            def __init__(self):
                super().__init__()
                self._mine = 1

            def go(self):
                self._mine += 1
                self._compositor.size
                self._styles_cache.x = 1
                sys._getframe(1)
                getattr(self, "_layout_required")
    """),
        encoding="utf-8",
    )
    found = [line.split(": ", 1)[1] for line in private_uses(sample)]
    assert sorted(found) == sorted(
        [
            "from textual import _time",
            "from textual.widgets._header import HeaderTitle",
            "import textual._context",
            "._compositor",
            "._getframe",
            "._styles_cache",
            "getattr(..., '_layout_required')",
        ]
    )


def test_the_scanner_sees_an_override_of_a_private_textual_member(tmp_path):
    """What footer.py did unseen: a widget overriding Widget._on_mouse_scroll_down (also
    through a class of our own in between, or as a mixin combined with a Textual class);
    its own private names and public handlers pass."""
    sample = tmp_path / "overrides.py"
    sample.write_text(
        textwrap.dedent("""
        from textual import events
        from textual.widget import Widget

        class Ours(Widget):
            def _mine(self):
                pass

            def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
                pass

        class Scrolls(Ours):
            _cache_size = 3

            def _on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
                pass

            def __init__(self):
                super().__init__()

        class Mixin:
            def _size_updated(self, *args):
                pass

        class Mixed(Mixin, Widget):
            pass
    """),
        encoding="utf-8",
    )
    found = [line.split(": ", 1)[1] for line in private_overrides(sample)]
    assert found == [
        "Scrolls._on_mouse_scroll_down overrides Widget._on_mouse_scroll_down",
        "Mixin._size_updated overrides Widget._size_updated",
    ]


# ---- the tested range ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, tested",
    [
        ("8.2.4", False),
        ("8.2.5", True),
        ("8.2.8", True),
        ("8.2.10", True),
        ("8.3.0", False),
        ("8.3.0rc1", False),
        ("9.0.0", False),
        ("0.86.3", False),
        ("8.2.6.dev0", True),
    ],
)
def test_the_speed_ups_run_only_on_tested_versions(text, tested):
    assert version.in_tested_range(text) is tested


def test_an_untested_textual_or_the_variable_turns_them_off(monkeypatch):
    monkeypatch.delenv(version.OFF_VARIABLE, raising=False)
    monkeypatch.setattr(version, "version", lambda name: "8.2.8")
    assert version.speed_on()
    monkeypatch.setattr(version, "version", lambda name: "8.4.0")
    assert not version.speed_on()
    monkeypatch.setattr(version, "version", lambda name: "8.2.8")
    monkeypatch.setenv(version.OFF_VARIABLE, "1")
    assert not version.speed_on()


def test_pyproject_pins_textual_to_the_tested_range():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    textual = next(d for d in deps if re.match(r"textual\s*[<>=]", d))
    low, high = version.TESTED
    assert textual.replace(" ", "") == f"textual>={'.'.join(map(str, low))},<{'.'.join(map(str, high))}"


STOCK_RUN = """
import asyncio, sys
from clarify_tui.search.local import LocalSearch
from clarify_tui.store import Store
from clarify_tui.tui import speed
from clarify_tui.tui.app import ClarifyApp
from tests.conftest import CTS, DISCO, DOCS, IC

assert not speed.ACTIVE

async def main():
    app = ClarifyApp(store=Store(sys.argv[1]), tasks=[IC, DISCO, CTS], search=LocalSearch(DOCS), auto=False)
    seen = []
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        for key, name in (("f2", "SessionsScreen"), ("f3", "ScoresScreen"), ("question_mark", "HelpScreen")):
            await pilot.press(key)
            await pilot.pause()
            seen.append(type(app.screen).__name__)
            assert type(app.screen).__name__ == name, (key, app.screen)
            await pilot.press("escape")
            await pilot.pause()
        await pilot.press("enter")  # the first task opens in play
        for _ in range(50):
            await pilot.pause(0.05)
            if type(app.screen).__name__ == "PlayScreen":
                break
        seen.append(type(app.screen).__name__)
        text = app.export_screenshot()
        assert IC.id in text or "Steps" in text or "step" in text.lower(), text[:500]
    walled = sorted(m for m in sys.modules if m.startswith("clarify_tui.tui.speed.") and m != "clarify_tui.tui.speed.version")
    print(" ".join(seen), "|", " ".join(walled) or "nothing")

asyncio.run(main())
"""


def test_outside_the_tested_range_the_workbench_runs_on_stock_textual(tmp_path):
    """With the speed-ups off, F2, F3, help and play open as before, and no module of the
    wall that touches Textual's internals is even imported."""
    env = {**os.environ, version.OFF_VARIABLE: "1", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", STOCK_RUN, str(tmp_path / "t.db")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "SessionsScreen ScoresScreen HelpScreen PlayScreen | nothing"


CRASH_RUN = """
import asyncio, sys
from rich.text import Text
from textual.app import App
from clarify_tui.tui.speed.crash import ShortCrash

class Crashes(ShortCrash, App):
    def crashed(self):
        return Text("short message only")

    def on_mount(self):
        gold_answer = "SECRET-GOLD-ANSWER"
        raise RuntimeError("boom " + str(len(gold_answer)))

asyncio.run(Crashes().run_async(headless=True, size=(80, 24)))
"""


def test_a_crash_shows_the_apps_short_message_and_no_local_variable(tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", CRASH_RUN],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    out = done.stdout + done.stderr
    assert "short message only" in out
    assert "SECRET-GOLD-ANSWER" not in out and "gold_answer" not in out
