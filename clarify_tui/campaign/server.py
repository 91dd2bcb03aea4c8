"""The campaign's web server: textual-serve behind a token, one app process per visitor.

textual-serve is an aiohttp app that starts its command for every websocket. This
subclass guards that door:
- `/` needs `?token=` (compared in constant time): without it, 403 and nothing starts.
  With it but no `annotator`, a small form asks for a name first. With signed links
  (`links.Signer`, `serve --annotators`) the link's signature is the key instead and the
  annotator is the link's, never typed; with a participant parameter
  (`--participant-param PROLIFIC_PID`) the annotator is that parameter's value.
- at most `max_visitors` app processes run at once: the next visitor gets a page saying
  the campaign is full (HTTP 503, it retries by itself) and nothing starts.
- the page's websocket is `/ws/{ticket}`, a one-use ticket the page was given (the
  token never travels in the websocket URL); a websocket without a live ticket is
  refused with 403 before any process starts. The ticket carries the annotator's name
  to the app process's command line.
- file downloads are not served; static files (the terminal's JS, CSS and fonts, public
  package files) are. The page loads nothing from outside this server.

What of textual-serve this touches beyond its documented `Server(...)`, the same in
1.1.0-1.1.3 (hence `textual-serve>=1.1.0,<1.2` in pyproject; tests/test_campaign_server.py
fails with 1.0.3): it overrides `_make_app`
(the routes) and `handle_index` / `handle_websocket`; it calls `_process_messages`,
`to_int`, and `AppService(command, write_bytes=, write_str=, close=, download_manager=,
debug=)`; it reads `templates_path`, `statics_path`, `download_manager`, `debug` and `title`,
and an AppService's `_process` (`reap`).
"""

from __future__ import annotations

import asyncio
import hmac
import html
import os
import secrets
import shlex
import time
from collections.abc import Callable
from pathlib import Path

from aiohttp import web
from textual_serve.app_service import AppService
from textual_serve.server import Server, to_int

from clarify_tui.campaign.links import ANNOTATOR, SIG_PARAM, Signer
from clarify_tui.lease import process_id

TICKET_TTL_S = 120.0
# Visitors at once. Each is an app process: measured on 2 cores (issue 30), ~0.9 CPU-s to
# start and ~67 MB PSS while it runs, so 30 are ~2 GB and a burst of 30 arrivals ~14 s of
# both cores: what a small 2-core / 4 GB machine holds beside the server and the OS.
DEFAULT_MAX_VISITORS = 30
FULL_RETRY_S = 30
TEMPLATES = Path(__file__).parent / "templates"
STATIC = Path(__file__).parent / "static"  # our own files: the CJK font (static/fonts/LICENSE-*)

FORM = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>{title}</title></head>
<body style="background:#0c181f;color:#eee;font-family:monospace;padding:3em">
<h2>{title}</h2><p>{message}</p>
<form method="get" action="/"><input type="hidden" name="token" value="{token}">
<label>Your annotator name: <input name="annotator" id="annotator" autofocus required
 pattern="[A-Za-z0-9][A-Za-z0-9_.@-]{{0,39}}"></label> <button type="submit">Start</button></form>
<p style="color:#999">Letters, digits, and _ . @ - ; every session you play is recorded under it.</p>
</body></html>"""

FULL = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>{title}</title>
<meta http-equiv="refresh" content="{retry}"></head>
<body style="background:#0c181f;color:#eee;font-family:monospace;padding:3em">
<h2>{title}</h2><p>The campaign is full: {cap} annotators are working right now, as many as this server
takes at once.</p><p>Please retry in a minute: this page tries again by itself every {retry} s. Nothing you
did before is lost; your task waits for you.</p></body></html>"""


