"""Growth checks for the output parsers: time at n and 2n, ratio <= 2.3 (linear).

Each case is timed at a size n and at 2n (best of 3, interleaved, inputs built before
the clock and frozen out of the garbage collector);
a linear cost gives a ratio near 2, a quadratic one near 4. Prints one line per case
and exits non-zero when a ratio is over the limit.

- ``json calls``: ``JsonToolsParser().stream`` over n small calls (raw chunks);
- ``pydantic calls``: ``PydanticToolsParser`` over n small calls;
- ``langchain calls``: ``ToolCallsOutputParser().transform`` over n calls as
  ``AIMessageChunk`` s, no callbacks (with callbacks, LangChain's own run report adds up
  the messages: ``--langchain-only`` times that part alone);

The calls cases raise ``max_calls`` (default 1,000) to None: with the default, every call
past the first 1,000 is only counted (refused), which would time the refusal path.
- ``json open array``: one call whose arguments are an array of n objects (each result
  copies the open array: bounded by ``SNAPSHOT_COPY_FACTOR``);
- ``pydantic growth=0``: ``PydanticToolsParser(min_preview_growth=0)``, one call with a
  list of n items (previews bounded by ``PREVIEW_WORK_FACTOR``).

    python benchmarks/bench_growth_parsers.py           # n as below
    python benchmarks/bench_growth_parsers.py --quick   # smaller n
    python benchmarks/bench_growth_parsers.py --langchain-only   # LangChain's part, info
"""

from __future__ import annotations

import gc
import json
import sys
import time
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from _growth import Check, call
from _growth import main as growth_main

LIMIT = 2.3
REPEATS = 3


class Small(BaseModel):
    a: int
    b: str


class Item(BaseModel):
    n: int
    s: str


class Many(BaseModel):
    items: list[Item]


