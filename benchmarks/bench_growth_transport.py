"""Growth check for the raw transport decoders: time and memory at n and 2n.

Cases: one long SSE line (one event of n characters, fed in 4 KiB chunks), many small
SSE events, one long NDJSON object, many lines from a line iterator (httpx shape), and
an unterminated line cut off by ``max_event_chars`` (peak memory at limit L and 2L).
Each ratio (2n over n) must stay <= 2.3: decoding is linear and buffering O(limit).

Run: ``python benchmarks/bench_growth_transport.py [--quick]``; exits 1 if a ratio is over
2.3 or the cut-off line's peak is not under 4 x the limit (harness: ``_growth.py``).
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable

from _growth import Check, main, scaled
from callstream import StreamLimitError
from callstream.providers.transport import TransportDecoder

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


def run(chunks: list[str] | list[bytes], limit: int | None = None) -> None:
    decoder = TransportDecoder() if limit is None else TransportDecoder(max_event_chars=limit)
    try:
        for chunk in chunks:
            decoder.feed(chunk)
        decoder.close()
    except StreamLimitError:
        pass


def decode(chunks: list[str]) -> None:
    run(chunks)


@functools.cache
def flood(limit: int) -> list[bytes]:
    """An unterminated line of ``8 * limit`` characters, as 4 KiB byte chunks (decoded)."""
    text = "data: " + "x" * (8 * limit)
    return [text[i : i + CHUNK].encode() for i in range(0, len(text), CHUNK)]


def checks(quick: bool) -> list[Check]:
    """The checks (``quick``: sizes divided by 4): each case in time and in memory."""
    n = scaled(2_000_000, quick)
    cases: list[tuple[str, Callable[[int], list[str]]]] = [
        ("long SSE line", long_line),
        ("many SSE events", many_events),
        ("long NDJSON object", long_object),
        ("many lines (line iterator)", many_lines),
    ]
    out = [
        Check(f"{name}, n chars", measure, make, n, run=decode, repeats=5)
        for name, make in cases
        for measure in ("time", "memory")
    ]
    # The same unterminated line of 8L characters against a limit of L, then 2L: the
    # decoder's memory is O(limit), and well under the characters sent.
    limit = scaled(1_000_000, quick)

    def cut_off(given: tuple[list[bytes], int]) -> None:
        run(*given)

    def bounded(size: int, given: object, peak: float) -> str | None:
        return None if peak < 4 * size else f"peak {peak / 1e6:.1f} MB >= 4 x limit {size:,}"

    out.append(
        Check(
            "unterminated line of 8L chars, limit n = L",
            "memory",
            lambda size: (flood(limit), size),
            limit,
            run=cut_off,
            bound=bounded,
        )
    )
    return out


if __name__ == "__main__":
    raise SystemExit(main(checks, sys.argv[1:], __doc__))
