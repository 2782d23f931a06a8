"""The report of ``bench_pipeline.py``: the markdown tables and the log-log plot.

Rendered from the measurements alone (``bench_pipeline.py --render`` rewrites both from
``pipeline.json``): per format a table of streams x libraries with ratios to the
``callstream stream()`` row, peak memory, and the concurrency run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from _measure import GC_NOTE, Measurement
from _ours import REFERENCE
from _report import (
    fmt_bytes,
    fmt_ns,
    fmt_s,
    loglog_plot,
    markdown_table,
    measurement_table,
    stamp_markdown,
)


def report(
    speed: dict[str, list[Measurement]],
    memory: dict[str, Any],
    concurrent: list[dict[str, Any]],
    info: dict[str, Any],
    budget_s: float,
) -> str:
    """The markdown report: per format a table of scenarios x libraries, then memory."""
    out = [
        "# Whole streams: callstream vs the SDK accumulators\n\n",
        "Each stream is a list of decoded payloads in the provider's wire format, argument "
        "text cut into 4-character fragments. Every library consumes the payloads one by "
        "one and reads its parsed preview of the arguments after every chunk (column "
        "*note*, unless a note replaces it). SDK objects and LangChain chunks are built "
        "from the payloads before the clock starts. A pass is one whole stream, timed whole; "
        "*total* is the median pass, *per chunk* the median pass over the chunks, *best "
        "pass* the fastest; *vs callstream* compares totals with the `callstream stream()` "
        "row. Every library's final calls equal the original calls (asserted). A library "
        f"predicted to need more than {budget_s:g} s at a size is skipped and its total "
        "extrapolated with a quadratic fit over the smaller sizes (`~… (skipped)`), never "
        "dropped. ",
        GC_NOTE,
        "What the previews hold differs: openai-python and anthropic parse with jiter "
        '`partial_mode=True` (not `"trailing-strings"`), which leaves an unfinished string '
        "out, so their preview of a `write_file` call has no `content` until the string "
        "closes (less work and less memory than showing it); callstream's preview shows the "
        "string as it grows. LangChain shows it. pydantic-ai shows nothing until the end.\n\n",
        stamp_markdown(info),
    ]
    for fmt, rows in speed.items():

        def reference(m: Measurement, rows: list[Measurement] = rows) -> Measurement | None:
            scenario = m.extra["scenario"]
            refs = [r for r in rows if r.label == REFERENCE and r.extra["scenario"] == scenario]
            return refs[0] if refs and refs[0].status == "measured" else None

        lead = [("stream", lambda m: m.extra["scenario"]), ("chunks", lambda m: m.inputs)]
        out.append(f"\n## {fmt}\n\n")
        out.append(measurement_table(rows, lead, reference, "callstream"))
    size = fmt_bytes(memory["argument_bytes"])
    out.append(f"\n## Memory: one stream with {size} of arguments\n\n")
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
    for fmt, rows_ in memory["results"].items():
        for r in rows_:
            streaming = r.get("streaming_bytes")
            est = r.get("extrapolated_bytes")
            if streaming is None:
                shown = "—"
            elif est is not None:
                shown = f"≥ {fmt_bytes(streaming)}; ~{fmt_bytes(est)} extrapolated"
            else:
                shown = fmt_bytes(streaming)
            peak = "—" if r.get("peak_bytes") is None else fmt_bytes(r["peak_bytes"])
            mem_rows.append([fmt, r["label"], shown, peak, r.get("note", "")])
    headers = ["format", "library", "peak while streaming", "peak incl. the final result"]
    out.append(markdown_table([*headers, "note"], mem_rows))
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
        crow = []
        for r in concurrent:
            note = r.get("note", r.get("reads", ""))
            if "wall_s" not in r:
                crow.append([r["label"], "—", "—", "—", "—", note])
                continue
            per = fmt_ns(r["wall_s"] * 1e9 / (r["streams"] * r["chunks_per_stream"]))
            peak, each = fmt_bytes(r["peak_bytes"]), fmt_bytes(r["peak_bytes"] / r["streams"])
            crow.append([r["label"], fmt_s(r["wall_s"]), per, peak, each, note])
        out.append(
            markdown_table(
                ["library", "wall time", "per chunk", "peak memory", "per stream", "reads / note"],
                crow,
            )
        )
    return "".join(out)


def plot(speed: dict[str, list[Measurement]], path: Path, budget_s: float) -> Path | None:
    """Log-log total time vs argument size (single-call streams), one panel per format."""

    def x(m: Measurement) -> float | None:
        return float(m.extra["arg_bytes"]) if m.extra["calls"] == 1 else None

    title = "One tool call streamed in 4-character fragments, preview read every chunk"
    labels = (title, "argument size (bytes)", "total time for the stream (s)")
    return loglog_plot(path, speed, x, labels, budget_s)
