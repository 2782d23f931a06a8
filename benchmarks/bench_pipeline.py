"""Whole provider streams side by side: callstream vs the SDK accumulators people use today.

Realistic streams in the OpenAI Chat Completions and Anthropic Messages wire formats --
one call with ~200 B of arguments, 4 parallel calls, and a ``write_file``-style call with
10 KB, 100 KB and 1 MB of arguments, all cut into 4-character argument fragments -- go
through callstream and through each peer, reading the parsed partial arguments after
every chunk where the library offers them:

- callstream ``stream(source)`` (the sync driver), reading ``update.tool_calls``, and
  ``collect(source)`` (one call for the whole stream, timed whole: its per-chunk figure
  is the total over the chunks);
- callstream's pipeline driven by hand (translator + ``ToolCallAssembler``), reading
  ``.tool_calls``; and the driver fed the SDK's objects instead of dicts;
- openai-python ``ChatCompletionStreamState.handle_chunk`` with strict tools (so it parses
  arguments with jiter on every chunk), reading ``function.parsed_arguments``;
- anthropic ``accumulate_event`` (what ``MessageStream`` runs), reading ``block.input``;
- LangChain ``gathered = gathered + chunk; gathered.tool_calls``;
- pydantic-ai ``ModelResponsePartsManager.handle_tool_call_delta`` (events only: it does
  not parse arguments while streaming).

Payloads are decoded JSON dicts; SDK objects and ``AIMessageChunk`` s are built from them
before the clock starts. Every library's final calls must equal the originals (asserted).
A library predicted to take longer than the budget (60 s) at a size is skipped and its
total extrapolated (marked). Also measured: peak memory (tracemalloc) of one 1 MB stream,
and 1,000 concurrent small streams in one process under anyio. The libraries are in
``_peers.py``, the streams come from ``_streams.py``, the timing from ``_measure.py``, the
report from ``_pipeline_report.py``.

    python benchmarks/bench_pipeline.py          # full run -> results/pipeline.{md,json,png}
    python benchmarks/bench_pipeline.py --quick  # smoke run
"""

from __future__ import annotations

import gc
import json
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _measure import Measurement, Series, quiet_gc, settled
from _ours import LIBRARIES
from _peers import PEER_MODULES, Library, forget_sdk_objects
from _pipeline_report import plot, report
from _report import arguments, command, fmt_bytes, load_average, log, stamp, write_results
from _streams import FORMATS, FRAGMENT, expected_calls, format_calls, wire_stream


@dataclass(frozen=True)
class Scenario:
    """One stream shape: ``calls`` calls of about ``size`` bytes of arguments each."""

    name: str
    calls: int
    size: int


SCENARIOS: tuple[Scenario, ...] = (
    Scenario("1 call, 200 B", 1, 200),
    Scenario("4 parallel calls, 200 B each", 4, 200),
    Scenario("write_file 10 KB", 1, 10 << 10),
    Scenario("write_file 100 KB", 1, 100 << 10),
    Scenario("write_file 1 MB", 1, 1 << 20),
)
QUICK_SCENARIOS: tuple[Scenario, ...] = (
    Scenario("1 call, 200 B", 1, 200),
    Scenario("4 parallel calls, 200 B each", 4, 200),
    Scenario("write_file 2 KB", 1, 2 << 10),
)
TINY_SCENARIOS: tuple[Scenario, ...] = (
    Scenario("1 call, 200 B", 1, 200),
    Scenario("2 parallel calls", 2, 200),
)
CONCURRENT = 1000
QUICK_CONCURRENT = 20
TINY_CONCURRENT = 3


# --- runs ---------------------------------------------------------------------------------


def run_speed(
    scenarios: Sequence[Scenario], *, budget_s: float, repeats: int
) -> dict[str, list[Measurement]]:
    """Per format: every library on every scenario (size series per library)."""
    results: dict[str, list[Measurement]] = {}
    for fmt in FORMATS:
        libs = [lib for lib in LIBRARIES if fmt in lib.formats]
        # One size series per (library, number of calls): sizes grow within it.
        series: dict[tuple[str, int], Series] = {}
        results[fmt] = []
        for s in scenarios:

            def series_of(lib: Library, n: int = s.calls) -> Series:
                new = Series(lib.label, budget_s=budget_s, max_passes=repeats)
                return series.setdefault((lib.label, n), new)

            results[fmt] += measure_stream(fmt, s.calls, s.size, libs, series_of, s.name)
    return results


