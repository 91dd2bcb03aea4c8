"""The campaign server's door without a browser, so the textual-serve internals it touches
(campaign/server.py lists them; pyproject bounds textual-serve to the releases where they
hold) are exercised wherever the tests run, also at the dependency floors in CI: the
token gate, the name form, the page with its one-use websocket ticket, a visitor's app
process started through textual-serve's AppService, and the static files."""

from __future__ import annotations

import asyncio
import gc
import re
import sys
from collections.abc import AsyncIterator

import aiohttp
import pytest
from aiohttp.test_utils import TestClient, TestServer

from clarify_tui.campaign.server import CampaignServer

TOKEN = "t0ken-for-the-test"


@pytest.fixture
async def door() -> AsyncIterator[tuple[CampaignServer, TestClient]]:
    commands: list[str] = []

    def command_for(annotator: str) -> str:
        commands.append(annotator)
        return f"{sys.executable} -c pass"  # not a Textual app: textual-serve logs that and the page closes

    server = CampaignServer(command_for, TOKEN, host="127.0.0.1", port=0, title="hb1")
    handled = server.handle_websocket
    server.finished = []

    async def handle_websocket(request: aiohttp.web.Request) -> aiohttp.web.WebSocketResponse:
        try:
            return await handled(request)
        finally:
            server.finished.append(request.match_info["ticket"])

    server.handle_websocket = handle_websocket  # before _make_app routes it
    client = TestClient(TestServer(await server._make_app()))
    await client.start_server()
    try:
        yield server, client
    finally:
        await client.close()
        gc.collect()  # textual-serve leaves the app process's pipes to the collector: while the loop runs


async def test_without_the_token_nothing_is_served(door):
    server, client = door
    for path in ("/", "/?token=wrong", "/?annotator=ana"):
        response = await client.get(path)
        assert response.status == 403 and "needs its token" in await response.text()
    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        await client.ws_connect("/ws/no-such-ticket")
    assert refused.value.status == 403 and server.started == [] and server.tickets == {}


async def test_the_token_asks_for_a_name_then_the_page_holds_a_one_use_ticket(door):
    server, client = door
    form = await client.get(f"/?token={TOKEN}")
    assert form.status == 200 and "Your annotator name" in await form.text()
    bad = await client.get(f"/?token={TOKEN}&annotator=a%20b")
    assert "is not a usable name" in await bad.text() and server.tickets == {}

    page = await client.get(f"/?token={TOKEN}&annotator=ana&fontsize=14")
    html = await page.text()
    assert page.status == 200 and page.headers["Cache-Control"] == "no-store"
    (ticket,) = server.tickets
    assert re.search(rf"ws://[^\"']+/ws/{re.escape(ticket)}", html) and TOKEN not in html.split("<body", 1)[-1]

    ws = await asyncio.wait_for(client.ws_connect(f"/ws/{ticket}"), 30)
    await ws.close()
    while ticket not in server.finished:  # the handler stops the app process, then returns
        await asyncio.sleep(0.01)
    assert server.started == ["ana"] and server.tickets == {}
    with pytest.raises(aiohttp.WSServerHandshakeError) as again:  # a ticket opens one websocket only
        await client.ws_connect(f"/ws/{ticket}")
    assert again.value.status == 403 and server.started == ["ana"]


async def test_the_terminal_page_loads_its_static_files_from_this_server(door):
    _, client = door
    script = await client.get("/static/js/textual.js")
    assert script.status == 200 and len(await script.read()) > 1000


async def test_a_visitors_app_process_is_reaped_when_its_page_closes(monkeypatch):
    """textual-serve never waits for a visitor's process nor closes its stdin: each visitor
    left a zombie and an open pipe until the collector ran. `reap` closes stdin, waits, and
    kills an app that does not quit."""
    from types import SimpleNamespace

    from clarify_tui.campaign import server as module

    async def visitor(code: str):
        return await asyncio.create_subprocess_exec(sys.executable, "-c", code, stdin=asyncio.subprocess.PIPE)

    quits = await visitor("import sys; sys.stdin.read()")  # quits when its stdin closes
    await module.reap(SimpleNamespace(_process=quits))
    assert quits.returncode == 0

    monkeypatch.setattr(module, "REAP_WAIT_S", 0.2)
    stays = await visitor("import time; time.sleep(60)")
    await module.reap(SimpleNamespace(_process=stays))
    assert stays.returncode is not None and stays.returncode < 0  # killed, not left running