class CampaignServer(Server):
    """`command_for(annotator)` gives the shell command of one visitor's app process."""

    def __init__(
        self,
        command_for: Callable[[str], str],
        token: str,
        *,
        host: str,
        port: int,
        title: str,
        signer: Signer | None = None,
        participant_param: str | None = None,
        max_visitors: int = DEFAULT_MAX_VISITORS,
    ) -> None:
        super().__init__(command="clarify-tui campaign", host=host, port=port, title=title, templates_path=TEMPLATES)
        self.command_for = command_for
        self.token = token
        self.signer = signer
        self.param = participant_param or "annotator"  # the query parameter naming the annotator
        self.max_visitors = max_visitors
        self.tickets: dict[str, tuple[str, float]] = {}
        self.started: list[str] = []  # annotators whose app process was started (tests read it)
        self.visiting = 0  # app processes running now

    async def _make_app(self) -> web.Application:
        import aiohttp_jinja2
        import jinja2

        app = web.Application()
        aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(self.templates_path))
        app.add_routes(
            [
                web.get("/", self.handle_index, name="index"),
                web.get("/ws/{ticket}", self.handle_websocket, name="websocket"),
                web.static("/static", self.statics_path, name="static"),
                web.static("/clarify-static", STATIC, name="clarify-static"),
            ]
        )
        app.on_startup.append(self.on_startup)
        return app

    async def on_startup(self, app: web.Application) -> None:
        """Quiet: `clarify-tui serve` prints the address itself."""

    def token_ok(self, request: web.Request) -> bool:
        given = request.query.get("token", "")
        return bool(given) and hmac.compare_digest(given.encode(), self.token.encode())

    def who(self, request: web.Request) -> str | web.Response:
        """The annotator the request's link names, or the response instead (a 403, the name form).
        Raises 403 before anything else is looked at when the link does not open the campaign."""
        query = request.query
        if self.signer is not None:
            name = query.get(self.param, "")
            if not self.signer.valid(name, query.get(SIG_PARAM, "")):
                access_line(f"refused a link that is not valid (changed, or revoked) from {request.remote}")
                raise web.HTTPForbidden(
                    text="403: this link does not open the campaign (it was changed, or it was "
                    "withdrawn): ask the person running it for yours\n"
                )
            return name
        if not self.token_ok(request):
            raise web.HTTPForbidden(
                text="403: this campaign needs its token: open the link that `clarify-tui serve` printed (…/?token=…)\n"
            )
        annotator = query.get(self.param, "").strip()
        if self.param != "annotator":  # a platform's participant id: never typed
            if not ANNOTATOR.match(annotator):
                raise web.HTTPForbidden(
                    text=f"403: this link carries no usable {self.param}: open the study from "
                    "the platform that sent you\n"
                )
            return annotator
        if not ANNOTATOR.match(annotator):
            message = "Who is annotating?" if not annotator else f"'{html.escape(annotator)}' is not a usable name."
            return web.Response(
                text=FORM.format(title=html.escape(self.title), message=message, token=html.escape(self.token)),
                content_type="text/html",
            )
        return annotator

    def full(self, annotator: str, expecting: int) -> bool:
        """Whether `expecting` more visitors would pass the cap (said on the server's output)."""
        if self.visiting + expecting <= self.max_visitors:
            return False
        access_line(
            f"{annotator} turned away: the campaign is full ({self.visiting} of {self.max_visitors} "
            "visitors at once, --max-visitors)"
        )
        return True

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        import aiohttp_jinja2

        annotator = self.who(request)
        if isinstance(annotator, web.Response):
            return annotator
        self._drop_old_tickets()
        if self.full(annotator, len(self.tickets) + 1):  # pages not yet connected count
            return web.Response(
                status=503,
                headers={"Retry-After": str(FULL_RETRY_S), "Cache-Control": "no-store"},
                content_type="text/html",
                text=FULL.format(title=html.escape(self.title), cap=self.max_visitors, retry=FULL_RETRY_S),
            )
        ticket = secrets.token_urlsafe(24)
        self.tickets[ticket] = (annotator, time.monotonic() + TICKET_TTL_S)
        scheme = "wss" if request.secure else "ws"
        context = {
            "font_size": to_int(request.query.get("fontsize", "16"), 16),
            "app_websocket_url": f"{scheme}://{request.host}/ws/{ticket}",
            "config": {"static": {"url": "/static/"}},
            "application": {"name": f"{self.title} · {annotator}"},
        }
        response = aiohttp_jinja2.render_template("app_index.html", request, context)
        response.headers["Cache-Control"] = "no-store"
        return response

    def _drop_old_tickets(self) -> None:
        now = time.monotonic()
        for key in [k for k, (_, until) in self.tickets.items() if until < now]:
            del self.tickets[key]

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        self._drop_old_tickets()
        entry = self.tickets.pop(request.match_info["ticket"], None)
        if entry is None:
            raise web.HTTPForbidden(text="403: open the campaign page again (its link has the token)\n")
        annotator = entry[0]
        if self.full(annotator, 1):  # a page older than the cap's last seat: nothing starts
            raise web.HTTPServiceUnavailable(text="503: the campaign is full: reload the page in a minute\n")
        self.visiting += 1
        access_line(f"{annotator} opened the workbench from {request.remote}")
        websocket = web.WebSocketResponse(heartbeat=15)
        width = to_int(request.query.get("width", "80"), 80)
        height = to_int(request.query.get("height", "24"), 24)
        app_service: AppService | None = None
        try:
            await websocket.prepare(request)

            async def close() -> None:  # AppService wants () -> None; aiohttp's close says whether it closed
                await websocket.close()

            app_service = AppService(
                self.command_for(annotator),
                write_bytes=websocket.send_bytes,
                write_str=websocket.send_str,
                close=close,
                download_manager=self.download_manager,
                debug=self.debug,
            )
            self.started.append(annotator)
            await app_service.start(width, height)
            try:
                await self._process_messages(websocket, app_service)
            finally:
                await app_service.stop()
        except asyncio.CancelledError:
            await websocket.close()
        finally:
            try:
                if app_service is not None:
                    await app_service.stop()
                    await reap(app_service)
            finally:
                self.visiting -= 1
            access_line(f"{annotator} left (the page closed)")
        return websocket


