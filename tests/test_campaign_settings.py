"""`serve --user/--judge/--config/--set` (issue 30): a browser baseline is played with the
paper's model user simulator and judge, not always the rule ones, and the campaign's run
records the settings as `run` does. A real server subprocess, a real visitor over the
page's websocket (keys as the terminal sends them) and the loopback OpenAI server."""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
import time
from pathlib import Path

import aiohttp

from tests.clitools import cli_env, run_cli
from tests.servers import FakeOpenAI, Request, chat
from tests.test_campaign_browser import ANSI
from tests.test_campaign_lifecycle import free_port, stop

RUN = "hb-models"
TOKEN = "t0ken-for-the-test"


def reply(request: Request):
    if "impartial grader" in request.prompt:
        return chat("yes", 300, 1)
    return chat("The context says so.\nno", 200, 8)  # the responder


def rows(db: Path, sql: str) -> list[tuple]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(sql).fetchall()
    except sqlite3.OperationalError:
        return []
    finally:
        conn.close()


def start(db: Path, port: int, *options: str):
    import socket
    import subprocess
    import sys

    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "clarify_tui",
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
            "--limit",
            "1",
            *options,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=db.parent,
        env=cli_env(OPENAI_API_KEY="sk-test"),
        bufsize=1,
    )
    deadline = time.monotonic() + 60
    while socket.socket().connect_ex(("127.0.0.1", port)) != 0:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the server never listened"
        time.sleep(0.1)
    return proc


class Terminal:
    """Keys into a visitor's app over the page's websocket, each waiting for its effect."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws, self.seen = ws, b""

    async def shows(self, *texts: str, since: int = 0, timeout: float = 90) -> str:
        """Wait until one of `texts` is painted (in what arrived after byte `since`); which."""
        deadline = time.monotonic() + timeout
        while not (found := [t for t in texts if t in ANSI.sub(b"", self.seen[since:]).decode("utf-8", "replace")]):
            left = deadline - time.monotonic()
            assert left > 0, f"{texts!r} never shown: {ANSI.sub(b'', self.seen)[-2000:]!r}"
            try:
                message = await asyncio.wait_for(self.ws.receive(), left)
            except TimeoutError:
                continue
            assert message.type in (aiohttp.WSMsgType.BINARY, aiohttp.WSMsgType.TEXT), message
            if message.type == aiohttp.WSMsgType.BINARY:
                self.seen += message.data
        return found[0]

    async def keys(self, data: str, then: str | None = None) -> None:
        since = len(self.seen)
        await self.ws.send_str(json.dumps(["stdin", data]))
        if then:
            await self.shows(then, since=since)

    async def until(self, key: str, then: str) -> None:
        """`key` again while the app says the last action still runs (its turn not begun)."""
        while True:
            since = len(self.seen)
            await self.ws.send_str(json.dumps(["stdin", key]))
            if await self.shows(then, "still running", since=since) == then:
                return


async def test_serve_plays_with_the_model_user_and_judge_it_is_given_and_records_them(tmp_path):
    db = tmp_path / "campaign.db"
    config = tmp_path / "clarify.toml"
    with FakeOpenAI(reply) as openai:
        config.write_text(f'[openai]\nbase_url = "{openai.base_url}"\nmax_retries = 0\n', encoding="utf-8")
        port = free_port()
        server = start(
            db,
            port,
            "--user",
            "openai:fake-user",
            "--judge",
            "openai:fake-judge",
            "--config",
            str(config),
            "--set",
            "user.temperature=0.3",
        )
        try:
            async with aiohttp.ClientSession() as http:
                page = await (await http.get(f"http://127.0.0.1:{port}/?token={TOKEN}&annotator=ana")).text()
                [ws_url] = re.findall(r"ws://[^\"'&]+/ws/[A-Za-z0-9_-]+", page)
                async with http.ws_connect(ws_url + "?width=160&height=45") as ws:
                    term = Terminal(ws)
                    await term.shows("allowed: search, ask, answer")
                    await term.keys("k", then="your question to the user")
                    await term.keys("Is the object a comet?", then="comet?")
                    await term.keys("\r")
                    deadline = time.monotonic() + 90
                    while not rows(db, "SELECT 1 FROM steps WHERE actor='user'"):
                        assert time.monotonic() < deadline, "the reply was never recorded"
                        await asyncio.sleep(0.2)
                    await term.until("\r", then="your final answer")
                    await term.keys("Armageddon", then="Armageddon")
                    await term.keys("\t40\r")  # tab moves focus at once (enter's move comes after queued keys)
                    while not rows(db, "SELECT 1 FROM sessions WHERE status='completed'"):
                        assert time.monotonic() < deadline + 60, (
                            "the session never ended",
                            rows(db, "SELECT status, error FROM sessions"),
                            ANSI.sub(b"", term.seen[-3000:]),
                        )
                        await asyncio.sleep(0.2)
        finally:
            stop(server)
        responder = [r for r in openai.chat_requests("fake-user")]
        grader = [r for r in openai.chat_requests("fake-judge")]

    # the visitor's app asked the model user (with --set's temperature) and the model judge
    assert len(responder) == 1 and "comet" in responder[0].prompt and responder[0].json["temperature"] == 0.3
    assert len(grader) == 1 and "Armageddon" in grader[0].prompt
    [(user, judge, result)] = rows(db, "SELECT user, judge, result FROM sessions")
    assert (user, judge) == ("openai:fake-user", "openai:fake-judge")
    assert json.loads(result)["correct"] is True  # the model judge said yes to a wrong answer: its verdict counts
    [(run_user, run_judge, provenance)] = rows(db, "SELECT user, judge, provenance FROM runs")
    assert (run_user, run_judge) == ("openai:fake-user", "openai:fake-judge")
    roles = json.loads(provenance)["roles"]
    assert roles["user"]["model"] == "fake-user" and roles["user"]["temperature"] == 0.3
    assert roles["judge"]["base_url"] == openai.base_url and TOKEN not in provenance

    # serving the run again with the rule user is refused, naming the change
    code, _out, err = run_cli(
        "serve",
        "--queue",
        RUN,
        "--db",
        str(db),
        "--port",
        str(free_port()),
        "--token",
        TOKEN,
        "--benchmark",
        "interactcomp",
        "--limit",
        "1",
        env=cli_env(OPENAI_API_KEY="sk-test"),
    )
    assert code != 0 and "served with other settings" in err and "user spec: openai:fake-user -> rule" in err
