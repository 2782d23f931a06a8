"""mkdocs hook: the performance page's tables, generated from ``benchmarks/results/*.json``.

``docs/performance.md`` holds the prose and one marker, ``<!-- performance:tables -->``;
at build time the marker becomes one section per results file, each stamped with what
the file says about its run: the machine (CPU kind, logical CPUs, Python), the build
(compiled or pure Python), the commit and the date. A stamp field the file lacks is shown
as "not recorded" and listed once in the build log (an INFO line, so a strict build
passes): that is what the benchmark's writer must add. Paths are never shown, and no
number is copied by hand: a new run of a benchmark is a new page.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

log = logging.getLogger("mkdocs.hooks.performance")

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results"
MARKER = "<!-- performance:tables -->"
STAMP_FIELDS = ("machine", "build", "commit", "date")
"""What every results file must say about its run (see :func:`stamp`)."""

SIZES = {200: "200 B", 1024: "1 KB", 10240: "10 KB", 102400: "100 KB", 1048576: "1 MB"}


def _size(n: Any) -> str:
    if isinstance(n, int) and n in SIZES:
        return SIZES[n]
    if isinstance(n, int) and n >= 1024:
        return f"{n / 1024:.0f} KB"
    return f"{n} B" if isinstance(n, int) else str(n)


def _num(x: float | None, unit: str = "") -> str:
    if x is None:
        return "—"
    if x >= 100:
        text = f"{x:,.0f}"
    elif x >= 10:
        text = f"{x:.1f}"
    else:
        text = f"{x:.2f}"
    return f"{text}{unit}"


def stamp(data: dict[str, Any]) -> tuple[dict[str, str], list[str]]:
    """The run's stamp (machine, build, commit, date) and the fields it lacks, from the
    ``machine`` header every writer records (``benchmarks/_report.py``: ``stamp``)."""
    machine = data.get("machine") if isinstance(data.get("machine"), dict) else {}
    found: dict[str, str] = {}
    parts = [str(machine["cpu"])] if machine.get("cpu") else []
    if machine.get("logical_cpus"):
        parts.append(f"{machine['logical_cpus']} logical CPUs")
    if machine.get("python"):
        parts.append(str(machine["python"]))
    if parts:
        found["machine"] = ", ".join(parts)
    if machine.get("callstream_build"):
        found["build"] = str(machine["callstream_build"])
    if machine.get("git_commit"):
        found["commit"] = f"`{machine['git_commit']}`"
    if machine.get("date_utc"):
        found["date"] = str(machine["date_utc"])
    return found, [f for f in STAMP_FIELDS if f not in found]


def _table(header: list[str], rows: Iterable[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _pivot(records: list[dict[str, Any]], value: Callable[[dict[str, Any]], str]) -> str:
    """Rows: the labels; columns: the scenarios (else the sizes); both in order of appearance."""

    def column(r: dict[str, Any]) -> str:
        return str(r.get("scenario") or _size(r.get("size")))

    ordered = sorted(records, key=lambda r: r.get("size") if isinstance(r.get("size"), int) else 0)
    columns = list(dict.fromkeys(column(r) for r in ordered))
    labels = list(dict.fromkeys(r["label"] for r in records))
    cell = {(r["label"], column(r)): value(r) for r in records}
    rows = [[label] + [cell.get((label, c), "—") for c in columns] for label in labels]
    return _table(["", *columns], rows)


def _per_input(r: dict[str, Any]) -> str:
    """A measured record's median µs per input, or why it has none."""
    if r.get("status", "measured") != "measured" or r.get("median_ns") is None:
        total = r.get("total_s")
        return f"skipped (~{_num(total, ' s')} predicted)" if total and total >= 1 else "n/a"
    return _num(r["median_ns"] / 1000, " µs")


def _builds(data: dict[str, Any]) -> str:
    cells = data.get("cells", [])
    out = [
        "CPU µs per chunk (per fragment for the parser), medians; one call, "
        f"{data.get('fragment_chars', 4)}-character argument fragments, the parsed preview "
        "read after every chunk.",
    ]
    for fmt in dict.fromkeys(c["format"] for c in cells):
        rows = [c for c in cells if c["format"] == fmt]
        records = [
            {
                "label": f"{c['label']} ({c['worker']})" if c["worker"] != "peers" else c["label"],
                "size": c["size"],
                "v": c.get("cpu_median_us_per_input"),
            }
            for c in rows
        ]
        out.append(f"**{fmt}**\n\n" + _pivot(records, lambda r: _num(r["v"], " µs")))
    ratios = []
    by = {(c["worker"], c["label"], c["format"], c["size"]): c for c in cells}
    for (worker, label, fmt, size), c in by.items():
        pure = by.get(("pure", label, fmt, size))
        own = label != "json.loads"  # the standard library's, not callstream's code
        if worker == "compiled" and pure and own and c.get("cpu_median_us_per_input"):
            ratios.append(pure["cpu_median_us_per_input"] / c["cpu_median_us_per_input"])
    if ratios:
        out.append(
            f"Pure Python / compiled, per case: {min(ratios):.1f} to {max(ratios):.1f} times "
            f"(median {sorted(ratios)[len(ratios) // 2]:.1f}, {len(ratios)} cases)."
        )
    return "\n\n".join(out)


