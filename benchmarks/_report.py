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
import subprocess
import sys
from collections.abc import Iterable, Sequence
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
"""The help of ``--tiny``, which every script takes (``tests/test_benchmarks_smoke.py``
runs each script with it, and with ``--out`` into a temporary folder when it writes)."""

SKIP_STATUS = 77
"""The exit status of a script that cannot measure on this install (what it measures is
missing, the compiled build say), the reason on stderr: the smoke test
(``tests/test_benchmarks_smoke.py``) counts it as a skip, as automake's test harness does."""

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
    parser.add_argument("--tiny", action="store_true", help=TINY_HELP)
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


def git_line(tree: Path, *args: str, missing: str = "unknown") -> str:
    """The first line git prints for ``git -C tree ARGS`` (``missing`` without git)."""
    try:
        out = subprocess.run(
            ["git", "-C", str(tree), *args], capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return missing
    return out.stdout.strip() or missing


def _git_commit() -> str:
    return git_line(Path(__file__).resolve().parent, "rev-parse", "--short", "HEAD")


def shown_path(path: str | os.PathLike[str]) -> str:
    """``path`` as a result may name it: relative to the checkout
    (``src/callstream/__init__.py``), or, outside it, ``…/`` and its last two parts.

    A result names the commit and the machine kind (:func:`machine`), never a folder of
    the machine it ran on (``tests/test_benchmarks_smoke.py`` scans the committed ones).
    """
    resolved = Path(path).resolve()
    if resolved.is_relative_to(CHECKOUT):
        return resolved.relative_to(CHECKOUT).as_posix() or "."
    return "…/" + "/".join(resolved.parts[-2:])


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
        "callstream_build": _callstream_build(),
        "os": platform.platform(),
        "load_average_1m": load_average(),
        "date_utc": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "git_commit": _git_commit(),
        "versions": versions,
    }


def _callstream_build() -> str:
    """Which callstream build runs: compiled with mypyc or pure Python, and why."""
    from callstream import _build

    return f"{'compiled' if _build.COMPILED else 'pure Python'} ({_build.REASON})"


def load_average() -> float:
    """The 1-minute load average (NaN where unknown)."""
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return math.nan


def machine_markdown(info: dict[str, Any], command: str) -> str:
    """Render :func:`machine` as a short markdown paragraph with the command to rerun."""
    versions = ", ".join(f"{k} {v}" for k, v in info["versions"].items())
    end = info.get("load_average_1m_end")
    load = f"load average {info['load_average_1m']} at start" + (
        f", {end} at the end" if end is not None else ""
    )
    return (
        f"Machine: {info['cpu']}, {info['logical_cpus']} logical CPUs, {info['python']}, "
        f"callstream {info.get('callstream_build', 'build unknown')}, "
        f"{info['os']}; {load} (a load near or above the CPU count means other processes "
        "shared the CPUs: totals then carry their pauses, per-chunk medians much less). "
        f"Run {info['date_utc']} at commit "
        f"`{info['git_commit']}`.\n\nVersions: {versions}.\n\nRegenerate: `{command}`\n"
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


def log(msg: str) -> None:
    """Progress line on stderr (results go to files and stdout)."""
    print(msg, file=sys.stderr, flush=True)
