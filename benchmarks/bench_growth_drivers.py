"""Growth checks for the drivers' contract: each cost measured at n and 2n, ratio <= 2.3.

- ``StreamUpdate.snapshot()``: O(size of the arguments) -- wide and deeply nested args.
- ``ToolCallAssembler.interrupt()``: O(number of calls).
- ``collect()`` with a source that fails at the end (the interrupt path): O(payloads).

Run: ``python benchmarks/bench_growth_drivers.py``. Prints the ratios; exits 1 if any is
over the limit.
"""

from __future__ import annotations

import functools
import gc
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

import callstream
from callstream import ToolCallAssembler

LIMIT = 2.3


def best(setup: Callable[[int], Callable[[], object]], n: int, repeat: int = 9) -> float:
    """Best CPU seconds (``process_time``: other processes' load does not count) of the
    callable ``setup(n)`` returns, over ``repeat`` runs and at least 0.3 s of runs
    (setup not timed, the collector paused as in ``timeit``)."""
    times: list[float] = []
    while len(times) < repeat or sum(times) < 0.3:
        run = setup(n)
        gc.collect()
        gc.disable()  # the collector's passes depend on the whole heap, not on n
        try:
            start = time.process_time()
            run()
            times.append(time.process_time() - start)
        finally:
            gc.enable()
        if len(times) >= 200:
            break
    return min(times)


def chunk(index: int, name: str | None, args: str) -> dict[str, Any]:
    entry = {"index": index, "id": f"c{index}" if name else None}
    entry["function"] = {"name": name, "arguments": args}
    return {
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": {"tool_calls": [entry]}}],
    }


def last_update(text: str, **options: Any) -> callstream.StreamUpdate:
    pieces = [text[i : i + 4096] for i in range(0, len(text), 4096)]
    payloads = [chunk(0, "f", ""), *(chunk(0, None, p) for p in pieces)]
    *_, update = callstream.stream(payloads, provider="openai-chat", **options)
    return update


@functools.cache  # snapshot() does not change the update: build it once per size
def snapshot_wide(n: int) -> Callable[[], object]:
    text = "{" + ", ".join(f'"k{i}": [{i}, {{"v": "x{i}"}}]' for i in range(n)) + "}"
    update = last_update(text)
    return update.snapshot


@functools.cache
def snapshot_deep(n: int) -> Callable[[], object]:
    text = '{"a": ' + "[" * n + "]" * n + "}"
    update = last_update(text, max_depth=n + 10)
    return update.snapshot


def interrupt_calls(n: int) -> Callable[[], object]:
    asm = ToolCallAssembler()
    for i in range(n):
        asm.feed(
            {"index": i, "id": f"c{i}", "name": "f", "args": '{"a": 1' + ("}" if i % 2 else "")}
        )
    return lambda: asm.interrupt("gone")


def collect_failing(n: int) -> Callable[[], object]:
    payloads = [chunk(0, "f", "")] + [
        chunk(0, None, '{"a": "' if i == 0 else "x") for i in range(n)
    ]

    def source() -> Iterator[Any]:
        yield from payloads
        raise ConnectionError("gone")

    def run() -> object:
        try:
            callstream.collect(source(), provider="openai-chat")
        except ConnectionError as exc:
            return exc
        raise AssertionError("the source error must propagate")

    return run


CHECKS: list[tuple[str, Callable[[int], Callable[[], object]], int]] = [
    ("snapshot, wide args (n keys)", snapshot_wide, 8_000),
    ("snapshot, deep args (depth n)", snapshot_deep, 20_000),
    ("interrupt (n calls)", interrupt_calls, 5_000),
    ("collect, source fails at the end (n payloads)", collect_failing, 5_000),
]


def main() -> int:
    worst = 0.0
    for label, setup, n in CHECKS:
        small, large = best(setup, n), best(setup, 2 * n)
        ratio = large / small
        worst = max(worst, ratio)
        flag = "ok" if ratio <= LIMIT else "OVER"
        timing = f"{small * 1e3:8.2f} ms  2n: {large * 1e3:8.2f} ms"
        print(f"{label:46s} n={n:>6}: {timing}  ratio {ratio:4.2f} {flag}")
    return 0 if worst <= LIMIT else 1


if __name__ == "__main__":
    sys.exit(main())