def measure_stream(
    fmt: str,
    n: int,
    size: int,
    libs: Sequence[Library],
    series_of: Callable[[Library], Series],
    name: str,
) -> list[Measurement]:
    """Every library in ``libs`` on one stream of ``n`` calls of ``size`` bytes of arguments
    in format ``fmt``, each in its :class:`Series`; its final calls checked."""
    calls = format_calls(fmt, n, size)
    payloads = wire_stream(fmt, calls)
    expected = expected_calls(calls)
    arg_bytes = sum(len(k.args.encode()) for k in calls)
    rows: list[Measurement] = []
    for lib in libs:
        log(f"[{fmt}] {name} {lib.label} ...")
        ser, why = series_of(lib), lib.missing()
        m = ser.unavailable(size, len(payloads), why) if why else ser.precheck(size, len(payloads))
        if m is None:
            inputs = lib.prepare(fmt, payloads)
            m = ser.run(size, lib.consumer(fmt, inputs), inputs)
            del inputs
        if m.status == "measured":
            assert m.result == expected, (
                f"{lib.label} disagrees with the original calls on {fmt} {name}:\n"
                f"{str(m.result)[:500]}\n!=\n{str(expected)[:500]}"
            )
            m.extra["agrees"] = True
        m.result = None
        m.extra.update(scenario=name, calls=n, arg_bytes=arg_bytes, reads=lib.reads)
        rows.append(m)
    forget_sdk_objects()
    gc.collect()
    return rows


