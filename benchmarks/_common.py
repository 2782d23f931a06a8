"""Shared benchmark helpers: timing with a budget, stream generators, tables and plots.

Used by ``bench_partial_json.py``, ``bench_assembler.py`` and ``bench_pipeline.py`` so
that the three scripts measure the same way:

- **Timing.** :func:`measure` runs one fresh consumer over a list of inputs (fragments,
  chunks or events), timing the whole pass with ``perf_counter_ns`` and, in addition,
  individual inputs sampled every *k*-th one (about 2,000 samples per pass) for the
  per-input median. Input objects are built before the clock starts.
- **Budget.** A library whose cost grows quadratically cannot be run at every size.
  :class:`Series` predicts the next size's total from the sizes already measured (least
  squares fit ``t = a*n + b*n**2``, ``a, b >= 0``, once two sizes are known) and skips
  a size whose prediction is over the budget; a pass that still runs past the budget is
  stopped and its total extrapolated from its own cumulative-time curve. Both are
  reported as such, never dropped.
- **Streams.** Deterministic documents (structured records; one long string with escapes
  and non-ASCII), tool-call argument texts, and whole streams in the OpenAI Chat
  Completions and Anthropic Messages wire formats, cut into 4-character argument
  fragments as the providers do.
- **Output.** Markdown tables, a machine description, log-log plots (matplotlib, Agg).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as _dt
import gc
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"
"""Default output folder for tables, plots and JSON."""

FRAGMENT = 4
"""Characters per argument fragment, as providers stream them."""

SAMPLES_PER_PASS = 2000
"""Individual inputs timed per pass (every k-th input) for the per-input median."""

PEER_PACKAGES = (
    "callstream",
    "jiter",
    "partial-json-parser",
    "langchain-core",
    "openai",
    "anthropic",
    "pydantic-ai-slim",
    "pydantic",
    "matplotlib",
)


# --- command line -----------------------------------------------------------------------


def arguments(description: str, argv: Sequence[str] | None) -> argparse.Namespace:
    """Parse the options every benchmark script shares.

    ``--quick`` runs tiny sizes once (a smoke run); ``--out`` is the results folder;
    ``--budget`` the seconds a peer may take at one size before it is skipped or stopped;
    ``--repeats`` the maximum passes per measurement (median taken).
    """
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--quick", action="store_true", help="tiny sizes, one pass (smoke run)")
    parser.add_argument("--out", type=Path, default=RESULTS, help="results folder")
    parser.add_argument(
        "--budget", type=float, default=None, help="seconds per library and size (default 60)"
    )
    parser.add_argument("--repeats", type=int, default=None, help="max passes per measurement")
    parser.add_argument("--no-plot", action="store_true", help="skip the PNG plot")
    parser.add_argument(
        "--tiny", action="store_true", help="smallest sizes only (the test suite's smoke run)"
    )
    parser.add_argument(
        "--render",
        action="store_true",
        help="measure nothing: rewrite the report and plot from the JSON already in --out",
    )
    ns = parser.parse_args(argv)
    ns.quick = ns.quick or ns.tiny
    if ns.budget is None:
        ns.budget = 2.0 if ns.quick else 60.0
    if ns.repeats is None:
        ns.repeats = 1 if ns.quick else 5
    return ns


# --- machine ----------------------------------------------------------------------------


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def _git_commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=Path(__file__).resolve().parent,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.stdout.strip() or "unknown"


def machine() -> dict[str, Any]:
    """Describe the machine and software the numbers come from (for the md and JSON files)."""
    versions: dict[str, str] = {}
    for name in PEER_PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return {
        "cpu": _cpu_model(),
        "logical_cpus": os.cpu_count(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "os": platform.platform(),
        "load_average_1m": load_average(),
        "date_utc": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "git_commit": _git_commit(),
        "versions": versions,
    }


def load_average() -> float:
    """The 1-minute load average (NaN where unknown)."""
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return math.nan


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


def machine_markdown(info: dict[str, Any], command: str) -> str:
    """Render :func:`machine` as a short markdown paragraph with the command to rerun."""
    versions = ", ".join(f"{k} {v}" for k, v in info["versions"].items())
    end = info.get("load_average_1m_end")
    load = f"load average {info['load_average_1m']} at start" + (
        f", {end} at the end" if end is not None else ""
    )
    return (
        f"Machine: {info['cpu']}, {info['logical_cpus']} logical CPUs, {info['python']}, "
        f"{info['os']}; {load} (a load near or above the CPU count means other processes "
        "shared the CPUs: totals then carry their pauses, per-chunk medians much less). "
        f"Run {info['date_utc']} at commit "
        f"`{info['git_commit']}`.\n\nVersions: {versions}.\n\nRegenerate: `{command}`\n"
    )


# --- timing -----------------------------------------------------------------------------


Step = Callable[[Any], object]
"""Consumes one input (fragment, chunk or event)."""

Finish = Callable[[], Any]
"""Ends a pass and returns its result (compared across libraries)."""

Consumer = Callable[[], tuple[Step, Finish]]
"""Makes fresh state for one pass: returns the per-input step and the finish callable."""


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

    Stops early (``done < len(inputs)``) once ``deadline_s`` seconds have passed.
    Cost: the consumer's cost plus two clock reads per sampled input. See
    :func:`quiet_gc` for the garbage collector.
    """
    step, finish = consumer()
    quiet_gc()
    n = len(inputs)
    k = max(1, n // SAMPLES_PER_PASS)
    ns = time.perf_counter_ns
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

    def run(
        self, size: int, consumer: Consumer, inputs: Sequence[Any], *, skip: str | None = None
    ) -> Measurement:
        """Measure (or skip / stop) ``consumer`` over ``inputs`` for a document of ``size``."""
        m = Measurement(label=self.label, size=size, inputs=len(inputs))
        if skip is not None:
            m.status, m.note = "n/a", skip
            return m
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
        m.median_ns = statistics.median(samples) if samples else math.nan
        m.passes = len(totals)
        self.points.append((len(inputs), m.total_s))
        return m


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


# --- documents and argument texts ---------------------------------------------------------

_NAMES = ("Café Olé", "naïve résumé", "東京タワー", "Zürich ☂", "emoji 😀 party", "plain widget")
_CODE_LINES = (
    'def greet(name: str) -> str:\n    return f"Hello, {name}!"  # héllo wörld — 東京 😀\n',
    '\tpath = "C:\\\\Users\\\\bench\\\\file.txt"  # backslashes and a tab\n',
    'print("quoted \\"text\\" and a slash /")\n',
    "    value = {'a': [1, 2, 3], 'b': None}  # ünïcödé 🎉\n",
    "class Widget:\n    '''A widget — with an em dash.'''\n\n",
)


def structured_document(target: int) -> str:
    """A JSON object of records (numbers, booleans, null, nested objects, non-ASCII) of
    about ``target`` UTF-8 bytes (at least ``target``)."""
    records: list[dict[str, Any]] = []
    size = len(b'{"items": []}')
    i = 0
    while size < target:
        rec = {
            "id": i,
            "name": f"{_NAMES[i % len(_NAMES)]} #{i}",
            "price": round(0.99 + (i * 7 % 1000) / 8, 2),
            "qty": i % 17,
            "tags": ["new", "sale"][: i % 3],
            "active": i % 3 == 0,
            "meta": {
                "created": f"2024-{1 + i % 12:02d}-{1 + i % 28:02d}T12:00:00Z",
                "score": round(-0.5 + (i % 100) / 37, 4),
                "note": None if i % 4 else 'fragile "glass"\n— handle',
            },
        }
        records.append(rec)
        size += len(json.dumps(rec, ensure_ascii=False).encode()) + (2 if i else 0)
        i += 1
    return json.dumps({"items": records}, ensure_ascii=False)


def long_text(target: int) -> str:
    """Code-like text with quotes, backslashes, tabs, newlines and non-ASCII (incl. emoji)."""
    parts: list[str] = []
    size = 0
    i = 0
    while size < target:
        line = f"# line {i}\n" + _CODE_LINES[i % len(_CODE_LINES)]
        parts.append(line)
        size += len(line.encode())
        i += 1
    return "".join(parts)


def long_string_document(target: int) -> str:
    """``{"content": "<one long string>"}`` of about ``target`` bytes of JSON text.

    The string has ``\\n``, ``\\t``, ``\\"`` and ``\\\\`` escapes, raw non-ASCII, and every
    😀 written as an escaped surrogate pair (``\\ud83d\\ude00``).
    """
    # JSON escaping grows the text by roughly 8%; aim a little under the target.
    body = long_text(int(target * 0.9))
    text = json.dumps({"content": body}, ensure_ascii=False)
    return text.replace("😀", "\\ud83d\\ude00")


def fragments(text: str, size: int = FRAGMENT) -> list[str]:
    """Cut ``text`` into ``size``-character fragments."""
    return [text[i : i + size] for i in range(0, len(text), size)]


def weather_args() -> str:
    """A typical ~200-byte tool call argument object (compact JSON, as models emit)."""
    return json.dumps(
        {
            "location": "San Francisco, CA",
            "unit": "celsius",
            "days": 3,
            "include": ["hourly", "alerts", "air_quality"],
            "lat": 37.7749,
            "lon": -122.4194,
            "lang": "en-US",
            "detailed": True,
            "note": "Büro — next week",
        },
        ensure_ascii=False,
    )


def write_file_args(target: int) -> str:
    """A ``write_file``-style argument object: a path and ``target`` bytes of content."""
    body = long_text(max(1, target - 60))
    return json.dumps({"path": "src/app/generated.py", "content": body}, ensure_ascii=False)


def sized_args(target: int, index: int = 0) -> str:
    """Argument text of about ``target`` bytes: a weather call when small, else write_file."""
    if target <= 400:
        base = json.loads(weather_args())
        base["days"] = 1 + index % 7
        text = json.dumps(base, ensure_ascii=False)
        return text
    return write_file_args(target)


@dataclass(frozen=True)
class Call:
    """One tool call to stream: name, id and the full argument text."""

    name: str
    id: str
    args: str


def make_calls(n: int, size: int, *, id_style: str = "openai") -> list[Call]:
    """``n`` calls with about ``size`` bytes of arguments each (ids in OpenAI or Anthropic
    style). Small calls are weather-style lookups, large ones ``write_file``."""
    names = ("get_weather", "search_docs", "send_email", "get_time")
    prefix = "call_" if id_style == "openai" else "toolu_01"
    out = []
    for i in range(n):
        ident = f"{prefix}{i:04d}{'BenchmarkId' * 3}"[:30]
        name = names[i % len(names)] if size <= 400 else "write_file"
        out.append(Call(name=name, id=ident, args=sized_args(size, i)))
    return out


def tool_call_chunks(calls: Sequence[Call], *, interleave: bool) -> list[dict[str, Any]]:
    """LangChain-shaped ``ToolCallChunk`` dicts for ``calls``: a first chunk with name and
    id, then 4-character argument fragments (round-robin across calls if ``interleave``)."""
    per_call: list[list[dict[str, Any]]] = []
    cut: dict[str, list[str]] = {}  # calls with equal arguments share fragment strings
    for i, c in enumerate(calls):
        frags = cut.setdefault(c.args, fragments(c.args))
        chunks = [{"name": c.name, "args": "", "id": c.id, "index": i, "type": "tool_call_chunk"}]
        chunks += [
            {"name": None, "args": f, "id": None, "index": i, "type": "tool_call_chunk"}
            for f in frags
        ]
        per_call.append(chunks)
    if not interleave:
        return [ch for chunks in per_call for ch in chunks]
    out: list[dict[str, Any]] = []
    longest = max(len(c) for c in per_call)
    for j in range(longest):
        for chunks in per_call:
            if j < len(chunks):
                out.append(chunks[j])
    return out


def openai_chat_stream(calls: Sequence[Call]) -> list[dict[str, Any]]:
    """A whole OpenAI Chat Completions stream (decoded ``data:`` payloads) for ``calls``.

    Calls stream one after the other (as OpenAI sends parallel calls): a chunk with the
    role, id, name and empty arguments, then 4-character argument fragments, and a
    last chunk with ``finish_reason: "tool_calls"``.
    """
    head = {
        "id": "chatcmpl-bench0000000000000000000001",
        "object": "chat.completion.chunk",
        "created": 1_730_000_000,
        "model": "gpt-4o-2024-08-06",
        "system_fingerprint": "fp_bench00001",
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            **head,
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        }

    out: list[dict[str, Any]] = []
    for i, c in enumerate(calls):
        start: dict[str, Any] = {
            "tool_calls": [
                {
                    "index": i,
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": ""},
                }
            ]
        }
        if i == 0:
            start = {"role": "assistant", "content": None, "refusal": None, **start}
        out.append(chunk(start))
        out.extend(
            chunk({"tool_calls": [{"index": i, "function": {"arguments": f}}]})
            for f in fragments(c.args)
        )
    out.append(chunk({}, "tool_calls"))
    return out


def anthropic_stream(calls: Sequence[Call]) -> list[dict[str, Any]]:
    """A whole Anthropic Messages stream (decoded SSE ``data:`` payloads) for ``calls``.

    ``message_start``, then per call ``content_block_start`` (tool_use, empty input),
    4-character ``input_json_delta`` fragments and ``content_block_stop``, then
    ``message_delta`` (``stop_reason: "tool_use"``) and ``message_stop``.
    """
    out: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {
                "id": "msg_01Bench000000000000000001",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 412, "output_tokens": 1},
            },
        }
    ]
    for i, c in enumerate(calls):
        out.append(
            {
                "type": "content_block_start",
                "index": i,
                "content_block": {"type": "tool_use", "id": c.id, "name": c.name, "input": {}},
            }
        )
        out.extend(
            {
                "type": "content_block_delta",
                "index": i,
                "delta": {"type": "input_json_delta", "partial_json": f},
            }
            for f in fragments(c.args)
        )
        out.append({"type": "content_block_stop", "index": i})
    out.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use", "stop_sequence": None},
            "usage": {"output_tokens": 20 + sum(len(c.args) for c in calls) // 4},
        }
    )
    out.append({"type": "message_stop"})
    return out


