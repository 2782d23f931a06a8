"""Pydantic tools parsers side by side: streaming one large argument into a pydantic model.

One tool call whose arguments are about 10 KB and 100 KB of JSON, cut into 4-character
fragments (one ``tool_call_chunk`` per fragment, as providers stream them), goes through:

- callstream ``PydanticToolsParser([Model]).stream(chunks)`` (default settings: previews
  validated when values close, at most once per 5% of growth), fed the chunk dicts;
- the same with ``min_preview_growth=0`` (a preview validation after every chunk in which
  a value closed), to show what the growth rule buys;
- callstream ``ToolCallsOutputParser(tools=[Model], output="calls")`` — the LangChain
  integration — fed the same ``AIMessageChunk`` objects as LangChain;
- LangChain ``PydanticToolsParser(tools=[Model])`` in streaming (partial) mode:
  ``parser.transform(messages)``, which adds every chunk to the message so far and
  parses and validates all of it again.

Two argument shapes: ``records`` (a list of ~125-byte objects, so values close every few
fragments) and ``long string`` (one string field). Inputs are built before the clock
starts; every library's final object must equal the model validated from the original
text (asserted when the run completes). A run still going after the budget (default 60 s)
is stopped and its total extrapolated from its own cumulative-time curve (least squares
``t = a n + b n^2``), marked ``~ (stopped)``. Ratios are LangChain's total / ours.

    python benchmarks/bench_parsers.py            # full run -> benchmarks/results/parsers.md
    python benchmarks/bench_parsers.py --quick    # smoke run (2 KB)
    python benchmarks/bench_parsers.py --tiny     # the test suite's smoke run (512 B)
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pydantic import BaseModel

from _measure import fit_quadratic, have, settled
from _report import (
    arguments,
    fmt_bytes,
    fmt_ns,
    fmt_ratio,
    fmt_s,
    load_average,
    log,
    machine,
    machine_markdown,
    markdown_table,
    write_text,
)
from _streams import fragments, long_string_document, structured_document

SIZES = (10 << 10, 100 << 10)
QUICK_SIZES = (2 << 10,)
TINY_SIZES = (512,)
REPEATS = 3


class Meta(BaseModel):
    created: str
    score: float
    note: str | None


class Item(BaseModel):
    id: int
    name: str
    price: float
    qty: int
    tags: list[str]
    active: bool
    meta: Meta


class Inventory(BaseModel):
    """Records: the arguments of ``_streams.structured_document``."""

    items: list[Item]


class WriteFile(BaseModel):
    """One long string: the arguments of ``_streams.long_string_document``."""

    content: str


DOCS: dict[str, tuple[type[BaseModel], Callable[[int], str]]] = {
    "records": (Inventory, structured_document),
    "long string": (WriteFile, long_string_document),
}

OURS = "callstream PydanticToolsParser"
OURS_EAGER = "callstream, min_preview_growth=0"
OURS_LC = "callstream ToolCallsOutputParser (LangChain chunks)"
LANGCHAIN = "LangChain PydanticToolsParser (streaming)"


@dataclass
class Run:
    """One timed run of a library over one document."""

    label: str
    total_s: float
    inputs: int
    done: int
    yielded: int
    final: Any
    validations: int | None = None

    @property
    def stopped(self) -> bool:
        return self.done < self.inputs


class Feeder:
    """Hands out the inputs, records (inputs handed out, seconds), stops at the deadline."""

    def __init__(self, inputs: Sequence[Any], deadline_s: float | None) -> None:
        self.inputs = inputs
        self.deadline_s = deadline_s
        self.done = 0
        self.curve: list[tuple[float, float]] = []
        self.start = time.perf_counter()
        self.every = max(1, len(inputs) // 200)

    def __iter__(self) -> Iterator[Any]:
        self.start = time.perf_counter()
        for i, item in enumerate(self.inputs):
            if i % self.every == 0:
                elapsed = time.perf_counter() - self.start
                self.curve.append((float(i), elapsed))
                if self.deadline_s is not None and elapsed > self.deadline_s:
                    return
            self.done = i + 1
            yield item


def counted(parser: Any) -> list[int]:
    """Count the validations a callstream pydantic parser runs (through its hook)."""
    count = [0]
    original = parser._validate

    def validate(*args: Any, **kwargs: Any) -> Any:
        count[0] += 1
        return original(*args, **kwargs)

    parser._validate = validate
    return count


def timed(
    label: str,
    make: Callable[[Iterator[Any]], Iterator[Any]],
    inputs: Sequence[Any],
    budget: float,
    count: list[int] | None,
) -> Run:
    """Consume ``make(feeder)`` to the end; extrapolate the total if the feeder stopped."""
    before = count[0] if count is not None else 0
    feeder = Feeder(inputs, budget)
    yielded = 0
    last: Any = None
    t0 = time.perf_counter()
    for result in make(iter(feeder)):
        yielded += 1
        last = result
    total = time.perf_counter() - t0
    if feeder.done < len(inputs):
        fit = fit_quadratic(feeder.curve)
        total = fit(float(len(inputs)))
    validations = count[0] - before if count is not None else None
    return Run(label, total, len(inputs), feeder.done, yielded, last, validations)


def final_value(label: str, result: Any) -> Any:
    """The validated object in a library's last result."""
    if label == LANGCHAIN:
        return result[0] if result else None
    return result[0].value if result else None