def _peak_one_stream(
    lib: Library, fmt: str, inputs: Sequence[Any], deadline_s: float
) -> dict[str, Any]:
    """Peak traced memory while one library consumes one stream (inputs pre-built).

    Returns the peak while streaming, the peak including the final result, the fraction
    of chunks consumed, and -- when stopped at the deadline -- a linear extrapolation of
    the streaming peak from the growth over the second half of what was consumed.
    """
    step, finish = lib.consumer(fmt, inputs)()
    quiet_gc()
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    if step is None:  # one call for the whole stream: its peak is the streaming peak
        finish()
        peak = tracemalloc.get_traced_memory()[1] - base
        tracemalloc.stop()
        return {"streaming_bytes": peak, "peak_bytes": peak, "done_fraction": 1.0}
    start, done, curve = time.perf_counter(), 0, []
    for item in inputs:
        step(item)
        done += 1
        if done % 1024 == 0:
            curve.append((done, tracemalloc.get_traced_memory()[1] - base))
            if time.perf_counter() - start > deadline_s:
                break
    streaming = tracemalloc.get_traced_memory()[1] - base
    n = len(inputs)
    out: dict[str, Any] = {"streaming_bytes": streaming, "done_fraction": done / n}
    if done == n:
        finish()
        out["peak_bytes"] = tracemalloc.get_traced_memory()[1] - base
    else:
        half = next(((d, p) for d, p in curve if d >= done // 2), (0, 0))
        slope = (streaming - half[1]) / max(1, done - half[0])
        out["extrapolated_bytes"] = streaming + slope * (n - done)
    tracemalloc.stop()
    return out


def run_memory(size: int, *, budget_s: float) -> dict[str, list[dict[str, Any]]]:
    """Peak memory of one stream with ``size`` bytes of arguments, per format and library."""
    out: dict[str, list[dict[str, Any]]] = {}
    for fmt in FORMATS:
        payloads = wire_stream(fmt, format_calls(fmt, 1, size))
        rows = []
        for lib in (lib for lib in LIBRARIES if fmt in lib.formats):
            if lib.missing():
                rows.append({"label": lib.label, "note": lib.missing()})
                continue
            log(f"[memory] {fmt} {fmt_bytes(size)} {lib.label} ...")
            inputs = lib.prepare(fmt, payloads)
            r = _peak_one_stream(lib, fmt, inputs, budget_s / 2)
            del inputs
            r["label"] = lib.label
            if r["done_fraction"] < 1:
                r["note"] = (
                    f"stopped at {budget_s / 2:g} s (traced) after "
                    f"{100 * r['done_fraction']:.0f}% of the chunks: peak so far, and its "
                    "growth over the second half of that extrapolated to the whole stream"
                )
            rows.append(r)
        forget_sdk_objects()
        out[fmt] = rows
    return out


def run_concurrent(n: int, *, budget_s: float) -> list[dict[str, Any]]:
    """``n`` concurrent small streams (one 200 B call, OpenAI Chat) in one anyio process.

    Per library: wall time (median of a few runs, no tracing) and peak traced memory (a
    separate traced run); every stream's final calls are checked.
    """
    import anyio

    fmt = "openai-chat"
    calls = format_calls(fmt, 1, 200)
    payloads = wire_stream(fmt, calls)
    expected = expected_calls(calls)
    rows: list[dict[str, Any]] = []
    for lib in (lib for lib in LIBRARIES if fmt in lib.formats and lib.concurrent):
        if lib.missing():
            rows.append({"label": lib.label, "note": lib.missing()})
            continue
        log(f"[concurrent] {n} streams {lib.label} ...")
        inputs = lib.prepare(fmt, payloads)

        async def main(lib: Library = lib, inputs: Sequence[Any] = inputs) -> None:
            async def one() -> None:
                got = await lib.consume_async(fmt, inputs)
                assert got == expected, f"{lib.label} disagrees in the concurrent run"

            async with anyio.create_task_group() as tg:
                for _ in range(n):
                    tg.start_soon(one)

        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            anyio.run(main)
            times.append(time.perf_counter() - t0)
            if sum(times) > budget_s:
                break
        gc.collect()
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        anyio.run(main)
        peak = tracemalloc.get_traced_memory()[1] - base
        tracemalloc.stop()
        row = {"label": lib.label, "streams": n, "chunks_per_stream": len(payloads)}
        row |= {"wall_s": statistics.median(times), "peak_bytes": peak, "reads": lib.reads}
        rows.append(row)
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    """Run everything; write ``pipeline.md``, ``pipeline.json`` and ``pipeline.png``."""
    ns = arguments(__doc__.splitlines()[0] if __doc__ else "", argv)
    if ns.render:
        data = json.loads((ns.out / "pipeline.json").read_text(encoding="utf-8"))
        return _write(ns, data)
    info = stamp(command("bench_pipeline", ns))
    if ns.tiny:
        scenarios, memory_size, streams = TINY_SCENARIOS, 200, TINY_CONCURRENT
    elif ns.quick:
        scenarios, memory_size, streams = QUICK_SCENARIOS, 2 << 10, QUICK_CONCURRENT
    else:
        scenarios, memory_size, streams = SCENARIOS, 1 << 20, CONCURRENT
    with settled(PEER_MODULES):
        speed = run_speed(scenarios, budget_s=ns.budget, repeats=ns.repeats)
        memory = run_memory(memory_size, budget_s=ns.budget)
        concurrent = run_concurrent(streams, budget_s=ns.budget)
    info["load_average_1m_end"] = load_average()
    data = {
        "machine": info,
        "budget_s": ns.budget,
        "fragment_chars": FRAGMENT,
        "speed": {f: [m.as_json() for m in rows] for f, rows in speed.items()},
        "memory": {"argument_bytes": memory_size, "results": memory},
        "concurrent": concurrent,
    }
    return _write(ns, data)


def _write(ns: Any, data: dict[str, Any]) -> int:
    speed = {f: [Measurement.from_json(r) for r in rows] for f, rows in data["speed"].items()}
    text = report(speed, data["memory"], data["concurrent"], data["machine"], data["budget_s"])
    if not ns.no_plot:
        plot(speed, ns.out / "pipeline.png", data["budget_s"])
    return write_results(ns.out, "pipeline", text, data)


if __name__ == "__main__":
    raise SystemExit(main())
