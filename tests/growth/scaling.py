"""The growth tests' one measurement: a cost at size n and at ``K * n``, as a ratio.

A test states a cost claim ("feeding n calls is linear") as how to build the input at a
size and the function run on it, then :func:`assert_linear` measures the function at n
and at ``K * n`` and asserts the ratio. Only ratios are asserted, never times: with
``K = 4`` a linear cost gives about 4, a quadratic one about 16, and the limit is their
geometric middle, 8 (:data:`LIMIT`), so noise of up to 2x on a loaded machine passes and a
quadratic cost does not. A bounded cost (``flat=True``, deterministic measures only) must
stay under ``K ** 0.5 = 2``.

- **time** is CPU time (``time.process_time``: other processes' load is not counted),
  best of ``repeats`` runs per size, the two sizes alternated so that a burst of load
  falls on both; inputs are built before the clock (``fresh=True``: a new input for
  every run, for a function that consumes or mutates it); the garbage collector is
  collected and paused around each run, as ``timeit`` does (the heap before the
  measurement frozen out of those collections).
- **memory** is the ``tracemalloc`` peak while the function runs (its result kept alive
  until the peak is read), after a warm-up run.

A measurement over the limit is taken again, up to :data:`TRIES` times in all (a shared
machine is noisy); the assertion message lists every try, and each try prints its
figures (``python -m pytest tests/growth -s`` shows the margins).
"""

from __future__ import annotations

import gc
import math
import time
import tracemalloc
from collections.abc import Callable
from typing import Any, Literal

K = 4
"""The large size over the small one."""

LIMIT = K**1.5
"""The largest accepted ratio for a linear cost: 8, between linear (4) and quadratic (16)."""

FLAT_LIMIT = K**0.5
"""The largest accepted ratio for a bounded cost: 2, between bounded (1) and linear (4)."""

TRIES = 3

Measure = Literal["time", "memory"]


def _cpu_once(run: Callable[[Any], object], value: Any) -> float:
    gc.collect()
    gc.disable()
    try:
        start = time.process_time()
        run(value)
        return time.process_time() - start
    finally:
        gc.enable()


def _peak(run: Callable[[Any], object], value: Any) -> float:
    gc.collect()
    tracemalloc.start()
    try:
        kept = run(value)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    del kept
    return float(peak)


def measure(
    build: Callable[[int], Any],
    run: Callable[[Any], object],
    n: int,
    *,
    kind: Measure = "time",
    repeats: int = 5,
    fresh: bool = False,
) -> tuple[float, float]:
    """The cost of ``run(build(size))`` at n and at ``K * n`` (see the module docstring)."""
    sizes = (n, K * n)
    inputs = [build(size) for size in sizes]
    run(build(n) if fresh else inputs[0])  # warm up: imports, caches
    if kind == "memory":
        return _peak(run, inputs[0]), _peak(run, inputs[1])
    best = [math.inf, math.inf]
    gc.collect()
    gc.freeze()  # the collections before each run then walk only what the runs made
    try:
        for attempt in range(repeats):
            for i, size in enumerate(sizes):
                value = build(size) if fresh and attempt else inputs[i]
                best[i] = min(best[i], _cpu_once(run, value))
    finally:
        gc.unfreeze()
    return best[0], best[1]


def ratio(small: float, large: float) -> float:
    """``large / small``; 1.0 when both are zero (too small to see), inf when only small is."""
    if small <= 0:
        return 1.0 if large <= 0 else math.inf
    return large / small


def assert_linear(
    build: Callable[[int], Any],
    run: Callable[[Any], object],
    n: int,
    *,
    kind: Measure = "time",
    repeats: int = 5,
    fresh: bool = False,
    flat: bool = False,
    bound: Callable[[int, float], str | None] | None = None,
) -> float:
    """Assert that ``run(build(size))`` grows at most linearly from n to ``K * n`` (at most
    boundedly with ``flat``), and meets ``bound(size, value)`` (``None`` when met,
    else a note) at the large size when given. Returns the ratio of the passing try."""
    if flat and kind == "time":
        raise ValueError("flat: for deterministic measures (memory) only")
    limit = FLAT_LIMIT if flat else LIMIT
    tries: list[str] = []
    for _ in range(TRIES):
        small, large = measure(build, run, n, kind=kind, repeats=repeats, fresh=fresh)
        note = bound(K * n, large) if bound is not None else None
        r = ratio(small, large)
        print(f"growth {kind}: {small:.3g} -> {large:.3g}, ratio {r:.2f} (limit {limit:.1f})")
        if r <= limit and note is None:
            return r
        tries.append(f"{r:.2f} ({small:.3g} -> {large:.3g})" + (f", {note}" if note else ""))
    raise AssertionError(
        f"{kind} from n={n:,} to {K * n:,} grew over {limit:.1f}x"
        + (" or went past its bound" if bound is not None else "")
        + f" in {TRIES} tries: "
        + "; ".join(tries)
    )


def per_char(limit: float) -> Callable[[int, float], str | None]:
    """A ``bound`` for :func:`assert_linear` (memory): the peak at most ``limit`` bytes per
    unit of size, for a ``build`` whose size is the characters of input."""

    def bound(size: int, peak: float) -> str | None:
        if peak <= limit * size:
            return None
        return f"{peak / size:.1f} bytes per character, over {limit}"

    return bound


def call(fn: Callable[[], object]) -> object:
    """``run`` for a ``build`` that returns a ready closure (inputs captured)."""
    return fn()
