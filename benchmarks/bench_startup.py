"""Start-up cost of a one-task offline `run`, and the size of a fresh install (a
benchmark, not a test).

CPU: the user + system CPU of `python -m clarify_tui run` on one bundled demo task
(scripted agent, rule user, local search, a fresh database), minus that of the bare
interpreter (`python -c pass`); the median of --repeat runs of each. CPU rather than wall
time, so a busy machine changes the figure less. Target (issue 24): run <= bare + 0.6 s.

Size (--size): builds a fresh virtualenv in a temporary folder, `pip install`s this
checkout into it (no test extras) and prints the size of its site-packages (pip
included) and the largest packages. Target: <= 160 MB. Needs the package index.

    python benchmarks/bench_startup.py [--repeat 5] [--python PY] [--installed]
    python benchmarks/bench_startup.py --size
    python benchmarks/bench_startup.py --imports     # the slowest imports of the run path
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUN = [
    "run",
    "--benchmark",
    "interactcomp",
    "--dataset",
    "demo",
    "--agent",
    "scripted:search-then-ask",
    "--user",
    "rule",
    "--search",
    "local",
    "--limit",
    "1",
    "--run",
    "bench",
]


def cpu_of(cmd: list[str], env: dict[str, str]) -> float:
    """User + system CPU seconds of one child process (and its children)."""
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {err.strip()[-400:]}")
    return usage.ru_utime + usage.ru_stime


def env_for(installed: bool) -> dict[str, str]:
    env = dict(os.environ)
    if not installed:
        env["PYTHONPATH"] = str(ROOT)
    return env


def measure_cpu(python: str, repeat: int, installed: bool) -> None:
    env = env_for(installed)
    bare, run = [], []
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as tmp:
        for i in range(repeat):  # interleaved, so a burst of load hits both
            bare.append(cpu_of([python, "-c", "pass"], env))
            db = str(Path(tmp) / f"run{i}.db")
            run.append(cpu_of([python, "-m", "clarify_tui", *RUN, "--db", db], env))
    b, r = statistics.median(bare), statistics.median(run)
    print(f"python: {python}")
    print(f"bare interpreter      {b:6.3f} s CPU (median of {repeat})")
    print(f"one-task offline run  {r:6.3f} s CPU (median of {repeat}; min {min(run):.3f})")
    print(f"run - bare            {r - b:6.3f} s CPU   (target <= 0.600)")


def slowest_imports(python: str, installed: bool, top: int = 15) -> None:
    """The run path's imports by cumulative time (`python -X importtime`, which inflates
    them): top-level packages (their submodules are inside the figure) and our modules."""
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as tmp:
        cmd = [python, "-X", "importtime", "-m", "clarify_tui", *RUN, "--db", str(Path(tmp) / "i.db")]
        out = subprocess.run(cmd, env=env_for(installed), capture_output=True, text=True, check=True).stderr
    rows = []
    for line in out.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cumulative, name = (part.strip() for part in line[len("import time:") :].split("|"))
        if "." not in name or name.startswith("clarify_tui"):
            rows.append((int(cumulative), name))
    for us, name in sorted(rows, reverse=True)[:top]:
        print(f"{us / 1000:8.1f} ms  {name}")


def install_size() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-size-") as tmp:
        target = Path(tmp) / "venv"
        venv.EnvBuilder(with_pip=True).create(target)
        py = target / "bin" / "python"
        subprocess.run([str(py), "-m", "pip", "install", "--quiet", str(ROOT)], check=True)
        site = next((target / "lib").glob("python3*/site-packages"))
        sizes = {p.name: _size(p) for p in site.iterdir()}
        total = sum(sizes.values())
        print(f"site-packages of a fresh `pip install .`: {total / 2**20:.0f} MB (target <= 160)")
        for name, size in sorted(sizes.items(), key=lambda kv: -kv[1])[:10]:
            print(f"  {size / 2**20:6.1f} MB  {name}")


def _size(path: Path) -> int:
    """Disk usage in bytes, as `du` counts it (allocated blocks)."""
    if path.is_file() or path.is_symlink():
        return path.lstat().st_blocks * 512
    return sum(p.lstat().st_blocks * 512 for p in path.rglob("*"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--python", default=sys.executable, help="the interpreter to measure (default: this one)")
    ap.add_argument(
        "--installed",
        action="store_true",
        help="the project is installed in --python: do not put this checkout on PYTHONPATH",
    )
    ap.add_argument("--size", action="store_true", help="measure a fresh install's size instead")
    ap.add_argument("--imports", action="store_true", help="list the run path's slowest imports instead")
    args = ap.parse_args()
    if args.size:
        install_size()
    elif args.imports:
        slowest_imports(args.python, args.installed)
    else:
        measure_cpu(args.python, args.repeat, args.installed)


if __name__ == "__main__":
    main()
