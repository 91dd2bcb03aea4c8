"""`serve` killed with -9: its visitors' app processes die with it, and a restarted server
hands their claimed tasks out again; the campaign token never reaches a log (issue 22).
A real server subprocess and a real websocket visitor (no browser needed)."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import aiohttp
import pytest

from clarify_tui.campaign.claims import Claim, ClaimBook, load_campaign
from tests.clitools import ROOT, cli_env

TOKEN = "s3cret-campaign-token"
RUN = "hb"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(db: Path, port: int) -> subprocess.Popen:
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
            "2",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=db.parent,
        env=cli_env(),
        bufsize=1,
    )
    deadline = time.monotonic() + 60
    while socket.socket().connect_ex(("127.0.0.1", port)) != 0:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the server never listened"
        time.sleep(0.1)
    return proc


def live_claims(db: Path) -> list[tuple[str, str, str | None]]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute("SELECT task_id, annotator, holder FROM claims WHERE state='live'").fetchall()
    except sqlite3.OperationalError:
        return []
    finally:
        conn.close()


async def wait_for(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        await asyncio.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"  # a zombie is dead, only not reaped yet


def stop(proc: subprocess.Popen) -> tuple[str, str]:
    if proc.poll() is None:
        proc.terminate()
    try:
        return proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.communicate()


async def test_kill_9_of_serve_ends_its_visitors_and_a_restart_hands_their_tasks_out_again(tmp_path):
    db = tmp_path / "campaign.db"
    port = free_port()
    server = start_server(db, port)
    visitor = None
    try:
        async with aiohttp.ClientSession() as http:
            page = await (await http.get(f"http://127.0.0.1:{port}/?token={TOKEN}&annotator=ana")).text()
            [ws_url] = re.findall(r"ws://[^\"'&]+/ws/[A-Za-z0-9_-]+", page)
            async with http.ws_connect(ws_url):
                [(task, _, holder)] = await wait_for(lambda: live_claims(db), 90, "ana's claim")
                visitor = int(holder.split(":")[1])
                assert alive(visitor)
                os.kill(server.pid, signal.SIGKILL)
                server.wait(10)
                await wait_for(lambda: not alive(visitor), 15, "the visitor to end with its server")
    finally:
        stop(server)
        if visitor and alive(visitor):
            os.kill(visitor, signal.SIGKILL)
    assert live_claims(db) == [(task, "ana", holder)]  # killed: nobody let go of the claim

    again = start_server(db, free_port())
    try:
        await wait_for(lambda: live_claims(db) == [(task, "ana", None)], 30, "the dead visitor's claim released")
    finally:
        out, _err = stop(again)
    assert "Released 1 task claim(s)" in out
    book = ClaimBook(db, load_campaign(db, RUN))
    try:
        claim = book.claim_next("ana")  # ana's next tab plays it (resuming her session), not "open in another tab"
        assert isinstance(claim, Claim) and claim.task_id == task
    finally:
        book.close()


def test_the_token_never_reaches_a_log(tmp_path):
    db = tmp_path / "campaign.db"
    port = free_port()
    server = start_server(db, port)
    try:
        for request in (
            f"GET /?token={TOKEN}&x={'a' * 9000} HTTP/1.1\r\nHost: x\r\n\r\n",
            f"GET /?token={TOKEN}&annotator=ana HTTP/1.1\r\nHost: x\r\nX-Big: {'b' * 9000}\r\n\r\n",
            f"GET /?{'y' * 9000}&token={TOKEN} HTTP/1.1\r\nHost: x\r\n\r\n",
        ):
            with socket.create_connection(("127.0.0.1", port)) as conn:
                conn.sendall(request.encode())
                assert conn.recv(100).startswith(b"HTTP/1.")
    finally:
        out, err = stop(server)
    log = (tmp_path / "clarify-tui.log").read_text(encoding="utf-8")
    assert "LineTooLong" in log and "[token]" in log  # the fault is logged, the token is not
    assert TOKEN not in log and TOKEN not in err, err
    assert "LineTooLong" in err
    assert TOKEN in out  # the printed link, for the person running the campaign, is no log


@pytest.fixture(autouse=True)
def _no_stray(monkeypatch):
    monkeypatch.chdir(ROOT)
    yield
