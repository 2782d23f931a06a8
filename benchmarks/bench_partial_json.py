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
    one_shot,
    settled,
)
from _ours import parser_consumer
from _report import (
    arguments,
    command,
    fmt_bytes,
    load_average,
    log,
    loglog_plot,
    markdown_table,
    measurement_table,
    stamp,
    stamp_markdown,
    write_results,
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
        series = {lb: Series(lb, budget_s=budget_s, max_passes=repeats) for lb in [*libs, FLOOR]}
        rows: list[Measurement] = []
        for size in sizes:
            text = make(size)
            expected = json.loads(text)
            frags = fragments(text)
            nbytes = len(text.encode())
            for label, consumer in [*libs.items(), (FLOOR, one_shot(lambda t=text: json.loads(t)))]:
                log(f"[partial_json] {doc} {fmt_bytes(nbytes)} {label} ...")
                inputs = [text] if label == FLOOR else frags
                if consumer is None:
                    m = series[label].unavailable(size, len(frags), "not installed")
                else:
                    m = series[label].run(size, consumer, inputs)
                m.extra["bytes"] = nbytes
                if label == FLOOR:
                    m.note = m.note or "one call on the whole text (per fragment: that call)"
                if m.status == "measured":
                    assert m.result == expected, f"{label} disagrees with json.loads on {doc}"
                m.result = None
                rows.append(m)
        results[doc] = rows
    return results


def _fastest_peer(rows: Sequence[Measurement], m: Measurement) -> Measurement | None:
    peers = [r for r in rows if r.size == m.size and r.label in PEERS and not math.isnan(r.total_s)]
    return min(peers, key=lambda r: r.total_s) if peers else None


def exponents(rows: Sequence[Measurement], label: str) -> tuple[float, float]:
    """Growth exponents of ``label`` from the 10 KB document to the largest measured, from
    the median totals and from the best passes (1 = linear, 2 = quadratic)."""
    pts = {m.size: m for m in rows if m.label == label and m.status == "measured"}
    small = [s for s in pts if s >= 10 << 10]
    if len(small) < 2:
        small = sorted(pts)
    if len(small) < 2:
        return math.nan, math.nan
    lo, hi = pts[min(small)], pts[max(small)]
    n1, n2 = lo.extra.get("bytes", lo.size), hi.extra.get("bytes", hi.size)
    return growth_exponent(n1, lo.total_s, n2, hi.total_s), growth_exponent(
        n1, lo.best_s, n2, hi.best_s
    )


def _p(x: float) -> str:
    return "—" if math.isnan(x) else f"{x:.2f}"


def report(results: dict[str, list[Measurement]], info: dict[str, Any], budget_s: float) -> str:
    """The markdown report: machine, one table per document kind, growth, targets."""
    out = [
        "# Partial JSON: incremental parsing vs re-parsing the accumulated text\n",
        "Each document is streamed in 4-character fragments; every library reads what its "
        "row says after each one. A pass over the fragments is timed whole: *total* is the "
        "median pass, *per fragment* the median pass over the fragments, *best pass* the "
        "fastest. *vs fastest peer* compares the total with the fastest re-parsing peer at "
        "that size (jiter, partial-json-parser, LangChain), which re-parse the whole "
        "accumulated text on every fragment (jiter gets the accumulated UTF-8 bytes, as the "
        "SDKs keep them). Every library's final value equals `json.loads` of the whole text "
        f"(asserted). A peer predicted to need more than {budget_s:g} s at a size is skipped "
        "and its total extrapolated with a quadratic fit over the smaller sizes, marked "
        "`~… (skipped)`. ",
        GC_NOTE,
        stamp_markdown(info),
    ]
    lead = [("size", lambda m: fmt_bytes(m.size)), ("bytes", lambda m: m.extra.get("bytes", ""))]
    lead.append(("fragments", lambda m: m.inputs))
    for doc, rows in results.items():
        out.append(f"\n## {doc}\n\n")
        ordered = sorted(rows, key=lambda m: m.size)  # stable: the libraries' order kept
        out.append(
            measurement_table(
                ordered, lead, lambda m, r=rows: _fastest_peer(r, m), "fastest peer", "fragment"
            )
        )
    out.append(
        "\n## Growth\n\nGrowth exponent *p* (t ∝ nᵖ; 1 = linear, 2 = quadratic) "
        "from the 10 KB document to the largest one measured for that library, from the "
        "median totals and from the best passes:\n\n"
    )
    grows = []
    for doc, rows in results.items():
        for label in (OURS_A, OURS_B, JITER):
            grows.append([doc, label, *map(_p, exponents(rows, label))])
    out.append(markdown_table(["document", "library", "from totals", "from best passes"], grows))
    return "".join(out)


def plot(results: dict[str, list[Measurement]], path: Path, budget_s: float) -> Path | None:
    """Log-log plot of total time vs document size, one panel per document kind."""
    title = "Streaming a JSON document in 4-character fragments (total time)"
    labels = (title, "document size (bytes)", "total time (s)")
    return loglog_plot(path, results, lambda m: m.extra.get("bytes", m.size), labels, budget_s)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; write ``partial_json.md`` (+ ``.json``, ``.png``) to ``--out``."""
    ns = arguments(__doc__.splitlines()[0] if __doc__ else "", argv)
    if ns.render:
        data = json.loads((ns.out / "partial_json.json").read_text(encoding="utf-8"))
    else:
        info = stamp(command("bench_partial_json", ns))
        sizes = TINY_SIZES if ns.tiny else QUICK_SIZES if ns.quick else SIZES
        with settled(("callstream._json", "jiter", "partial_json_parser", "langchain_core")):
            measured = run(sizes, budget_s=ns.budget, repeats=ns.repeats)
        info["load_average_1m_end"] = load_average()
        results = {d: [m.as_json() for m in rows] for d, rows in measured.items()}
        data = {"machine": info, "budget_s": ns.budget, "results": results}
    results = {d: [Measurement.from_json(r) for r in rows] for d, rows in data["results"].items()}
    if not ns.no_plot:
        plot(results, ns.out / "partial_json.png", data["budget_s"])
    text = report(results, data["machine"], data["budget_s"])
    return write_results(ns.out, "partial_json", text, data)


if __name__ == "__main__":
    raise SystemExit(main())
