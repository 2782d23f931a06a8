"""Partial-JSON parsing side by side: callstream's incremental parser vs re-parsing peers.

Streams documents of 1 KB, 10 KB, 100 KB and 1 MB (structured records; one long string
with escapes and non-ASCII) in 4-character fragments and times, per fragment:

- (a) callstream ``PartialJSONParser.feed`` — the changes only;
- (b) callstream ``feed`` + ``.value`` (the preview) after every fragment;
- jiter ``from_json(buf, partial_mode="trailing-strings")`` of the accumulated bytes
  (what the OpenAI and Anthropic SDKs do, with partial strings shown);
- partial-json-parser ``loads`` of the accumulated text;
- LangChain ``parse_partial_json`` of the accumulated text;
- one ``json.loads`` of the final text (the floor).

Every library's final value is checked against ``json.loads``. A peer predicted to take
longer than the budget (60 s) at a size is skipped and its total extrapolated (marked).

    python benchmarks/bench_partial_json.py            # full run -> benchmarks/results/
    python benchmarks/bench_partial_json.py --quick    # smoke run
"""

from __future__ import annotations

import functools
import json
import math
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _measure import (
    GC_NOTE,
    Consumer,
    Finish,
    Measurement,
    Series,
    Step,
    growth_exponent,
    settled,
    time_once,
)
from _ours import parser_consumer
from _report import (
    Points,
    arguments,
    fmt_bytes,
    fmt_ns,
    fmt_ratio,
    fmt_s,
    fmt_total,
    load_average,
    log,
    loglog_plot,
    machine,
    machine_markdown,
    markdown_table,
    write_json,
    write_text,
)
from _streams import fragments, long_string_document, structured_document

SIZES: tuple[int, ...] = (1 << 10, 10 << 10, 100 << 10, 1 << 20)
QUICK_SIZES = (256, 1 << 10)
TINY_SIZES = (128,)
DOCS: dict[str, Callable[[int], str]] = {
    "structured": structured_document,
    "long string": long_string_document,
}

OURS_A = "callstream (a) changes"
OURS_B = "callstream (b) .value"
JITER = "jiter trailing-strings"
PJP = "partial-json-parser"
LANGCHAIN = "LangChain parse_partial_json"
FLOOR = "json.loads once (floor)"
PEERS = (JITER, PJP, LANGCHAIN)


def _jiter() -> tuple[Step, Finish]:
    import jiter

    state: dict[str, Any] = {"buf": b"", "value": None}

    def step(fragment: str) -> object:
        buf = state["buf"] + fragment.encode()
        state["buf"] = buf
        try:  # noqa: SIM105 - contextlib.suppress would add its own cost to the peer
            state["value"] = jiter.from_json(buf, partial_mode="trailing-strings")
        except ValueError:
            pass  # e.g. whitespace only: keep the previous preview
        return state["value"]

    return step, lambda: state["value"]


def _reparse(parse: Callable[[str], Any]) -> Consumer:
    def consumer() -> tuple[Step, Finish]:
        state: dict[str, Any] = {"buf": "", "value": None}

        def step(fragment: str) -> object:
            buf = state["buf"] + fragment
            state["buf"] = buf
            try:  # noqa: SIM105 - contextlib.suppress would add its own cost to the peer
                state["value"] = parse(buf)
            except Exception:  # peers raise assorted errors on some prefixes
                pass
            return state["value"]

        return step, lambda: state["value"]

    return consumer


def _pjp() -> Consumer | None:
    try:
        import partial_json_parser
    except ImportError:
        return None
    return _reparse(partial_json_parser.loads)


def _langchain() -> Consumer | None:
    try:
        from langchain_core.utils.json import parse_partial_json
    except ImportError:
        return None
    return _reparse(parse_partial_json)


def libraries() -> dict[str, Consumer | None]:
    """Consumers by label (None when the library is not installed)."""
    try:
        import jiter  # noqa: F401

        jit: Consumer | None = _jiter
    except ImportError:
        jit = None
    return {
        OURS_A: parser_consumer(read_value=False),
        OURS_B: parser_consumer(read_value=True),
        JITER: jit,
        PJP: _pjp(),
        LANGCHAIN: _langchain(),
    }


