"""Growth checks for the partial-JSON parser on hostile input: cost at n and at 2n.

Each check measures one cost (memory with ``tracemalloc``, or time as the best of a few
runs) at size n and 2n and prints the ratio; linear cost gives about 2. The script exits
non-zero if any ratio is over 2.3.

- deep nesting, memory: ``"[" * n`` then ``"]" * n`` fed in 7-character fragments with
  every change kept (paths are shared, so O(n), not O(n²));
- deep nesting, time: the same document, changes dropped;
- many deep parsers, memory: 50 parsers each fed ``"[" * n`` (the "800 calls" case);
- a long float, time: ``1.555…`` with n fraction digits in 4-character fragments (the
  number is continued, not rescanned; Python's digit limit is lifted for the run);
- a long integer inside an object, time: the same with an integer, left unfinished (the
  scan is measured; converting n digits with ``int()`` is itself quadratic in CPython,
  which is why Python limits it to 4300 digits by default, and so does the parser);
- a long string, time: the common case, for comparison.

    python benchmarks/bench_growth_json.py [--quick]

The documents are built before the clock (and before the tracer: peaks exclude the input
text); the harness (``_growth.py``) times the feeding, best of 7 in 3 rounds alternating n
and 2n.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from typing import Any

from _growth import Check, Measure, main, scaled
from callstream._json import PartialJSONParser


def _split(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def _deep_fragments(n: int) -> tuple[int, list[str]]:
    """``"[" * n + "]" * n`` in 7-character fragments (with n, for ``max_depth``)."""
    return n, _split("[" * n + "]" * n, 7)


def _deep_feed(given: tuple[int, list[str]]) -> list[object]:
    n, fragments = given
    parser = PartialJSONParser(max_depth=n + 1)
    kept: list[object] = []
    for fragment in fragments:
        kept.extend(parser.feed(fragment))
    kept.append(parser.close())
    return kept


def _deep_time(given: tuple[int, list[str]]) -> object:
    n, fragments = given
    parser = PartialJSONParser(max_depth=n + 1)
    for fragment in fragments:
        parser.feed(fragment)
    return parser.close()


def _many_deep(opening: str) -> list[object]:
    parsers: list[object] = []
    for _ in range(50):
        parser = PartialJSONParser(max_depth=len(opening) + 1)
        parser.feed(opening)
        parsers.append(parser)
    return parsers


def _number_fragments(template: str) -> Callable[[int], list[str]]:
    """The template with n fives in it, in 4-character fragments."""
    return lambda n: _split(template.format("5" * n), 4)


def _feed(*, close: bool = True) -> Callable[[list[str]], object]:
    def run(fragments: list[str]) -> object:
        parser = PartialJSONParser()
        for fragment in fragments:
            parser.feed(fragment)
        return parser.close() if close else parser

    return run


@contextlib.contextmanager
def long_numbers() -> Iterator[None]:
    """Lift Python's digit limit: the numbers' scanning cost is what is measured."""
    old_limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(old_limit)


def check(
    name: str,
    measure: Measure,
    build: Callable[[int], Any],
    work: Callable[[Any], object],
    n: int,
) -> Check:
    return Check(name, measure, build, n, run=work, repeats=7, rounds=3, around=long_numbers)


def checks(quick: bool) -> list[Check]:
    """The checks (``quick``: sizes divided by 4)."""
    return [
        check(
            "deep nesting [ * n ] * n, changes kept",
            "memory",
            _deep_fragments,
            _deep_feed,
            scaled(20_000, quick),
        ),
        check(
            "deep nesting [ * n ] * n", "time", _deep_fragments, _deep_time, scaled(5_000, quick)
        ),
        check("50 parsers each fed [ * n", "memory", "[".__mul__, _many_deep, scaled(1_000, quick)),
        check(
            "float 1.5…5 (n digits), 4-char fragments",
            "time",
            _number_fragments("1.{}"),
            _feed(),
            scaled(50_000, quick),
        ),
        check(
            "integer 15…5 (n digits), left open",
            "time",
            _number_fragments('{{"n": 1{}'),
            _feed(close=False),
            scaled(50_000, quick),
        ),
        check(
            'string "5…5" (n chars), for comparison',
            "time",
            _number_fragments('"{}"'),
            _feed(),
            scaled(50_000, quick),
        ),
    ]


if __name__ == "__main__":
    raise SystemExit(main(checks, sys.argv[1:], __doc__))
