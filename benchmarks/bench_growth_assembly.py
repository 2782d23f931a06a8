"""Growth checks for the assembler under hostile input: time (or memory) at n and 2n.

Each check feeds a stream of size n and 2n through a ToolCallAssembler, reading the views
a driver reads after every payload (``tool_calls``, ``invalid_tool_calls``,
``server_tool_calls``), and prints the ratio; linear cost gives about 2, quadratic 4. The
script exits non-zero if a ratio is over 2.3 (harness: ``_growth.py``).

    python benchmarks/bench_growth_assembly.py            # full sizes
    python benchmarks/bench_growth_assembly.py --quick    # smaller sizes (smoke run)
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from _growth import Check, Measure, main
from callstream._assembly import ServerToolUse, ToolCallAssembler

Stream = list[Any]


def many_calls(n: int) -> Stream:
    """n calls one after another, OpenAI style: a starting chunk, then two text pieces."""
    out: Stream = []
    for i in range(n):
        out.append({"index": i, "id": f"call_{i}", "name": "get_weather", "args": ""})
        out.append({"index": i, "id": None, "name": None, "args": '{"city": '})
        out.append({"index": i, "id": None, "name": None, "args": f'"Paris {i}"}}'})
    return out


def many_malformed_calls(n: int) -> Stream:
    """n calls, each listed in tool_calls first, then turned invalid by malformed text."""
    out: Stream = []
    for i in range(n):
        out.append({"index": i, "id": f"call_{i}", "name": "f", "args": "{"})
        out.append({"index": i, "id": None, "name": None, "args": "oops"})
    return out


def many_server_calls(n: int) -> Stream:
    """n server-side tool calls (marked right after their first chunk) streaming text."""
    out: Stream = []
    for i in range(n):
        out.append({"index": i, "id": f"srv_{i}", "name": "web_search", "args": ""})
        out.append(ServerToolUse(index=i))
        out.append({"index": i, "id": None, "name": None, "args": '{"query": '})
        out.append({"index": i, "id": None, "name": None, "args": f'"q {i}"}}'})
    return out


def long_invalid_call(size: int) -> Stream:
    """One call invalid from its second character that keeps streaming 4-character pieces."""
    out: Stream = [{"index": 0, "id": "a", "name": "f", "args": "{x"}]
    piece = "abcd"
    out.extend({"index": 0, "id": None, "name": None, "args": piece} for _ in range(size // 4))
    return out


def consume(stream: Stream, options: dict[str, Any]) -> ToolCallAssembler:
    asm = ToolCallAssembler(**options)
    apply = asm.apply
    for signal in stream:
        apply(signal)
        asm.tool_calls
        asm.invalid_tool_calls
        asm.server_tool_calls
    asm.finish()
    return asm


def check(
    name: str, build: Callable[[int], Stream], n: int, options: dict[str, Any], measure: Measure
) -> Check:
    return Check(name, measure, build, n, run=lambda stream: consume(stream, options))


def checks(quick: bool) -> list[Check]:
    """The checks (``quick``: the large sizes divided by 4)."""
    k = 4 if quick else 1
    return [
        check("calls within max_calls", many_calls, 500, {}, "time"),
        check("calls past max_calls=100", many_calls, 20_000 // k, {"max_calls": 100}, "time"),
        check("calls past max_calls=100", many_calls, 20_000 // k, {"max_calls": 100}, "memory"),
        check("calls past default max_calls", many_calls, 20_000 // k, {}, "time"),
        check("malformed calls within max_calls", many_malformed_calls, 500, {}, "time"),
        check("malformed calls past max_calls", many_malformed_calls, 20_000 // k, {}, "time"),
        check("server calls within max_calls", many_server_calls, 500, {}, "time"),
        check("server calls past max_calls", many_server_calls, 20_000 // k, {}, "time"),
        check("invalid call streaming (chars)", long_invalid_call, 640_000 // k, {}, "time"),
    ]


if __name__ == "__main__":
    raise SystemExit(main(checks, sys.argv[1:], __doc__))
