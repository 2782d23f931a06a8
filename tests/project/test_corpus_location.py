"""The outside corpora are found in one place, and their absence is loud."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import ROOT, TESTS

CORPUS = TESTS / "support" / "corpus.py"


def test_only_corpus_py_names_the_corpus_locations() -> None:
    offenders = []
    for path in sorted(TESTS.rglob("*.py")):
        if path in (CORPUS, TESTS / "conftest.py", Path(__file__).resolve()):
            continue
        text = path.read_text(encoding="utf-8")
        if (
            '"shared"' in text
            or "CALLSTREAM_RECORDED_STREAMS" in text
            or "CALLSTREAM_PEERS" in text
        ):
            offenders.append(str(path.relative_to(TESTS)))
    assert offenders == [], "read the corpus locations from tests/support/corpus.py"


def test_pytest_summary_names_an_absent_corpus() -> None:
    env = dict(os.environ, CALLSTREAM_RECORDED_STREAMS="/nonexistent/recorded")
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/project/test_readme.py::test_ci_runs_the_readme_test_command",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    lines = [line for line in out.splitlines() if line.startswith("callstream: recorded")]
    assert len(lines) == 1, out
    assert "/nonexistent/recorded" in lines[0]


@pytest.mark.parametrize("missing", ["recorded", "peers"])
def test_ci_refuses_to_run_without_the_corpus(tmp_path: Path, missing: str) -> None:
    """Either corpus absent under CI=true: .ci/run stops at once, naming it. The other
    one is given (an empty folder), so the check is the same on a bare clone, where
    neither is beside the checkout."""
    absent = f"/nonexistent/{missing}"
    env = dict(
        os.environ,
        CI="true",
        CALLSTREAM_RECORDED_STREAMS=absent if missing == "recorded" else str(tmp_path),
        CALLSTREAM_PEERS=absent if missing == "peers" else str(tmp_path),
    )
    done = subprocess.run(
        ["bash", str(ROOT / ".ci" / "run")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 1
    assert done.stderr == (
        f"CI=true but the test corpus {absent} is missing: refusing to skip its tests\n"
    )
