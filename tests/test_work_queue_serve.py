"""Issue 33: `serve --queue NAME` on an audit or labels queue. The campaign's door
(token, name, one-use ticket; tests/test_campaign_server.py) starts the visitor's app
process with `--work`: the browser's terminal gets the queue's screen for that annotator,
keys sent through the websocket store an answer, and a new page carries on at the next
item. Driven over the websocket textual-serve's page uses, without a browser."""

from __future__ import annotations

import asyncio
import re
import sys

import aiohttp
import pytest
from aiohttp.test_utils import TestClient

from clarify_tui.campaign.server import CampaignServer, visitor_command
from clarify_tui.store import Store
from tests.test_campaign_browser import ANSI
from tests.test_campaign_server import TOKEN, client_of
from tests.test_work_queue_screen import SECRET_REPLY, make_audit, make_labels, stored


def work_door(db):
    """The door of a campaign serving the queue `aud` (`--work`), as a test client."""
    command = visitor_command(sys.executable, db, "aud", ["--work"], zygote=False)
    return client_of(CampaignServer(command, TOKEN, host="127.0.0.1", port=0, title="aud"))


async def visit(client: TestClient, annotator: str) -> aiohttp.ClientWebSocketResponse:
    page = await client.get(f"/?token={TOKEN}&annotator={annotator}")
    assert page.status == 200
    ticket = re.search(r"/ws/([A-Za-z0-9_-]+)", await page.text())
    assert ticket is not None
    return await asyncio.wait_for(client.ws_connect(f"/ws/{ticket.group(1)}?width=100&height=30"), 30)


class Screen:
    """What the visitor's terminal was sent, as text."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws, self.frames = ws, []

    @property
    def text(self) -> str:
        return ANSI.sub(b"", b"".join(self.frames)).decode("utf-8", "replace")

    async def until(self, words: str, timeout: float = 60) -> None:
        async def read() -> None:
            while words not in self.text:
                message = await self.ws.receive()
                if message.type == aiohttp.WSMsgType.BINARY:
                    self.frames.append(message.data)
                elif message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR):
                    raise AssertionError(f"the page closed before {words!r}: {self.text[-2000:]}")

        await asyncio.wait_for(read(), timeout)

    async def keys(self, *keys: str) -> None:
        for key in keys:
            await self.ws.send_json(["stdin", key])


async def until_stored(db, queue: str, n: int) -> None:
    for _ in range(3000):
        if len(stored(db, queue)) >= n:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"never {n} answers in {queue}")


async def test_a_visitor_answers_the_audit_queue_in_the_page_and_a_new_page_carries_on(tmp_path):
    db = tmp_path / "w.db"
    make_audit(db)
    async with work_door(db) as client:
        ws = await visit(client, "ana")
        screen = Screen(ws)
        await screen.until("Is the tower in Japan?")
        await screen.until("3 i don't know")
        await screen.keys("2", "\r")
        await until_stored(db, "aud", 1)
        await screen.until("What will you use it for?")
        assert SECRET_REPLY not in screen.text
        await ws.close()

        again = Screen(await visit(client, "ana"))  # the tab closed and opened again: the next item
        await again.until("What will you use it for?")
        assert "Is the tower in Japan?" not in again.text
        await again.ws.close()
    assert stored(db, "aud") == [("s1:2", "ana", "person", {"reply": "no", "class": "no"})]


async def test_serve_on_a_work_queue_starts_visitors_with_work_and_refuses_campaign_options(
    tmp_path, monkeypatch, capsys
):
    from clarify_tui import cli
    from clarify_tui.campaign import server as module

    db = tmp_path / "w.db"
    make_labels(db)
    made: list[list[str]] = []
    monkeypatch.setattr(module, "visitor_command", lambda python, db, run, options: made.append(options) or str)
    monkeypatch.setattr(module.CampaignServer, "serve", lambda self: None)
    assert cli.main(["serve", "--queue", "lab", "--db", str(db), "--port", "0", "--token", TOKEN]) == 0
    out = capsys.readouterr().out
    assert "Labels queue 'lab' of run 'r1': 2 items, 1 answer each (0 complete)" in out
    assert "carries on at their next item" in out and made == [["--work"]]

    assert cli.main(["serve", "--queue", "lab", "--db", str(db), "--port", "0", "--limit", "2"]) != 0
    assert "'lab' is a labels queue: --limit belong to a human-baseline campaign" in capsys.readouterr().err
    assert Store(db, readonly=True).work.queue("lab") is not None


@pytest.mark.parametrize("extra", [["--task", "ic-01"], ["--limit", "2"]])
def test_play_on_a_work_queue_opens_its_screen_for_the_annotator(tmp_path, monkeypatch, capsys, extra):
    from clarify_tui import cli
    from clarify_tui.tui import work_app

    db = tmp_path / "w.db"
    make_audit(db)
    opened: list[tuple] = []
    monkeypatch.setattr(work_app, "run_work_queue", lambda db, name, annotator: opened.append((name, annotator)) or 0)
    assert cli.main(["play", "--queue", "aud", "--db", str(db), "--annotator", "ana"]) == 0
    assert opened == [("aud", "ana")]
    monkeypatch.setenv("USER", "bo")  # no --annotator: the login name, as for a human baseline
    monkeypatch.setenv("LOGNAME", "bo")
    assert cli.main(["play", "--queue", "aud", "--db", str(db)]) == 0
    assert opened[-1] == ("aud", "bo")
    assert cli.main(["play", "--queue", "aud", "--db", str(db), *extra]) != 0
    assert "'aud' is an audit queue" in capsys.readouterr().err
