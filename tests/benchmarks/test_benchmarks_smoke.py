"""Smoke test: every script in ``benchmarks/`` imports and runs its ``--tiny`` mode.

Every ``benchmarks/*.py`` not starting with ``_`` is a script: it is imported here (a
broken import fails at once), then run as a command, ``python SCRIPT --tiny`` (the test
suite's smoke run: smallest sizes, one pass, seconds; ``--out`` a temporary folder when it
writes results), and must exit 0 without touching ``benchmarks/results``; one that cannot
measure on this install (the compiled build missing) exits ``_report.SKIP_STATUS`` and is
skipped with its reason. A new script is covered as soon as it exists. For some scripts
the report is checked too (:data:`REPORT_CHECKS`): every row present, peers agreeing
with callstream on the final result (asserted inside the scripts). No timing is asserted.
Peers that are not installed (the ``bench`` extra) are rows marked n/a, not failures.
"""

from __future__ import annotations

import gc
import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from tests.support.paths import ROOT

BENCH = ROOT / "benchmarks"
RESULTS = BENCH / "results"
SCRIPTS = sorted(p.stem for p in BENCH.glob("*.py") if not p.name.startswith("_"))


def _load(name: str) -> ModuleType:
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    if name.startswith("_"):  # the shared helper modules, as the scripts import them
        return importlib.import_module(name)
    module_name = f"_bench_{name}"
    spec = importlib.util.spec_from_file_location(module_name, BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _installed(*modules: str) -> bool:
    return all(importlib.util.find_spec(m) is not None for m in modules)


def _results() -> dict[str, int]:
    return {p.name: p.stat().st_mtime_ns for p in RESULTS.iterdir()}


def test_every_script_is_found() -> None:
    quoted = {"bench_pipeline", "bench_partial_json", "bench_assembler", "bench_parsers"}
    quoted |= {"bench_runner", "bench_builds", "compare_trees"}  # the README's commands
    assert quoted <= set(SCRIPTS)


@pytest.mark.parametrize("name", SCRIPTS)
def test_script_imports_and_runs_its_tiny_mode(tmp_path: Path, name: str) -> None:
    module = _load(name)
    script = str(BENCH / f"{name}.py")
    usage = subprocess.run(
        [sys.executable, script, "--help"], capture_output=True, text=True, timeout=120, check=False
    )
    assert usage.returncode == 0, usage.stderr[-3000:]
    assert "--tiny" in usage.stdout, f"give benchmarks/{name}.py a --tiny mode (see above)"
    argv = [sys.executable, script, "--tiny"]
    out = tmp_path / "out"
    if "--out" in usage.stdout:
        argv += ["--out", str(out)]
    before = _results()
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600, check=False)
    assert _results() == before, "a --tiny run must not write benchmarks/results"
    skip_status = _load("_report").SKIP_STATUS
    if done.returncode == skip_status:
        pytest.skip(f"{name}.py cannot measure here: {done.stderr.strip()[-500:]}")
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-3000:])
    check = REPORT_CHECKS.get(name)
    if check is not None:
        check(module, out, done.stdout)


# --- the reports of some --tiny runs ---------------------------------------------------------


def _partial_json(bench: ModuleType, out: Path, stdout: str) -> None:
    text = (out / "partial_json.md").read_text(encoding="utf-8")
    for label in (bench.OURS_A, bench.OURS_B, bench.JITER, bench.PJP, bench.LANGCHAIN, bench.FLOOR):
        assert label in text
    assert "Machine:" in text and "CPython" in text
    data = json.loads((out / "partial_json.json").read_text(encoding="utf-8"))
    rows = [r for rows in data["results"].values() for r in rows]
    assert {r["status"] for r in rows} <= {"measured", "n/a"}
    assert all(r["total_s"] and r["total_s"] > 0 for r in rows if r["status"] == "measured")


def _assembler(bench: ModuleType, out: Path, stdout: str) -> None:
    text = (out / "assembler.md").read_text(encoding="utf-8")
    for label in (bench.OURS_VIEW, bench.OURS_EVENTS, bench.LANGCHAIN):
        assert label in text
    data = json.loads((out / "assembler.json").read_text(encoding="utf-8"))
    assert {r["calls"] for r in data["results"]} == set(bench.TINY_CALLS)