def normalize_calls(calls: Iterable[tuple[str | None, str | None, Any]]) -> list[tuple[Any, ...]]:
    """Canonical form of final calls for agreement checks: ``(name, id, args_json)``."""
    return [(n, i, json.dumps(a, sort_keys=True, ensure_ascii=False)) for n, i, a in calls]


def expected_calls(calls: Sequence[Call]) -> list[tuple[Any, ...]]:
    """The final calls every library must produce for ``calls``."""
    return normalize_calls((c.name, c.id, json.loads(c.args)) for c in calls)


def dict_calls(calls: Iterable[Any]) -> list[tuple[Any, ...]]:
    """:func:`normalize_calls` of tool call dicts (``name``, ``id``, ``args`` keys)."""
    return normalize_calls((t["name"], t["id"], t["args"]) for t in calls)


def langchain_gather() -> tuple[Step, Finish]:
    """A LangChain consumer: ``gathered = gathered + chunk``, reading ``gathered.tool_calls``
    after every ``AIMessageChunk``; the finish asserts no invalid calls."""
    state: dict[str, Any] = {"gathered": None}

    def step(msg: Any) -> object:
        gathered = state["gathered"]
        gathered = msg if gathered is None else gathered + msg
        state["gathered"] = gathered
        return gathered.tool_calls

    def finish() -> Any:
        g = state["gathered"]
        assert not g.invalid_tool_calls, g.invalid_tool_calls
        return dict_calls(g.tool_calls)

    return step, finish


