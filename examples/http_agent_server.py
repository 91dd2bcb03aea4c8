"""An HTTP agent for clarify-tui: each POST carries an AgentView as JSON, the reply is an
Action as JSON (docs/agents.md, docs/agent_view.schema.json, docs/action.schema.json).

Standard library only, so it shows the wire format plainly; put your model behind
`decide()`. Run it, then point clarify-tui at it:

    python examples/http_agent_server.py --port 8765
    clarify-tui run --benchmark interactcomp --agent http://127.0.0.1:8765/act
"""

from __future__ import annotations

import argparse
import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def decide(view: dict) -> dict:
    """The policy, on the view's JSON: search, ask once, answer the first hit's title."""
    if view["phase"] == "clarify":
        return {"kind": "clarify", "items": [f"Which detail {i + 1} matters to you?" for i in range(view["k"])]}
    history = view["history"]
    searches = [t for t in history if t["action"]["kind"] == "search"]
    asked = any(t["action"]["kind"] == "ask" for t in history)
    if "search" in view["allowed"] and not searches:
        return {"kind": "search", "text": view["question"]}
    if "ask" in view["allowed"] and not asked and view["rounds_left"] > 1:
        return {"kind": "ask", "text": "Is it the best-known one that fits?"}
    hits = [h for t in searches for h in t["observation"]["hits"]]
    return {"kind": "answer", "text": hits[0]["title"] if hits else "I don't know", "confidence": 60}


class AgentHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        length = int(self.headers.get("Content-Length") or 0)
        try:
            view = json.loads(self.rfile.read(length) or b"{}")
            status, body = 200, decide(view)
        except (ValueError, KeyError, TypeError) as exc:
            status, body = 400, {"error": f"bad AgentView: {exc}"}
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        return


def make_server(host: str = "127.0.0.1", port: int = 0) -> ThreadingHTTPServer:
    """The server (port 0: any free port; read it from `server.server_address`)."""
    server = ThreadingHTTPServer((host, port), AgentHandler)
    server.daemon_threads = True
    return server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    args = parser.parse_args()
    server = make_server(args.host, args.port)
    print(f"agent at http://{args.host}:{server.server_address[1]}/act", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