def _pipeline(bench: ModuleType, out: Path, stdout: str) -> None:
    text = (out / "pipeline.md").read_text(encoding="utf-8")
    for lib in bench.LIBRARIES:
        assert lib.label in text
    assert "concurrent streams" in text and "Memory" in text
    data = json.loads((out / "pipeline.json").read_text(encoding="utf-8"))
    assert set(data["speed"]) == set(bench.FORMATS)
    measured = [r for rows in data["speed"].values() for r in rows if r["status"] == "measured"]
    assert measured and all(r["agrees"] for r in measured)
    if _installed("matplotlib"):
        assert (out / "pipeline.png").read_bytes().startswith(b"\x89PNG")
    # Re-rendering from the JSON alone reproduces the report exactly.
    assert bench.main(["--render", "--out", str(out), "--no-plot"]) == 0
    assert (out / "pipeline.md").read_text(encoding="utf-8") == text


def _runner(bench: ModuleType, out: Path, stdout: str) -> None:
    data = json.loads((out / "runner.json").read_text(encoding="utf-8"))
    assert [t["label"] for t in data["turns"]] == [bench.TINY]
    turn = data["turns"][0]
    assert turn["agree"] and turn["time_scale"] == bench.TINY_SCALE
    assert "not judged" in stdout
    text = (out / "runner.md").read_text(encoding="utf-8")
    assert "callstream build: " in text and data["machine"]["callstream_build"] in text


def _compare_trees(bench: ModuleType, out: Path, stdout: str) -> None:
    """Both trees this checkout's src, one round: each worker imports callstream from its
    tree (checked in the worker), and the report holds every cell."""
    text = (out / "compare.md").read_text(encoding="utf-8")
    assert text.count("callstream imported from `src/callstream/__init__.py`") == 2
    for fmt in ("openai-chat", "anthropic"):
        for driver in ("callstream stream()", "callstream collect()"):
            assert text.count(f"| {fmt} | 1 call, 200 B | {driver} |") == 2  # CPU and wall
    assert "ratio (median)" in text and "Machine:" in text
    assert "python benchmarks/compare_trees.py --baseline src --tiny`" in text
    pure = os.environ.get("CALLSTREAM_PURE") == "1"
    assert ("Regenerate: `CALLSTREAM_PURE=1 python" in text) is pure
    assert text.count(", pure build\n") == 2 or text.count(", compiled build\n") == 2


