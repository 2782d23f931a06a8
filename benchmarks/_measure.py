"""Timing for the benchmark scripts: one way to time a pass, repeat it, budget it.

- **Settling.** :func:`settled` imports every library first and ``gc.freeze()`` s the heap,
  and :func:`quiet_gc` does it again before each pass, so garbage collections walk only
  what a pass allocates.
- **Timing.** :func:`one_pass` runs one fresh consumer over a list of inputs (fragments,
  chunks or events, built before the clock starts) and times the pass whole, on the wall
  clock and on this process's CPU clock (which leaves out the time other processes held
  the CPU). A figure *per input* is a pass's time over its inputs.
- **Budget.** A library whose cost grows quadratically cannot be run at every size.
  :class:`Series` predicts the next size's total from the sizes already measured (least
  squares fit ``t = a*n + b*n**2``, ``a, b >= 0``, once two sizes are known) and skips
  a size whose prediction is over the budget; a pass that still runs past the budget is
  stopped (the clock is read every 1/200 of the inputs) and its total extrapolated from
  its own cumulative-time curve. Both are reported as such, never dropped.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import importlib.util
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

CHECKPOINTS = 200
"""Clock reads per pass under a deadline (for stopping, and the curve extrapolated)."""


@contextlib.contextmanager
def settled(modules: Iterable[str]) -> Iterator[None]:
    """Import ``modules`` (those installed), then ``gc.freeze()`` what exists, so that
    collections during the runs walk only what the libraries allocate while streaming;
    ``gc.unfreeze()`` on leaving (even on error)."""
    for module in modules:
        with contextlib.suppress(ImportError):
            importlib.import_module(module)
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


GC_NOTE = (
    "All libraries are imported first and `gc.freeze()` is called, so garbage collections "
    "walk only what is allocated while streaming.\n\n"
)
"""The reports' sentence on imports and the garbage collector (see :func:`settled`)."""


def have(*modules: str) -> list[str]:
    """Names in ``modules`` that cannot be imported (empty when all are available)."""
    return [m for m in modules if importlib.util.find_spec(m) is None]


Step = Callable[[Any], object]
"""Consumes one input (fragment, chunk or event)."""

Finish = Callable[[], Any]
"""Ends a pass and returns its result (compared across libraries)."""

Consumer = Callable[[], tuple[Step | None, Finish]]
"""Makes fresh state for one pass: returns the per-input step and the finish callable.

No step (None) means a one-shot consumer: its finish consumes every input in one call
(``collect()``, a ``for`` loop over ``stream()``); such a pass is never stopped."""


@dataclass
class Pass:
    """One timed pass over the inputs."""

    wall_s: float
    cpu_s: float
    result: Any
    done: int
    """Inputs consumed (less than all when stopped)."""
    curve: list[tuple[int, float]] = field(default_factory=list)
    """Cumulative (inputs done, seconds) at each checkpoint."""


def quiet_gc() -> None:
    """Collect garbage now, then ``gc.freeze()`` every live object (inputs included): the
    collector then walks only what the pass allocates, the same for every library."""
    gc.collect()
    gc.freeze()


