"""Loopback stand-ins for the OpenAI chat completions API and Tavily's /search and /extract.

Why real HTTP servers: the components must be tested through the real SDK clients
(openai, tavily-python) with their real retry, timeout and parsing code, and with no
internet. Each server listens on 127.0.0.1 on a free port, runs in its own threads (so it
keeps answering while the test's event loop awaits), records every request, and answers
with whatever the test's script returns: a reply, an HTTP error, or a slow reply.

Used by the tests (tests/servers.py re-exports it) and by the benchmarks, which stand on
the package alone: benchmarks/bench_llm_throughput.py runs `python -m
clarify_tui.testing.loopback` as a separate process so the server does not share the GIL.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """What the server sends back: a status, a JSON body (or text), after `delay` seconds."""

    status: int = 200
    body: Any = None
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Request:
    path: str
    headers: dict[str, str]
    json: Any

    # OpenAI chat helpers
    @property
    def model(self) -> str:
        return self.json.get("model", "")

    @property
    def prompt(self) -> str:
        """All message contents joined: what the model was shown."""
        return "\n".join(m.get("content") or "" for m in self.json.get("messages", []))


Handler = Callable[[Request], Reply]


def chat(text: str, prompt_tokens: int = 100, completion_tokens: int = 20, model: str = "fake") -> Reply:
    """A successful chat completion whose message content is `text`."""
    return Reply(
        body={
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
    )


def error(status: int, message: str = "scripted failure", retry_after_ms: int | None = 1) -> Reply:
    """An OpenAI-style error body; a tiny retry-after keeps SDK backoff fast in tests."""
    headers = {"retry-after-ms": str(retry_after_ms)} if retry_after_ms is not None else {}
    return Reply(status=status, body={"error": {"message": message, "type": "test"}}, headers=headers)


def tavily_results(query: str, hits: Iterable[tuple[str, str, str]]) -> Reply:
    """A Tavily /search body from (title, url, content) triples."""
    results = [
        {"title": t, "url": u, "content": c, "score": round(0.9 - 0.1 * i, 3), "raw_content": None}
        for i, (t, u, c) in enumerate(hits)
    ]
    return Reply(body={"query": query, "answer": None, "images": [], "results": results, "response_time": 0.01})


class Script:
    """Successive replies, one per request; running out is a test failure (HTTP 599)."""

    def __init__(self, *replies: Reply | Handler) -> None:
        self.replies = list(replies)
        self.lock = threading.Lock()

    def __call__(self, request: Request) -> Reply:
        with self.lock:
            if not self.replies:
                return Reply(status=599, body={"error": {"message": "script exhausted"}})
            reply = self.replies.pop(0)
        return reply(request) if callable(reply) else reply


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the SDKs expect
    disable_nagle_algorithm = True  # headers and body go out as separate writes: no 40 ms stalls
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # quiet test output
        return

    def do_GET(self) -> None:
        self._respond(Reply(status=404, body={"error": {"message": "not found"}}))

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            payload = json.loads(raw or b"null")
        except json.JSONDecodeError:
            payload = None
        request = Request(path=self.path, headers={k.lower(): v for k, v in self.headers.items()}, json=payload)
        with self.server.lock:
            self.server.requests.append(request)
        try:
            reply = self.server.handler(request)
        except Exception as exc:  # a broken script must show up as a failing response
            self.server.errors.append(f"{type(exc).__name__}: {exc}")
            reply = Reply(status=599, body={"error": {"message": f"handler raised {exc!r}"}})
        self._respond(reply)

    def _respond(self, reply: Reply) -> None:
        if reply.delay:
            time.sleep(reply.delay)
        body = reply.body if isinstance(reply.body, (str, bytes)) else json.dumps(reply.body)
        data = body.encode() if isinstance(body, str) else body
        try:
            self.send_response(reply.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for key, value in reply.headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            # the client gave up (a timeout test): nothing to deliver
            self.close_connection = True


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    request_queue_size = 256  # the default backlog (5) drops bursts of new connections

    def __init__(self, handler: Handler) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.handler = handler
        self.requests: list[Request] = []
        self.errors: list[str] = []
        self.lock = threading.Lock()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client process that exits (a CLI run in a subprocess) resets its keep-alive
        connections: nothing went wrong, so print nothing."""
        if isinstance(sys.exc_info()[1], ConnectionResetError):
            return
        super().handle_error(request, client_address)


