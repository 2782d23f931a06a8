"""Smoke test of ``benchmarks/bench_builds.py`` (compiled vs pure Python vs the peers).

The quick run goes in a subprocess (the script starts a subprocess per build) and only
where the compiled build is installed; it is skipped otherwise, with the reason. What is
asserted is the report's structure -- every row, every section, the targets -- never a
timing. The refusals (no compiled build; a worker given the wrong build) run everywhere.
Skipped when the ``bench`` extra (the peers) is not installed.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

for _module in ("jiter", "openai", "anthropic", "langchain_core", "pydantic_ai"):
    pytest.importorskip(_module, reason="the bench extra is not installed")

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"
SCRIPT = BENCH / "bench_builds.py"


def _load() -> ModuleType:
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    spec = importlib.util.spec_from_file_location("_bench_bench_builds", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["_bench_bench_builds"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_quick_run_has_every_row_and_the_targets(tmp_path: Path) -> None:
    bench = _load()
    compiled = bench.build_info("compiled")
    if not compiled["compiled"]:
        pytest.skip(f"the compiled build is not installed: {compiled['reason']}")
    argv = [sys.executable, str(SCRIPT), "--quick", "--out", str(tmp_path)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    text = (tmp_path / "builds.md").read_text(encoding="utf-8")
    for heading in (
        "## 1. stream()",
        "## 2. Anthropic",
        "## 3. pydantic-ai",
        "## 4. One ",
        "## 5. Parser alone",
        "## Targets",
    ):
        assert text.count(heading) == 1, heading
    assert "COMPILED=True" in text and "COMPILED=False (CALLSTREAM_PURE=1)" in text
    assert "pure / compiled" in text and "peer / compiled" in text and "peer / pure" in text
    sizes = [bench.fmt_bytes(s) for s in bench.QUICK.sizes]
    s, m, lg, h = sizes
    rows = [
        f"| openai-chat, 1 call, {s} | 54 |",
        f"| anthropic, 1 call, {s} | 57 |",
    ]
    for row in rows:
        assert row in text, row
    lines = text.splitlines()

    def peer_lines(label: str) -> list[str]:
        return [ln for ln in lines if f"| {label} |" in ln]

    openai = peer_lines(bench.OpenAIStreamState.label)
    assert len(openai) == 1 and f"openai-chat, 1 call, {s}" in openai[0]
    accumulate = peer_lines(bench.AnthropicAccumulate.label)
    assert [ln.split(" | ")[0] for ln in accumulate] == [
        f"| anthropic, 1 call, {size}" for size in (s, m, lg)
    ]
    pydantic = peer_lines(bench.PydanticAIParts.label)
    assert len(pydantic) == 2 * len(sizes)
    assert len(peer_lines(bench.LangChainAdd.label)) == 2
    # Section 4: both formats at the largest size, in seconds; section 5: both builds.
    assert "| openai-chat | " in text and "| anthropic | " in text and f"One {h} argument" in text
    assert "| compiled | " in text and "| pure | " in text and "feed / json.loads" in text
    # The targets: one row each, a verdict each (not judged here: only that there is one).
    data = json.loads((tmp_path / "builds.json").read_text(encoding="utf-8"))
    names = [t["name"] for t in data["targets"]]
    assert len(names) == len(set(names)) == 15
    for t in data["targets"]:
        assert t["met"] in (True, False) and t["value"] is not None, t
        assert f"| {t['name']} |" in text
    assert {c["worker"] for c in data["cells"]} == {"compiled", "pure", "peers"}
    assert all(c["passes"] >= 1 for c in data["cells"])
    assert data["builds"]["compiled"]["compiled"] and not data["builds"]["pure"]["compiled"]
    # Re-rendering from the JSON alone reproduces the report exactly.
    argv = [sys.executable, str(SCRIPT), "--render", "--out", str(tmp_path)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "builds.md").read_text(encoding="utf-8") == text


def test_refuses_without_the_compiled_build(tmp_path: Path) -> None:
    """A pure-Python copy of the package first on the path: no compiled build to measure."""
    src = Path(__file__).resolve().parent.parent / "src" / "callstream"
    shutil.copytree(
        src,
        tmp_path / "callstream",
        ignore=shutil.ignore_patterns("*.so", "*.pyd", "_compiled.json", "__pycache__"),
    )
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    argv = [sys.executable, str(SCRIPT), "--quick", "--out", str(tmp_path / "out")]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2, done.stderr[-3000:]
    assert "the compiled build of callstream is not installed" in done.stderr
    assert "pip install -e ." in done.stderr
    assert not (tmp_path / "out").exists()


def test_worker_refuses_the_wrong_build() -> None:
    """A worker asked for the compiled build that imports pure Python stops at once."""
    env = {**os.environ, "CALLSTREAM_PURE": "1"}
    argv = [sys.executable, str(SCRIPT), "--worker", "compiled", "--quick"]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode != 0
    assert "asked for the compiled build, but callstream.COMPILED is False" in done.stderr
