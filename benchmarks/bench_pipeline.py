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
``_peers.py``, the streams come from ``_streams.py``, the timing from ``_measure.py``.

    python benchmarks/bench_pipeline.py          # full run -> results/pipeline.{md,json,png}
    python benchmarks/bench_pipeline.py --quick  # smoke run
"""

from __future__ import annotations

import gc
import json
import math
import statistics
import sys
import time
import tracemalloc
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _measure import GC_NOTE, Measurement, Series, quiet_gc, settled
from _peers import LIBRARIES, REFERENCE, Library, forget_sdk_objects
from _report import (
    Points,
    arguments,
    fmt_bytes,
    fmt_ns,
    fmt_ratio,
    fmt_s,
    load_average,
    log,
    loglog_plot,
    machine,
    machine_markdown,
    markdown_table,
    timing_cells,
    write_json,
    write_text,
)
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
        rows: list[Measurement] = []
        for s in scenarios:
            calls = format_calls(fmt, s.calls, s.size)
            payloads = wire_stream(fmt, calls)
            expected = expected_calls(calls)
            arg_bytes = sum(len(k.args.encode()) for k in calls)
            for lib in libs:
                log(f"[pipeline] {fmt} {s.name} {lib.label} ...")
                ser = series.setdefault(
                    (lib.label, s.calls), Series(lib.label, budget_s=budget_s, repeats=repeats)
                )
                why = lib.missing()
                skipped = None if why is not None else ser.precheck(s.size, len(payloads))
                if why is not None:
                    m = ser.unavailable(s.size, len(payloads), why)
                elif skipped is not None:
                    m = skipped
                else:
                    inputs = lib.prepare(fmt, payloads)
                    m = ser.run(s.size, lib.consumer(fmt, inputs), inputs)
                    del inputs
                if m.status == "measured":
                    assert m.result == expected, (
                        f"{lib.label} disagrees with the original calls on {fmt} {s.name}:\n"
                        f"{str(m.result)[:500]}\n!=\n{str(expected)[:500]}"
                    )
                    m.extra["agrees"] = True
                m.result = None
                m.extra.update(scenario=s.name, calls=s.calls, arg_bytes=arg_bytes, reads=lib.reads)
                rows.append(m)
            forget_sdk_objects()
            gc.collect()
        results[fmt] = rows
    return results


def _peak_one_stream(
    lib: Library, fmt: str, inputs: Sequence[Any], deadline_s: float
) -> dict[str, Any]:
    """Peak traced memory while one library consumes one stream (inputs pre-built).

    Returns the peak while streaming, the peak including the final result, the fraction
    of chunks consumed, and -- when stopped at the deadline -- a linear extrapolation of
    the streaming peak from the growth over the second half of what was consumed. A
    one-shot library (no step, ``collect()``) has no streaming peak, only the whole one.
    """
    step, finish = lib.consumer(fmt, inputs)()
    quiet_gc()
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    if step is None:
        finish()
        peak = tracemalloc.get_traced_memory()[1] - base
        tracemalloc.stop()
        return {"streaming_bytes": None, "peak_bytes": peak, "done_fraction": 1.0}
    start = time.perf_counter()
    done = 0
    curve: list[tuple[int, int]] = []
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
        for lib in LIBRARIES:
            if fmt not in lib.formats:
                continue
            why = lib.missing()
            if why is not None:
                rows.append({"label": lib.label, "note": why})
                continue
            log(f"[memory] {fmt} {fmt_bytes(size)} {lib.label} ...")
            inputs = lib.prepare(fmt, payloads)
            r = _peak_one_stream(lib, fmt, inputs, budget_s / 2)
            del inputs
            r["label"] = lib.label
            if r["streaming_bytes"] is None:
                r["note"] = "one call for the whole stream: no peak while streaming"
            elif r["done_fraction"] < 1:
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
    for lib in LIBRARIES:
        if fmt not in lib.formats or not lib.concurrent:
            continue
        why = lib.missing()
        if why is not None:
            rows.append({"label": lib.label, "note": why})
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
        rows.append(
            {
                "label": lib.label,
                "streams": n,
                "chunks_per_stream": len(payloads),
                "wall_s": statistics.median(times),
                "peak_bytes": peak,
                "reads": lib.reads,
            }
        )
    return rows


# --- report -------------------------------------------------------------------------------


def _reference(rows: Sequence[Measurement], scenario: str) -> Measurement | None:
    for m in rows:
        if m.label == REFERENCE and m.extra["scenario"] == scenario and m.status == "measured":
            return m
    return None


def report(
    speed: dict[str, list[Measurement]],
    memory: dict[str, list[dict[str, Any]]],
    concurrent: list[dict[str, Any]],
    info: dict[str, Any],
    *,
    budget_s: float,
    cmd: str,
    memory_size: int,
) -> str:
    """The markdown report: per format a table of scenarios x libraries, then memory."""
    out = [
        "# Whole streams: callstream vs the SDK accumulators\n\n",
        "Each stream is a list of decoded payloads in the provider's wire format, argument "
        "text cut into 4-character fragments. Every library consumes the payloads one by "
        "one and reads its parsed preview of the arguments after every chunk (column "
        "*reads*). SDK objects and LangChain chunks are built from the payloads before the "
        "clock starts. *Per chunk* is the median of individually timed chunks (every k-th, "
        "about 2,000 per pass; for `callstream collect()`, one call per stream, the total "
        "over the chunks); *total* the median time for the whole stream; *vs "
        "callstream* compares totals with the `callstream stream()` row, and the per-chunk "
        "figures likewise; *best pass* is the "
        "fastest pass. Every library's final calls equal the original calls "
        "(asserted). A library predicted to need more than "
        f"{budget_s:g} s at a size is skipped and its total extrapolated with a quadratic "
        "fit over the smaller sizes (`~… (skipped)`), never dropped. ",
        GC_NOTE,
        "What the previews hold differs: openai-python and anthropic parse with jiter "
        '`partial_mode=True` (not `"trailing-strings"`), which leaves an unfinished string '
        "out, so their preview of a `write_file` call has no `content` until the string "
        "closes (less work and less memory than showing it); callstream's preview shows the "
        "string as it grows. LangChain shows it. pydantic-ai shows nothing until the end.\n\n",
        machine_markdown(info, cmd),
    ]
    for fmt, rows in speed.items():
        out.append(f"\n## {fmt}\n\n")
        table = []
        for m in rows:
            ref = _reference(rows, m.extra["scenario"])
            if ref is None or m is ref or m.status == "n/a":
                ratio = chunk_ratio = "—" if m is not ref else "reference"
            else:
                ratio = fmt_ratio(m.total_s, ref.total_s, estimated=m.estimated)
                chunk_ratio = fmt_ratio(m.median_ns, ref.median_ns)
            table.append(
                [
                    m.extra["scenario"],
                    m.inputs,
                    m.label,
                    *timing_cells(m),
                    ratio,
                    chunk_ratio,
                    m.note or m.extra["reads"],
                ]
            )
        out.append(
            markdown_table(
                [
                    "stream",
                    "chunks",
                    "library",
                    "per chunk",
                    "total",
                    "best pass",
                    "vs callstream (totals)",
                    "vs callstream (per chunk)",
                    "reads / note",
                ],
                table,
            )
        )
    out.append("\n## Issue targets (measured here, not asserted)\n\n")
    out.append(markdown_table(["target", "format", "measured"], _targets(speed)))
    out.append(f"\n## Memory: one stream with {fmt_bytes(memory_size)} of arguments\n\n")
    out.append(
        "Peak memory traced by `tracemalloc` while consuming the stream (the input payloads "
        "are built before tracing starts, so they are not counted). Tracing slows code "
        "down; a library still running after half the budget is stopped, its peak so far "
        "reported as a lower bound and extrapolated linearly from its growth over the "
        "second half of the chunks it consumed (a re-parsing library holds the text and a "
        "parsed copy, both linear in size). *Peak incl. the final result* adds the end of "
        "the stream (final verdict, final calls).\n\n"
    )
    mem_rows = []
    for fmt, rows_ in memory.items():
        for r in rows_:
            streaming = r.get("streaming_bytes")
            est = r.get("extrapolated_bytes")
            if streaming is None:
                shown = "—"
            elif est is not None:
                shown = f"≥ {fmt_bytes(streaming)}; ~{fmt_bytes(est)} extrapolated"
            else:
                shown = fmt_bytes(streaming)
            peak = r.get("peak_bytes")
            mem_rows.append(
                [
                    fmt,
                    r["label"],
                    shown,
                    "—" if peak is None else fmt_bytes(peak),
                    r.get("note", ""),
                ]
            )
    out.append(
        markdown_table(
            ["format", "library", "peak while streaming", "peak incl. the final result", "note"],
            mem_rows,
        )
    )
    if concurrent:
        n = next((r["streams"] for r in concurrent if "streams" in r), 0)
        out.append(f"\n## {n:,} concurrent streams in one process (anyio, asyncio backend)\n\n")
        out.append(
            "Each task consumes its own OpenAI Chat stream of one ~200 B call from an async "
            "source that yields to the event loop between chunks, so all streams are in "
            "flight at once. Wall time: median of up to 3 runs without tracing; peak memory: "
            "one traced run. callstream uses its async driver `astream`; the peers run their "
            "sync accumulators inside the same async loop.\n\n"
        )
        crow = [
            [
                r["label"],
                fmt_s(r["wall_s"]) if "wall_s" in r else "—",
                fmt_ns(r["wall_s"] * 1e9 / (r["streams"] * r["chunks_per_stream"]))
                if "wall_s" in r
                else "—",
                fmt_bytes(r["peak_bytes"]) if "peak_bytes" in r else "—",
                fmt_bytes(r["peak_bytes"] / r["streams"]) if "peak_bytes" in r else "—",
                r.get("note", r.get("reads", "")),
            ]
            for r in concurrent
        ]
        out.append(
            markdown_table(
                ["library", "wall time", "per chunk", "peak memory", "per stream", "reads / note"],
                crow,
            )
        )
    return "".join(out)


def _targets(speed: dict[str, list[Measurement]]) -> list[list[str]]:
    """Issue 7's targets against the `callstream stream()` row, per format."""
    out: list[list[str]] = []
    peers = {
        "openai ChatCompletionStreamState": 20,
        "anthropic accumulate_event": 20,
        "LangChain AIMessageChunk +": 50,
        "pydantic-ai parts manager (no parsing)": 1,
    }
    for fmt, rows in speed.items():

        def get(label: str, scenario: str, rows: list[Measurement] = rows) -> Measurement | None:
            for m in rows:
                if m.label == label and m.extra["scenario"] == scenario:
                    return None if math.isnan(m.total_s) else m
            return None

        small = "1 call, 200 B"
        ours = get(REFERENCE, small)
        out.append(
            [
                "per chunk <= 5 µs (median), 200 B call, preview every chunk",
                fmt,
                "—" if ours is None else fmt_ns(ours.median_ns),
            ]
        )
        for label, want in peers.items():
            peer = get(label, small)
            if ours is None or peer is None:
                continue
            goal = "no slower than" if want == 1 else f">= {want}x faster than"
            out.append(
                [
                    f"{goal} {label}, 200 B call (per chunk; totals)",
                    fmt,
                    f"{fmt_ratio(ours.median_ns, peer.median_ns)}; "
                    f"{fmt_ratio(ours.total_s, peer.total_s)}",
                ]
            )
        big = [m for m in rows if m.label == REFERENCE and m.extra["calls"] == 1]
        big.sort(key=lambda m: m.size)
        if big and big[-1].size >= 1 << 20 and ours is not None:
            top = big[-1]
            out.append(
                [
                    "1 MB argument: total < 1 s, per chunk flat",
                    fmt,
                    f"{fmt_s(top.total_s)} total; per chunk {fmt_ns(ours.median_ns)} "
                    f"(200 B) -> {fmt_ns(top.median_ns)} (1 MB)",
                ]
            )
    return out


