"""Structured output streamed side by side: partial objects of a pydantic model from the
JSON a model writes as text, per chunk, at 200 B, 10 KB, 100 KB and 1 MB.

One document (a ``Table``: a title and a list of ~170-byte rows, each with a nested model,
a list, a ``Literal`` and numbers), cut into 4-character text chunks (about one token
each), goes through, in one run:

- callstream ``StructuredParser(Table)``: ``feed(chunk)`` then ``.value`` (the partial
  object) after every chunk, then ``close()`` (the validated value);
- callstream ``structured(payloads, Table)``: the same document as OpenAI Chat chunk dicts
  (one per text chunk), through the whole stream path (translator, pipeline, parser);
- instructor ``Partial[Table].model_from_chunks(chunks)`` (if installed: the ``bench``
  comparisons): the buffer so far re-parsed by jiter and validated by a partial model,
  per chunk;
- LangChain ``JsonOutputParser().transform(chunks)`` and
  ``PydanticOutputParser(pydantic_object=Table).transform(chunks)``: the text so far
  re-parsed (by LangChain's partial-JSON parser) per chunk;
- the floor of re-parsing: ``jiter.from_json(buffer, partial_mode="trailing-strings")``
  plus ``Table.model_validate`` per chunk, and pydantic's own
  ``TypeAdapter(Table).validate_json(buffer, experimental_allow_partial="trailing-strings")``.

Every library's final value must equal ``Table.model_validate_json(text)`` (the JSON
parsers: ``json.loads(text)``), asserted when its run completes. A run still going after
the budget is stopped and its total extrapolated from its own cumulative-time curve
(least squares ``t = a n + b n^2``), marked ``~``. Per-chunk cost = total / chunks.
Ratios: peer total / callstream ``StructuredParser`` total (higher: callstream faster).

    python benchmarks/bench_structured.py            # full -> benchmarks/results/structured.*
    python benchmarks/bench_structured.py --quick    # 200 B, 10 KB, 100 KB; short budget
    python benchmarks/bench_structured.py --tiny     # the test suite's smoke run (200 B)
"""

from __future__ import annotations

import contextlib
import gc
import json
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path
from typing import Any, Literal

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pydantic import BaseModel

from _measure import fit_quadratic, have
from _report import arguments, command, log, stamp, stamp_markdown, write_results

SIZES = (200, 10 << 10, 100 << 10, 1 << 20)
QUICK_SIZES = (200, 10 << 10, 100 << 10)
TINY_SIZES = (200,)
CHUNK = 4


class Meta(BaseModel):
    created: str
    score: float
    note: str | None


class Row(BaseModel):
    id: int
    name: str
    price: float
    qty: int
    tags: list[str]
    active: bool
    kind: Literal["a", "b", "c"]
    meta: Meta


class Table(BaseModel):
    title: str
    rows: list[Row]


def document(size: int) -> str:
    """The JSON text of a :class:`Table` of about ``size`` characters (deterministic)."""
    rows: list[dict[str, Any]] = []
    head = {"title": "Inventory of the warehouse", "rows": rows}
    length = len(json.dumps(head))
    i = 0
    while length < size or not rows:
        row = {
            "id": i,
            "name": f"item number {i} with a name",
            "price": round(1.25 + i * 0.5, 2),
            "qty": i % 17,
            "tags": ["red", "large"] if i % 2 else ["blue"],
            "active": i % 3 == 0,
            "kind": "abc"[i % 3],
            "meta": {"created": "2024-05-01", "score": i / 7, "note": None if i % 4 else "ok"},
        }
        rows.append(row)
        length += len(json.dumps(row)) + 2
        i += 1
    return json.dumps(head)


def chunks_of(text: str) -> list[str]:
    return [text[i : i + CHUNK] for i in range(0, len(text), CHUNK)]


def chat_payloads(chunks: Sequence[str]) -> list[dict[str, Any]]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": "c",
            "object": "chat.completion.chunk",
            "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    return [chunk({"content": c}) for c in chunks] + [chunk({}, "stop")]


# --- the libraries: each a function from its inputs to an iterator of previews, whose
# --- last item is the final value -------------------------------------------------------


def ours(chunks: Iterable[str]) -> Iterator[Any]:
    from callstream import StructuredParser

    parser = StructuredParser(Table)
    for chunk in chunks:
        parser.feed(chunk)
        yield parser.value
    yield parser.close()


def ours_stream(payloads: Iterable[dict[str, Any]]) -> Iterator[Any]:
    import callstream

    for update in callstream.structured(payloads, Table, provider="openai-chat"):
        yield update.value


def instructor_partial(chunks: Iterable[str]) -> Iterator[Any]:
    from instructor import Partial

    yield from Partial[Table].model_from_chunks(chunks)