def measure(
    label: str,
    model: type[BaseModel],
    chunks: list[dict[str, Any]],
    messages: list[Any],
    budget: float,
    repeats: int,
) -> Run:
    if label in (OURS, OURS_EAGER):
        from callstream.parsers import PydanticToolsParser

        growth = 0.0 if label == OURS_EAGER else 0.05
        parser = PydanticToolsParser([model], min_preview_growth=growth)
        count: list[int] | None = counted(parser)
        make: Callable[[Iterator[Any]], Iterator[Any]] = parser.stream
        inputs: Sequence[Any] = chunks
    elif label == OURS_LC:
        from callstream.parsers.langchain import ToolCallsOutputParser

        lc_ours = ToolCallsOutputParser(tools=[model], output="calls")
        count = counted(lc_ours.core())
        make, inputs = lc_ours.transform, messages
    else:
        from langchain_core.output_parsers.openai_tools import PydanticToolsParser as LCParser

        lc = LCParser(tools=[model])
        count = None
        make, inputs = lc.transform, messages
    runs = [timed(label, make, inputs, budget, count)]
    while len(runs) < repeats and not runs[-1].stopped and sum(r.total_s for r in runs) < budget:
        runs.append(timed(label, make, inputs, budget, count))
    best = sorted(runs, key=lambda r: r.total_s)[len(runs) // 2]
    best.total_s = statistics.median(r.total_s for r in runs)
    return best


def build_inputs(text: str, name: str) -> tuple[list[dict[str, Any]], list[Any]]:
    chunks = [{"name": name, "args": "", "id": "call_1", "index": 0, "type": "tool_call_chunk"}]
    chunks += [
        {"name": None, "args": f, "id": None, "index": 0, "type": "tool_call_chunk"}
        for f in fragments(text)
    ]
    messages: list[Any] = []
    if not have("langchain_core"):
        from langchain_core.messages import AIMessageChunk

        messages = [AIMessageChunk(content="", tool_call_chunks=[dict(ch)]) for ch in chunks]
        messages.append(
            AIMessageChunk(content="", response_metadata={"finish_reason": "tool_calls"})
        )
    return chunks, messages


def main(argv: Sequence[str] | None = None) -> int:
    with settled(
        (
            "callstream.parsers",
            "callstream.parsers.langchain",
            "langchain_core.messages",
            "langchain_core.output_parsers.openai_tools",
        )
    ):
        return _main(argv)


def _main(argv: Sequence[str] | None) -> int:
    args = arguments(__doc__.splitlines()[0] if __doc__ else "", argv)
    budget = args.budget if args.budget is not None else (2.0 if args.quick else 60.0)
    repeats = min(args.repeats, REPEATS) if args.repeats is not None else REPEATS
    sizes = TINY_SIZES if args.tiny else QUICK_SIZES if args.quick else SIZES
    labels = [OURS, OURS_EAGER]
    missing = have("langchain_core")
    if not missing:
        labels += [OURS_LC, LANGCHAIN]
    rows: list[list[object]] = []
    info = machine()
    for doc, (model, make_text) in DOCS.items():
        for size in sizes:
            text = make_text(size)
            expected = model.model_validate_json(text)
            chunks, messages = build_inputs(text, model.__name__)
            runs: dict[str, Run] = {}
            for label in labels:
                log(f"{doc} {fmt_bytes(len(text.encode()))}: {label} ...")
                run = measure(label, model, chunks, messages, budget, repeats)
                if not run.stopped:
                    got = final_value(label, run.final)
                    assert got == expected, f"{label}: final object differs"
                runs[label] = run
            theirs = runs.get(LANGCHAIN)
            for label, run in runs.items():
                total = f"~{fmt_s(run.total_s)} (stopped)" if run.stopped else fmt_s(run.total_s)
                ratio = "—"
                if theirs is not None and label != LANGCHAIN:
                    ratio = fmt_ratio(run.total_s, theirs.total_s, estimated=theirs.stopped)
                yielded = (
                    f"{run.yielded} (of {run.done} chunks fed)" if run.stopped else str(run.yielded)
                )
                checks = (
                    str(run.validations)
                    if run.validations is not None
                    else "one per chunk, after re-parsing all text"
                )
                rows.append(
                    [
                        doc,
                        fmt_bytes(len(text.encode())),
                        len(chunks),
                        label,
                        total,
                        fmt_ns(run.total_s / run.inputs * 1e9),
                        yielded,
                        checks,
                        ratio,
                    ]
                )
    command = "python benchmarks/bench_parsers.py" + (" --quick" if args.quick else "")
    if args.tiny:
        command = "python benchmarks/bench_parsers.py --tiny"
    table = markdown_table(
        [
            "arguments",
            "size",
            "chunks",
            "library",
            "total",
            "per chunk",
            "results yielded",
            "validations",
            "vs LangChain",
        ],
        rows,
    )
    notes = f"""
Notes:

- Same chunks for everyone: 4-character argument fragments of one call. callstream's
  ``PydanticToolsParser`` is fed the chunk dicts; the LangChain integration and LangChain
  are fed the same prebuilt ``AIMessageChunk`` objects (building them is not timed).
- "results yielded": how many results each parser produced. callstream yields when a
  preview changed (validation runs when values close, never per fragment) and once at
  the end; LangChain re-parses the accumulated message and validates on every chunk and
  yields when the parsed objects changed.
- "~ (stopped)": the run passed the {budget:g} s budget; its total is extrapolated from
  its own cumulative-time curve (fit ``t = a n + b n^2``). Ratios against a stopped run
  are estimates (marked ``~``).
- "validations": pydantic validations run (previews and the final one), counted through
  callstream's validation hook; a stopped run counts those before it stopped.
- ``min_preview_growth=0`` validates a preview after every chunk in which a value closed:
  each validation is O(size), so with many small values the total grows quadratically;
  the default (5% growth between preview validations) keeps it linear.
- Every completed run's final object equals ``Model.model_validate_json(text)``.
{"- LangChain not installed: its rows are missing." if missing else ""}
"""
    info["load_average_1m_end"] = load_average()
    out = write_text(
        args.out / "parsers.md",
        "# Pydantic tools parsers: one large streamed argument\n\n"
        + machine_markdown(info, command)
        + "\n"
        + table
        + notes,
    )
    print(table)
    log(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
