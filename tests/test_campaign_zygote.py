"""serve's warm zygote (campaign/zygote.py): the launcher runs the visitor itself when
there is no zygote; an ended process (a zombie nobody reaped) holds no claim or lease.
The zygote's own path (fork per visitor, ends with serve -9) runs in every real-server
test: tests/test_campaign_lifecycle.py, tests/test_campaign_browser.py."""

from __future__ import annotations

import os
import subprocess
import sys

from clarify_tui.lease import pid_alive, process_id
from tests.clitools import cli_env


def test_without_a_zygote_the_launcher_runs_the_visitor_itself(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "clarify_tui.campaign.launch", str(tmp_path / "no.sock"), "--help"],
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert out.returncode == 0, out.stderr
    assert "usage: clarify_tui.campaign.visitor" in out.stdout and "--annotator" in out.stdout


def test_a_zombie_process_is_not_alive():
    """A visitor orphaned by `serve -9` stayed a zombie under this machine's init, and its
    claim was kept as if it were alive: a restarted server never handed the task out."""
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    try:
        while open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] != "Z":
            os.sched_yield()  # the child ends at once; nobody reaps it yet
        assert not pid_alive(pid) and process_id(pid) is None
    finally:
        os.waitpid(pid, 0)
