"""The raw transport decoder grows linearly in time and memory: one long SSE line (fed in
4 KiB chunks), many small SSE events, one long NDJSON object, many lines from a line
iterator (httpx's shape); an unterminated line cut off by ``max_event_chars`` keeps its
memory O(limit), under 4x the limit."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable

import pytest

from callstream import StreamLimitError
from callstream.providers.transport import TransportDecoder
from tests.growth.scaling import K, Measure, assert_linear

pytestmark = pytest.mark.growth

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


def decode(chunks: list[str] | list[bytes], limit: int | None = None) -> None:
    decoder = TransportDecoder() if limit is None else TransportDecoder(max_event_chars=limit)
    try:
        for chunk in chunks:
            decoder.feed(chunk)
        decoder.close()
    except StreamLimitError:
        pass


CASES: list[tuple[str, Callable[[int], list[str]], int, bool]] = [
    ("long SSE line", long_line, 400_000, False),
    ("many SSE events", many_events, 100_000, True),  # memory: one event at a time
    ("long NDJSON object", long_object, 400_000, False),
    ("many lines (line iterator)", many_lines, 100_000, True),
]


@pytest.mark.parametrize("kind", ["time", "memory"])
@pytest.mark.parametrize(("build", "n", "flat"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_decoding_grows_linearly(
    build: Callable[[int], list[str]], n: int, flat: bool, kind: Measure
) -> None:
    assert_linear(build, decode, n, kind=kind, flat=flat and kind == "memory")


@functools.cache
def flood(limit: int) -> list[bytes]:
    """An unterminated line of ``8 * limit`` characters, as 4 KiB byte chunks."""
    text = "data: " + "x" * (8 * limit)
    return [text[i : i + CHUNK].encode() for i in range(0, len(text), CHUNK)]


def test_cut_off_line_memory_follows_the_limit() -> None:
    """The same line of 8L characters (past both limits) against a limit of L, then K*L."""
    limit = 50_000
    line = flood(K * limit)

    def bounded(size: int, peak: float) -> str | None:
        return None if peak < 4 * size else f"peak {peak / 1e6:.1f} MB >= 4 x limit {size:,}"

    assert_linear(
        lambda size: size, lambda size: decode(line, size), limit, kind="memory", bound=bounded
    )
