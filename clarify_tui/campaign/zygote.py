"""A warm parent for the campaign visitors' app processes: one fork per browser visitor.

Why: every visitor's app process imported Textual, the pydantic models, the engine and
the play screen and loaded the tasks before its first screen: ~0.6-0.9 CPU-seconds each,
so a class of 30 opening the link together on 2 cores waited ~13 s (issue 30,
benchmarks/bench_visitors.py). The zygote does that work once, then forks a child per
visitor, which only builds its app.

- `serve` starts it (`launch.start`, from `campaign.server.visitor_command`): `python -m
  clarify_tui.campaign.zygote serve SOCKET VISITOR-ARGS...`, with the environment
  textual-serve gives its apps (Textual reads it at import). It listens on a Unix socket
  in a private temporary folder, and ends with the server (as a visitor does, see
  `visitor.die_with_server`).
- textual-serve runs the launcher for each visitor (campaign/launch.py): `python -m
  clarify_tui.campaign.launch SOCKET VISITOR-ARGS...`. It imports nothing but the
  standard library, hands its standard input, output and error (SCM_RIGHTS) with its
  environment to the zygote, and waits for the child's exit code. Without a zygote (gone, refused) it runs the visitor
  itself (`exec`), as before the zygote.
- the child makes the launcher's environment its own, runs `visitor.main` on the
  launcher's pipes, and ends when the launcher does (textual-serve's `reap` kills a
  launcher whose app does not quit): it watches the connection.

The zygote refuses (the launcher then runs the visitor itself) when the visitor's
Textual settings (`TEXTUAL*` variables) differ from its own, since Textual read them once.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import struct
import sys
import threading
import traceback

from clarify_tui.campaign.launch import FORKED, REFUSED, recv_exactly

WATCH_EVERY_S = 0.5


# ---- the zygote --------------------------------------------------------------------------


def serve(path: str, visitor_args: list[str]) -> int:
    """Warm up, listen, fork a child per launcher; end when the server is gone."""
    import gc

    from clarify_tui.campaign import visitor

    args = visitor.parser().parse_args(["--annotator", "zygote", *visitor_args])
    if args.server_pid is not None:
        visitor.parent_death_signal(args.server_pid)  # serve killed with -9: the kernel ends us too
    visitor.warm_up(args)
    gone = visitor.server_gone_check(args.server_pid, args.server_id)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(128)
    listener.settimeout(WATCH_EVERY_S)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the kernel reaps the children
    gc.freeze()  # what was built so far is shared with every child, never walked again
    print("ready", flush=True)
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
    try:
        while not gone():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            _fork_for(conn, listener)
    finally:
        listener.close()
        shutil.rmtree(os.path.dirname(path), ignore_errors=True)
    return 0


def _fork_for(conn: socket.socket, listener: socket.socket) -> None:
    fds: list[int] = []
    try:
        conn.settimeout(10)
        head, fds, _flags, _addr = socket.recv_fds(conn, 4, 3)
        payload = recv_exactly(conn, struct.unpack("!I", head)[0]) if len(head) == 4 else b""
        request = json.loads(payload)
        if len(fds) != 3 or not _same_textual(request["env"]):
            conn.sendall(REFUSED)
            return
        conn.settimeout(None)
        if os.fork() == 0:
            listener.close()
            _child(conn, request, fds)  # never returns
        conn.sendall(FORKED)
    except (OSError, ValueError, KeyError):
        return
    finally:
        conn.close()
        for fd in fds:
            os.close(fd)


def _same_textual(env: dict[str, str]) -> bool:
    """Textual read its settings at import, in the zygote: the visitor's must be the same."""
    names = {k for k in (*env, *os.environ) if k.startswith("TEXTUAL")}
    return all(env.get(k) == os.environ.get(k) for k in names)


def _child(conn: socket.socket, request: dict, fds: list[int]) -> None:
    code = 1
    try:
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.environ.clear()
        os.environ.update(request["env"])
        os.chdir(request["cwd"])
        sys.argv = ["clarify_tui.campaign.visitor", *request["argv"]]

        def watch() -> None:  # the launcher ended (killed by the server's reap): so do we
            while conn.recv(1):
                pass
            os._exit(0)

        threading.Thread(target=watch, name="launcher-watch", daemon=True).start()
        from clarify_tui.campaign import visitor

        visitor.parent_death_signal(os.getppid())  # the zygote dies with the server (-9 too): so do we, at once

        code = visitor.main(request["argv"])
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:
        traceback.print_exc()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
        conn.sendall(struct.pack("!i", code))
    finally:
        os._exit(code)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) < 2 or argv[0] != "serve":
        print("usage: python -m clarify_tui.campaign.zygote serve SOCKET VISITOR-ARGS...", file=sys.stderr)
        return 2
    return serve(argv[1], argv[2:])


if __name__ == "__main__":
    sys.exit(main())
