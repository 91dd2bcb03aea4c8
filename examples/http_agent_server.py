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
    """The policy of docs/agents.md's MyAgent, on the view's JSON: search, ask (naming the
    two top candidates in DiscoBench), search again with what the user said, answer."""
    if view["phase"] == "clarify":
        return {"kind": "clarify", "items": [f"What exactly do you mean (detail {i + 1})?" for i in range(view["k"])]}
    turns: list[dict] = []  # this checkpoint's turns (DiscoBench answers each)
    for turn in view["history"]:
        turns = [] if turn["action"]["kind"] == "answer" else turns + [turn]
    searches = [t for t in turns if t["action"]["kind"] == "search"]
    asks = [t for t in turns if t["action"]["kind"] == "ask"]
    answered = [t["action"]["text"] for t in view["history"] if t["action"]["kind"] == "answer"]
    if "search" in view["allowed"] and not searches:  # the next hop starts from the last answer
        return {"kind": "search", "text": f"{answered[-1]} {view['question']}" if answered else view["question"]}
    top = [h["title"] for h in searches[0]["observation"]["hits"][:2]] if searches else []
    if "ask" in view["allowed"] and not asks and view["rounds_left"] > 1:
        if view["protocol"] == "discobench" and len(top) == 2:
            return {"kind": "ask", "text": f"Which one do you mean: {top[0]} or {top[1]}?"}
        return {"kind": "ask", "text": "Is it the best-known one that fits the description?"}
    reply = asks[-1]["observation"]["text"].lower() if asks else ""
    if "search" in view["allowed"] and len(searches) == 1 and len(reply.split()) > 3:
        return {"kind": "search", "text": f"{view['question']} {reply}"}
    hits = [h for h in searches[-1]["observation"]["hits"] if h["title"] not in answered] if searches else []
    pick = 1 if reply.startswith("no") and len(hits) > 1 else 0
    return {"kind": "answer", "text": hits[pick]["title"] if hits else "I don't know", "confidence": 60}


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
