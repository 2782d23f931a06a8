"""Reading the openai (gpt-oss harmony) and gemma4 families' text is linear in the text:
many calls in one piece, a long argument in small fragments, marker starts one character
at a time, a long garbled header; and a long argument read from text costs a small
multiple of it in memory."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

import callstream
from callstream.tool_parsers import gemma4, get_tool_parser, harmony
from tests.growth.scaling import assert_linear, call, per_char
from tests.growth.test_growth_memory import fragments

pytestmark = pytest.mark.growth


def parse(pieces: list[str], name: str) -> int:
    parser = get_tool_parser(name)
    count = 0
    for piece in pieces:
        count += len(parser.feed(piece))
    return count + len(parser.close())


def many_calls(writer: Callable[..., str]) -> Callable[[int], list[str]]:
    return lambda n: [writer([{"name": "f", "args": {"i": i, "s": "ab"}} for i in range(n // 60)])]


def long_argument(writer: Callable[..., str]) -> Callable[[int], list[str]]:
    return lambda n: list(fragments(writer([{"name": "f", "args": {"s": "word " * (n // 5)}}])))


def nested_gemma(n: int) -> list[str]:
    items = [{"k": i, "t": [True, None, 1.5]} for i in range(n // 40)]
    return list(fragments(gemma4.write([{"name": "f", "args": {"items": items}}])))


def long_header(n: int) -> list[str]:
    return list(fragments("<|channel|>" + "commentary?" * (n // 11) + "<|end|>"))


def marker_starts(marker: str) -> Callable[[int], list[str]]:
    return lambda n: list(f"a{marker}" * (n // (len(marker) + 1)))


CASES: list[tuple[str, Callable[[int], list[str]], str]] = [
    ("harmony: many calls in one piece", many_calls(harmony.write), "openai"),
    ("harmony: a long argument in fragments", long_argument(harmony.write), "openai"),
    ("harmony: a long garbled header", long_header, "openai"),
    ("harmony: marker starts", marker_starts("<|chan"), "openai"),
    ("gemma4: many calls in one piece", many_calls(gemma4.write), "gemma4"),
    ("gemma4: a long argument in fragments", long_argument(gemma4.write), "gemma4"),
    ("gemma4: nested values in fragments", nested_gemma, "gemma4"),
    ("gemma4: marker starts", marker_starts("<|tool_ca"), "gemma4"),
]


@pytest.mark.parametrize(("build", "name"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_reading_text_is_linear(build: Callable[[int], list[str]], name: str) -> None:
    assert_linear(build, lambda pieces: parse(pieces, name), 20_000)


def content(pieces: Iterator[str]) -> Iterator[dict[str, Any]]:
    for piece in pieces:
        yield {"choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}
    yield {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}


@pytest.mark.parametrize(
    ("writer", "name"),
    [(harmony.write, "openai"), (gemma4.write, "gemma4")],
    ids=["openai", "gemma4"],
)
def test_memory_of_a_long_argument_read_from_text(writer: Callable[..., str], name: str) -> None:
    def build(n: int) -> Callable[[], object]:
        pieces = long_argument(writer)(n)
        return lambda: callstream.collect(
            content(iter(pieces)), provider="openai-chat", tool_parser=name
        )

    assert_linear(build, call, 25_000, kind="memory", bound=per_char(8))
