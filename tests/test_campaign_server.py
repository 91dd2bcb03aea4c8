"""The campaign server's door without a browser, so the textual-serve internals it touches
(campaign/server.py lists them; pyproject bounds textual-serve to the releases where they
hold) are exercised wherever the tests run, also at the dependency floors in CI: the
token gate, the name form, the page with its one-use websocket ticket, a visitor's app
process started through textual-serve's AppService, and the static files."""

from __future__ import annotations

import asyncio
import contextlib
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
    async with client_of(server) as client:
        yield server, client


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


def make_door(**options):
    """A server with `options` and a test client (the `door` fixture's, for other settings)."""
    started: list[str] = []

    def command_for(annotator: str) -> str:
        started.append(annotator)
        return f"{sys.executable} -c 'import sys; sys.stdin.read()'"  # stays until its page closes

    return CampaignServer(command_for, TOKEN, host="127.0.0.1", port=0, title="hb1", **options)


@contextlib.asynccontextmanager
async def client_of(server: CampaignServer) -> AsyncIterator[TestClient]:
    """A test client of `server` (the `door` fixture's; test_work_queue_serve.py's too)."""
    client = TestClient(TestServer(await server._make_app()))
    await client.start_server()
    try:
        yield client
    finally:
        await client.close()
        gc.collect()  # textual-serve leaves the app process's pipes to the collector: while the loop runs


async def test_a_signed_link_names_its_annotator_a_tampered_or_revoked_one_is_403_and_starts_nothing():
    from clarify_tui.campaign.links import Signer

    signer = Signer(b"k" * 32, "hb1", ["ana", "bo"])
    server = make_door(signer=signer)
    async with client_of(server) as client:
        for path in (
            f"/?annotator=ana&sig={signer.sign('bo')}",  # another's signature
            f"/?annotator=ana&sig={signer.sign('ana')[:-1]}0",  # changed
            "/?annotator=ana",
            f"/?token={TOKEN}&annotator=ana",  # the shared token opens nothing here
            f"/?annotator=eve&sig={Signer(b'k' * 32, 'hb1', ['eve']).sign('eve')}",
        ):  # not listed
            response = await client.get(path)
            assert response.status == 403 and "does not open the campaign" in await response.text(), path
        assert server.tickets == {} and server.started == []

        page = await client.get(f"/?annotator=ana&sig={signer.sign('ana')}")
        assert page.status == 200 and "Your annotator name" not in await page.text()
        [(who, _)] = server.tickets.values()
        assert who == "ana"  # the link's name goes to the app process, nothing typed

    revoked = make_door(signer=Signer(b"k" * 32, "hb1", ["bo"]))  # ana taken off the list, server restarted
    async with client_of(revoked) as client:
        assert (await client.get(f"/?annotator=ana&sig={signer.sign('ana')}")).status == 403
        assert (await client.get(f"/?annotator=bo&sig={signer.sign('bo')}")).status == 200  # same secret: bo's works
        assert [who for who, _ in revoked.tickets.values()] == ["bo"]


async def test_a_participant_parameter_names_the_annotator_and_no_form_asks():
    server = make_door(participant_param="PROLIFIC_PID")
    async with client_of(server) as client:
        assert (await client.get("/?PROLIFIC_PID=5f3a9c")).status == 403  # still the study's token
        missing = await client.get(f"/?token={TOKEN}&annotator=ana")
        assert missing.status == 403 and "PROLIFIC_PID" in await missing.text() and server.tickets == {}
        page = await client.get(f"/?token={TOKEN}&PROLIFIC_PID=5f3a9c&annotator=ana")
        assert page.status == 200
        assert [who for who, _ in server.tickets.values()] == ["5f3a9c"]


async def test_past_max_visitors_the_next_one_is_told_the_campaign_is_full_and_nothing_starts():
    server = make_door(max_visitors=1)
    async with client_of(server) as client:
        page = await client.get(f"/?token={TOKEN}&annotator=ana")
        (ticket,) = server.tickets
        ws = await asyncio.wait_for(client.ws_connect(f"/ws/{ticket}"), 30)
        while server.visiting < 1:
            await asyncio.sleep(0.01)

        full = await client.get(f"/?token={TOKEN}&annotator=bo")
        text = await full.text()
        assert full.status == 503 and "campaign is full" in text and "retry" in text
        assert full.headers["Retry-After"] == "30" and 'http-equiv="refresh"' in text  # it retries by itself
        assert server.tickets == {} and server.started == ["ana"] and server.visiting == 1  # ana plays on

        await ws.close()
        while server.visiting:
            await asyncio.sleep(0.01)
        again = await client.get(f"/?token={TOKEN}&annotator=bo")  # a seat came free
        assert again.status == 200 and [who for who, _ in server.tickets.values()] == ["bo"]
        assert page.status == 200
