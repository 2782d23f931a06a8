"""Tool-call assembly side by side: callstream's ToolCallAssembler vs LangChain chunk addition.

For 1, 4 and 16 parallel calls with 200 B, 10 KB and 1 MB of arguments *per call*, cut
into 4-character fragments and interleaved round-robin across the calls (the harder case
for a merger; each call's first chunk carries its name and id), times per chunk:

- callstream ``ToolCallAssembler.feed(chunk)`` then ``.tool_calls`` (parsed previews of
  every call) after every chunk;
- callstream ``feed`` only, consuming the events ("events only": no view reads);
- LangChain ``gathered = gathered + chunk; gathered.tool_calls`` with prebuilt
  ``AIMessageChunk`` objects (building them is outside the timing).

The final calls of every library are checked against the originals. A library predicted
to take longer than the budget (60 s) at a size is skipped and its total extrapolated.

    python benchmarks/bench_assembler.py            # full run -> benchmarks/results/
    python benchmarks/bench_assembler.py --quick    # smoke run
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _measure import GC_NOTE, Consumer, Finish, Measurement, Series, Step, settled
from _peers import langchain_gather
from _report import (
    arguments,
    command,
    fmt_bytes,
    load_average,
    log,
    measurement_table,
    stamp,
    stamp_markdown,
    write_results,
)
from _streams import dict_calls, expected_calls, make_calls, tool_call_chunks

CALLS: tuple[int, ...] = (1, 4, 16)
SIZES: tuple[int, ...] = (200, 2 << 10, 10 << 10, 1 << 20)
QUICK_CALLS = (1, 4)
QUICK_SIZES = (200, 2 << 10)
TINY_CALLS: tuple[int, ...] = (1, 2)
TINY_SIZES: tuple[int, ...] = (100,)

OURS_VIEW = "callstream: feed + .tool_calls"
OURS_EVENTS = "callstream: events only"
LANGCHAIN = "LangChain: gathered + chunk; .tool_calls"

Factory = Callable[[list[dict[str, Any]]], tuple[Consumer, Sequence[Any]]]
"""Builds, from the chunk dicts, a consumer and the inputs it takes (outside timing)."""


def _ours(read_view: bool) -> Factory | None:
    try:
        from callstream._assembly import ToolCallAssembler
    except ImportError:
        return None

    def factory(chunks: list[dict[str, Any]]) -> tuple[Consumer, Sequence[Any]]:
        def consumer() -> tuple[Step, Finish]:
            asm = ToolCallAssembler()
            feed = asm.feed

            def finish() -> Any:
                asm.finish()
                assert not asm.invalid_tool_calls, asm.invalid_tool_calls
                return dict_calls(asm.tool_calls)

            if read_view:

                def step(chunk: Any) -> object:
                    feed(chunk)
                    return asm.tool_calls

                return step, finish

            def events_only(chunk: Any) -> object:
                for _event in feed(chunk):
                    pass
                return None

            return events_only, finish

        return consumer, chunks

    return factory


def _langchain() -> Factory | None:
    try:
        from langchain_core.messages import AIMessageChunk
        from langchain_core.messages.tool import tool_call_chunk
    except ImportError:
        return None

    def factory(chunks: list[dict[str, Any]]) -> tuple[Consumer, Sequence[Any]]:
        messages = [
            AIMessageChunk(
                content="",
                tool_call_chunks=[
                    tool_call_chunk(
                        name=ch["name"], args=ch["args"], id=ch["id"], index=ch["index"]
                    )
                ],
            )
            for ch in chunks
        ]

        return langchain_gather, messages

    return factory


def libraries() -> dict[str, Factory | None]:
    """Factories by label (None when not installed)."""
    return {
        OURS_VIEW: _ours(read_view=True),
        OURS_EVENTS: _ours(read_view=False),
        LANGCHAIN: _langchain(),
    }


def run(
    calls: Sequence[int], sizes: Sequence[int], *, budget_s: float, repeats: int
) -> list[Measurement]:
    """Measure every library for every (calls, size); one flat list of measurements."""
    libs = libraries()
    rows: list[Measurement] = []
    for n in calls:
        series = {lb: Series(lb, budget_s=budget_s, max_passes=repeats) for lb in libs}
        for size in sizes:
            spec = make_calls(n, size)
            expected = expected_calls(spec)
            chunks = tool_call_chunks(spec, interleave=True)
            arg_bytes = sum(len(s.args.encode()) for s in spec)
            for label, factory in libs.items():
                log(f"[assembler] {n} call(s) x {fmt_bytes(size)} {label} ...")
                s = series[label]
                if factory is None:
                    m = s.unavailable(size, len(chunks), "not installed")
                else:
                    m = s.precheck(size, len(chunks)) or s.run(size, *factory(chunks))
                if m.status == "measured":
                    assert m.result == expected, f"{label} disagrees on the final calls"
                m.result = None
                m.extra.update(calls=n, arg_bytes=arg_bytes)
                rows.append(m)
            del chunks
    return rows


def _langchain_row(rows: Sequence[Measurement], m: Measurement) -> Measurement | None:
    same = (r for r in rows if r.label == LANGCHAIN and r.size == m.size)
    return next((r for r in same if r.extra["calls"] == m.extra["calls"]), None)


def report(rows: Sequence[Measurement], info: dict[str, Any], budget_s: float) -> str:
    """The markdown report: one table, ratios to LangChain, the targets."""
    out = [
        "# Tool-call assembly: callstream ToolCallAssembler vs LangChain chunk addition\n\n",
        "N parallel calls with the given argument size *per call*, cut into 4-character "
        "fragments and interleaved round-robin across the calls (each call's first chunk "
        "carries its name and id). A pass over the chunks is timed whole: *total* is the "
        "median pass, *per chunk* the median pass over the chunks, *best pass* the fastest. "
        "callstream rows read `.tool_calls` (parsed arguments of every call) after every "
        "chunk, except *events only*, which consumes the events returned by `feed` and "
        "reads no view. LangChain: `gathered = gathered + chunk; gathered.tool_calls` with "
        "prebuilt `AIMessageChunk`s (construction not timed). Final calls are checked "
        "against the originals for every library (asserted). A library predicted to need "
        f"more than {budget_s:g} s is skipped, its total extrapolated (quadratic fit over "
        "the smaller sizes) and marked `~… (skipped)`. ",
        GC_NOTE,
        stamp_markdown(info),
        "\n",
    ]
    lead = [("calls", lambda m: m.extra["calls"]), ("args per call", lambda m: fmt_bytes(m.size))]
    lead.append(("chunks", lambda m: m.inputs))
    reference = functools.partial(_langchain_row, rows)
    out.append(measurement_table(rows, lead, reference, "LangChain"))
    return "".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; write ``assembler.md`` (+ ``.json``) to ``--out``."""
    ns = arguments(__doc__.splitlines()[0] if __doc__ else "", argv)
    if ns.render:
        data = json.loads((ns.out / "assembler.json").read_text(encoding="utf-8"))
    else:
        info = stamp(command("bench_assembler", ns))
        if ns.tiny:
            calls, sizes = TINY_CALLS, TINY_SIZES
        else:
            calls, sizes = (QUICK_CALLS, QUICK_SIZES) if ns.quick else (CALLS, SIZES)
        with settled(("callstream._assembly", "langchain_core.messages")):
            rows = run(calls, sizes, budget_s=ns.budget, repeats=ns.repeats)
        info["load_average_1m_end"] = load_average()
        data = {"machine": info, "budget_s": ns.budget, "results": [m.as_json() for m in rows]}
    measured = [Measurement.from_json(r) for r in data["results"]]
    text = report(measured, data["machine"], data["budget_s"])
    return write_results(ns.out, "assembler", text, data)


if __name__ == "__main__":
    raise SystemExit(main())