def langchain_json(chunks: Iterable[str]) -> Iterator[Any]:
    from langchain_core.output_parsers import JsonOutputParser

    yield from JsonOutputParser().transform(chunks)


def langchain_pydantic(chunks: Iterable[str]) -> Iterator[Any]:
    from langchain_core.output_parsers import PydanticOutputParser

    yield from PydanticOutputParser(pydantic_object=Table).transform(chunks)


def jiter_floor(chunks: Iterable[str]) -> Iterator[Any]:
    import jiter
    from pydantic import ValidationError

    buffer = ""
    value: Any = None
    for chunk in chunks:
        buffer += chunk
        data = jiter.from_json(buffer.encode(), partial_mode="trailing-strings")
        with contextlib.suppress(ValidationError):
            value = Table.model_validate(data)
        yield value
    yield Table.model_validate_json(buffer)


def pydantic_partial(chunks: Iterable[str]) -> Iterator[Any]:
    from pydantic import TypeAdapter, ValidationError

    adapter = TypeAdapter(Table)
    buffer = ""
    value: Any = None
    for chunk in chunks:
        buffer += chunk
        with contextlib.suppress(ValidationError):
            value = adapter.validate_json(buffer, experimental_allow_partial="trailing-strings")
        yield value
    yield Table.model_validate_json(buffer)


OURS = "callstream StructuredParser"
OURS_STREAM = "callstream structured() (OpenAI Chat dicts)"
INSTRUCTOR = "instructor Partial[Model]"
LC_JSON = "LangChain JsonOutputParser"
LC_PYDANTIC = "LangChain PydanticOutputParser"
FLOOR = "jiter re-parse + model_validate (floor)"
PYDANTIC = "pydantic validate_json(allow_partial)"


@dataclass(frozen=True)
class Library:
    label: str
    run: Callable[[Iterable[Any]], Iterator[Any]]
    modules: tuple[str, ...]
    payloads: bool = False  # fed OpenAI Chat dicts instead of text chunks
    plain: bool = False  # its final value is plain JSON data


LIBRARIES = (
    Library(OURS, ours, ()),
    Library(OURS_STREAM, ours_stream, (), payloads=True),
    Library(INSTRUCTOR, instructor_partial, ("instructor",)),
    Library(LC_JSON, langchain_json, ("langchain_core",), plain=True),
    Library(LC_PYDANTIC, langchain_pydantic, ("langchain_core",)),
    Library(FLOOR, jiter_floor, ("jiter",)),
    Library(PYDANTIC, pydantic_partial, ()),
)


@dataclass
class Row_:
    """One library at one size."""

    library: str
    size: int
    chunks: int
    status: str  # "measured", "stopped" (extrapolated) or "n/a"
    total_s: float | None = None
    per_chunk_us: float | None = None
    reason: str = ""


