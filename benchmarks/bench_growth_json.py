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

    python benchmarks/bench_growth_json.py
"""

from __future__ import annotations

import gc
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from callstream._json import PartialJSONParser

LIMIT = 2.3
REPEATS = 7


def _split(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def _deep_feed(n: int) -> list[object]:
    parser = PartialJSONParser(max_depth=n + 1)
    kept: list[object] = []
    for fragment in _split("[" * n + "]" * n, 7):
        kept.extend(parser.feed(fragment))
    kept.append(parser.close())
    return kept


def _deep_time(n: int) -> object:
    parser = PartialJSONParser(max_depth=n + 1)
    for fragment in _split("[" * n + "]" * n, 7):
        parser.feed(fragment)
    return parser.close()


def _many_deep(n: int) -> list[object]:
    parsers: list[object] = []
    for _ in range(50):
        parser = PartialJSONParser(max_depth=n + 1)
        parser.feed("[" * n)
        parsers.append(parser)
    return parsers


def _number_feed(template: str, *, close: bool = True) -> Callable[[int], object]:
    def run(n: int) -> object:
        parser = PartialJSONParser()
        for fragment in _split(template.format("5" * n), 4):
            parser.feed(fragment)
        return parser.close() if close else parser

    return run


def peak_memory(work: Callable[[int], object], n: int) -> float:
    """Peak traced bytes while ``work(n)`` runs and its result is alive."""
    gc.collect()
    tracemalloc.start()
    try:
        result = work(n)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del result
    return float(peak)


def best_time(work: Callable[[int], object], n: int) -> float:
    """Best CPU time of this process over a few runs of ``work(n)``.

    CPU time, not wall time: the machine may be shared, and other processes' load should
    not show up as growth.
    """
    best = float("inf")
    for _ in range(REPEATS):
        gc.collect()
        start = time.process_time()
        work(n)
        best = min(best, time.process_time() - start)
    return best


CHECKS: list[
    tuple[str, str, Callable[[Callable[[int], object], int], float], Callable[[int], object], int]
] = [
    ("deep nesting [ * n ] * n, changes kept", "memory", peak_memory, _deep_feed, 20_000),
    ("deep nesting [ * n ] * n", "time", best_time, _deep_time, 5_000),
    ("50 parsers each fed [ * n", "memory", peak_memory, _many_deep, 1_000),
    ("float 1.5…5 (n digits), 4-char fragments", "time", best_time, _number_feed("1.{}"), 50_000),
    (
        "integer 15…5 (n digits), left open",
        "time",
        best_time,
        _number_feed('{{"n": 1{}', close=False),
        50_000,
    ),
    ('string "5…5" (n chars), for comparison', "time", best_time, _number_feed('"{}"'), 50_000),
]


def main() -> int:
    """Run every check, print n, 2n, the costs and the ratio; 1 if a ratio is over 2.3."""
    old_limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)  # let numbers be long: their scanning cost is measured
    failed = 0
    try:
        print(f"{'check':44} {'cost':6} {'n':>8} {'at n':>12} {'at 2n':>12} {'ratio':>6}")
        for name, kind, measure, work, n in CHECKS:
            measure(work, n // 4)  # warm up
            # Alternate n and 2n so that a burst of load elsewhere hits both alike.
            at_n = at_2n = float("inf")
            for _ in range(3):
                at_n = min(at_n, measure(work, n))
                at_2n = min(at_2n, measure(work, 2 * n))
            ratio = at_2n / at_n
            unit = (
                (lambda v: f"{v / 1e6:9.2f} MB")
                if kind == "memory"
                else (lambda v: f"{v * 1e3:9.1f} ms")
            )
            mark = "" if ratio <= LIMIT else "  OVER"
            failed += ratio > LIMIT
            print(
                f"{name:44} {kind:6} {n:>8} {unit(at_n):>12} {unit(at_2n):>12} {ratio:6.2f}{mark}"
            )
    finally:
        sys.set_int_max_str_digits(old_limit)
    print(f"limit {LIMIT}: {'all within' if not failed else f'{failed} over'}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