# --- formatting -------------------------------------------------------------------------


def fmt_s(seconds: float) -> str:
    """Seconds with a sensible unit (``1.23 ms``)."""
    if seconds is None or math.isnan(seconds):
        return "—"
    if seconds >= 100:
        return f"{seconds:,.0f} s"
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds * 1e6:.3g} µs"


def fmt_ns(ns: float) -> str:
    """Nanoseconds as µs (``2.41 µs``)."""
    if ns is None or math.isnan(ns):
        return "—"
    if ns >= 1e6:
        return f"{ns / 1e6:.3g} ms"
    return f"{ns / 1e3:.3g} µs"


def fmt_bytes(n: float) -> str:
    """Bytes with a binary unit (``1.0 MB``)."""
    if n is None or math.isnan(n):
        return "—"
    for unit, div in (("MB", 1 << 20), ("KB", 1 << 10)):
        if n >= div:
            return f"{n / div:.3g} {unit}"
    return f"{n:.0f} B"


def fmt_total(m: Measurement) -> str:
    """A measurement's total, with ``~`` and a marker when extrapolated."""
    if m.status == "n/a":
        return "n/a"
    if m.estimated:
        return f"~{fmt_s(m.total_s)} ({m.status})"
    return fmt_s(m.total_s)


def timing_cells(m: Measurement) -> list[str]:
    """A measurement's per-input median, total and best pass as table cells ("—" for the
    median and an empty best pass unless measured)."""
    measured = m.status == "measured"
    return [
        fmt_ns(m.median_ns) if measured else "—",
        fmt_total(m),
        fmt_s(m.best_s) if measured else "",
    ]