def run(sizes: Sequence[int], *, budget_s: float, repeats: int) -> dict[str, list[Measurement]]:
    """Measure every library on every document kind and size; results by document kind."""
    libs = libraries()
    results: dict[str, list[Measurement]] = {}
    for doc, make in DOCS.items():
        series = {label: Series(label, budget_s=budget_s, repeats=repeats) for label in libs}
        rows: list[Measurement] = []
        for size in sizes:
            text = make(size)
            expected = json.loads(text)
            frags = fragments(text)
            nbytes = len(text.encode())
            for label, consumer in libs.items():
                log(f"[partial_json] {doc} {fmt_bytes(nbytes)} {label} ...")
                if consumer is None:
                    m = series[label].unavailable(size, len(frags), "not installed")
                else:
                    m = series[label].run(size, consumer, frags)
                m.extra["bytes"] = nbytes
                if m.status == "measured":
                    assert m.result == expected, f"{label} disagrees with json.loads on {doc}"
                m.result = None
                rows.append(m)
            floor = time_once(functools.partial(json.loads, text))
            rows.append(
                Measurement(
                    label=FLOOR,
                    size=size,
                    inputs=1,
                    total_s=floor,
                    passes=1,
                    extra={"bytes": nbytes},
                )
            )
        results[doc] = rows
    return results


def _fastest_peer(rows: Sequence[Measurement], size: int) -> Measurement | None:
    peers = [m for m in rows if m.size == size and m.label in PEERS and not math.isnan(m.total_s)]
    return min(peers, key=lambda m: m.total_s) if peers else None


def _row(m: Measurement, fastest: Measurement | None) -> list[str]:
    if fastest is None or m.status == "n/a":
        ratio = "—"
    elif m is fastest:
        ratio = "fastest peer"
    else:
        ratio = fmt_ratio(m.total_s, fastest.total_s, estimated=m.estimated or fastest.estimated)
    per_frag = fmt_ns(m.median_ns) if m.status == "measured" else "—"
    if m.label == FLOOR:
        per_frag = "(one call)"
    return [
        fmt_bytes(m.size),
        str(m.extra.get("bytes", "")),
        str(m.inputs),
        m.label,
        fmt_total(m),
        fmt_s(m.best_s) if m.status == "measured" and m.label != FLOOR else "",
        per_frag,
        ratio,
        m.note,
    ]


def exponents(rows: Sequence[Measurement], label: str) -> tuple[float, float, float]:
    """Growth exponents of ``label`` from the 10 KB to the 1 MB document.

    Returns ``(p_total, p_best, p_fragment)``: from the median totals, from the best
    passes, and ``1 + log(median2 / median1) / log(n2 / n1)`` from the per-fragment
    medians (1.0 when the cost per fragment is flat; robust to other processes).
    """
    pts = {m.size: m for m in rows if m.label == label and m.status == "measured"}
    small = [s for s in pts if s >= 10 << 10]
    if len(small) < 2:
        small = sorted(pts)
    if len(small) < 2:
        return math.nan, math.nan, math.nan
    lo, hi = pts[min(small)], pts[max(small)]
    n1, n2 = lo.extra.get("bytes", lo.size), hi.extra.get("bytes", hi.size)
    per_fragment = growth_exponent(n1, lo.median_ns, n2, hi.median_ns) + 1
    return (
        growth_exponent(n1, lo.total_s, n2, hi.total_s),
        growth_exponent(n1, lo.best_s, n2, hi.best_s),
        per_fragment,
    )


def _p(x: float) -> str:
    return "—" if math.isnan(x) else f"{x:.2f}"


def report(
    results: dict[str, list[Measurement]], info: dict[str, Any], *, budget_s: float, cmd: str
) -> str:
    """The markdown report: machine, one table per document kind, growth, targets."""
    out = [
        "# Partial JSON: incremental parsing vs re-parsing the accumulated text\n",
        "Each document is streamed in 4-character fragments. *Total* is the median over "
        "passes of the time to consume every fragment (reading what the row says after "
        "each one); *per fragment* is the median of individually timed fragments (every "
        "k-th, about 2,000 per pass). *vs fastest peer* compares the total with the fastest "
        "re-parsing peer at that size (jiter, partial-json-parser, LangChain); *best pass* "
        "is the fastest pass. Peers "
        "re-parse the whole accumulated text on every fragment (jiter gets the "
        "accumulated UTF-8 bytes, as the SDKs keep them). Every library's final value "
        f"equals `json.loads` of the whole text (asserted). A peer predicted to need more "
        f"than {budget_s:g} s at a size is skipped and its total extrapolated with a "
        "quadratic fit over the smaller sizes, marked `~… (skipped)`. ",
        GC_NOTE,
        machine_markdown(info, cmd),
    ]
    for doc, rows in results.items():
        out.append(f"\n## {doc}\n\n")
        table = []
        for size in sorted({m.size for m in rows}):
            fastest = _fastest_peer(rows, size)
            table += [_row(m, fastest) for m in rows if m.size == size]
        out.append(
            markdown_table(
                [
                    "size",
                    "bytes",
                    "fragments",
                    "library",
                    "total",
                    "best pass",
                    "per fragment",
                    "vs fastest peer",
                    "note",
                ],
                table,
            )
        )
    out.append("\n## Growth and targets\n\n")
    out.append(
        "Growth exponent *p* (t ∝ nᵖ; 1 = linear, 2 = quadratic) from the 10 KB to the "
        "1 MB document, computed three ways: from the median totals, from the best passes, "
        "and from the per-fragment medians (1 + the growth of the median cost of one "
        "fragment; insensitive to other processes pausing this one):\n\n"
    )
    grows = []
    for doc, rows in results.items():
        for label in (OURS_A, OURS_B, JITER):
            p_total, p_best, p_frag = exponents(rows, label)
            grows.append([doc, label, _p(p_total), _p(p_best), _p(p_frag)])
    out.append(
        markdown_table(
            ["document", "library", "from totals", "from best passes", "from per-fragment medians"],
            grows,
        )
    )
    out.append(
        "\nEach exponent spans the 10 KB document to the largest one measured for that "
        "library (a peer skipped at 1 MB ends earlier).\n"
    )
    out.append("\nIssue targets (measured here, not asserted):\n\n")
    out.append(markdown_table(["target", "document", "measured"], _targets(results)))
    return "".join(out)


