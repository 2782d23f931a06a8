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

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pydantic import BaseModel

from _measure import Consumer, Finish, Measurement, Series, Step, have, settled
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


def counted(parser: Any) -> list[int]:
    """Count the validations a callstream pydantic parser runs (through its hook)."""
    count = [0]
    original = parser._validate

    def validate(*args: Any, **kwargs: Any) -> Any:
        count[0] += 1
        return original(*args, **kwargs)

    parser._validate = validate
    return count


def consumer(
    label: str, model: type[BaseModel], inputs: Sequence[Any]
) -> tuple[Consumer, list[int], list[int]]:
    """A fresh-per-pass consumer for ``label`` over ``inputs``, its validation counter
    (callstream only) and its counter of results yielded (both of the last pass)."""
    yielded, count = [0], [0]
    if label == OURS_LC:
        from callstream.parsers.langchain import ToolCallsOutputParser

        lc_ours = ToolCallsOutputParser(tools=[model], output="calls")
        count = counted(lc_ours.core())

        def transform() -> Any:  # linear: one call per pass, never stopped
            last, count[0], yielded[0] = None, 0, 0
            for last in lc_ours.transform(iter(inputs)):
                yielded[0] += 1
            return last[0].value if last else None

        return lambda: (None, transform), count, yielded
    if label in (OURS, OURS_EAGER):
        from callstream.parsers import PydanticToolsParser

        growth = 0.0 if label == OURS_EAGER else 0.05
        parser = PydanticToolsParser([model], min_preview_growth=growth)
        count = counted(parser)

        def ours() -> tuple[Step, Finish]:
            session, last = parser.session(), [None]
            yielded[0] = count[0] = 0

            def step(chunk: Any) -> object:
                result = session.feed(chunk)
                if result is not None:
                    last[0], yielded[0] = result, yielded[0] + 1
                return result

            def finish() -> Any:
                final = session.close()
                yielded[0] += final is not None
                result = final if final is not None else last[0]
                return result[0].value if result else None

            return step, finish

        return ours, count, yielded
    from langchain_core.output_parsers.openai_tools import PydanticToolsParser as LCParser
    from langchain_core.outputs import ChatGenerationChunk

    lc = LCParser(tools=[model])

    def theirs() -> tuple[Step, Finish]:  # what its transform does on every chunk
        state: dict[str, Any] = {"acc": None, "parsed": None}
        yielded[0] = 0

        def step(message: Any) -> object:
            gen = ChatGenerationChunk(message=message)
            acc = state["acc"] = gen if state["acc"] is None else state["acc"] + gen
            parsed = lc.parse_result([acc], partial=True)
            if parsed is not None and parsed != state["parsed"]:
                state["parsed"], yielded[0] = parsed, yielded[0] + 1
            return parsed

        return step, lambda: state["parsed"][0] if state["parsed"] else None

    return theirs, count, yielded
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
    args = arguments(__doc__.splitlines()[0] if __doc__ else "", argv)
    labels = [OURS, OURS_EAGER] + ([] if have("langchain_core") else [OURS_LC, LANGCHAIN])
    info = stamp(command("bench_parsers", args))
    rows: list[Measurement] = []
    modules = ("callstream.parsers", "callstream.parsers.langchain", "langchain_core.messages")
    with settled((*modules, "langchain_core.output_parsers.openai_tools")):
        for doc, (model, make_text) in DOCS.items():
            passes = {"budget_s": args.budget, "max_passes": min(args.repeats, REPEATS)}
            series = {label: Series(label, **passes) for label in labels}
            for size in TINY_SIZES if args.tiny else QUICK_SIZES if args.quick else SIZES:
                text = make_text(size)
                expected = model.model_validate_json(text)
                chunks, messages = build_inputs(text, model.__name__)
                for label in labels:
                    log(f"{doc} {fmt_bytes(len(text.encode()))}: {label} ...")
                    inputs = chunks if label in (OURS, OURS_EAGER) else messages
                    make, count, yielded = consumer(label, model, inputs)
                    m = series[label].run(size, make, inputs)
                    if m.status == "measured":
                        assert m.result == expected, f"{label}: final object differs"
                    m.result = None
                    checks = str(count[0]) if label != LANGCHAIN else "one per chunk"
                    m.extra.update(doc=doc, nbytes=len(text.encode()))
                    m.extra["reads"] = f"{yielded[0]} results yielded, validations: {checks}"
                    rows.append(m)
    info["load_average_1m_end"] = load_average()

    def langchain(m: Measurement) -> Measurement | None:
        same = [r for r in rows if r.label == LANGCHAIN and r.extra["doc"] == m.extra["doc"]]
        return next((r for r in same if r.size == m.size), None)

    lead = [("arguments", lambda m: m.extra["doc"]), ("chunks", lambda m: m.inputs)]
    lead.insert(1, ("size", lambda m: fmt_bytes(m.extra["nbytes"])))
    table = measurement_table(rows, lead, langchain, "LangChain")
    notes = f"""
Notes:

- Same chunks for everyone: 4-character argument fragments of one call. callstream's
  ``PydanticToolsParser`` is fed the chunk dicts (its session's ``feed``); the LangChain
  integration (``transform``, one call per pass) and LangChain are fed the same prebuilt
  ``AIMessageChunk`` objects (building them is not timed). LangChain's row does on every
  chunk what its ``transform`` does: add the chunk to the message so far, then parse and
  validate all of it (``parse_result(partial=True)``), yielding when the result changed.
- A pass is timed whole: *total* is the median pass, *per chunk* the median pass over
  the chunks. "results yielded" (the last pass): callstream yields when a preview
  changed (values are validated when they close, never per fragment) and once at the end.
- "~ (stopped)": the pass ran past the {args.budget:g} s budget; its total is
  extrapolated from its own cumulative-time curve (fit ``t = a n + b n^2``), and a
  larger size predicted over the budget is skipped (``~ (skipped)``).
- "validations": the whole-call validations callstream's pydantic parser runs through its
  validation hook (the final, strict one per call); a stopped run counts those before it
  stopped. Previews are the partial objects of ``callstream.partial``: each value is
  validated when it closes, within ``VALIDATION_WORK_FACTOR`` times the text, and each
  preview handed out is a copy of the open containers, within ``PREVIEW_WORK_FACTOR``.
- ``min_preview_growth=0`` copies a preview after every chunk that changed it, as long as
  the copying bound allows; the default (5% growth between previews) copies fewer.
- Every completed run's final object equals ``Model.model_validate_json(text)``.
"""
    text = "# Pydantic tools parsers: one large streamed argument\n\n" + stamp_markdown(info)
    return write_results(args.out, "parsers", text + "\n" + table + notes)


if __name__ == "__main__":
    raise SystemExit(main())
