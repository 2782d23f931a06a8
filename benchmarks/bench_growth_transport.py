"""Growth check for the raw transport decoders: time and memory at n and 2n.

Cases: one long SSE line (one event of n characters, fed in 4 KiB chunks), many small
SSE events, one long NDJSON object, many lines from a line iterator (httpx shape), and
an unterminated line cut off by ``max_event_chars`` (peak memory at limit L and 2L).
Each ratio (2n over n) must stay <= 2.3: decoding is linear and buffering O(limit).

Run: ``python benchmarks/bench_growth_transport.py``; exits 1 if a ratio is over 2.3.
"""

from __future__ import annotations

import gc
import json
import sys
import time
import tracemalloc
from collections.abc import Callable

from callstream import StreamLimitError
from callstream.providers.transport import TransportDecoder

LIMIT = 2.3
CHUNK = 4096


def _chunks(text: str) -> list[str]:
    return [text[i : i + CHUNK] for i in range(0, len(text), CHUNK)]


def long_line(n: int) -> list[str]:
    return _chunks('data: {"a": "' + "x" * n + '"}\n\n')


def many_events(n: int) -> list[str]:
    event = 'data: {"choices": [{"index": 0, "delta": {"content": "hi"}}]}\n\n'
    return _chunks(event * (n // len(event)))


def long_object(n: int) -> list[str]:
    return _chunks(json.dumps({"a": "x" * n}) + "\n")


def many_lines(n: int) -> list[str]:
    line = 'data: {"choices": [{"index": 0, "delta": {"content": "hi"}}]}'
    return [line, ""] * (n // len(line))


def run(chunks: list[str], limit: int | None = None) -> None:
    decoder = TransportDecoder() if limit is None else TransportDecoder(max_event_chars=limit)
    try:
        for chunk in chunks:
            decoder.feed(chunk)
        decoder.close()
    except StreamLimitError:
        pass


def measure(
    make: Callable[[int], list[str]], n: int, limit: int | None = None
) -> tuple[float, int]:
    """Best-of-5 time (GC off, as timeit does) and the peak memory traced while decoding
    (the input excluded)."""
    chunks = make(n)
    best = float("inf")
    for _ in range(5):
        gc.collect()
        gc.disable()
        start = time.perf_counter()
        run(chunks, limit)
        best = min(best, time.perf_counter() - start)
        gc.enable()
    gc.collect()
    tracemalloc.start()
    run(chunks, limit)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return best, peak


def main() -> int:
    failed = False
    n = 2_000_000
    cases: list[tuple[str, Callable[[int], list[str]]]] = [
        ("long SSE line", long_line),
        ("many SSE events", many_events),
        ("long NDJSON object", long_object),
        ("many lines (line iterator)", many_lines),
    ]
    print(f"{'case':34} {'n':>9} {'time 2n/n':>10} {'memory 2n/n':>12}")
    for name, make in cases:
        t1, m1 = measure(make, n)
        t2, m2 = measure(make, 2 * n)
        tr, mr = t2 / t1, m2 / max(m1, 1)
        bad = tr > LIMIT or mr > LIMIT
        failed |= bad
        print(f"{name:34} {n:>9} {tr:>10.2f} {mr:>12.2f}{'  OVER' if bad else ''}")
    # An unterminated line of 4n characters against a limit of L and 2L: memory O(limit).
    limit = 1_000_000
    text = "data: " + "x" * (8 * limit)
    flood = [text[i : i + CHUNK].encode() for i in range(0, len(text), CHUNK)]  # bytes: decoded
    gc.collect()
    tracemalloc.start()
    run(flood, limit)
    p1 = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    tracemalloc.start()
    run(flood, 2 * limit)
    p2 = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    ratio = p2 / max(p1, 1)
    bounded = p1 < 4 * limit  # well under the 8L characters sent (1 byte each, as str)
    bad = ratio > LIMIT or not bounded
    failed |= bad
    print(
        f"{'unterminated line, limit L vs 2L':34} {limit:>9} {'':>10} {ratio:>12.2f}"
        f"  (peak {p1 / 1e6:.1f} MB for L={limit} chars){'  OVER' if bad else ''}"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
