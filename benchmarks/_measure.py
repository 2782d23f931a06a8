"""Timing for the benchmark scripts: settled imports, timed passes, budgets, extrapolation.

Used by ``bench_pipeline.py``, ``bench_partial_json.py``, ``bench_assembler.py``,
``bench_parsers.py`` and ``compare_trees.py`` so that they measure the same way:

- **Settling.** :func:`settled` imports every library first and ``gc.freeze()`` s the heap,
  and :func:`quiet_gc` does it again before each pass, so garbage collections walk only
  what a pass allocates.
- **Timing.** :func:`one_pass` runs one fresh consumer over a list of inputs (fragments,
  chunks or events), timing the whole pass with ``perf_counter_ns`` and, in addition,
  individual inputs sampled every *k*-th one (about 2,000 samples per pass) for the
  per-input median. Input objects are built before the clock starts.
- **Budget.** A library whose cost grows quadratically cannot be run at every size.
  :class:`Series` predicts the next size's total from the sizes already measured (least
  squares fit ``t = a*n + b*n**2``, ``a, b >= 0``, once two sizes are known) and skips
  a size whose prediction is over the budget; a pass that still runs past the budget is
  stopped and its total extrapolated from its own cumulative-time curve. Both are
  reported as such, never dropped.
"""

from __future__ import annotations

import contextlib
import gc
import json
import math
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from _report import fmt_s

SAMPLES_PER_PASS = 2000
"""Individual inputs timed per pass (every k-th input) for the per-input median."""


def settle_imports(modules: Iterable[str]) -> None:
    """Import ``modules`` (those installed) now, then ``gc.freeze()`` what exists.

    Garbage collections during the runs then walk only the objects the libraries
    allocate while streaming, not the libraries' import-time objects: the same for every
    library. Undo with ``gc.unfreeze()`` (:func:`settled` does, on leaving).
    """
    import importlib

    for module in modules:
        with contextlib.suppress(ImportError):
            importlib.import_module(module)
    gc.collect()
    gc.freeze()


@contextlib.contextmanager
def settled(modules: Iterable[str]) -> Iterator[None]:
    """:func:`settle_imports` on entry, ``gc.unfreeze()`` on leaving (even on error)."""
    settle_imports(modules)
    try:
        yield
    finally:
        gc.unfreeze()


GC_NOTE = (
    "All libraries are imported first and `gc.freeze()` is called, so garbage collections "
    "walk only what is allocated while streaming.\n\n"
)
"""The reports' sentence on imports and the garbage collector (see :func:`settle_imports`)."""


def have(*modules: str) -> list[str]:
    """Names in ``modules`` that cannot be imported (empty when all are available)."""
    import importlib.util

    return [m for m in modules if importlib.util.find_spec(m) is None]


# --- timing -----------------------------------------------------------------------------


Step = Callable[[Any], object]
"""Consumes one input (fragment, chunk or event)."""

Finish = Callable[[], Any]
"""Ends a pass and returns its result (compared across libraries)."""

Consumer = Callable[[], tuple[Step | None, Finish]]
"""Makes fresh state for one pass: returns the per-input step and the finish callable.

No step (None) means a one-shot consumer: its finish consumes every input in one call
(``collect()``); a pass is then that call, timed whole, with no per-input samples."""


@dataclass
class Pass:
    """One timed pass over the inputs."""

    total_s: float
    samples_ns: list[int]
    result: Any
    done: int
    """Inputs consumed (less than all when stopped)."""
    curve: list[tuple[int, float]] = field(default_factory=list)
    """Cumulative (inputs done, seconds) at each sampled input."""


