"""The serve side of the warm zygote (campaign/zygote.py): starting it, and the launcher
textual-serve runs for each visitor. The standard library only: the launcher is a fresh
interpreter per visitor, and `campaign.server` imports this without the app's stack.

    python -m clarify_tui.campaign.launch SOCKET VISITOR-ARGS...
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading

FORKED, REFUSED = b"F", b"N"
WEB_ENV = {  # what textual-serve's AppService sets for its apps and Textual reads at import
    "TEXTUAL_DRIVER": "textual.drivers.web_driver:WebDriver",
    "TEXTUAL_FPS": "60",
    "TEXTUAL_COLOR_SYSTEM": "truecolor",
}
READY_TIMEOUT_S = 120.0


# ---- serve's side ---------------------------------------------------------------------


def start(python: str, visitor_args: list[str]) -> str | None:
    """Start the zygote for visitors run with `visitor_args` (the server's pid among
    them); its socket's path once it listens, or None when it could not start (visitors
    then start on their own)."""
    folder = tempfile.mkdtemp(prefix="clarify-visitors-")  # 0700: only this user can connect
    path = os.path.join(folder, "zygote.sock")
    env = {**os.environ, **WEB_ENV}
    try:
        proc = subprocess.Popen(
            [python, "-m", "clarify_tui.campaign.zygote", "serve", path, *visitor_args],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
        )
    except OSError:
        shutil.rmtree(folder, ignore_errors=True)
        return None
    assert proc.stdout is not None
    ready = threading.Timer(READY_TIMEOUT_S, proc.kill)  # a zygote that hangs warming up is no zygote
    ready.start()
    line = proc.stdout.readline()
    ready.cancel()
    proc.stdout.close()
    if line.strip() != b"ready":
        proc.kill()
        shutil.rmtree(folder, ignore_errors=True)
        return None
    return path


# ---- the launcher (one per visitor) ---------------------------------------------------


def launch(path: str, visitor_args: list[str]) -> int:
    """Run one visitor's app in a child of the zygote at `path`, or here if it will not."""
    try:
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.connect(path)
        payload = json.dumps({"argv": visitor_args, "env": dict(os.environ), "cwd": os.getcwd()}).encode()
        socket.send_fds(conn, [struct.pack("!I", len(payload)) + payload], [0, 1, 2])
        answer = conn.recv(1)
    except OSError:
        answer = b""
    if answer != FORKED:
        os.execv(sys.executable, [sys.executable, "-m", "clarify_tui.campaign.visitor", *visitor_args])
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):  # the child holds the pipes now: textual-serve sees them close when it ends
        os.dup2(null, fd)
    code = recv_exactly(conn, 4)
    return struct.unpack("!i", code)[0] if len(code) == 4 else 1


def recv_exactly(conn: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        if not chunk:
            break
        data += chunk
    return data


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        print("usage: python -m clarify_tui.campaign.launch SOCKET VISITOR-ARGS...", file=sys.stderr)
        return 2
    return launch(argv[0], argv[1:])


if __name__ == "__main__":
    sys.exit(main())
