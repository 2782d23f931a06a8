"""Smoke test: each benchmark script runs end to end in its tiny mode, in-process.

No timing is asserted. What is asserted: each script exits 0, writes its report, every
library row is present (peers agreeing with callstream on the final result is asserted
inside the scripts), and the helpers' budget logic skips / extrapolates as documented.
Skipped when the ``bench`` extra (the peers and matplotlib) is not installed.
"""

from __future__ import annotations

import gc
import importlib.util
import json
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
    if name == "_common":
        return importlib.import_module("_common")
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
    bench = _load("run")
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
    common = _load("_common")
    try:
        _check_series(common)
    finally:
        gc.unfreeze()  # each timed pass freezes the heap (see _common.quiet_gc)


def _check_series(common: ModuleType) -> None:
    # A quadratic "library": cost grows with the square of the input count.
    series = common.Series("quadratic", budget_s=0.05, repeats=1)

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
    assert "skipped" in common.fmt_total(big) and big.total_s == pytest.approx(
        common.fit_quadratic(series.points)(100_000)
    )


def test_fit_quadratic_recovers_coefficients() -> None:
    common = _load("_common")
    model = common.fit_quadratic([(n, 2e-6 * n + 3e-9 * n * n) for n in (100, 1000, 10_000)])
    assert model(100_000) == pytest.approx(2e-6 * 1e5 + 3e-9 * 1e10, rel=1e-6)
    assert common.growth_exponent(10, 1.0, 100, 100.0) == pytest.approx(2.0)


def test_streams_are_valid_wire_payloads() -> None:
    common = _load("_common")
    calls = common.make_calls(3, 300)
    chat = common.openai_chat_stream(calls)
    args: dict[int, str] = {}
    for payload in chat:
        for tc in payload["choices"][0]["delta"].get("tool_calls", ()):
            args[tc["index"]] = args.get(tc["index"], "") + tc["function"]["arguments"]
    assert [json.loads(args[i]) for i in range(3)] == [json.loads(c.args) for c in calls]
    assert chat[-1]["choices"][0]["finish_reason"] == "tool_calls"
    anth = common.anthropic_stream(calls)
    assert anth[0]["type"] == "message_start" and anth[-1]["type"] == "message_stop"
    text = common.long_string_document(2000)
    assert "\\ud83d\\ude00" in text and json.loads(text)["content"].count("😀") > 0
    assert all(len(f) <= common.FRAGMENT for f in common.fragments(text))
