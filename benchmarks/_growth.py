"""The growth-check harness every ``bench_growth_*.py`` script shares: cost at n and 2n.

A :class:`Check` names one cost claim ("feeding n calls is linear"): how to build the
input at size n, the function run on it, and whether CPU time or peak memory is
measured. :func:`measure_check` measures it at n and at 2n and returns a :class:`Result`
whose ratio (value at 2n over value at n) must stay at or below :data:`LIMIT`: a linear
cost gives about 2, a bounded one about 1, a quadratic one about 4.

How it measures (the same for every script, so their numbers compare):

- **Inputs are built before the clock** (or the tracer) starts, by ``build(n)``; a check
  whose function consumes or mutates its input sets ``fresh=True`` and gets a new input
  for every run (still built outside the clock).
- **Time** is CPU time (``time.process_time``: other processes' load on a shared machine
  is not counted), best of at least ``repeats`` runs and at least ``min_time_s`` of runs
  (capped at :data:`MAX_RUNS`), after one untimed warm-up run. The garbage collector is
  collected before and paused during each timed run (as ``timeit`` does: its passes
  depend on the whole heap, not on n).
- **Memory** is the ``tracemalloc`` peak while ``run(input)`` executes (its result kept
  alive until the peak is read), after a ``gc.collect()``; or, for a check with a
  ``probe``, whatever the probe reports (e.g. the peak of a command in a subprocess).
- **Noise.** Time checks alternate n and 2n for ``rounds`` rounds, keeping each size's
  best, so that a burst of load elsewhere hits both sizes alike. A check over the limit
  is measured again, up to ``retries`` more times (:func:`run_checks`), and the verdict
  says how many tries it took.
- **Allocator.** The command lines fix glibc's malloc thresholds first
  (:func:`steady_allocator`), so that a large block is not mapped fresh (and
  page-faulted) at 2n only.
- A check may also carry an absolute ``bound`` (e.g. "the peak stays under a quarter of
  the file"): a failed bound fails the check whatever the ratio.

A script defines ``checks(quick: bool) -> list[Check]`` and ends with
``raise SystemExit(main(checks, sys.argv[1:], __doc__))``; ``benchmarks/growth.py`` imports
``checks`` from every script and runs them all into one table.

Cost of the harness itself: O(1) per run besides ``build`` and ``run``.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import math
import os
import sys
import time
import tracemalloc
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from _report import TINY_HELP, fmt_bytes, fmt_s, load_average

LIMIT = 2.3
"""The largest accepted ratio of the cost at 2n over the cost at n."""

MAX_RUNS = 200
"""Timed runs per size and round at most, whatever ``min_time_s`` asks."""

Measure = Literal["time", "memory"]

_BUILD = object()
"""Marks "no input given: build one"."""


@dataclass(frozen=True)
class Check:
    """One growth claim: ``run(build(n))`` costs about twice as much at 2n as at n.

    Attributes:
        name: what grows, in words (``"n calls past max_calls=100"``).
        measure: ``"time"`` (CPU seconds) or ``"memory"`` (peak bytes).
        build: makes the input at size n (never measured).
        n: the base size (the check also runs at 2n).
        run: the measured function, given the input. Its return value is kept alive
            until a memory peak is read.
        repeats: timed runs per size and round at least (best taken).
        min_time_s: timed runs continue until they add up to this many CPU seconds.
        rounds: rounds alternating n and 2n (time only; best of all rounds kept).
        fresh: build a new input for every run (``run`` consumes or mutates it).
        probe: instead of ``run``, a function that measures the input itself and returns
            the value (e.g. a command's peak memory reported by a subprocess).
        bound: an absolute ceiling, called with ``(size, input, value)`` at each size;
            returns ``None`` when met, else a short note (the check then fails).
        around: a context manager factory entered around the whole check (both sizes),
            e.g. to lift an interpreter limit.
        unit_size: the unit of n in the printed line (``"keys"``), optional.
    """

    name: str
    measure: Measure
    build: Callable[[int], Any]
    n: int
    run: Callable[[Any], object] | None = None
    repeats: int = 3
    min_time_s: float = 0.2
    rounds: int = 1
    fresh: bool = False
    probe: Callable[[Any], float] | None = None
    bound: Callable[[int, Any, float], str | None] | None = None
    around: Callable[[], contextlib.AbstractContextManager[object]] | None = None

    def __post_init__(self) -> None:
        if (self.run is None) == (self.probe is None):
            raise ValueError(f"{self.name}: give exactly one of run and probe")
        if self.measure not in ("time", "memory"):
            raise ValueError(f"{self.name}: measure is 'time' or 'memory', not {self.measure!r}")

    @property
    def label(self) -> str:
        """The name with what is measured (``"n calls (time)"``)."""
        return f"{self.name} ({self.measure})"


@dataclass
class Result:
    """A check measured at n and 2n (the last try; ``ratios`` lists every try's ratio)."""

    script: str
    name: str
    measure: Measure
    n: int
    at_n: float
    at_2n: float
    ratios: list[float] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ratio(self) -> float:
        """Value at 2n over value at n, of the last try."""
        return self.ratios[-1]

    @property
    def ok(self) -> bool:
        """The last try is within :data:`LIMIT` and met its bound."""
        return self.ratio <= LIMIT and not self.notes

    @property
    def verdict(self) -> str:
        """``ok``, ``ok (try 2 of 3; earlier 2.41)`` or ``OVER (3 tries: 2.5, 2.4, 2.6)``."""
        earlier = ", ".join(f"{r:.2f}" for r in self.ratios[:-1])
        tries = len(self.ratios)
        if self.ok:
            return "ok" if tries == 1 else f"ok (try {tries}; earlier {earlier})"
        why = "; ".join(self.notes) if self.notes else f"ratio over {LIMIT}"
        every = ", ".join(f"{r:.2f}" for r in self.ratios)
        return f"OVER: {why} ({tries} tries: {every})"

    def cells(self) -> list[str]:
        """Table cells: script, check, measure, n, 2n, at n, at 2n, ratio, verdict."""
        return [
            self.script,
            self.name,
            self.measure,
            f"{self.n:,}",
            f"{2 * self.n:,}",
            fmt_value(self.measure, self.at_n),
            fmt_value(self.measure, self.at_2n),
            f"{self.ratio:.2f}",
            self.verdict,
        ]


HEADERS = ("script", "check", "measure", "n", "2n", "at n", "at 2n", "ratio", "verdict")


def fmt_value(measure: Measure, value: float) -> str:
    """CPU seconds or bytes with a readable unit."""
    return fmt_s(value) if measure == "time" else fmt_bytes(value)


def ratio(at_n: float, at_2n: float) -> float:
    """``at_2n / at_n``; 1.0 when both are zero (too small to see), inf when only n is."""
    if at_n <= 0:
        return 1.0 if at_2n <= 0 else math.inf
    return at_2n / at_n


# --- measuring --------------------------------------------------------------------------


def steady_allocator() -> bool:
    """Fix glibc's malloc thresholds for the process (mmap at 32 MB, trim at 256 MB).

    By default glibc maps a block over a *dynamic* threshold afresh from the kernel and
    unmaps it when freed, so a check whose run allocates one large block (a 4 MB line)
    may reuse heap memory at n but page-fault every page at 2n: a ratio near 3 for a
    linear copy. With fixed thresholds both sizes are served from the same warm heap.
    Called by the command lines (each script's ``main`` and ``growth.py``), not by the
    measuring functions. Returns whether it applied (False off glibc).
    """
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("c")
    if not sys.platform.startswith("linux") or name is None:
        return False
    try:
        libc = ctypes.CDLL(name)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    m_trim_threshold, m_mmap_threshold = -1, -3
    return bool(mallopt(m_mmap_threshold, 32 << 20)) and bool(mallopt(m_trim_threshold, 256 << 20))


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def cpu_seconds(check: Check, size: int, given: Any = _BUILD) -> float:
    """Best CPU seconds of ``check.run`` on the input at ``size`` (see :class:`Check`)."""
    assert check.run is not None
    run = check.run
    value = check.build(size) if given is _BUILD or check.fresh else given
    best = math.inf
    spent = 0.0
    runs = 0
    while runs < check.repeats or (spent < check.min_time_s and runs < MAX_RUNS):
        if check.fresh and runs:
            value = check.build(size)
        with _gc_paused():
            start = time.process_time()
            run(value)
            took = time.process_time() - start
        best = min(best, took)
        spent += took
        runs += 1
    return best


def peak_bytes(check: Check, size: int, given: Any = _BUILD) -> float:
    """The ``tracemalloc`` peak of ``check.run`` on the input at ``size`` (or the probe's
    value)."""
    value = check.build(size) if given is _BUILD else given
    if check.probe is not None:
        return float(check.probe(value))
    assert check.run is not None
    gc.collect()
    tracemalloc.start()
    try:
        kept = check.run(value)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    del kept
    return float(peak)


def _measure_once(check: Check) -> tuple[float, float, list[str]]:
    n, n2 = check.n, 2 * check.n
    small, large = check.build(n), check.build(n2)
    notes: list[str] = []
    if check.measure == "memory":
        at_n, at_2n = peak_bytes(check, n, small), peak_bytes(check, n2, large)
    elif check.probe is not None:
        at_n, at_2n = check.probe(small), check.probe(large)
    else:
        assert check.run is not None
        check.run(check.build(n) if check.fresh else small)  # warm up (imports, caches)
        at_n = at_2n = math.inf
        for _ in range(max(1, check.rounds)):
            at_n = min(at_n, cpu_seconds(check, n, small))
            at_2n = min(at_2n, cpu_seconds(check, n2, large))
    if check.bound is not None:
        for size, value, measured in ((n, small, at_n), (n2, large, at_2n)):
            note = check.bound(size, value, measured)
            if note is not None:
                notes.append(note)
    return at_n, at_2n, notes


def measure_check(check: Check, *, script: str = "", retries: int = 0) -> Result:
    """Measure ``check`` at n and 2n; measure again, up to ``retries`` more times, while it
    fails (a shared machine is noisy). The result holds the last try and every ratio."""
    started = time.perf_counter()
    scope = check.around() if check.around is not None else contextlib.nullcontext()
    ratios: list[float] = []
    with scope:
        while True:
            at_n, at_2n, notes = _measure_once(check)
            ratios.append(ratio(at_n, at_2n))
            if (ratios[-1] <= LIMIT and not notes) or len(ratios) > retries:
                break
    return Result(
        script=script,
        name=check.name,
        measure=check.measure,
        n=check.n,
        at_n=at_n,
        at_2n=at_2n,
        ratios=ratios,
        notes=notes,
        seconds=time.perf_counter() - started,
    )


# --- printing and the command line ------------------------------------------------------

_WIDTHS = (25, 50, 6, 9, 9, 10, 10, 6)


def line(cells: Sequence[str]) -> str:
    """One fixed-width line of a result's cells (the verdict last, unpadded)."""
    *fixed, verdict = cells
    parts = [c.ljust(w) if i < 3 else c.rjust(w) for i, (c, w) in enumerate(zip(fixed, _WIDTHS))]
    return " ".join(parts) + "  " + verdict


def header() -> str:
    """The column titles for :func:`line`."""
    return line(HEADERS)


def run_checks(
    checks: Sequence[Check],
    *,
    script: str = "",
    retries: int = 2,
    only: Sequence[str] = (),
    echo: Callable[[str], None] | None = print,
) -> list[Result]:
    """Measure every check (those whose name contains one of ``only``, if given), printing
    one line each as it finishes; return the results in order."""
    results = []
    for check in checks:
        if only and not any(word.lower() in check.label.lower() for word in only):
            continue
        result = measure_check(check, script=script, retries=retries)
        results.append(result)
        if echo is not None:
            echo(line(result.cells()))
    return results


TINY_N = 3
"""The base size of every check in a ``--tiny`` run."""


def tiny(check: Check) -> Check:
    """``check`` for a ``--tiny`` run (the test suite's smoke run): at n = 3 and 6, one
    timed run, one round; its ratio is printed but not judged (at n = 3 it is noise)."""
    return replace(check, n=TINY_N, repeats=1, min_time_s=0.0, rounds=1)


def load_line() -> str:
    """The load averages (1, 5, 15 minutes) and the CPU count, for the printout."""
    try:
        loads = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        loads = f"{load_average()}"
    return f"load average {loads} on {os.cpu_count()} CPUs"


def main(
    checks: Callable[[bool], Sequence[Check]], argv: Sequence[str] | None, doc: str | None
) -> int:
    """The command line of one growth script:
    ``[--quick | --tiny] [--retries N] [--only WORD...]``.

    Prints the load, one line per check and a summary; returns 1 if a check failed
    (never with ``--tiny``, whose checks run at n = 3: :func:`tiny`).
    """
    title = (doc or "growth checks").strip().splitlines()[0]
    parser = argparse.ArgumentParser(description=title)
    parser.add_argument("--quick", action="store_true", help="smaller sizes (a smoke run)")
    parser.add_argument("--tiny", action="store_true", help=f"{TINY_HELP} (n = {TINY_N})")
    parser.add_argument("--retries", type=int, default=2, help="re-runs of a failing check")
    parser.add_argument("--only", nargs="+", default=(), help="checks whose name has a word")
    ns = parser.parse_args(argv)
    steady_allocator()
    print(load_line())
    print(header())
    module = sys.modules.get(checks.__module__)
    script = Path(getattr(module, "__file__", None) or "growth").stem
    chosen = [tiny(c) for c in checks(True)] if ns.tiny else checks(ns.quick)
    retries = 0 if ns.tiny else ns.retries
    results = run_checks(chosen, script=script, retries=retries, only=ns.only)
    failed = [r for r in results if not r.ok]
    worst = max((r.ratio for r in results), default=0.0)
    judged = "not judged at n = 3, " if ns.tiny else ""
    print(
        f"{len(results)} checks, worst ratio {worst:.2f} ({judged}limit {LIMIT}), "
        f"{len(failed)} over; {load_line()}"
    )
    return 1 if failed and not ns.tiny else 0


def call(fn: Callable[[], object]) -> object:
    """``run`` for a check whose ``build(n)`` returns a ready closure (inputs captured)."""
    return fn()


def scaled(n: int, quick: bool, factor: int = 4) -> int:
    """``n`` in a full run, ``n // factor`` (at least 1) with ``--quick``."""
    return max(1, n // factor) if quick else n
