"""Growth checks for the assembler under hostile input: time (or memory) at n and 2n.

Each check feeds a stream of size n and 2n through a ToolCallAssembler, reading the views
a driver reads after every payload (``tool_calls``, ``invalid_tool_calls``,
``server_tool_calls``), and prints the ratio; linear cost gives about 2, quadratic 4. The
script exits non-zero if a ratio is over 2.3.

    python benchmarks/bench_growth_assembly.py            # full sizes
    python benchmarks/bench_growth_assembly.py --quick    # smaller sizes (smoke run)
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

from callstream._assembly import ServerToolUse, ToolCallAssembler

LIMIT = 2.3
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


def seconds(stream: Stream, options: dict[str, Any], repeats: int) -> float:
    """CPU seconds of one pass (best of ``repeats``; short streams are run in a loop of
    at least 0.2 s per measurement, so that one preemption does not decide the ratio)."""
    loops = 1
    start = time.process_time()
    consume(stream, options)
    once = time.process_time() - start
    if once < 0.2:
        loops = max(1, int(0.2 / max(once, 1e-4)))
    best = float("inf")
    for _ in range(repeats):
        gc.collect()
        start = time.process_time()
        for _ in range(loops):
            consume(stream, options)
        best = min(best, (time.process_time() - start) / loops)
    return best


def peak_bytes(stream: Stream, options: dict[str, Any]) -> float:
    gc.collect()
    tracemalloc.start()
    asm = consume(stream, options)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del asm
    return float(peak)


Check = tuple[str, Callable[[int], Stream], int, dict[str, Any], str]


def checks(quick: bool) -> list[Check]:
    k = 4 if quick else 1
    return [
        ("calls within max_calls", many_calls, 500, {}, "time"),
        ("calls past max_calls=100", many_calls, 20_000 // k, {"max_calls": 100}, "time"),
        ("calls past max_calls=100", many_calls, 20_000 // k, {"max_calls": 100}, "memory"),
        ("calls past default max_calls", many_calls, 20_000 // k, {}, "time"),
        ("malformed calls within max_calls", many_malformed_calls, 500, {}, "time"),
        ("malformed calls past max_calls", many_malformed_calls, 20_000 // k, {}, "time"),
        ("server calls within max_calls", many_server_calls, 500, {}, "time"),
        ("server calls past max_calls", many_server_calls, 20_000 // k, {}, "time"),
        ("invalid call streaming (chars)", long_invalid_call, 640_000 // k, {}, "time"),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes")
    parser.add_argument("--repeats", type=int, default=3, help="passes per size (best taken)")
    ns = parser.parse_args(argv)
    worst = 0.0
    print(f"{'check':34} {'n':>8} {'at n':>12} {'at 2n':>12} {'ratio':>6}")
    for name, build, n, options, kind in checks(ns.quick):
        small, large = build(n), build(2 * n)
        if kind == "time":
            a = seconds(small, options, ns.repeats)
            b = seconds(large, options, ns.repeats)
            shown = f"{a * 1e3:10.1f}ms {b * 1e3:10.1f}ms"
        else:
            a = peak_bytes(small, options)
            b = peak_bytes(large, options)
            shown = f"{a / 1e6:10.2f}MB {b / 1e6:10.2f}MB"
        ratio = b / a
        worst = max(worst, ratio)
        flag = "" if ratio <= LIMIT else "  OVER"
        print(f"{name + ' (' + kind + ')':34} {n:>8} {shown} {ratio:6.2f}{flag}")
    print(f"worst ratio {worst:.2f} (limit {LIMIT})")
    return 0 if worst <= LIMIT else 1


if __name__ == "__main__":
    sys.exit(main())