class Feeder:
    """Hands out the inputs, records (inputs handed out, seconds), stops at the deadline."""

    def __init__(self, inputs: Sequence[Any], deadline_s: float) -> None:
        self.inputs = inputs
        self.deadline_s = deadline_s
        self.done = 0
        self.curve: list[tuple[float, float]] = []
        self.every = max(1, len(inputs) // 200)
        self.start = time.perf_counter()

    def __iter__(self) -> Iterator[Any]:
        self.start = time.perf_counter()
        for i, item in enumerate(self.inputs):
            if i % self.every == 0:
                elapsed = time.perf_counter() - self.start
                self.curve.append((float(i), elapsed))
                if elapsed > self.deadline_s:
                    return
            self.done = i + 1
            yield item


def run_once(lib: Library, inputs: Sequence[Any], budget: float) -> tuple[float, bool, Any]:
    """(seconds, completed, final value) of one pass, extrapolated when stopped."""
    feeder = Feeder(inputs, budget)
    last: Any = None
    gc.collect()
    gc.disable()
    try:
        t0 = time.perf_counter()
        try:
            for last in lib.run(iter(feeder)):
                pass
        except Exception:
            if feeder.done == len(inputs):
                raise
            # stopped at the budget: the end of a cut document does not validate
        total = time.perf_counter() - t0
    finally:
        gc.enable()
    if feeder.done < len(inputs):
        return fit_quadratic(feeder.curve)(float(len(inputs))), False, None
    return total, True, last


def measure(lib: Library, size: int, text: str, budget: float, repeats: int) -> Row_:
    chunks = chunks_of(text)
    missing = have(*lib.modules) if lib.modules else []
    if missing:
        return Row_(lib.label, size, len(chunks), "n/a", reason=f"{', '.join(missing)} missing")
    inputs: Sequence[Any] = chat_payloads(chunks) if lib.payloads else chunks
    times = []
    for _ in range(repeats):
        total, completed, final = run_once(lib, inputs, budget)
        if not completed:
            per = total / len(chunks) * 1e6
            return Row_(lib.label, size, len(chunks), "stopped", total, per)
        expected: Any = json.loads(text) if lib.plain else Table.model_validate_json(text)
        assert final == expected, f"{lib.label} disagrees at {size} B"
        times.append(total)
        if total > budget / 2:
            break
    total = statistics.median(times)
    return Row_(lib.label, size, len(chunks), "measured", total, total / len(chunks) * 1e6)


# --- report ---------------------------------------------------------------------------------


def fmt_size(n: int) -> str:
    if n >= 1 << 20:
        return f"{n / (1 << 20):g} MB"
    if n >= 1 << 10:
        return f"{n / (1 << 10):g} KB"
    return f"{n} B"


def fmt_time(seconds: float | None, row: Row_) -> str:
    if seconds is None:
        return "n/a"
    mark = "~" if row.status == "stopped" else ""
    if seconds >= 1:
        return f"{mark}{seconds:.2f} s"
    return f"{mark}{seconds * 1e3:.2f} ms"


def ratio(row: Row_, base: Row_ | None) -> str:
    if row.total_s is None or base is None or base.total_s is None:
        return "n/a"
    mark = "~" if row.status == "stopped" else ""
    return f"{mark}{row.total_s / base.total_s:.1f}x"


def render(data: dict[str, Any]) -> str:
    rows = [Row_(**r) for r in data["rows"]]
    sizes = sorted({r.size for r in rows})
    lines = [
        "# Structured output, streamed: partial objects per chunk",
        "",
        "A `Table` document (title + list of rows with a nested model, a list, a `Literal`,",
        f"numbers) cut into {CHUNK}-character text chunks; every library reads its partial",
        "object after every chunk and ends with the validated value (checked equal to",
        "`Table.model_validate_json(text)`). Ratio: peer total / callstream `StructuredParser`",
        "total (higher: callstream faster). `~`: stopped at the budget and extrapolated",
        "(`t = a n + b n^2`). Generated by `benchmarks/bench_structured.py`; numbers vary",
        "with the machine and its load.",
        "",
        f"instructor {data['instructor']}.",
        "",
        "| library | size | chunks | total | per chunk | ratio |",
        "|---|---|---|---|---|---|",
    ]
    for size in sizes:
        at = [r for r in rows if r.size == size]
        base = next((r for r in at if r.library == OURS), None)
        for r in at:
            per = "n/a" if r.per_chunk_us is None else f"{r.per_chunk_us:.2f} µs"
            shown = ratio(r, base) if r.status != "n/a" else f"n/a ({r.reason})"
            lines.append(
                f"| {r.library} | {fmt_size(size)} | {r.chunks} | {fmt_time(r.total_s, r)} "
                f"| {per} | {shown} |"
            )
    ours_rows = {r.size: r for r in rows if r.library == OURS and r.per_chunk_us}
    small = ours_rows.get(10 << 10)
    if small is not None and small.per_chunk_us:
        lines += ["", "## Targets", ""]
        for size in sizes:
            r = ours_rows.get(size)
            if r is not None and size > small.size and r.per_chunk_us:
                flat = r.per_chunk_us / small.per_chunk_us
                lines.append(
                    f"- per-chunk cost at {fmt_size(size)} / at 10 KB: {flat:.2f} (target <= 1.5)"
                )
        at_100k = [r for r in rows if r.size == 100 << 10]
        base = next((r for r in at_100k if r.library == OURS), None)
        inst = next((r for r in at_100k if r.library == INSTRUCTOR), None)
        if base is not None and inst is not None and inst.total_s and base.total_s:
            lines.append(
                f"- instructor `Partial` / callstream at 100 KB: "
                f"{inst.total_s / base.total_s:.1f}x (target >= 20x)"
            )
    lines += ["", stamp_markdown(data["machine"]), ""]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    ns = arguments("Structured output streamed side by side (issue 27).", argv)
    sizes = TINY_SIZES if ns.tiny else QUICK_SIZES if ns.quick else SIZES
    budget = 1.0 if ns.tiny else ns.budget
    info = stamp(command("bench_structured", ns))
    warm = document(200)
    for lib in LIBRARIES:  # imports, schemas and adapters built before any clock starts
        if not (lib.modules and have(*lib.modules)):
            measure(lib, 200, warm, budget, 1)
    rows = []
    for size in sizes:
        text = document(size)
        for lib in LIBRARIES:
            log(f"{lib.label} at {fmt_size(size)}")
            rows.append(measure(lib, size, text, budget, ns.repeats))
    try:
        instructor_version = metadata.version("instructor")
    except metadata.PackageNotFoundError:
        instructor_version = "not installed"
    data = {
        "machine": info,
        "instructor": instructor_version,
        "rows": [asdict(r) for r in rows],
    }
    return write_results(ns.out, "structured", render(data), data)


if __name__ == "__main__":
    raise SystemExit(main())
