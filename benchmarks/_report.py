"""Output for the benchmark scripts: shared options, machine description, tables, files, plots.

The command line every script shares (:func:`arguments`), a description of the machine
and package versions the numbers come from, units and ratios as text, markdown tables,
JSON and text files, log-log plots (matplotlib, Agg) and progress lines on stderr.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import math
import os
import platform
import re
import subprocess
import sys
from collections.abc import Callable, Iterable, Sequence
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from _measure import Measurement

RESULTS = Path(__file__).resolve().parent / "results"
"""Default output folder for tables, plots and JSON."""

CHECKOUT = RESULTS.parent.parent
"""The checkout these scripts belong to: the paths a result names are relative to it."""

TINY_HELP = "the test suite's smoke run: smallest sizes, one pass, seconds; not judged"
"""The help of ``--tiny``, which every script takes (``tests/benchmarks/test_benchmarks_smoke.py``
runs each script with it, and with ``--out`` into a temporary folder when it writes)."""

SKIP_STATUS = 77
"""The exit status of a script that cannot measure on this install (what it measures is
missing, the compiled build say), the reason on stderr: the smoke test
(``tests/benchmarks/test_benchmarks_smoke.py``) counts it as a skip, as automake's test
harness does."""

PEER_PACKAGES = ("callstream", "jiter", "partial-json-parser", "langchain-core", "openai")
PEER_PACKAGES += ("anthropic", "pydantic-ai-slim", "pydantic", "matplotlib")


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
    parser.add_argument("--budget", type=float, help="seconds per library and size (60)")
    parser.add_argument("--repeats", type=int, help="max passes per measurement (5)")
    parser.add_argument("--no-plot", action="store_true", help="skip the PNG plot")
    parser.add_argument("--tiny", action="store_true", help=TINY_HELP)
    parser.add_argument("--render", action="store_true", help="rewrite the report from the JSON")
    ns = parser.parse_args(argv)
    ns.quick = ns.quick or ns.tiny
    ns.budget = ns.budget or (2.0 if ns.quick else 60.0)
    ns.repeats = ns.repeats or (1 if ns.quick else 5)
    return ns


def command(script: str, ns: argparse.Namespace) -> str:
    """The command line that reruns ``script`` as ``ns`` asks (its size: tiny, quick)."""
    size = " --tiny" if getattr(ns, "tiny", False) else " --quick" if ns.quick else ""
    return f"python benchmarks/{script}.py{size}"


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


def git_line(tree: Path, *args: str, missing: str = "unknown") -> str:
    """The first line git prints for ``git -C tree ARGS`` (``missing`` without git)."""
    try:
        out = subprocess.run(
            ["git", "-C", str(tree), *args], capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return missing
    return out.stdout.strip() or missing


def shown_path(path: str | os.PathLike[str]) -> str:
    """``path`` as a report may name it: relative to the checkout
    (``src/callstream/__init__.py``), or, outside it, ``…/`` and its last two parts.

    A result names the commit and the machine kind (:func:`stamp`), never a folder of
    the machine it ran on (``tests/project/test_committed_paths.py`` scans the committed ones).
    """
    resolved = Path(path).resolve()
    if resolved.is_relative_to(CHECKOUT):
        return resolved.relative_to(CHECKOUT).as_posix() or "."
    return "…/" + "/".join(resolved.parts[-2:])


def stamp(command: str, build: str | None = None) -> dict[str, Any]:
    """The header every results file records as ``machine`` (``docs/hooks/performance.py``
    shows it): ``cpu``, ``logical_cpus``, ``python``, ``callstream_build`` (``compiled`` or
    ``pure``, from ``callstream.COMPILED``, unless ``build`` says otherwise), ``git_commit``,
    ``date_utc``; then ``os``, ``load_average_1m``, ``versions`` and the ``command`` that
    regenerates the file. Never a path."""
    import callstream

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
        "callstream_build": build or ("compiled" if callstream.COMPILED else "pure"),
        "git_commit": git_line(CHECKOUT, "rev-parse", "--short", "HEAD"),
        "date_utc": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "os": platform.platform(),
        "load_average_1m": load_average(),
        "versions": versions,
        "command": command,
    }


def load_average() -> float:
    """The 1-minute load average (NaN where unknown)."""
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return math.nan


def stamp_markdown(info: dict[str, Any]) -> str:
    """Render :func:`stamp` as a short markdown paragraph with the command to rerun."""
    versions = ", ".join(f"{k} {v}" for k, v in info["versions"].items())
    end = info.get("load_average_1m_end")
    load = f"load average {info['load_average_1m']} at start" + (
        f", {end} at the end" if end is not None else ""
    )
    return (
        f"Machine: {info['cpu']}, {info['logical_cpus']} logical CPUs, {info['python']}, "
        f"callstream build: {info['callstream_build']}, "
        f"{info['os']}; {load} (a load near or above the CPU count means other processes "
        "shared the CPUs: wall-clock totals then carry their pauses, CPU times much less). "
        f"Run {info['date_utc']} at commit "
        f"`{info['git_commit']}`.\n\nVersions: {versions}.\n\nRegenerate: `{info['command']}`\n"
    )


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


def measurement_table(
    rows: Iterable[Measurement],
    lead: Sequence[tuple[str, Callable[[Measurement], object]]],
    reference: Callable[[Measurement], Measurement | None],
    vs: str,
    unit: str = "chunk",
) -> str:
    """The reports' table of measurements: the ``lead`` columns (header, cell), then the
    library, its time per input (the median pass over its inputs), the median total, the
    best pass, the ratio of totals to its ``reference`` row, and the note (else what the
    row reads after every input)."""
    table = []
    for m in rows:
        ref = reference(m)
        if ref is m:
            ratio = "reference"
        elif ref is None or m.status == "n/a" or math.isnan(ref.total_s):
            ratio = "—"
        else:
            ratio = fmt_ratio(m.total_s, ref.total_s, estimated=m.estimated or ref.estimated)
        measured = m.status == "measured"
        per = fmt_ns(m.median_ns) if measured else "—"
        best = fmt_s(m.best_s) if measured else ""
        note = m.note or m.extra.get("reads", "")
        table.append([*(f(m) for _, f in lead), m.label, per, fmt_total(m), best, ratio, note])
    headers = [h for h, _ in lead]
    headers += ["library", f"per {unit}", "total", "best pass", f"vs {vs}", "note"]
    return markdown_table(headers, table)


def write_results(out: Path, name: str, text: str, data: dict[str, Any] | None = None) -> int:
    """Write ``name.md`` (and ``name.json`` when ``data``) into ``out``, print the report."""
    write_text(out / f"{name}.md", text)
    if data is not None:
        write_json(out / f"{name}.json", data)
    print(text)
    return 0


def write_text(path: Path, text: str) -> Path:
    """Write ``text`` to ``path`` (creating folders); return the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def write_json(path: Path, data: Any) -> Path:
    """Write ``data`` as indented JSON, a list of numbers (the passes' times) on one line."""
    text = json.dumps(data, indent=2, ensure_ascii=False, default=str)
    text = re.sub(r"\[\s+([-+.0-9e,\s]+?)\s+\]", lambda m: "[" + " ".join(m[1].split()) + "]", text)
    return write_text(path, text + "\n")


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the Agg backend, or None when matplotlib is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


