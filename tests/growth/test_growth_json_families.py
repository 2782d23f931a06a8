"""Reading the JSON-call families (granite, phi4_mini_json, jamba, internlm, cohere, xlam)
is linear in the text: many calls in one piece, many fenced lists in one piece, a long
argument in small fragments, a long run of white space where a list may start."""

from __future__ import annotations

import json
from collections.abc import Callable
from types import ModuleType

import pytest

from callstream.tool_parsers import (
    cohere,
    get_tool_parser,
    granite,
    internlm,
    jamba,
    phi4_mini,
    xlam,
)
from tests.growth.scaling import assert_linear
from tests.growth.test_growth_memory import fragments

pytestmark = pytest.mark.growth

WRITERS: dict[str, ModuleType] = {
    "granite": granite,
    "phi4_mini_json": phi4_mini,
    "jamba": jamba,
    "internlm": internlm,
    "cohere": cohere,
    "xlam": xlam,
}


def parse(pieces: list[str], name: str) -> int:
    parser = get_tool_parser(name)
    count = 0
    for piece in pieces:
        count += len(parser.feed(piece))
    return count + len(parser.close())


def many_calls(name: str) -> Callable[[int], list[str]]:
    def build(n: int) -> list[str]:
        calls = [{"name": "f", "args": {"i": i}} for i in range(n // 30)]
        return [WRITERS[name].write(calls, text="t")]

    return build


def a_long_argument(name: str) -> Callable[[int], list[str]]:
    def build(n: int) -> list[str]:
        raw = WRITERS[name].write([{"name": "f", "args": {"s": "word " * (n // 5)}}], text="t")
        return list(fragments(raw))

    return build


def many_fences(n: int) -> list[str]:
    block = "x\n```json\n" + json.dumps([{"name": "f", "arguments": {}}]) + "\n```\n"
    return [block * (n // len(block))]


def leading_whitespace(n: int) -> list[str]:
    return [*(" " for _ in range(n)), "[", *(" " for _ in range(n)), "1]"]


CASES = [
    *((f"{name}: many calls in one piece", many_calls(name), name) for name in WRITERS),
    *((f"{name}: a long argument in fragments", a_long_argument(name), name) for name in WRITERS),
    ("xlam: many fenced lists in one piece", many_fences, "xlam"),
    ("xlam: white space where a list may start", leading_whitespace, "xlam"),
]


@pytest.mark.parametrize(("build", "name"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_reading_text_is_linear(build: Callable[[int], list[str]], name: str) -> None:
    assert_linear(build, lambda pieces: parse(pieces, name), 20_000)
