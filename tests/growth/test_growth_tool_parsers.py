"""Reading calls written in text is linear in the text: many calls in one piece (no copy
of the rest of the piece per call), a long argument in small fragments, text full of
marker starts one character at a time (only the held tail is scanned again), a long run
of whitespace (held in pieces), arguments before the name, ``auto``; and the memory of a
long argument read from text is a small multiple of it, as on the JSON path."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import callstream
from callstream.tool_parsers import get_tool_parser
from callstream.tool_parsers.hermes import write
from tests.growth.scaling import assert_linear, call, per_char
from tests.growth.test_growth_memory import fragments

pytestmark = pytest.mark.growth


def content(pieces: Iterator[str]) -> Iterator[dict[str, Any]]:
    for piece in pieces:
        yield {"choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}
    yield {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}


def parse(pieces: list[str], name: str = "hermes") -> int:
    parser = get_tool_parser(name)
    count = 0
    for piece in pieces:
        count += len(parser.feed(piece))
    return count + len(parser.close())


def many_calls_in_one_piece(n: int) -> list[str]:
    return [write([{"name": "f", "args": {"i": i}} for i in range(n // 30)])]


def a_long_argument(n: int) -> list[str]:
    body = json.dumps({"name": "f", "arguments": {"s": "word " * (n // 5)}})
    return list(fragments(f"<tool_call>{body}</tool_call>"))


def marker_starts(n: int) -> list[str]:
    return list("a<tool_" * (n // 7))


def whitespace(n: int) -> list[str]:
    return ["x", *(" " for _ in range(n)), "y"]


def arguments_first(n: int) -> list[str]:
    body = '{"arguments": ' + json.dumps({"s": "word " * (n // 5)}) + ', "name": "f"}'
    return list(fragments(f"<tool_call>{body}</tool_call>"))


CASES: list[tuple[str, Callable[[int], list[str]], str]] = [
    ("many calls in one piece", many_calls_in_one_piece, "hermes"),
    ("a long argument in fragments", a_long_argument, "hermes"),
    ("marker starts a character at a time", marker_starts, "hermes"),
    ("a long run of whitespace", whitespace, "hermes"),
    ("arguments before the name", arguments_first, "hermes"),
    ("auto, many calls", many_calls_in_one_piece, "auto"),
]


@pytest.mark.parametrize(("build", "name"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_reading_text_is_linear(build: Callable[[int], list[str]], name: str) -> None:
    assert_linear(build, lambda pieces: parse(pieces, name), 20_000)


def test_collect_with_a_tool_parser_is_linear() -> None:
    assert_linear(
        a_long_argument,
        lambda pieces: callstream.collect(
            content(iter(pieces)), provider="openai-chat", tool_parser="hermes"
        ),
        20_000,
    )


def test_memory_of_a_long_argument_read_from_text() -> None:
    def build(n: int) -> Callable[[], object]:
        pieces = a_long_argument(n)
        return lambda: callstream.collect(
            content(iter(pieces)), provider="openai-chat", tool_parser="hermes"
        )

    assert_linear(build, call, 25_000, kind="memory", bound=per_char(8))  # 3.4