REAP_WAIT_S = 5.0  # a visitor's app told to quit gets this long before it is killed


async def reap(app_service: AppService) -> None:
    """Waits for a visitor's app process and closes its pipes. textual-serve's `stop` asks
    the app to quit and waits for its output to end, never for the process: each visitor
    left a zombie process and an open stdin pipe until the garbage collector found them
    (a long campaign piles them up; the collector, run after its event loop closed, also
    raised 'Event loop is closed' in the tests)."""
    process = app_service._process
    if process is None:
        return
    if process.stdin is not None:
        process.stdin.close()
    try:
        await asyncio.wait_for(process.wait(), REAP_WAIT_S)
    except TimeoutError:
        process.kill()
        await process.wait()


def access_line(text: str) -> None:
    """One line per visitor arrival and departure on the server's output: who and from
    where, never the token or a ticket."""
    print(f"{time.strftime('%H:%M:%S')} {text}", flush=True)


def visitor_command(
    python: str, db: Path, run: str, options: list[str], *, zygote: bool = True
) -> Callable[[str], str]:
    """`command_for`: the visitor module with the campaign's options and the annotator;
    with `zygote`, started here, through it (campaign/zygote.py: one warm fork per visitor)."""

    server = os.getpid()  # visitors end when this process is gone (visitor.die_with_server)
    identity = ["--server-pid", str(server)] + (["--server-id", ident] if (ident := process_id(server)) else [])
    common = ["--db", str(db), "--queue", run, *identity, *options]
    socket_path = None
    if zygote:
        from clarify_tui.campaign import launch

        socket_path = launch.start(python, common)
    entry = ["clarify_tui.campaign.launch", socket_path] if socket_path else ["clarify_tui.campaign.visitor"]

    def command_for(annotator: str) -> str:
        argv = [python, "-m", *entry, *common, "--annotator", annotator]
        return " ".join(shlex.quote(a) for a in argv)

    return command_for
