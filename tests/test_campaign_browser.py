"""`clarify-tui serve` in a real browser: Debian's chromium driven by Playwright.

Starts the server on 127.0.0.1, checks the token gate (403 and no app process without
it), then plays one InteractComp demo task as the agent through the page's terminal and
checks the session in the database. Everything the server sends the browser before the
answer is read back from the websocket and searched for the task's hidden context and
gold answer (which do appear once the session has ended: the same check finds them).

Skipped only when chromium is not installed (`.ci/run` installs it with apt-get).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
TOKEN = "t0ken-for-the-test"
RUN = "hb-web"
HIDDEN = ("Mimi Leder", "Messiah", "Deep Impact")  # ic-01's context and gold answer
QUESTION_WORDS = "science-fiction disaster film"
ANSI = re.compile(rb"\x1b(\[[0-9;?<>=]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[PX^_][^\x1b]*\x1b\\|[@-Z\\-_])")
BACKGROUND = (18, 18, 18)  # the play screen's panels (`48;2;18;18;18` in the stream)
SHOTS = Path(os.environ.get("CLARIFY_SCREENSHOTS", "")) if os.environ.get("CLARIFY_SCREENSHOTS") else None

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="chromium is not installed (apt-get install -y chromium; .ci/run does it)"
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def children(pid: int) -> list[int]:
    """Direct child processes of `pid` (from /proc) serving visitors: its warm zygote
    (campaign/zygote.py), started with the server, serves nobody until a visitor comes."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                command = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid and b"clarify_tui.campaign.zygote" not in command:
                out.append(int(entry.name))
    return out


def sessions(db: Path) -> list[dict]:
    if not db.exists():
        return []
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in conn.execute("SELECT * FROM sessions")]
    except sqlite3.OperationalError:
        return []
    finally:
        conn.close()


def steps(db: Path, session_id: str) -> list[tuple]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(
            "SELECT actor, kind, input FROM steps WHERE session_id=? ORDER BY idx", [session_id]
        ).fetchall()
    finally:
        conn.close()


def claims(db: Path) -> list[tuple]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute("SELECT task_id, annotator, state FROM claims").fetchall()
    finally:
        conn.close()