def one_pass(consumer: Consumer, inputs: Sequence[Any], deadline_s: float | None = None) -> Pass:
    """Run one fresh consumer over ``inputs``, timed whole (wall and CPU); with a deadline,
    the clock is also read every 1/:data:`CHECKPOINTS` of the inputs and the pass stopped
    once it is past (``done < len(inputs)``, no result)."""
    step, finish = consumer()
    quiet_gc()
    n = len(inputs)
    wall, cpu = time.perf_counter_ns, time.process_time_ns
    start, start_cpu = wall(), cpu()
    curve: list[tuple[int, float]] = []
    done = n
    if step is not None and deadline_s is None:
        for item in inputs:
            step(item)
    elif step is not None:
        k, limit = max(1, n // CHECKPOINTS), int(deadline_s * 1e9)
        for j in range(0, n, k):
            for item in inputs[j : j + k]:
                step(item)
            elapsed = wall() - start
            curve.append((min(n, j + k), elapsed / 1e9))
            if elapsed > limit and j + k < n:
                done = j + k
                break
    result = finish() if done == n else None
    end_cpu, end = cpu(), wall()
    return Pass((end - start) / 1e9, (end_cpu - start_cpu) / 1e9, result, done, curve)


@dataclass
class Measurement:
    """A measured (or skipped / stopped / unavailable) library at one size."""

    label: str
    size: int
    inputs: int
    status: str = "measured"
    """``measured``, ``skipped`` (predicted over budget), ``stopped`` (ran past it), ``n/a``."""
    total_s: float = math.nan
    """Median wall-clock total over the passes; the extrapolation when skipped or stopped."""
    best_s: float = math.nan
    """Fastest pass (less sensitive to other processes taking the CPU than the median)."""
    wall_s: list[float] = field(default_factory=list)
    cpu_s: list[float] = field(default_factory=list)
    """Every timed pass, wall clock and CPU (4 significant digits)."""
    result: Any = None
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def median_ns(self) -> float:
        """The median pass over the inputs, ns per input (NaN unless measured)."""
        return self.total_s * 1e9 / self.inputs if self.status == "measured" else math.nan

    @property
    def estimated(self) -> bool:
        """True when :attr:`total_s` is an extrapolation, not a measurement."""
        return self.status != "measured"

    def as_json(self) -> dict[str, Any]:
        """Plain JSON-able dict (without the result)."""

        def num(x: float) -> float | None:
            return None if math.isnan(x) else x

        out = {"label": self.label, "size": self.size, "inputs": self.inputs}
        out |= {"status": self.status, "total_s": num(self.total_s)}
        out |= {"median_ns": num(self.median_ns), "best_s": num(self.best_s)}
        out |= {"passes": len(self.wall_s), "wall_s": self.wall_s, "cpu_s": self.cpu_s}
        return out | {"note": self.note, **self.extra}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Measurement:
        """Rebuild a measurement written by :meth:`as_json` (for re-rendering reports)."""
        known = {"label", "size", "inputs", "status", "total_s", "best_s", "wall_s", "cpu_s"}
        rest = {k: v for k, v in data.items() if k not in known | {"median_ns", "passes", "note"}}

        def num(key: str) -> float:
            return math.nan if data.get(key) is None else float(data[key])

        return cls(
            data["label"], data["size"], data["inputs"], data["status"], num("total_s"),
            num("best_s"), data.get("wall_s", []), data.get("cpu_s", []), None,
            data.get("note", ""), rest,
        )  # fmt: skip


def _digits(seconds: float) -> float:
    """4 significant digits (below the noise; keeps the JSON small)."""
    return float(f"{seconds:.4g}")


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
    scale = max(n for n, _ in pts)  # normal equations, scaled to avoid huge numbers
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
    if a < 0 or b < 0 or det <= 0:  # the best single-term model
        a_only, b_only = r1 / s11, r2 / s22
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
    """Measure one library at increasing sizes, under a time budget when one is given.

    Call :meth:`run` with sizes in increasing order. Each size is predicted from the
    totals measured so far (:func:`fit_quadratic`, from two sizes on); if the prediction
    is over ``budget_s`` the size is skipped, its total the prediction; a pass that runs
    past ``budget_s`` is stopped and extrapolated from its own curve. The first size gets
    one untimed warm-up pass. Passes repeat until ``min_time_s`` of work, at least
    ``min_passes`` and at most ``max_passes`` (or one pass over a quarter of the budget).
    """

    def __init__(
        self,
        label: str,
        *,
        budget_s: float | None,
        max_passes: int,
        min_passes: int = 1,
        min_time_s: float = 1.0,
    ) -> None:
        self.label, self.budget_s, self.min_time_s = label, budget_s, min_time_s
        self.min_passes, self.max_passes = min_passes, max(min_passes, max_passes)
        self.points: list[tuple[int, float]] = []
        self.warmed = False

    def precheck(self, size: int, count: int) -> Measurement | None:
        """The skipped measurement when ``count`` inputs are predicted over budget, else
        None (so that a caller need not build inputs it will not run)."""
        if self.budget_s is None or len(self.points) < 2:
            return None  # one point cannot tell a per-chunk constant from growth: run it
        predicted = fit_quadratic(self.points)(count)
        if predicted <= self.budget_s:
            return None
        note = (
            f"skipped: predicted {fmt_s(predicted)} > {self.budget_s:g} s budget "
            f"(quadratic fit over {len(self.points)} smaller size(s))"
        )
        return Measurement(self.label, size, count, "skipped", predicted, note=note)

    def unavailable(self, size: int, count: int, why: str) -> Measurement:
        """The row of a library that cannot run here (status ``n/a``, ``why`` as its note)."""
        return Measurement(self.label, size, count, "n/a", note=why)

    def run(self, size: int, consumer: Consumer, inputs: Sequence[Any]) -> Measurement:
        """Measure (or skip / stop) ``consumer`` over ``inputs`` for a document of ``size``."""
        n = len(inputs)
        skipped = self.precheck(size, n)
        if skipped is not None:
            return skipped
        m = Measurement(self.label, size, n)
        if not self.warmed:  # untimed: imports, lazily built validators, caches
            self.warmed = True
            one_pass(consumer, inputs, self.budget_s)
        while True:
            p = one_pass(consumer, inputs, self.budget_s)
            if p.done < n:
                est = fit_quadratic(p.curve)(n)
                m.status, m.total_s = "stopped", est
                m.note = (
                    f"stopped after {fmt_s(p.wall_s)} at {100 * p.done / n:.0f}% of the "
                    "inputs; total extrapolated (quadratic fit of its own time curve)"
                )
                self.points.append((n, est))
                return m
            m.wall_s.append(_digits(p.wall_s))
            m.cpu_s.append(_digits(p.cpu_s))
            m.result = p.result
            count, spent = len(m.wall_s), sum(m.wall_s)
            if count >= self.max_passes or (count >= self.min_passes and spent >= self.min_time_s):
                break
            if self.budget_s is not None and p.wall_s > self.budget_s / 4:
                break
        m.total_s, m.best_s = statistics.median(m.wall_s), min(m.wall_s)
        self.points.append((n, m.total_s))
        return m


def one_shot(fn: Callable[[], Any]) -> Consumer:
    """A consumer whose pass is one call of ``fn`` (``json.loads`` of a whole text, say)."""
    return lambda: (None, fn)


def worker_json(argv: Sequence[str], env: dict[str, str], what: str) -> dict[str, Any]:
    """Run one worker subprocess of this Python (``argv`` after the interpreter) and return
    the JSON it prints; its stderr (progress lines) goes to this process's stderr."""
    argv = [sys.executable, *argv]
    done = subprocess.run(argv, env=env, stdout=subprocess.PIPE, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"the {what} worker failed (exit {done.returncode}): see above")
    out: dict[str, Any] = json.loads(done.stdout)
    return out