def plot(speed: dict[str, list[Measurement]], path: Path, budget_s: float) -> Path | None:
    """Log-log total time vs argument size (single-call streams), one panel per format."""
    panels: dict[str, dict[str, Points]] = {}
    for fmt, rows in speed.items():
        series: dict[str, Points] = {}
        for m in rows:
            if m.extra["calls"] != 1 or m.status == "n/a" or math.isnan(m.total_s):
                continue
            series.setdefault(m.label, []).append(
                (float(m.extra["arg_bytes"]), m.total_s, m.estimated)
            )
        panels[fmt] = series
    return loglog_plot(
        path,
        title="One tool call streamed in 4-character fragments, preview read every chunk",
        xlabel="argument size (bytes)",
        ylabel="total time for the stream (s)",
        panels=panels,
        budget_s=budget_s,
    )


PEER_MODULES = (
    "callstream",
    "callstream._sync",
    "callstream._async",
    "openai",
    "openai.lib.streaming.chat",
    "anthropic",
    "anthropic.lib.streaming._messages",
    "langchain_core.messages",
    "pydantic_ai._parts_manager",
    "pydantic_ai.models",
    "anyio",
)


def main(argv: Sequence[str] | None = None) -> int:
    """Run everything; write ``pipeline.md``, ``pipeline.json`` and ``pipeline.png``."""
    ns = arguments(__doc__.splitlines()[0] if __doc__ else "", argv)
    if ns.render:
        return _render(ns)
    info = machine()
    with settled(PEER_MODULES):
        return _main(ns, info)