def wait_for(predicate, timeout: float = 30.0, what: str = "condition", page=None):
    """Poll `predicate`; with a page, wait through Playwright so its events are delivered."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        if page is not None:
            page.wait_for_timeout(100)
        else:
            time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def visible_text(frames: list[bytes]) -> str:
    return ANSI.sub(b"", b"".join(frames)).decode("utf-8", "replace")


CUP = re.compile(r"\x1b\[(\d+);(\d+)H")
ANSI_TEXT = re.compile(ANSI.pattern.decode())


def cell_of(frames: list[bytes], text: str) -> tuple[int, int]:
    """(row, column), 0-based, of the terminal cell where `text` was last written. Textual
    moves the cursor (`ESC[row;colH`) before every run of cells it paints; other escapes move
    nothing, and a wide (CJK) character takes two cells."""
    import unicodedata

    found = None
    stream = b"".join(frames).decode("utf-8", "replace")
    for chunk in re.split(r"(?=\x1b\[\d+;\d+H)", stream):
        move = CUP.match(chunk)
        if not move:
            continue
        row, col = int(move[1]) - 1, int(move[2]) - 1
        painted = ANSI_TEXT.sub("", chunk[move.end() :])
        at = painted.find(text)
        if at >= 0:
            width = sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in painted[:at])
            found = (row, col + width)
    assert found is not None, f"{text!r} was never painted"
    return found


INK = """async ([png, background]) => {
  // share of pixels of a PNG (base64) that are not the background colour (+-24 per channel)
  const bitmap = await createImageBitmap(await (await fetch("data:image/png;base64," + png)).blob());
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
  const context = canvas.getContext("2d");
  context.drawImage(bitmap, 0, 0);
  const data = context.getImageData(0, 0, bitmap.width, bitmap.height).data;
  let ink = 0;
  for (let i = 0; i < data.length; i += 4) {
    if (Math.abs(data[i] - background[0]) > 24 || Math.abs(data[i + 1] - background[1]) > 24 ||
        Math.abs(data[i + 2] - background[2]) > 24) ink++;
  }
  return ink / (data.length / 4);
}"""


def ink(page, box: dict, cells: tuple[int, int, int], size: tuple[int, int], background: tuple[int, int, int]) -> float:
    """The share of drawn (non-background) pixels in the screenshot of `cells` (row, first
    column, columns) of the terminal: the pixels, not the DOM, say whether glyphs are drawn."""
    import base64

    row, col, width = cells
    cell_w, cell_h = box["width"] / size[0], box["height"] / size[1]
    clip = {"x": box["x"] + col * cell_w, "y": box["y"] + row * cell_h, "width": width * cell_w, "height": cell_h}
    png = page.screenshot(clip=clip)
    return page.evaluate(INK, [base64.b64encode(png).decode(), list(background)])


class Typist:
    """Keys into the page's terminal, each waiting until the app has painted its effect
    (a form opening, the typed text echoed): keys sent while a form is still mounting
    would go to the screen behind it."""

    def __init__(self, page, frames: list[bytes]) -> None:
        self.page, self.frames = page, frames

    def _painted(self, text: str, since: int) -> None:
        wait_for(lambda: text in visible_text(self.frames[since:]), 90, f"{text!r} on the page", self.page)
        self.page.wait_for_timeout(150)

    def press(self, key: str, then: str | None = None) -> None:
        since = len(self.frames)
        self.page.keyboard.press(key)
        if then:
            self._painted(then, since)
        else:
            self.page.wait_for_timeout(300)

    def type(self, text: str) -> None:
        since = len(self.frames)
        self.page.keyboard.type(text, delay=20)
        self._painted(text[-3:], since)


@contextlib.contextmanager
def serving(tmp_path, *options: str):
    port = free_port()
    db = tmp_path / "campaign.db"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "clarify_tui.cli",
            "serve",
            "--queue",
            RUN,
            "--db",
            str(db),
            "--port",
            str(port),
            "--token",
            TOKEN,
            "--benchmark",
            "interactcomp",
            *(options or ("--limit", "1")),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=tmp_path,
    )
    try:
        banner = [proc.stdout.readline() for _ in range(4)]
        assert any("this machine only" in line for line in banner), banner
        wait_for(lambda: socket.socket().connect_ex(("127.0.0.1", port)) == 0, 20, "the server's port")
        yield proc, f"http://127.0.0.1:{port}", db
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture
def server(tmp_path):
    with serving(tmp_path) as running:
        yield running


@pytest.fixture
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)
        try:
            yield chromium
        finally:
            chromium.close()


def test_token_gate_and_one_interactcomp_task_played_in_the_browser(server, browser, tmp_path):
    proc, base, db = server
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    outside: list[str] = []
    page.route(
        re.compile(r"^(?!http://127\.0\.0\.1[:/]|ws://127\.0\.0\.1[:/]).*"),
        lambda route: (outside.append(route.request.url), route.abort()),
    )

    # no token, a wrong token, a bogus websocket: 403, and no app process starts
    assert page.goto(f"{base}/?annotator=ana").status == 403
    assert page.goto(f"{base}/?token=wrong&annotator=ana").status == 403
    assert "token" in page.content()
    assert page.request.get(f"{base}/ws/not-a-ticket").status == 403
    time.sleep(0.5)
    assert children(proc.pid) == [] and sessions(db) == []

    # with the token but no name: a form asks for one first, still no process
    page.goto(f"{base}/?token={TOKEN}")
    assert page.locator("#annotator").count() == 1 and children(proc.pid) == []

    frames: list[bytes] = []
    page.on(
        "websocket",
        lambda ws: ws.on("framereceived", lambda data: frames.append(data if isinstance(data, bytes) else b"")),
    )
    page.fill("#annotator", "ana")
    page.press("#annotator", "Enter")
    wait_for(lambda: QUESTION_WORDS in visible_text(frames), 90, "the question on the page", page)
    assert claims(db) == [("ic-01", "ana", "live")]  # claimed as soon as it is shown
    page.locator(".xterm-screen").click()
    typist = Typist(page, frames)
    typist.press("k", then="your question to the user")  # ask the simulated user
    typist.type("Is the object a comet?")
    typist.press("Enter")
    try:
        running = wait_for(
            lambda: [s for s in sessions(db) if s["status"] == "running" and steps(db, s["id"])],
            90,
            "the ask to be recorded",
            page,
        )
    finally:
        page.screenshot(path=str(tmp_path / "after-ask.png"))
    assert running[0]["annotator"] == "ana" and running[0]["task_id"] == "ic-01"
    page.wait_for_timeout(500)
    if SHOTS:
        page.screenshot(path=str(SHOTS / "campaign-browser-playing.png"))

    before_answer = visible_text(frames)
    for secret in HIDDEN:
        assert secret not in before_answer, f"{secret!r} reached the browser before the session ended"

    typist.press("Enter", then="your final answer")  # answer
    typist.type("Armageddon")
    typist.press("Enter")
    typist.type("40")
    typist.press("Enter")
    if SHOTS:
        page.wait_for_timeout(1000)  # let the picture settle; the test waits on the database below
        page.screenshot(path=str(SHOTS / "campaign-browser-answered.png"))
    done = wait_for(lambda: [s for s in sessions(db) if s["status"] == "completed"], 90, "the session to end", page)
    wait_for(lambda: "Deep Impact" in visible_text(frames), 90, "the gold answer revealed after the end", page)
    if SHOTS:
        page.screenshot(path=str(SHOTS / "campaign-browser-done.png"))

    assert len(sessions(db)) == 1
    s = done[0]
    assert (s["run"], s["annotator"], s["mode"], s["agent"], s["task_id"]) == (
        RUN,
        "ana",
        "human_agent",
        "human",
        "ic-01",
    )
    recorded = steps(db, s["id"])
    assert [r[:2] for r in recorded] == [("agent", "ask"), ("user", "reply"), ("agent", "answer"), ("judge", "judge")]
    assert "comet" in recorded[0][2] and "Armageddon" in recorded[2][2]
    assert json.loads(s["result"])["correct"] is False
    assert s["id"] == running[0]["id"] and outside == []


def test_keys_work_without_a_click_chinese_and_icons_render_and_the_server_logs_visitors(tmp_path, browser):
    """Found by a new annotator: keys did nothing until they clicked the page, a Chinese
    task was blank without a CJK system font, emoji icons were blank, and the server said
    nothing about who came."""
    demo = Path(__file__).resolve().parent.parent / "data" / "demo" / "interactcomp.jsonl"
    zh = tmp_path / "zh.jsonl"
    zh.write_text(
        next(line for line in demo.read_text(encoding="utf-8").splitlines() if '"ic-08"' in line) + "\n",
        encoding="utf-8",
    )
    with serving(tmp_path, "--dataset", str(zh)) as (proc, base, db):
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        fonts: list[str] = []
        page.on("request", lambda request: fonts.append(request.url) if request.url.endswith(".ttf") else None)
        frames: list[bytes] = []
        sockets: list[str] = []
        page.on(
            "websocket",
            lambda ws: (
                sockets.append(ws.url),
                ws.on("framereceived", lambda data: frames.append(data if isinstance(data, bytes) else b"")),
            ),
        )
        page.goto(f"{base}/?token={TOKEN}&annotator=li")
        wait_for(
            lambda: "三国时期" in visible_text(frames) and "No steps yet" in visible_text(frames),
            90,
            "the Chinese question on the page",
            page,
        )

        # the glyphs are DRAWN: the terminal drew before the CJK face loaded and never again
        query = dict(part.split("=") for part in sockets[0].split("?", 1)[1].split("&"))
        size = (int(query["width"]), int(query["height"]))
        box = page.locator(".xterm-screen").bounding_box()
        row, col = cell_of(frames, "三国时期")
        empty_row, empty_col = cell_of(frames, "No steps yet.")
        blank = ink(page, box, (empty_row + 4, empty_col, 8), size, BACKGROUND)  # empty cells of the same size
        drawn: list[float] = []
        try:
            wait_for(
                lambda: drawn.append(ink(page, box, (row, col, 8), size, BACKGROUND)) or drawn[-1] > 0.08,
                30,
                "the question's Chinese glyphs drawn",
                page,
            )
        except AssertionError:
            raise AssertionError(
                f"the question's Chinese glyphs are not drawn: {drawn[-1]:.3f} of its pixels "
                f"inked, {blank:.3f} of empty cells"
            ) from None
        finally:
            page.screenshot(path=str((SHOTS or tmp_path) / "campaign-browser-zh-question.png"))
        print(f"inked pixels: question {drawn[-1]:.3f}, empty cells {blank:.3f}")
        assert blank < 0.01 and drawn[-1] > 10 * blank, (blank, drawn[-5:])
        typist = Typist(page, frames)
        typist.press("k", then="your question to the user")  # no click first
        typist.type("Is it Zhuge Liang?")
        typist.press("Enter")
        wait_for(lambda: [s for s in sessions(db) if steps(db, s["id"])], 90, "the ask to be recorded", page)
        if SHOTS:
            page.wait_for_timeout(500)  # let the picture settle
        page.screenshot(path=str((SHOTS or tmp_path) / "campaign-browser-zh.png"))
        assert any(url.endswith("/clarify-static/fonts/wqy-microhei-mono-cjk.ttf") for url in fonts), fonts
        assert page.evaluate("document.fonts.check('16px \"Roboto Mono\"', '三国时期')")
        shown = visible_text(frames)
        assert "? ask" in shown and not any(e in shown for e in ("❓", "🔎", "✅", "🔒"))
        page.close()
        proc.terminate()
        try:
            out = proc.communicate(timeout=20)[0]
        except subprocess.TimeoutExpired:  # what it printed is all we read
            proc.kill()
            out = proc.communicate()[0]
    assert re.search(r"li opened the workbench from 127\.0\.0\.1", out), out
    assert TOKEN not in out


def test_a_labels_queue_is_answered_in_the_browser_by_click_and_keys_blind_to_the_outcome(tmp_path, browser):
    """Issue 33: `serve --queue NAME` on a labels queue. A click on the page's `a ask` button
    picks the label, the note is typed, enter sends: the answer is stored on its item with
    the link's annotator, and the session's outcome never reaches the page."""
    from tests.test_work_queue_screen import SECRET_OUTCOME, make_labels, stored

    db = tmp_path / "work.db"
    make_labels(db)
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "clarify_tui.cli", "serve", "--queue", "lab", "--db", str(db), "--port", str(port)]
        + ["--token", TOKEN],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=tmp_path,
    )
    try:
        assert "Labels queue 'lab'" in proc.stdout.readline()
        wait_for(lambda: socket.socket().connect_ex(("127.0.0.1", port)) == 0, 20, "the server's port")
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        frames: list[bytes] = []
        sockets: list[str] = []
        page.on(
            "websocket",
            lambda ws: (
                sockets.append(ws.url),
                ws.on("framereceived", lambda data: frames.append(data if isinstance(data, bytes) else b"")),
            ),
        )
        page.goto(f"http://127.0.0.1:{port}/?token={TOKEN}&annotator=ana")
        wait_for(lambda: "a ask (should have asked)" in visible_text(frames), 90, "the labels screen", page)
        query = dict(part.split("=") for part in sockets[0].split("?", 1)[1].split("&"))
        size = (int(query["width"]), int(query["height"]))
        box = page.locator(".xterm-screen").bounding_box()
        row, col = cell_of(frames, "a ask")
        cell_w, cell_h = box["width"] / size[0], box["height"] / size[1]
        page.mouse.click(box["x"] + (col + 2.5) * cell_w, box["y"] + (row + 0.5) * cell_h)
        wait_for(lambda: "» a ask" in visible_text(frames), 30, "the clicked label marked", page)
        typist = Typist(page, frames)
        typist.press("n")
        typist.type("it guessed")
        typist.press("Enter")
        wait_for(lambda: stored(db, "lab"), 60, "the label stored", page)
        if SHOTS:
            page.screenshot(path=str(SHOTS / "campaign-browser-labels.png"))
        assert stored(db, "lab") == [("s1:2", "ana", "person", {"label": "ask", "note": "it guessed"})]
        wait_for(lambda: "Decision point · step 0" in visible_text(frames), 30, "the next item", page)
        assert SECRET_OUTCOME not in visible_text(frames)
        page.close()
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