def fmt_ratio(mine: float, other: float, *, estimated: bool = False) -> str:
    """``other / mine`` as ``"47x faster"`` / ``"3.1x slower"``; ``~`` when estimated."""
    if math.isnan(mine) or math.isnan(other) or mine <= 0 or other <= 0:
        return "—"
    r = other / mine
    tilde = "~" if estimated else ""
    word = "faster" if r >= 1 else "slower"
    r = r if r >= 1 else 1 / r
    return f"{tilde}{r:,.0f}x {word}" if r >= 100 else f"{tilde}{r:.3g}x {word}"


def markdown_table(headers: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """A GitHub markdown table."""
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def write_text(path: Path, text: str) -> Path:
    """Write ``text`` to ``path`` (creating folders); return the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def write_json(path: Path, data: Any) -> Path:
    """Write ``data`` as indented JSON."""
    return write_text(path, json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")


Points = list[tuple[float, float, bool]]
"""``(x, y, estimated)`` points of one line."""


def loglog_plot(
    path: Path,
    *,
    title: str,
    xlabel: str,
    ylabel: str,
    panels: dict[str, dict[str, Points]],
    budget_s: float | None = None,
) -> Path | None:
    """Draw log-log line plots: one panel per key, one line per label.

    Estimated points are hollow markers on a dotted segment; a label keeps its colour
    across panels. Returns the path, or None when matplotlib is not installed.
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    labels: list[str] = []
    for series in panels.values():
        labels += [lb for lb in series if lb not in labels]
    cmap = plt.get_cmap("tab10")
    colors = {lb: cmap(i % 10) for i, lb in enumerate(labels)}
    fig, axes = plt.subplots(
        1, len(panels), figsize=(6.5 * len(panels), 5.5), dpi=100, squeeze=False
    )
    for ax, (panel_title, series) in zip(axes[0], panels.items()):
        for label, points in series.items():
            pts = sorted((x, y, e) for x, y, e in points if y == y and y > 0)
            if not pts:
                continue
            color = colors[label]
            measured = [(x, y) for x, y, e in pts if not e]
            est = [(x, y) for x, y, e in pts if e]
            if measured:
                ax.plot(*zip(*measured), marker="o", color=color, label=label)
            if est:
                joined = ([measured[-1]] if measured else []) + est
                ax.plot(*zip(*joined), linestyle=":", color=color)
                ax.plot(
                    *zip(*est),
                    linestyle="none",
                    marker="o",
                    markerfacecolor="none",
                    color=color,
                    label=None if measured else f"{label} (extrapolated)",
                )
        if budget_s:
            ax.axhline(budget_s, color="grey", linewidth=0.8, linestyle="--")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.set_title(panel_title)
        ax.grid(True, which="both", alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8)
    fig.suptitle(title)
    note = "hollow markers, dotted: extrapolated (over budget)"
    if budget_s:
        note += f"; dashed line: {budget_s:g} s budget"
    fig.text(0.99, 0.01, note, ha="right", fontsize=7, color="grey")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path


def have(*modules: str) -> list[str]:
    """Names in ``modules`` that cannot be imported (empty when all are available)."""
    import importlib.util

    return [m for m in modules if importlib.util.find_spec(m) is None]


def log(msg: str) -> None:
    """Progress line on stderr (results go to files and stdout)."""
    print(msg, file=sys.stderr, flush=True)