def _builds(bench: ModuleType, out: Path, stdout: str) -> None:
    text = (out / "builds.md").read_text(encoding="utf-8")
    for heading in ("## 1. stream()", "## 2. The peers", "## 3. Parser alone", "## Targets"):
        assert text.count(heading) == 1, heading
    assert "COMPILED=True" in text and "COMPILED=False (CALLSTREAM_PURE=1)" in text
    # the callstream under test, as the report names it (src/... or, installed, …/...)
    from callstream import __file__ as callstream_file

    assert f"callstream `{bench.shown_path(callstream_file)}`" in text
    assert "pure / compiled" in text and "peer / compiled" in text and "peer / pure" in text
    s = bench.fmt_bytes(bench.TINY.sizes[0])
    assert f"| openai-chat | {s} | 54 |" in text
    assert f"| anthropic | {s} | 57 |" in text
    data = json.loads((out / "builds.json").read_text(encoding="utf-8"))
    names = [t["name"] for t in data["targets"]]
    assert len(names) == len(set(names)) == 16
    peers = _installed("jiter", "openai", "anthropic", "langchain_core", "pydantic_ai")
    for t in data["targets"]:  # a target against a peer that is not installed: unmeasured
        assert f"| {t['name']} |" in text
        if peers or t["value"] is not None:
            assert t["met"] in (True, False) and t["value"] is not None, t
    assert {c["worker"] for c in data["cells"]} == {"compiled", "pure", "peers"}
    assert data["builds"]["compiled"]["compiled"] and not data["builds"]["pure"]["compiled"]
    # Re-rendering from the JSON alone reproduces the report exactly.
    argv = [sys.executable, str(BENCH / "bench_builds.py"), "--render", "--out", str(out)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert (out / "builds.md").read_text(encoding="utf-8") == text


REPORT_CHECKS: dict[str, Callable[[ModuleType, Path, str], None]] = {
    "bench_partial_json": _partial_json,
    "bench_assembler": _assembler,
    "bench_pipeline": _pipeline,
    "bench_runner": _runner,
    "bench_builds": _builds,
    "compare_trees": _compare_trees,
}
"""Per script, what its --tiny report must hold (given the module, --out, its stdout)."""


# --- the helpers -----------------------------------------------------------------------------


def test_results_name_paths_relative_to_the_checkout(tmp_path: Path) -> None:
    report = _load("_report")
    assert report.shown_path(BENCH.parent / "src" / "callstream") == "src/callstream"
    assert report.shown_path(BENCH.parent) == "."
    outside = tmp_path / "before" / "src"
    assert report.shown_path(outside) == "…/before/src"
    assert str(tmp_path) not in report.shown_path(outside / "callstream" / "__init__.py")


def test_series_skips_and_extrapolates() -> None:
    measure = _load("_measure")
    try:
        _check_series(measure, _load("_report"))
    finally:
        gc.unfreeze()  # each timed pass freezes the heap (see _measure.quiet_gc)


def _check_series(measure: ModuleType, report: ModuleType) -> None:
    # A quadratic "library": cost grows with the square of the input count.
    series = measure.Series("quadratic", budget_s=0.05, max_passes=1)

    def consumer_for(n: int) -> object:
        def make() -> tuple[object, object]:
            def step(_: object) -> None:
                sum(range(n * 20))

            return step, lambda: "done"

        return make

    small = series.run(1, consumer_for(10), list(range(10)))
    medium = series.run(2, consumer_for(40), list(range(40)))
    assert small.status == medium.status == "measured"
    assert small.result == "done"
    big = series.precheck(3, 100_000)
    assert big is not None and big.status == "skipped" and big.total_s > 0.05
    assert "skipped" in report.fmt_total(big) and big.total_s == pytest.approx(
        measure.fit_quadratic(series.points)(100_000)
    )


def test_fit_quadratic_recovers_coefficients() -> None:
    measure = _load("_measure")
    model = measure.fit_quadratic([(n, 2e-6 * n + 3e-9 * n * n) for n in (100, 1000, 10_000)])
    assert model(100_000) == pytest.approx(2e-6 * 1e5 + 3e-9 * 1e10, rel=1e-6)
    assert measure.growth_exponent(10, 1.0, 100, 100.0) == pytest.approx(2.0)


def test_streams_are_valid_wire_payloads() -> None:
    streams = _load("_streams")
    calls = streams.make_calls(3, 300)
    chat = streams.wire_stream("openai-chat", calls)
    args: dict[int, str] = {}
    for payload in chat:
        for tc in payload["choices"][0]["delta"].get("tool_calls", ()):
            args[tc["index"]] = args.get(tc["index"], "") + tc["function"]["arguments"]
    assert [json.loads(args[i]) for i in range(3)] == [json.loads(c.args) for c in calls]
    assert chat[-1]["choices"][0]["finish_reason"] == "tool_calls"
    anth = streams.wire_stream("anthropic", calls)
    assert anth[0]["type"] == "message_start" and anth[-1]["type"] == "message_stop"
    text = streams.long_string_document(2000)
    assert "\\ud83d\\ude00" in text and json.loads(text)["content"].count("😀") > 0
    assert all(len(f) <= streams.FRAGMENT for f in streams.fragments(text))


def test_compare_trees_worker_refuses_callstream_from_elsewhere(tmp_path: Path) -> None:
    src = BENCH.parent / "src"
    argv = [sys.executable, str(BENCH / "compare_trees.py"), "--worker", str(tmp_path)]
    env = {**os.environ, "PYTHONPATH": str(src)}
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode != 0 and "not from the tree" in done.stderr


def test_compare_trees_refuses_two_builds(tmp_path: Path) -> None:
    """The installed compiled build against this checkout's pure src: the ratio would
    compare builds, so the script refuses and says how to compare them in pure Python."""
    import callstream

    if not callstream.COMPILED or os.environ.get("CALLSTREAM_PURE") == "1":
        pytest.skip("needs the compiled build installed (CI's first pass)")
    installed = Path(callstream.__file__).resolve().parent.parent
    argv = [sys.executable, str(BENCH / "compare_trees.py"), "--tiny", "--out", str(tmp_path)]
    argv += ["--baseline", str(installed), "--candidate", str(BENCH.parent / "src")]
    env = {k: v for k, v in os.environ.items() if k != "CALLSTREAM_PURE"}
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 2, done.stderr[-3000:]
    assert "the baseline ran compiled, the candidate pure" in done.stderr
    assert "CALLSTREAM_PURE=1" in done.stderr
    assert not (tmp_path / "compare.md").exists()


def test_every_results_file_is_stamped_alike() -> None:
    """Each committed results file records the header ``_report.stamp`` writes (what the
    docs' performance page shows: ``docs/hooks/performance.py``), and no path."""
    fields = {"cpu", "logical_cpus", "python", "callstream_build", "git_commit", "date_utc"}
    for path in sorted(RESULTS.glob("*.json")):
        machine = json.loads(path.read_text(encoding="utf-8"))["machine"]
        assert fields <= set(machine), (path.name, fields - set(machine))
        assert not any("/" in str(machine[f]) for f in fields), path.name
