"""Reading GLM and Kimi calls is linear in the text: many calls in one piece, a long
string value in small fragments (it streams), a long JSON value in fragments (kept until
it ends), marker starts a character at a time."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from callstream.tool_parsers import glm, kimi, kimi_k3
from tests.growth.scaling import assert_linear
from tests.growth.test_growth_memory import fragments
from tests.growth.test_growth_tool_parsers import parse

pytestmark = pytest.mark.growth

WRITERS: dict[str, Callable[..., str]] = {
    "glm45": glm.write45,
    "glm47": glm.write47,
    "kimi_k2": kimi.write,
    "kimi_k3": kimi_k3.write,
}
STARTS = {
    "glm45": "a<arg_",
    "glm47": "a</tool_",
    "kimi_k2": "a<|tool_call",
    "kimi_k3": "a<|close|>arg",
}


def many_calls(family: str) -> Callable[[int], list[str]]:
    write = WRITERS[family]
    return lambda n: [write([{"name": "f", "args": {"i": i, "s": "x"}} for i in range(n // 60)])]


def a_long_string(family: str) -> Callable[[int], list[str]]:
    write = WRITERS[family]
    return lambda n: list(fragments(write([{"name": "f", "args": {"s": "word " * (n // 5)}}])))


def a_long_json_value(family: str) -> Callable[[int], list[str]]:
    write = WRITERS[family]
    return lambda n: list(fragments(write([{"name": "f", "args": {"v": list(range(n // 8))}}])))


def marker_starts(family: str) -> Callable[[int], list[str]]:
    start = STARTS[family]
    write = WRITERS[family]
    # inside a call's string value: the held tail is the reader's
    return lambda n: list(write([{"name": "f", "args": {"s": start * (n // len(start))}}]))


CASES = [
    (f"{family}: {label}", build(family), family)
    for family in WRITERS
    for label, build in (
        ("many calls in one piece", many_calls),
        ("a long string value in fragments", a_long_string),
        ("a long JSON value in fragments", a_long_json_value),
        ("marker starts a character at a time", marker_starts),
    )
]


@pytest.mark.parametrize(("build", "name"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_reading_text_is_linear(build: Callable[[int], list[str]], name: str) -> None:
    assert_linear(build, lambda pieces: parse(pieces, name), 20_000)