class LoopbackServer:
    """A scripted HTTP server on 127.0.0.1; use as a context manager."""

    def __init__(self, handler: Handler) -> None:
        self._server = _Server(handler)
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        assert isinstance(host, str)  # an AF_INET address (bytes only for AF_UNIX)
        return f"http://{host}:{port}"

    @property
    def requests(self) -> list[Request]:
        return self._server.requests

    @property
    def errors(self) -> list[str]:
        return self._server.errors

    def set_handler(self, handler: Handler) -> None:
        self._server.handler = handler

    def __enter__(self) -> LoopbackServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


class FakeOpenAI(LoopbackServer):
    """Speaks POST /v1/chat/completions; point the SDK at `base_url`."""

    @property
    def base_url(self) -> str:
        return self.url + "/v1"

    def chat_requests(self, model: str | None = None) -> list[Request]:
        return [
            r for r in self.requests if r.path.endswith("/chat/completions") and (model is None or r.model == model)
        ]


class FakeTavily(LoopbackServer):
    """Speaks POST /search and /extract; point tavily-python's api_base_url at `url`."""


def llm_config(openai_url: str | None = None, tavily_url: str | None = None, **sections: Any) -> Any:
    """A clarify_tui Config aimed at these servers, with fast retries and short timeouts."""
    from clarify_tui.config import Config

    data: dict[str, Any] = {
        "openai": {"base_url": openai_url, "timeout": 5, "max_retries": 2, "max_concurrency": 8},
        "tavily": {
            "base_url": tavily_url,
            "timeout": 5,
            "max_retries": 2,
            "backoff_initial": 0.01,
            "backoff_max": 0.05,
        },
    }
    for name, values in sections.items():
        data[name] = {**data.get(name, {}), **values} if isinstance(values, dict) else values
    return Config.model_validate(data)


# ---- a stateless InteractComp world, for the throughput benchmark ---------------------

_ROUND = re.compile(r"Current round: (\d+)/")


def interactcomp_router(latency: float) -> Handler:
    """Agent: search, then ask, then answer (read off its memory); responder: yes; grader: yes.

    Five model calls per episode, each answered after `latency` seconds.
    """

    def handle(request: Request) -> Reply:
        prompt = request.prompt
        if "impartial grader" in prompt:
            reply = chat("yes", 300, 1)
        elif "specialized Q&A agent" in prompt:
            reply = chat("The context says so.\nyes", 200, 8)
        else:
            current = _ROUND.search(prompt)
            rounds = int(current.group(1)) - 1 if current else 2
            if rounds == 0:
                action = {"action": "search", "params": {"query": "team striking sport puck"}}
            elif rounds == 1:
                action = {"action": "ask", "params": {"question": "Is the projectile a puck?"}}
            else:
                action = {"action": "answer", "params": {"answer": "Hornussen", "confidence": "80"}}
            reply = chat("Thinking step by step.\n```json\n" + json.dumps(action) + "\n```", 900, 60)
        reply.delay = latency
        return reply

    return handle


def main() -> None:
    parser = argparse.ArgumentParser(description="Serve a fixed-latency fake OpenAI API on 127.0.0.1.")
    parser.add_argument("--latency", type=float, default=0.1, help="seconds before each reply")
    parser.add_argument("--seconds", type=float, default=600, help="stop after this long (safety bound)")
    args = parser.parse_args()
    server = FakeOpenAI(interactcomp_router(args.latency))
    with server:
        print(server.base_url, flush=True)
        deadline = time.monotonic() + args.seconds
        while time.monotonic() < deadline:
            time.sleep(0.2)


if __name__ == "__main__":
    main()
