"""`serve --annotators FILE`: one signed link per annotator, printed and written (mode 0600)
beside the database; a link opens only for its own name, the app's annotator is the
link's, and removing a name and restarting revokes its link; past `--max-visitors` the next
annotator is told the campaign is full and the first plays on (issue 30). A real server
subprocess and a real websocket visitor (no browser needed)."""

from __future__ import annotations

import re
import socket
import sqlite3
import stat
import subprocess
import sys
import time
from pathlib import Path

import aiohttp

from tests.clitools import cli_env
from tests.test_campaign_lifecycle import free_port, stop, wait_for

RUN = "hb-links"


def start(db: Path, names: Path, port: int, *options: str) -> tuple[subprocess.Popen, dict[str, str]]:
    """The server, and the links it printed by name (read from its output)."""
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
            "--annotators",
            str(names),
            "--benchmark",
            "interactcomp",
            "--limit",
            "2",
            *options,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=db.parent,
        env=cli_env(),
        bufsize=1,
    )
    links: dict[str, str] = {}
    for line in proc.stdout:  # type: ignore[union-attr]
        if found := re.match(r"\s+(\S+): (http://\S+)$", line):
            links[found[1]] = found[2]
        if line.startswith("Ctrl+C"):
            deadline = time.monotonic() + 60  # it prints before it listens
            while socket.socket().connect_ex(("127.0.0.1", port)) != 0:
                assert proc.poll() is None and time.monotonic() < deadline, "the server never listened"
                time.sleep(0.1)
            return proc, links
    raise AssertionError(f"the server printed no links: {stop(proc)}")


def claims(db: Path) -> list[tuple[str, str]]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute("SELECT task_id, annotator FROM claims").fetchall()
    finally:
        conn.close()


async def test_one_signed_link_per_annotator_tampered_and_revoked_links_are_403(tmp_path):
    db, names = tmp_path / "campaign.db", tmp_path / "names.txt"
    names.write_text("ana\n# a comment\nbo\n", encoding="utf-8")
    port = free_port()
    server, links = start(db, names, port, "--max-visitors", "1")
    try:
        assert set(links) == {"ana", "bo"} and links["ana"] != links["bo"]
        written = tmp_path / f"campaign.db.links-{RUN}.tsv"
        assert stat.S_IMODE(written.stat().st_mode) == 0o600
        assert written.read_text().splitlines() == [f"ana\t{links['ana']}", f"bo\t{links['bo']}"]
        assert stat.S_IMODE((tmp_path / "campaign.db.serve-secret").stat().st_mode) == 0o600
        ana = links["ana"].replace("THIS-MACHINE", "127.0.0.1")
        async with aiohttp.ClientSession() as http:
            tampered = ana.replace("annotator=ana", "annotator=bo")  # ana's signature on bo's name
            for link in (tampered, ana[:-1] + ("0" if ana[-1] != "0" else "1"), ana.split("&sig=")[0]):
                response = await http.get(link)
                assert response.status == 403, link
            page = await (await http.get(ana + "&annotator=eve")).text()  # a second name changes nothing
            [ws_url] = re.findall(r"ws://[^\"'&]+/ws/[A-Za-z0-9_-]+", page)
            async with http.ws_connect(ws_url):
                await wait_for(lambda: claims(db), 90, "the visitor's claim")
                full = await http.get(links["bo"].replace("THIS-MACHINE", "127.0.0.1"))  # past --max-visitors 1
                assert full.status == 503 and "campaign is full" in await full.text()
                assert claims(db) == [("ic-01", "ana")]  # ana plays on; bo took nothing
        assert claims(db) == [("ic-01", "ana")]  # recorded as the link's annotator
    finally:
        out, _ = stop(server)
    assert out.count("opened the workbench") == 1 and "ana opened the workbench" in out
    assert "bo turned away: the campaign is full" in out

    names.write_text("bo\n", encoding="utf-8")  # ana's link withdrawn
    again, relinks = start(db, names, free_port())
    try:
        assert set(relinks) == {"bo"} and "ana" not in (tmp_path / f"campaign.db.links-{RUN}.tsv").read_text()
        new_port = re.search(r":(\d+)/", relinks["bo"])[1]  # type: ignore[index]
        async with aiohttp.ClientSession() as http:
            revoked = await http.get(re.sub(r":\d+/", f":{new_port}/", links["ana"]))
            assert revoked.status == 403
            kept = await http.get(re.sub(r":\d+/", f":{new_port}/", links["bo"]))  # the first run's link
            assert kept.status == 200
    finally:
        out, _ = stop(again)
    assert "opened the workbench" not in out


def test_a_names_file_that_cannot_be_used_is_one_line_and_nothing_is_made(tmp_path):
    from tests.clitools import run_cli

    names = tmp_path / "names.txt"
    for content, says in (
        (b"ana\nbad name\n", "line 2: 'bad name' is not a usable name"),
        (b"ana\nbo\nana\n", "line 3: 'ana' is listed twice"),
        (b"ana\n\xff\n", "is not UTF-8 text"),
        (b"# nobody\n", "no names in it"),
    ):
        names.write_bytes(content)
        code, _out, err = run_cli(
            "serve",
            "--queue",
            RUN,
            "--db",
            str(tmp_path / "c.db"),
            "--port",
            str(free_port()),
            "--annotators",
            str(names),
        )
        assert code != 0 and says in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "c.db").exists() and not (tmp_path / "c.db.serve-secret").exists()