@dataclass
class Measurement:
    """A measured (or skipped / stopped) library at one size."""

    label: str
    size: int
    inputs: int
    status: str = "measured"
    """``measured``, ``skipped`` (predicted over budget) or ``stopped`` (ran past it)."""
    total_s: float = math.nan
    """Median total over passes; the extrapolation when skipped or stopped."""
    median_ns: float = math.nan
    """Median over the sampled individual inputs of all passes (NaN when skipped)."""
    best_s: float = math.nan
    """Fastest pass (less sensitive to other processes taking the CPU than the median)."""
    passes: int = 0
    result: Any = None
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def estimated(self) -> bool:
        """True when :attr:`total_s` is an extrapolation, not a measurement."""
        return self.status != "measured"

    def as_json(self) -> dict[str, Any]:
        """Plain JSON-able dict (without the result)."""
        return {
            "label": self.label,
            "size": self.size,
            "inputs": self.inputs,
            "status": self.status,
            "total_s": None if math.isnan(self.total_s) else self.total_s,
            "median_ns": None if math.isnan(self.median_ns) else self.median_ns,
            "best_s": None if math.isnan(self.best_s) else self.best_s,
            "passes": self.passes,
            "note": self.note,
            **self.extra,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Measurement:
        """Rebuild a measurement written by :meth:`as_json` (for re-rendering reports)."""
        known = ("label", "size", "inputs", "status", "total_s", "median_ns", "best_s")
        rest = {k: v for k, v in data.items() if k not in (*known, "passes", "note")}

        def num(key: str) -> float:
            value = data.get(key)
            return math.nan if value is None else float(value)

        return cls(
            label=data["label"],
            size=data["size"],
            inputs=data["inputs"],
            status=data["status"],
            total_s=num("total_s"),
            median_ns=num("median_ns"),
            best_s=num("best_s"),
            passes=data.get("passes", 0),
            note=data.get("note", ""),
            extra=rest,
        )


def quiet_gc() -> None:
    """Collect garbage now, then ``gc.freeze()`` every live object (inputs included).

    Called before each timed pass: the cyclic garbage collector then walks only objects
    allocated during the pass, not the benchmark's pre-built inputs (a real stream does
    not keep every chunk alive) nor earlier passes' garbage -- the same for every
    library. Frozen objects are still freed by reference counting.
    """
    gc.collect()
    gc.freeze()


def one_pass(consumer: Consumer, inputs: Sequence[Any], *, deadline_s: float | None) -> Pass:
    """Run one fresh consumer over ``inputs``; time the whole pass and every k-th input.

    Stops early (``done < len(inputs)``) once ``deadline_s`` seconds have passed. A
    one-shot consumer (no step) is timed whole: no samples, never stopped. Cost: the
    consumer's cost plus two clock reads per sampled input. See :func:`quiet_gc` for the
    garbage collector.
    """
    step, finish = consumer()
    quiet_gc()
    n = len(inputs)
    ns = time.perf_counter_ns
    if step is None:
        start = ns()
        result = finish()
        total = (ns() - start) / 1e9
        return Pass(total_s=total, samples_ns=[], result=result, done=n, curve=[(n, total)])
    k = max(1, n // SAMPLES_PER_PASS)
    samples: list[int] = []
    curve: list[tuple[int, float]] = []
    limit = None if deadline_s is None else int(deadline_s * 1e9)
    start = ns()
    done = n
    for j in range(0, n, k):
        t0 = ns()
        step(inputs[j])
        t1 = ns()
        samples.append(t1 - t0)
        if k > 1:
            for item in inputs[j + 1 : j + k]:
                step(item)
        done_here = min(n, j + k)
        elapsed = ns() - start
        curve.append((done_here, elapsed / 1e9))
        if limit is not None and elapsed > limit and done_here < n:
            done = done_here
            break
    result = finish() if done == n else None
    total = (ns() - start) / 1e9
    return Pass(total_s=total, samples_ns=samples, result=result, done=done, curve=curve)


def fit_quadratic(points: Sequence[tuple[float, float]]) -> Callable[[float], float]:
    """Least-squares fit ``t = a*n + b*n**2`` (``a, b >= 0``) through ``(n, t)`` points.

    With a single point the fit is purely quadratic (pessimistic). Returns the model.
    """
    pts = [(float(n), float(t)) for n, t in points if n > 0 and t >= 0]
    if not pts:
        return lambda n: math.nan
    if len(pts) == 1:
        n0, t0 = pts[0]
        return lambda n: t0 * (n / n0) ** 2
    # Normal equations for t = a n + b n^2 (scaled to avoid huge numbers).
    scale = max(n for n, _ in pts)
    xs = [(n / scale, t) for n, t in pts]
    s11 = sum(x * x for x, _ in xs)
    s12 = sum(x**3 for x, _ in xs)
    s22 = sum(x**4 for x, _ in xs)
    r1 = sum(x * t for x, t in xs)
    r2 = sum(x * x * t for x, t in xs)
    det = s11 * s22 - s12 * s12
    a = b = -1.0
    if det > 0:
        a = (r1 * s22 - r2 * s12) / det
        b = (s11 * r2 - s12 * r1) / det
    if a < 0 or b < 0 or det <= 0:
        # Best single-term model.
        a_only = r1 / s11
        b_only = r2 / s22
        err_a = sum((t - a_only * x) ** 2 for x, t in xs)
        err_b = sum((t - b_only * x * x) ** 2 for x, t in xs)
        a, b = (a_only, 0.0) if err_a < err_b else (0.0, b_only)
    return lambda n: a * (n / scale) + b * (n / scale) ** 2


def growth_exponent(n1: float, t1: float, n2: float, t2: float) -> float:
    """Exponent p of ``t ~ n**p`` between two measurements."""
    if min(n1, t1, n2, t2) <= 0 or n1 == n2:
        return math.nan
    return math.log(t2 / t1) / math.log(n2 / n1)


class Series:
    """Measure one library at increasing sizes under a time budget.

    Call :meth:`run` with sizes in increasing order. Each size is predicted from the
    totals measured so far (:func:`fit_quadratic` over input counts, from two sizes on);
    if the prediction is over ``budget_s`` the size is skipped and its total reported as
    the prediction. A pass that runs past ``budget_s`` is stopped and extrapolated from
    its own cumulative-time curve. The first size gets one untimed warm-up pass. Fast
    sizes are repeated (up to ``repeats`` passes, until about ``min_time_s`` of work)
    and the median total kept.
    """

    def __init__(
        self, label: str, *, budget_s: float, repeats: int, min_time_s: float = 1.0
    ) -> None:
        self.label = label
        self.budget_s = budget_s
        self.repeats = max(1, repeats)
        self.min_time_s = min_time_s
        self.points: list[tuple[int, float]] = []
        self.warmed = False

    def _stopped(self, m: Measurement, p: Pass) -> Measurement:
        est = fit_quadratic(p.curve)(m.inputs)
        m.status = "stopped"
        m.total_s = est
        m.median_ns = math.nan
        m.note = (
            f"stopped after {fmt_s(p.total_s)} at {100 * p.done / m.inputs:.0f}% "
            f"of the inputs; total extrapolated (quadratic fit of its own time curve)"
        )
        self.points.append((m.inputs, est))
        return m

    def precheck(self, size: int, count: int) -> Measurement | None:
        """The skipped measurement when ``count`` inputs are predicted over budget, else None.

        Lets a caller avoid building inputs it will not run.
        """
        if len(self.points) < 2:
            return None  # one point cannot tell a per-chunk constant from growth: run it
        predicted = fit_quadratic(self.points)(count)
        if predicted <= self.budget_s:
            return None
        return Measurement(
            label=self.label,
            size=size,
            inputs=count,
            status="skipped",
            total_s=predicted,
            note=(
                f"skipped: predicted {fmt_s(predicted)} > {self.budget_s:g} s budget "
                f"(quadratic fit over {len(self.points)} smaller size(s))"
            ),
        )

    def unavailable(self, size: int, count: int, why: str) -> Measurement:
        """The row of a library that cannot run here (status ``n/a``, ``why`` as its note)."""
        return Measurement(label=self.label, size=size, inputs=count, status="n/a", note=why)

    def run(self, size: int, consumer: Consumer, inputs: Sequence[Any]) -> Measurement:
        """Measure (or skip / stop) ``consumer`` over ``inputs`` for a document of ``size``.

        The per-input median is over the sampled inputs of all passes; for a one-shot
        consumer (no samples) it is the median total over the inputs (a mean per input).
        """
        m = Measurement(label=self.label, size=size, inputs=len(inputs))
        skipped = self.precheck(size, len(inputs))
        if skipped is not None:
            return skipped
        totals: list[float] = []
        samples: list[int] = []
        spent = 0.0
        if not self.warmed:
            # Untimed first pass: imports, lazily built validators, caches.
            self.warmed = True
            if one_pass(consumer, inputs, deadline_s=self.budget_s).done < len(inputs):
                return self._stopped(m, one_pass(consumer, inputs, deadline_s=self.budget_s))
        while True:
            p = one_pass(consumer, inputs, deadline_s=self.budget_s)
            if p.done < len(inputs):
                return self._stopped(m, p)
            totals.append(p.total_s)
            samples.extend(p.samples_ns)
            m.result = p.result
            spent += p.total_s
            if len(totals) >= self.repeats or spent >= self.min_time_s:
                break
            if p.total_s > self.budget_s / 4:
                break
        m.total_s = statistics.median(totals)
        m.best_s = min(totals)
        m.median_ns = statistics.median(samples) if samples else m.total_s * 1e9 / max(1, m.inputs)
        m.passes = len(totals)
        self.points.append((len(inputs), m.total_s))
        return m


def whole_pass(consumer: Consumer, inputs: Sequence[Any]) -> tuple[float, float, Any]:
    """Wall-clock and CPU seconds for one fresh consumer over all ``inputs``, and its result.

    No per-input clock reads and no deadline (what :func:`one_pass` adds): the time is the
    consumer's alone. The CPU time (this process's, ``process_time_ns``) leaves out the
    time other processes held the CPU, which the wall-clock time carries on a shared
    machine. The garbage collector is quieted first (:func:`quiet_gc`).
    """
    step, finish = consumer()
    quiet_gc()
    wall, cpu = time.perf_counter_ns, time.process_time_ns
    start, start_cpu = wall(), cpu()
    if step is not None:
        for item in inputs:
            step(item)
    result = finish()
    end_cpu, end = cpu(), wall()
    return (end - start) / 1e9, (end_cpu - start_cpu) / 1e9, result


def time_once(fn: Callable[[], object], *, repeats: int = 5, min_time_s: float = 0.2) -> float:
    """Median seconds of ``fn()`` over a few calls (for one-shot floors such as json.loads)."""
    times: list[float] = []
    spent = 0.0
    while len(times) < repeats or spent < min_time_s:
        t0 = time.perf_counter()
        fn()
        dt = time.perf_counter() - t0
        times.append(dt)
        spent += dt
        if len(times) >= 1000:
            break
    return statistics.median(times)


def passes(
    consumer: Consumer, payloads: Sequence[Any], expected: Any, quick: bool
) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU seconds of each timed pass (each one's final calls checked,
    outside its time)."""
    min_passes, min_time_s = (1, 0.1) if quick else (2, 0.5)
    walls: list[float] = []
    cpus: list[float] = []
    while len(walls) < min_passes or (sum(walls) < min_time_s and len(walls) < 200):
        wall, cpu, result = whole_pass(consumer, payloads)
        assert result == expected, f"final calls differ: {str(result)[:300]}"
        walls.append(wall)
        cpus.append(cpu)
    return walls, cpus


def worker_json(argv: Sequence[str], env: dict[str, str], what: str) -> dict[str, Any]:
    """Run one worker subprocess of this Python (``argv`` after the interpreter) and return
    the JSON it prints; its stderr (progress lines) goes to this process's stderr."""
    argv = [sys.executable, *argv]
    done = subprocess.run(argv, env=env, stdout=subprocess.PIPE, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"the {what} worker failed (exit {done.returncode}): see above")
    out: dict[str, Any] = json.loads(done.stdout)
    return out