def _pipeline(data: dict[str, Any]) -> str:
    out = ["Median µs per chunk, whole stream; one call in 4-character fragments."]
    for fmt, records in data.get("speed", {}).items():
        out.append(f"**{fmt}**\n\n" + _pivot(records, _per_input))
    return "\n\n".join(out)


def _flat(data: dict[str, Any]) -> str:
    results = data.get("results", [])
    if isinstance(results, dict):
        return "\n\n".join(
            f"**{name}**\n\n" + _pivot(records, _per_input) for name, records in results.items()
        )
    return "Median µs per input.\n\n" + _pivot(results, _per_input)


def _runner(data: dict[str, Any]) -> str:
    names = {"sequential": "collect, then one by one", "concurrent": "collect, then concurrently"}
    rows = []
    for t in data.get("turns", []):
        s = t.get("strategies", {})
        wall = {k: v.get("wall") for k, v in s.items() if isinstance(v, dict)}
        rows.append(
            [
                str(t.get("label")),
                str(t.get("format")),
                str(t.get("seal")),
                str(len(t.get("names", []))),
                _num(s.get("eager", {}).get("stream_end"), " s"),
                _num(wall.get("sequential"), " s"),
                _num(wall.get("concurrent"), " s"),
                _num(wall.get("eager"), " s"),
                _num(t.get("floor"), " s"),
                f"{t['ratio']:.3f}" if isinstance(t.get("ratio"), float) else "—",
            ]
        )
    header = ["turn", "format", "seal", "calls", "stream", names["sequential"]]
    header += [names["concurrent"], "eager", "eager's floor", "eager / floor"]
    return "Wall time per turn.\n\n" + _table(header, rows)


def _structured(data: dict[str, Any]) -> str:
    """``bench_structured``: µs per chunk per library and size, and the ratio to
    callstream's ``StructuredParser`` (``~``: a run stopped at its budget, extrapolated)."""
    rows = [r for r in data.get("rows", []) if isinstance(r, dict)]
    ours = {
        r.get("size"): r.get("total_s")
        for r in rows
        if r.get("library", "").startswith("callstream StructuredParser")
    }

    def cell(r: dict[str, Any]) -> str:
        per, total = r.get("per_chunk_us"), r.get("total_s")
        if r.get("status") == "n/a" or per is None:
            return "n/a"
        mark = "~" if r.get("status") == "stopped" else ""
        base = ours.get(r.get("size"))
        ratio = f" ({mark}{_num(total / base)}x)" if total and base else ""
        return f"{mark}{_num(per, ' µs')}{ratio}"

    records = [
        {"label": r.get("library", "?"), "size": r.get("size"), "text": cell(r)} for r in rows
    ]
    body = _pivot(records, lambda r: str(r["text"]))
    return "µs per 4-character chunk (total / callstream's total).\n\n" + body


RENDERERS: dict[str, tuple[str, Callable[[dict[str, Any]], str]]] = {
    "builds": ("Compiled and pure Python, side by side", _builds),
    "pipeline": ("Whole streams against the peers", _pipeline),
    "runner": ("Eager tools: wall time per turn", _runner),
    "partial_json": ("The partial-JSON parser alone", _flat),
    "assembler": ("The assembler alone", _flat),
    "structured": ("Structured output: partial objects per chunk", _structured),
}


def _section(path: Path) -> tuple[str, list[str]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    title, render = RENDERERS.get(path.stem, (path.stem, _flat))
    found, missing = stamp(data)
    line = "; ".join(f"{field}: {found.get(field, '*not recorded*')}" for field in STAMP_FIELDS)
    body = render(data)
    text = f"## {title}\n\n`benchmarks/results/{path.name}` — {line}.\n\n{body}\n"
    return text, missing


def render_tables(results: Path = RESULTS) -> tuple[str, dict[str, list[str]]]:
    """The generated sections, and per file the stamp fields it lacks."""
    sections, lacking = [], {}
    order = list(RENDERERS)

    def rank(path: Path) -> tuple[int, str]:
        return (order.index(path.stem) if path.stem in order else len(order), path.name)

    files = sorted(results.glob("*.json"), key=rank)
    for path in files:
        text, missing = _section(path)
        sections.append(text)
        if missing:
            lacking[path.name] = missing
    if not sections:
        sections.append("No results in `benchmarks/results/` yet.\n")
    return "\n".join(sections), lacking


def on_page_markdown(markdown: str, page: Any, **kwargs: Any) -> str:
    if MARKER not in markdown:
        return markdown
    tables, lacking = render_tables()
    for name, missing in lacking.items():
        log.info("benchmarks/results/%s does not record its %s", name, ", ".join(missing))
    return markdown.replace(MARKER, tables)
