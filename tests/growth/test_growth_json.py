"""The partial-JSON parser on hostile input grows linearly: deep nesting (memory with
every change kept: paths are shared; time), many deep parsers (memory), long numbers fed
in 4-character fragments (continued, not rescanned; an integer left open, since
``int()`` of n digits is itself quadratic in CPython), a long string for comparison."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from callstream._json import PartialJSONParser
from tests.growth.scaling import Measure, assert_linear

pytestmark = pytest.mark.growth


def _split(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def deep_fragments(n: int) -> tuple[int, list[str]]:
    """``"[" * n + "]" * n`` in 7-character fragments (with n, for ``max_depth``)."""
    return n, _split("[" * n + "]" * n, 7)


def deep_feed_kept(given: tuple[int, list[str]]) -> list[object]:
    n, fragments = given
    parser = PartialJSONParser(max_depth=n + 1)
    kept: list[object] = []
    for fragment in fragments:
        kept.extend(parser.feed(fragment))
    kept.append(parser.close())
    return kept


def deep_feed(given: tuple[int, list[str]]) -> object:
    n, fragments = given
    parser = PartialJSONParser(max_depth=n + 1)
    for fragment in fragments:
        parser.feed(fragment)
    return parser.close()


def many_deep(opening: str) -> list[object]:
    parsers: list[object] = []
    for _ in range(50):
        parser = PartialJSONParser(max_depth=len(opening) + 1)
        parser.feed(opening)
        parsers.append(parser)
    return parsers


def number_fragments(template: str) -> Callable[[int], list[str]]:
    """The template with n fives in it, in 4-character fragments."""
    return lambda n: _split(template.format("5" * n), 4)


def feed(*, close: bool = True) -> Callable[[list[str]], object]:
    def run(fragments: list[str]) -> object:
        parser = PartialJSONParser()
        for fragment in fragments:
            parser.feed(fragment)
        return parser.close() if close else parser

    return run


@pytest.fixture
def long_numbers() -> Iterator[None]:
    """Lift Python's digit limit: the numbers' scanning cost is what is measured."""
    old_limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(old_limit)


INTEGER = number_fragments('{{"n": 1{}')

CASES: list[tuple[str, Measure, Callable[[int], Any], Callable[[Any], object], int]] = [
    ("deep nesting, changes kept", "memory", deep_fragments, deep_feed_kept, 2_000),
    ("deep nesting", "time", deep_fragments, deep_feed, 1_000),
    ("50 parsers each fed [ * n", "memory", "[".__mul__, many_deep, 100),
    ("float 1.5…5 (n digits)", "time", number_fragments("1.{}"), feed(), 8_000),
    ("integer 15…5 (n digits), left open", "time", INTEGER, feed(close=False), 8_000),
    ('string "5…5" (n chars), for comparison', "time", number_fragments('"{}"'), feed(), 8_000),
]


@pytest.mark.usefixtures("long_numbers")
@pytest.mark.parametrize(
    ("kind", "build", "run", "n"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_parser_grows_linearly(
    kind: Measure, build: Callable[[int], Any], run: Callable[[Any], object], n: int
) -> None:
    assert_linear(build, run, n, kind=kind)