def save(fig: Any, path: Path) -> Path:
    """Write the figure to ``path`` (creating folders) and close it."""
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    pyplot().close(fig)
    return path


def loglog_plot(
    path: Path,
    results: dict[str, list[Measurement]],
    x: Callable[[Measurement], float | None],
    labels: tuple[str, str, str],
    budget_s: float | None = None,
) -> Path | None:
    """Log-log lines of the total time against ``x`` (None: not drawn): one panel per
    key of ``results``, one line per library; ``labels``: title, x label, y label.

    Extrapolated totals are hollow markers on a dotted segment; a library keeps its
    colour across panels. Returns the path, or None when matplotlib is not installed.
    """
    plt = pyplot()
    if plt is None:
        return None
    names = list(dict.fromkeys(m.label for rows in results.values() for m in rows))
    colors = {lb: plt.get_cmap("tab10")(i % 10) for i, lb in enumerate(names)}
    size = (6.5 * len(results), 5.5)
    fig, axes = plt.subplots(1, len(results), figsize=size, dpi=100, squeeze=False)
    for ax, (panel_title, rows) in zip(axes[0], results.items()):
        for label in names:
            pts = sorted(
                (x(m), m.total_s, m.estimated)
                for m in rows
                if m.label == label and x(m) is not None and m.total_s > 0  # NaN: False
            )
            measured = [(a, b) for a, b, e in pts if not e]
            est = [(a, b) for a, b, e in pts if e]
            if measured:
                ax.plot(*zip(*measured), marker="o", color=colors[label], label=label)
            if est:
                ax.plot(*zip(*(measured[-1:] + est)), linestyle=":", color=colors[label])
                extrapolated = None if measured else f"{label} (extrapolated)"
                style = {"linestyle": "none", "marker": "o", "markerfacecolor": "none"}
                ax.plot(*zip(*est), **style, color=colors[label], label=extrapolated)
        if budget_s:
            ax.axhline(budget_s, color="grey", linewidth=0.8, linestyle="--")
        ax.set(xscale="log", yscale="log", xlabel=labels[1], ylabel=labels[2], title=panel_title)
        ax.grid(True, which="both", alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8)
    fig.suptitle(labels[0])
    note = "hollow markers, dotted: extrapolated (over budget)"
    note += f"; dashed line: {budget_s:g} s budget" if budget_s else ""
    fig.text(0.99, 0.01, note, ha="right", fontsize=7, color="grey")
    return save(fig, path)


def log(msg: str) -> None:
    """Progress line on stderr (results go to files and stdout)."""
    print(msg, file=sys.stderr, flush=True)
