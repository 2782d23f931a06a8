"""Smoke test: each benchmark script runs end to end in its tiny mode, in-process.

No timing is asserted. What is asserted: each script exits 0, writes its report, every
library row is present (peers agreeing with callstream on the final result is asserted
inside the scripts), and the helpers' budget logic skips / extrapolates as documented.
Skipped when the ``bench`` extra (the peers and matplotlib) is not installed.
"""

from __future__ import annotations

import dataclasses
import gc
import importlib.util
import json
import math
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

for _module in ("jiter", "openai", "anthropic", "langchain_core", "pydantic_ai", "matplotlib"):
    pytest.importorskip(_module, reason="the bench extra is not installed")

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"


def _load(name: str) -> ModuleType:
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    if name in ("_measure", "_report", "_streams", "_peers"):  # the shared helper modules
        return importlib.import_module(name)
    if name == "_growth_harness":  # the scripts import it as ``_growth``: the same module
        return importlib.import_module("_growth")
    module_name = f"_bench_{name}"
    spec = importlib.util.spec_from_file_location(module_name, BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_partial_json_tiny(tmp_path: Path) -> None:
    bench = _load("bench_partial_json")
    assert bench.main(["--tiny", "--out", str(tmp_path), "--no-plot"]) == 0
    text = (tmp_path / "partial_json.md").read_text(encoding="utf-8")
    for label in (bench.OURS_A, bench.OURS_B, bench.JITER, bench.PJP, bench.LANGCHAIN, bench.FLOOR):
        assert label in text
    assert "Machine:" in text and "CPython" in text
    data = json.loads((tmp_path / "partial_json.json").read_text(encoding="utf-8"))
    rows = [r for rows in data["results"].values() for r in rows]
    assert {r["status"] for r in rows} <= {"measured", "n/a"}
    assert all(r["total_s"] and r["total_s"] > 0 for r in rows if r["status"] == "measured")


def test_assembler_tiny(tmp_path: Path) -> None:
    bench = _load("bench_assembler")
    assert bench.main(["--tiny", "--out", str(tmp_path)]) == 0
    text = (tmp_path / "assembler.md").read_text(encoding="utf-8")
    for label in (bench.OURS_VIEW, bench.OURS_EVENTS, bench.LANGCHAIN):
        assert label in text
    data = json.loads((tmp_path / "assembler.json").read_text(encoding="utf-8"))
    assert {r["calls"] for r in data["results"]} == set(bench.TINY_CALLS)


def test_pipeline_tiny_with_plot(tmp_path: Path) -> None:
    bench = _load("bench_pipeline")
    assert bench.main(["--tiny", "--out", str(tmp_path)]) == 0
    text = (tmp_path / "pipeline.md").read_text(encoding="utf-8")
    for lib in bench.LIBRARIES:
        assert lib.label in text
    assert "concurrent streams" in text and "Memory" in text
    data = json.loads((tmp_path / "pipeline.json").read_text(encoding="utf-8"))
    assert set(data["speed"]) == set(bench.FORMATS)
    measured = [r for rows in data["speed"].values() for r in rows if r["status"] == "measured"]
    assert measured and all(r["agrees"] for r in measured)
    png = (tmp_path / "pipeline.png").read_bytes()
    assert png.startswith(b"\x89PNG")
    # Re-rendering from the JSON alone reproduces the report exactly.
    assert bench.main(["--render", "--out", str(tmp_path), "--no-plot"]) == 0
    assert (tmp_path / "pipeline.md").read_text(encoding="utf-8") == text


def test_series_skips_and_extrapolates() -> None:
    measure = _load("_measure")
    try:
        _check_series(measure, _load("_report"))
    finally:
        gc.unfreeze()  # each timed pass freezes the heap (see _measure.quiet_gc)


def _check_series(measure: ModuleType, report: ModuleType) -> None:
    # A quadratic "library": cost grows with the square of the input count.
    series = measure.Series("quadratic", budget_s=0.05, repeats=1)

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
    chat = streams.openai_chat_stream(calls)
    args: dict[int, str] = {}
    for payload in chat:
        for tc in payload["choices"][0]["delta"].get("tool_calls", ()):
            args[tc["index"]] = args.get(tc["index"], "") + tc["function"]["arguments"]
    assert [json.loads(args[i]) for i in range(3)] == [json.loads(c.args) for c in calls]
    assert chat[-1]["choices"][0]["finish_reason"] == "tool_calls"
    anth = streams.anthropic_stream(calls)
    assert anth[0]["type"] == "message_start" and anth[-1]["type"] == "message_stop"
    text = streams.long_string_document(2000)
    assert "\\ud83d\\ude00" in text and json.loads(text)["content"].count("😀") > 0
    assert all(len(f) <= streams.FRAGMENT for f in streams.fragments(text))


# --- growth checks (benchmarks/_growth.py, bench_growth_*.py, growth.py) ------------------

GROWTH_SCRIPTS = sorted(p.stem for p in BENCH.glob("bench_growth_*.py"))


def test_growth_scripts_are_found() -> None:
    topics = {name.removeprefix("bench_growth_") for name in GROWTH_SCRIPTS}
    assert {"assembly", "cli", "drivers", "json", "providers", "server_tools"} <= topics
    assert "transport" in topics


@pytest.mark.parametrize("name", GROWTH_SCRIPTS)
def test_growth_checks_build_and_run_tiny(name: str) -> None:
    """Every check of a script on the shared harness builds and runs at n = 3 and 6 (one
    run, no retry); the numbers are not judged. A script not yet on the harness is
    skipped (the runner runs it as a subprocess)."""
    growth = _load("_growth_harness")
    bench = _load(name)
    if not callable(getattr(bench, "checks", None)):
        pytest.skip(f"{name} has no checks(quick) yet: growth.py runs it as a subprocess")
    checks = bench.checks(True)
    assert checks and all(isinstance(c, growth.Check) for c in checks)
    assert len({c.label for c in checks}) == len(checks), "check labels must be distinct"
    for check in checks:
        assert check.n >= 1 and check.measure in ("time", "memory")
        tiny = dataclasses.replace(check, n=3, repeats=1, min_time_s=0.0, rounds=1)
        result = growth.measure_check(tiny, script=name, retries=0)
        assert result.name == check.name and result.n == 3
        assert len(result.ratios) == 1 and len(result.cells()) == len(growth.HEADERS)
        assert result.at_n >= 0 and result.at_2n >= 0


def test_growth_harness_retries_bounds_and_fresh_inputs() -> None:
    growth = _load("_growth_harness")
    with pytest.raises(ValueError, match="exactly one"):
        growth.Check("both", "time", int, 1, run=str, probe=float)
    with pytest.raises(ValueError, match="time"):
        growth.Check("kind", "speed", int, 1, run=str)
    assert growth.ratio(0.0, 0.0) == 1.0 and growth.ratio(0.0, 1.0) == math.inf

    # A quadratic "cost" (reported by a probe) fails, after two retries.
    square = growth.Check("square", "memory", lambda n: n, 10, probe=lambda n: float(n * n))
    result = growth.measure_check(square, script="s", retries=2)
    assert result.ratios == [4.0, 4.0, 4.0] and not result.ok
    assert result.verdict.startswith("OVER") and "3 tries" in result.verdict

    # A linear one passes at once; a bound can still fail it.
    linear = growth.Check("linear", "memory", lambda n: n, 10, probe=float)
    assert growth.measure_check(linear, retries=2).verdict == "ok"
    capped = dataclasses.replace(linear, bound=lambda size, _, v: None if v < 15 else "big")
    result = growth.measure_check(capped, retries=0)
    assert not result.ok and "big" in result.verdict and result.ratio == 2.0

    # A fresh check gets a new input for every timed run; a plain one reuses it.
    built: list[int] = []

    def build(n: int) -> list[int]:
        built.append(n)
        return list(range(n))

    fresh = growth.Check("f", "time", build, 5, run=list.clear, repeats=3, min_time_s=0.0)
    fresh = dataclasses.replace(fresh, fresh=True)
    growth.measure_check(fresh)
    assert built.count(5) == 1 + 1 + 3 and built.count(10) == 1 + 3  # input, warm-up, runs
    built.clear()
    plain = dataclasses.replace(fresh, fresh=False, run=sum)
    growth.measure_check(plain)
    assert built == [5, 10]
    assert growth.call(lambda: 7) == 7 and growth.scaled(100, True) == 25


def test_growth_runner_subprocess_script_and_report(tmp_path: Path) -> None:
    runner = _load("growth")
    script = tmp_path / "bench_growth_fake.py"
    script.write_text("print('ratio 4.00 OVER')\nraise SystemExit(1)\n", encoding="utf-8")
    run = runner.run_script(script, quick=True, retries=2)
    assert run.returncodes == [1, 1, 1] and not run.ok and "ratio 4.00" in run.output
    assert "3 tries" in run.cells()[-1]
    growth = _load("_growth_harness")
    rows = [growth.Result("s", "n things", "time", 3, 1e-3, 2e-3, [2.0]), run]
    info = _load("_report").machine()
    text = runner.report(rows, "python benchmarks/growth.py", info, 1.0)
    assert "| s | n things | time | 3 | 6 | 1 ms | 2 ms | 2.00 | ok |" in text
    assert "Output of `bench_growth_fake.py`" in text and "Machine:" in text


def test_growth_runner_end_to_end(tmp_path: Path) -> None:
    """growth.py in a subprocess (it tunes the allocator of its process), one quick check."""
    argv = [sys.executable, str(BENCH / "growth.py"), "--quick", "--retries", "0"]
    argv += ["--only", "bad index blocks", "--out", str(tmp_path)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode in (0, 1), done.stderr  # 1 only if the ratio was over (noise)
    text = (tmp_path / "growth.md").read_text(encoding="utf-8")
    assert "| bench_growth_server_tools | bad index blocks | time |" in text
    assert "load average" in done.stdout and "Regenerate: `python benchmarks/growth.py" in text


def test_compare_trees_alternates_two_trees(tmp_path: Path) -> None:
    """compare_trees.py with both trees the worktree's src, one round: each worker imports
    callstream from its tree (checked in the worker), and the report holds every cell."""
    src = BENCH.parent / "src"
    argv = [sys.executable, str(BENCH / "compare_trees.py"), "--baseline", str(src)]
    argv += ["--candidate", str(src), "--quick", "--rounds", "1", "--out", str(tmp_path)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "compare.md").read_text(encoding="utf-8")
    assert f"callstream imported from `{src.resolve()}" in text
    for fmt in ("openai-chat", "anthropic"):
        for driver in ("stream()", "collect()"):
            assert text.count(f"| {fmt} | 1 call, 200 B | {driver} |") == 2  # CPU and wall
    assert "ratio (median)" in text and "Machine:" in text


def test_compare_trees_worker_refuses_callstream_from_elsewhere(tmp_path: Path) -> None:
    src = BENCH.parent / "src"
    argv = [sys.executable, str(BENCH / "compare_trees.py"), "--worker", str(tmp_path)]
    env = {**os.environ, "PYTHONPATH": str(src)}
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode != 0 and "not from the tree" in done.stderr