def _main(ns: Any, info: dict[str, Any]) -> int:
    if ns.tiny:
        scenarios, memory_size, streams = TINY_SCENARIOS, 200, TINY_CONCURRENT
    elif ns.quick:
        scenarios, memory_size, streams = QUICK_SCENARIOS, 2 << 10, QUICK_CONCURRENT
    else:
        scenarios, memory_size, streams = SCENARIOS, 1 << 20, CONCURRENT
    speed = run_speed(scenarios, budget_s=ns.budget, repeats=ns.repeats)
    memory = run_memory(memory_size, budget_s=ns.budget)
    concurrent = run_concurrent(streams, budget_s=ns.budget)
    info["load_average_1m_end"] = load_average()
    info["command"] = "python benchmarks/bench_pipeline.py" + (" --quick" if ns.quick else "")
    data = {
        "machine": info,
        "budget_s": ns.budget,
        "fragment_chars": FRAGMENT,
        "speed": {f: [m.as_json() for m in rows] for f, rows in speed.items()},
        "memory": {"argument_bytes": memory_size, "results": memory},
        "concurrent": concurrent,
    }
    write_json(ns.out / "pipeline.json", data)
    return _write(ns, data, speed)


def _render(ns: Any) -> int:
    """Rewrite pipeline.md and pipeline.png from pipeline.json (no measuring)."""
    data = json.loads((ns.out / "pipeline.json").read_text(encoding="utf-8"))
    speed = {f: [Measurement.from_json(r) for r in rows] for f, rows in data["speed"].items()}
    return _write(ns, data, speed)


def _write(ns: Any, data: dict[str, Any], speed: dict[str, list[Measurement]]) -> int:
    info = data["machine"]
    text = report(
        speed,
        data["memory"]["results"],
        data["concurrent"],
        info,
        budget_s=data["budget_s"],
        cmd=info.get("command", "python benchmarks/bench_pipeline.py"),
        memory_size=data["memory"]["argument_bytes"],
    )
    write_text(ns.out / "pipeline.md", text)
    if not ns.no_plot:
        plot(speed, ns.out / "pipeline.png", data["budget_s"])
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