def _split(text: str, size: int = 4) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def call_chunks(n: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i in range(n):
        out.append({"index": i, "id": f"c{i}", "name": "Small", "args": ""})
        for part in _split(json.dumps({"a": i, "b": "x" * 8})):
            out.append({"index": i, "id": None, "name": None, "args": part})
    return out


def array_chunks(n: int) -> list[dict[str, Any]]:
    text = json.dumps({"items": [{"n": i, "s": "abc"} for i in range(n)]})
    out: list[dict[str, Any]] = [{"index": 0, "id": "a", "name": "Many", "args": ""}]
    out += [{"index": 0, "id": None, "name": None, "args": p} for p in _split(text)]
    return out


def consume(iterator: Any) -> None:
    for _ in iterator:
        pass


def case_json_calls(n: int) -> Callable[[], None]:
    from callstream.parsers import JsonToolsParser

    chunks = call_chunks(n)
    return lambda: consume(JsonToolsParser().stream(chunks, max_calls=None))


def case_pydantic_calls(n: int) -> Callable[[], None]:
    from callstream.parsers import PydanticToolsParser

    chunks = call_chunks(n)
    return lambda: consume(PydanticToolsParser([Small]).stream(chunks, max_calls=None))


def case_langchain_calls(n: int) -> Callable[[], None]:
    from langchain_core.messages import AIMessageChunk

    from callstream.parsers.langchain import ToolCallsOutputParser

    messages = [AIMessageChunk(content="", tool_call_chunks=[c]) for c in call_chunks(n)]
    messages.append(AIMessageChunk(content="", response_metadata={"finish_reason": "stop"}))
    parser = ToolCallsOutputParser(assembler_options={"max_calls": None})
    return lambda: consume(parser.transform(iter(messages)))


def case_langchain_merge(n: int) -> Callable[[], None]:
    """LangChain alone: the addition its run report makes of the input messages (what
    ``transform`` does with a callback handler); no callstream code runs."""
    from langchain_core.messages import AIMessageChunk

    messages = [AIMessageChunk(content="", tool_call_chunks=[c]) for c in call_chunks(n)]
    return lambda: messages[0] + messages[1:]


def case_langchain_traced(n: int) -> Callable[[], None]:
    """``ToolCallsOutputParser().transform`` with a callback handler (LangChain's run)."""
    from langchain_core.callbacks import BaseCallbackHandler
    from langchain_core.messages import AIMessageChunk

    from callstream.parsers.langchain import ToolCallsOutputParser

    messages = [AIMessageChunk(content="", tool_call_chunks=[c]) for c in call_chunks(n)]
    parser = ToolCallsOutputParser(assembler_options={"max_calls": None})
    config: Any = {"callbacks": [BaseCallbackHandler()]}
    return lambda: consume(parser.transform(iter(messages), config))


def case_json_open_array(n: int) -> Callable[[], None]:
    from callstream.parsers import JsonToolsParser

    chunks = array_chunks(n)
    return lambda: consume(JsonToolsParser().stream(chunks))


def case_pydantic_growth_zero(n: int) -> Callable[[], None]:
    from callstream.parsers import PydanticToolsParser

    chunks = array_chunks(n)
    return lambda: consume(PydanticToolsParser([Many], min_preview_growth=0).stream(chunks))


CASES: dict[str, tuple[Callable[[int], Callable[[], None]], int]] = {
    "json calls": (case_json_calls, 10_000),
    "pydantic calls": (case_pydantic_calls, 5_000),
    "langchain calls": (case_langchain_calls, 5_000),
    "json open array": (case_json_open_array, 20_000),
    "pydantic growth=0": (case_pydantic_growth_zero, 20_000),
}


LANGCHAIN_ONLY: dict[str, tuple[Callable[[int], Callable[[], None]], int]] = {
    "LangChain merge": (case_langchain_merge, 1_000),
    "langchain traced": (case_langchain_traced, 1_000),
}
"""Not checked (information): LangChain's own cost, outside callstream's code."""


def best_pair(small: Callable[[], None], large: Callable[[], None]) -> tuple[float, float]:
    """Best of REPEATS for each, the two runs interleaved (a load change on a shared
    machine then hits both sizes alike instead of skewing the ratio)."""
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(REPEATS):
        for run, out in ((small, times[0]), (large, times[1])):
            start = time.perf_counter()
            run()
            out.append(time.perf_counter() - start)
    return min(times[0]), min(times[1])


def checks(quick: bool) -> list[Check]:
    """The checks on the shared harness (CPU time, best of 3; ``quick``: sizes / 5)."""
    scale = 0.2 if quick else 1.0
    return [
        Check(label, "time", make, max(10, int(size * scale)), run=call)
        for label, (make, size) in CASES.items()
    ]


def langchain_only(argv: list[str]) -> int:
    """``--langchain-only``: LangChain's own cost, printed for information, not checked."""
    scale = 0.2 if "--quick" in argv else 1.0
    failed = []
    cases = LANGCHAIN_ONLY if "--langchain-only" in argv else CASES
    for label, (make, size) in cases.items():
        n = max(10, int(size * scale))
        small, large = make(n), make(2 * n)
        gc.collect()
        gc.freeze()  # the inputs are not scanned by the collections made while timing
        try:
            t1, t2 = best_pair(small, large)
        finally:
            gc.unfreeze()
        del small, large
        ratio = t2 / t1 if t1 > 0 else float("inf")
        verdict = "ok" if ratio <= LIMIT else "OVER"
        if cases is not CASES:
            verdict = "(LangChain's cost, not checked)"
        print(
            f"{label:20} n={n:>6}: {t1:8.3f} s   2n={2 * n:>6}: {t2:8.3f} s   "
            f"ratio {ratio:4.2f} {verdict}"
        )
        if ratio > LIMIT and cases is CASES:
            failed.append(label)
    if failed:
        print(f"ratio over {LIMIT}: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    if "--langchain-only" in sys.argv:
        raise SystemExit(langchain_only(sys.argv[1:]))
    raise SystemExit(growth_main(checks, sys.argv[1:], __doc__))