def _targets(results: dict[str, list[Measurement]]) -> list[list[str]]:
    rows: list[list[str]] = []
    for doc, ms in results.items():
        by = {(m.label, m.size): m for m in ms}

        def get(label: str, size: int) -> Measurement | None:
            m = by.get((label, size))
            return None if m is None or math.isnan(m.total_s) else m

        for label, limit in ((OURS_A, 1.1), (OURS_B, 1.3)):
            p_total, p_best, p_frag = exponents(ms, label)
            got = f"{_p(p_total)} (totals), {_p(p_best)} (best), {_p(p_frag)} (per fragment)"
            rows.append([f"{label}: growth 10 KB→1 MB ≤ {limit}", doc, got])
        for label, want in ((OURS_B, 30), (OURS_A, 100)):
            mine, jit = get(label, 100 << 10), get(JITER, 100 << 10)
            got = "—" if mine is None or jit is None else _both(jit, mine)
            rows.append([f"{label}: ≥ {want}x faster than jiter at 100 KB", doc, got])
        mine, jit = get(OURS_B, 1 << 10), get(JITER, 1 << 10)
        got = "—" if mine is None or jit is None else _both(mine, jit) + " of jiter's time"
        rows.append([f"{OURS_B}: ≤ 1.5x jiter at 1 KB", doc, got])
        meds = [m.median_ns for m in ms if m.label == OURS_A and m.status == "measured"]
        got = "—" if not meds else f"{max(meds) / 1e3:.3g} µs (worst size)"
        rows.append([f"{OURS_A}: ≤ 3 µs per fragment (median)", doc, got])
    return rows


def _both(a: Measurement, b: Measurement) -> str:
    """``a / b`` from median totals, best passes and per-fragment medians."""
    return (
        f"{a.total_s / b.total_s:.3g}x (totals), {a.best_s / b.best_s:.3g}x (best), "
        f"{a.median_ns / b.median_ns:.3g}x (per fragment)"
    )


def plot(results: dict[str, list[Measurement]], path: Path, budget_s: float) -> Path | None:
    """Log-log plot of total time vs document size, one panel per document kind."""
    panels: dict[str, dict[str, Points]] = {}
    for doc, rows in results.items():
        series: dict[str, Points] = {}
        for m in rows:
            if m.status == "n/a" or math.isnan(m.total_s):
                continue
            x = float(m.extra.get("bytes", m.size))
            series.setdefault(m.label, []).append((x, m.total_s, m.estimated))
        panels[doc] = series
    return loglog_plot(
        path,
        title="Streaming a JSON document in 4-character fragments (total time)",
        xlabel="document size (bytes)",
        ylabel="total time (s)",
        panels=panels,
        budget_s=budget_s,
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; write ``partial_json.md`` (+ ``.json``, ``.png``) to ``--out``."""
    ns = arguments(__doc__.splitlines()[0] if __doc__ else "", argv)
    info = machine()
    sizes = TINY_SIZES if ns.tiny else QUICK_SIZES if ns.quick else SIZES
    with settled(("callstream._json", "jiter", "partial_json_parser", "langchain_core")):
        results = run(sizes, budget_s=ns.budget, repeats=ns.repeats)
    info["load_average_1m_end"] = load_average()
    cmd = "python benchmarks/bench_partial_json.py" + (" --quick" if ns.quick else "")
    text = report(results, info, budget_s=ns.budget, cmd=cmd)
    write_text(ns.out / "partial_json.md", text)
    write_json(
        ns.out / "partial_json.json",
        {
            "machine": info,
            "budget_s": ns.budget,
            "results": {d: [m.as_json() for m in rows] for d, rows in results.items()},
        },
    )
    if not ns.no_plot:
        plot(results, ns.out / "partial_json.png", ns.budget)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
