"""The report of ``bench_pipeline.py``: the markdown tables and the log-log plot.

Rendered from the measurements alone (``bench_pipeline.py --render`` rewrites both from
``pipeline.json``): per format a table of streams x libraries with ratios to the
``callstream stream()`` row, the issue's targets, peak memory, and the concurrency run.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from _measure import GC_NOTE, Measurement
from _ours import REFERENCE
from _report import (
    Points,
    fmt_bytes,
    fmt_ns,
    fmt_ratio,
    fmt_s,
    loglog_plot,
    machine_markdown,
    markdown_table,
    timing_cells,
)


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
