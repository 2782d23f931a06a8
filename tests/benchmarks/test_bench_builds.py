"""``benchmarks/bench_builds.py``'s refusals (its --tiny run and report:
``tests/benchmarks/test_benchmarks_smoke.py``, where the compiled build is installed).

Without a compiled build to measure it refuses with ``_report.SKIP_STATUS`` and says how
to get one; a worker asked for one build that imports the other stops at once.
"""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.support.paths import PACKAGE, ROOT

BENCH = ROOT / "benchmarks"
SCRIPT = BENCH / "bench_builds.py"


def bench_skip_status() -> int:
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    status: int = importlib.import_module("_report").SKIP_STATUS
    return status


def test_refuses_without_the_compiled_build(tmp_path: Path) -> None:
    """A pure-Python copy of the package first on the path: no compiled build to measure."""
    src = PACKAGE
    shutil.copytree(
        src,
        tmp_path / "callstream",
        ignore=shutil.ignore_patterns("*.so", "*.pyd", "_compiled.json", "__pycache__"),
    )
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    argv = [sys.executable, str(SCRIPT), "--quick", "--out", str(tmp_path / "out")]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == bench_skip_status(), done.stderr[-3000:]
    assert "the compiled build of callstream is not installed" in done.stderr
    assert "CALLSTREAM_COMPILE=1 pip install" in done.stderr
    assert not (tmp_path / "out").exists()


def test_worker_refuses_the_wrong_build() -> None:
    """A worker asked for the compiled build that imports pure Python stops at once."""
    env = {**os.environ, "CALLSTREAM_PURE": "1"}
    argv = [sys.executable, str(SCRIPT), "--worker", "compiled", "--quick"]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode != 0
    assert "asked for the compiled build, but callstream.COMPILED is False" in done.stderr
