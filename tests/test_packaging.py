"""What the wheel and the sdist carry, built here with hatchling (the build backend), and
that an unpacked sdist passes its own tests: the license, the JSON Schemas the README
calls published (every docs/*.schema.json, so schemas added later ship too), the bundled
prompts and data. And that the benchmarks stand on the package alone, not on tests/."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCHEMAS = sorted(p.name for p in (ROOT / "docs").glob("*.schema.json"))


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    pytest.importorskip("hatchling")
    from hatchling.builders.sdist import SdistBuilder
    from hatchling.builders.wheel import WheelBuilder

    out = tmp_path_factory.mktemp("dist")
    wheel = next(iter(WheelBuilder(str(ROOT)).build(directory=str(out), versions=["standard"])))
    sdist = next(iter(SdistBuilder(str(ROOT)).build(directory=str(out), versions=["standard"])))
    return {"wheel": Path(wheel), "sdist": Path(sdist)}


def test_the_wheel_carries_license_schemas_prompts_and_data(built):
    names = set(zipfile.ZipFile(built["wheel"]).namelist())
    assert SCHEMAS and {"result.schema.json", "state.schema.json"} <= set(SCHEMAS)
    for schema in SCHEMAS:
        assert f"clarify_tui/docs/{schema}" in names
    assert not [n for n in names if n.startswith("clarify_tui/docs/") and not n.endswith(".schema.json")]
    assert "clarify_tui/data/schema/task.schema.json" in names
    assert "clarify_tui/prompts/interactcomp_system.txt" in names
    assert not [n for n in names if n.startswith(("tests/", "benchmarks/"))]
    dist_info = next(n.split("/")[0] for n in names if n.endswith(".dist-info/METADATA"))
    assert f"{dist_info}/licenses/LICENSE" in names
    metadata = zipfile.ZipFile(built["wheel"]).read(f"{dist_info}/METADATA").decode()
    assert "License-Expression: MIT" in metadata
    assert "statsmodels" not in metadata


def test_an_installed_wheel_finds_its_schemas(built, tmp_path):
    """results_schema.schema_path() inside the unpacked wheel (no checkout beside it)."""
    zipfile.ZipFile(built["wheel"]).extractall(tmp_path)
    code = "from clarify_tui.results_schema import schema_path; p = schema_path('result'); print(p, p.is_file())"
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"{tmp_path / 'clarify_tui' / 'docs' / 'result.schema.json'} True"


def test_the_sdist_passes_its_own_tests(built, tmp_path):
    with tarfile.open(built["sdist"]) as tar:
        safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}  # Python >= 3.11.4
        tar.extractall(tmp_path, **safe)  # our own sdist, built just now
    src = next(tmp_path.iterdir())
    for name in ("LICENSE", "pyproject.toml", "README.md", *(f"docs/{s}" for s in SCHEMAS)):
        assert (src / name).is_file(), name
    env = {**os.environ, "PYTHONPATH": str(src)}
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/test_results.py",
            "tests/test_stats.py",
            "tests/test_score_cli.py",
        ],
        cwd=src,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert " passed" in run.stdout
    # and the wheel pip builds from the sdist carries the same files
    from hatchling.builders.wheel import WheelBuilder

    wheel = next(iter(WheelBuilder(str(src)).build(directory=str(tmp_path / "from-sdist"), versions=["standard"])))
    from_sdist = set(zipfile.ZipFile(wheel).namelist())
    assert from_sdist == set(zipfile.ZipFile(built["wheel"]).namelist())


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


@pytest.mark.parametrize("bench", sorted((ROOT / "benchmarks").glob("*.py")), ids=lambda p: p.name)
def test_benchmarks_do_not_use_the_tests(bench):
    imported = _imports(bench)
    assert not [m for m in imported if m == "tests" or m.startswith("tests.")], imported
    assert '"tests"' not in bench.read_text(encoding="utf-8")  # nor run a file from tests/
