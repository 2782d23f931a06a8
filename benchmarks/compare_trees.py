"""Two source trees of callstream on the same streams in one run: µs per chunk, and the ratio.

    python benchmarks/compare_trees.py --baseline /tmp/before/src            # vs ./src
    python benchmarks/compare_trees.py --baseline A/src --candidate B/src --quick
    python benchmarks/compare_trees.py --tiny    # smoke run: ./src against itself, 4 KB

For a change's before/after on one machine at one time. Each tree is measured in its own
subprocess run with ``PYTHONPATH=<tree>`` (``callstream`` is imported from that tree,
checked against ``callstream.__file__``); the benchmark code, streams included, is this
directory's for both, so an old tree's own ``benchmarks/`` never runs. The subprocesses
alternate, baseline then candidate, for several rounds (3; 2 with ``--quick``), so that
a change in the machine's load falls on both.

Measured in each subprocess, for the OpenAI Chat and Anthropic streams (``_streams.py``,
argument text in 4-character fragments) of one call with 200 B and with 1 MB of
arguments (64 KB with ``--quick``):

- ``stream()``: ``for update in stream(payloads, provider=fmt)``, reading
  ``update.tool_calls`` after every chunk;
- ``collect()``: ``collect(payloads, provider=fmt)``, one call (the pipeline benchmark's
  ``callstream collect()`` row, ``_ours.py``).

A pass is one whole stream, timed whole (no per-chunk clock reads; ``_measure.whole_pass``:
the garbage collector is quieted first, the final calls normalized inside the pass and
checked against the originals after it). Its per-chunk figures are the pass's CPU time
(of the process: the time other processes hold the CPU is left out) and its wall-clock
time, each over the chunks. Passes repeat until 0.5 s of work (at least 2; 0.1 s and 1
with ``--quick``); the first size gets one untimed warm-up pass. Per tree and clock the
tables give the best pass and the median pass over all rounds, and the ratios candidate
/ baseline (below 1: the candidate is faster). Writes ``benchmarks/results/compare.md``
(``--out`` to change the folder).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

from _measure import Consumer, passes, settled, whole_pass  # noqa: E402
from _ours import stream_loop  # noqa: E402
from _report import (  # noqa: E402
    RESULTS,
    TINY_HELP,
    fmt_bytes,
    git_line,
    load_average,
    log,
    machine,
    machine_markdown,
    markdown_table,
    shown_path,
    write_text,
)
from _streams import FORMATS, expected_calls, format_calls, wire_stream  # noqa: E402

SIZES = (200, 1 << 20)
QUICK_SIZES = (200, 64 << 10)
TINY_SIZES = (200, 4 << 10)
DRIVERS = ("stream()", "collect()")
ROUNDS = 3
QUICK_ROUNDS = 2


# --- the worker: one tree, in its own process ------------------------------------------------


def _consumer(driver: str, fmt: str, payloads: Sequence[Any]) -> Consumer:
    if driver == "stream()":
        return stream_loop(fmt, payloads)
    from _ours import CallstreamCollect

    return CallstreamCollect().consumer(fmt, payloads)


def work(tree: Path, sizes: Sequence[int], quick: bool) -> dict[str, Any]:
    """Measure every cell with the ``callstream`` found on ``sys.path`` (it must be ``tree``'s);
    the file it was imported from is given relative to the tree."""
    import callstream

    where = Path(callstream.__file__).resolve()
    if not where.is_relative_to(tree.resolve()):
        raise SystemExit(f"callstream imported from {where}, not from the tree {tree}")
    cells = []
    with settled(("callstream", "callstream._sync")):
        for fmt in FORMATS:
            for i, size in enumerate(sizes):
                calls = format_calls(fmt, 1, size)
                payloads = wire_stream(fmt, calls)
                expected = expected_calls(calls)
                for driver in DRIVERS:
                    consumer = _consumer(driver, fmt, payloads)
                    if i == 0:
                        whole_pass(consumer, payloads)  # warm-up: imports, caches
                    walls, cpus = passes(consumer, payloads, expected, quick)
                    n = len(payloads)
                    cell = {"format": fmt, "size": size, "driver": driver, "chunks": n}
                    cell["wall"] = [t * 1e6 / n for t in walls]
                    cell["cpu"] = [t * 1e6 / n for t in cpus]
                    cells.append(cell)
    return {"callstream_file": where.relative_to(tree.resolve()).as_posix(), "cells": cells}


# --- the parent: alternate the trees, then compare -----------------------------------------


def _run_tree(tree: Path, size: Sequence[str]) -> dict[str, Any]:
    """One tree's worker (``size``: ``--quick`` or ``--tiny`` or nothing, as given)."""
    argv = [sys.executable, str(Path(__file__).resolve()), "--worker", str(tree), *size]
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"the worker for {tree} failed:\n{done.stderr[-3000:]}")
    out: dict[str, Any] = json.loads(done.stdout)
    return out


def _commit(tree: Path) -> str:
    return git_line(tree, "log", "-1", "--format=%h %s", missing="no git")[:80]


def table(runs: dict[str, list[dict[str, Any]]], clock: str) -> str:
    """The markdown table of one clock (``"cpu"`` or ``"wall"``): per cell, best and median
    µs per chunk per tree over every pass of every round, and the ratios."""
    pooled: dict[str, dict[tuple[str, int, str], list[float]]] = {}
    chunks: dict[tuple[str, int, str], int] = {}
    for name, results in runs.items():
        cells = pooled.setdefault(name, {})
        for result in results:
            for cell in result["cells"]:
                key = (cell["format"], cell["size"], cell["driver"])
                cells.setdefault(key, []).extend(cell[clock])
                chunks[key] = cell["chunks"]
    rows = []
    for key, n in chunks.items():
        base, cand = pooled["baseline"][key], pooled["candidate"][key]
        b_best, c_best = min(base), min(cand)
        b_med, c_med = statistics.median(base), statistics.median(cand)
        fmt, size, driver = key
        best = [f"{b_best:.3g}", f"{c_best:.3g}", f"{c_best / b_best:.3f}"]
        median = [f"{b_med:.3g}", f"{c_med:.3g}", f"{c_med / b_med:.3f}"]
        passes = f"{len(base)} / {len(cand)}"
        rows.append([fmt, f"1 call, {fmt_bytes(size)}", driver, n, *best, *median, passes])
    headers = ["stream", "arguments", "driver", "chunks"]
    headers += ["baseline best", "candidate best", "ratio (best)"]
    headers += ["baseline median", "candidate median", "ratio (median)", "passes"]
    return markdown_table(headers, rows)


def main(argv: Sequence[str] | None = None) -> int:
    """Alternate the two trees' subprocesses; print the table and write ``compare.md``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--baseline", type=Path, help="source tree holding callstream/")
    parser.add_argument("--candidate", type=Path, default=BENCH.parent / "src")
    parser.add_argument("--quick", action="store_true", help="64 KB not 1 MB, 2 rounds")
    parser.add_argument(
        "--tiny", action="store_true", help=f"{TINY_HELP} (baseline: the candidate)"
    )
    parser.add_argument("--rounds", type=int, default=None, help="rounds per tree")
    parser.add_argument("--out", type=Path, default=RESULTS, help="results folder")
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    ns = parser.parse_args(argv)
    sizes = TINY_SIZES if ns.tiny else QUICK_SIZES if ns.quick else SIZES
    size = ["--tiny"] if ns.tiny else ["--quick"] if ns.quick else []
    quick = ns.quick or ns.tiny
    if ns.worker is not None:
        print(json.dumps(work(ns.worker, sizes, quick)))
        return 0
    if ns.baseline is None and ns.tiny:
        ns.baseline = ns.candidate
    if ns.baseline is None:
        parser.error("--baseline is required")
    trees = {"baseline": ns.baseline.resolve(), "candidate": ns.candidate.resolve()}
    for name, tree in trees.items():
        if not (tree / "callstream" / "__init__.py").is_file():
            parser.error(f"--{name} {tree} holds no callstream/ package")
    rounds = ns.rounds or (1 if ns.tiny else QUICK_ROUNDS if ns.quick else ROUNDS)
    info = machine()
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
    for r in range(rounds):
        for name, tree in trees.items():
            log(f"[compare] round {r + 1}/{rounds}: {name} ({tree}) ...")
            runs[name].append(_run_tree(tree, size))
    info["load_average_1m_end"] = load_average()
    command = f"python benchmarks/compare_trees.py --baseline {shown_path(ns.baseline)}"
    if ns.candidate != parser.get_default("candidate"):
        command += f" --candidate {shown_path(ns.candidate)}"
    command += "".join(f" {a}" for a in size)
    trees_md = "".join(
        f"- {name}: `{shown_path(tree)}` ({_commit(tree)}); callstream imported from "
        f"`{shown_path(tree)}/{runs[name][0]['callstream_file']}`\n"
        for name, tree in trees.items()
    )
    tables = (
        "## CPU time (this process's: what other processes take is left out)\n\n"
        f"{table(runs, 'cpu')}\n"
        "## Wall-clock time (carries other processes' pauses on a shared machine)\n\n"
        f"{table(runs, 'wall')}"
    )
    write_text(
        ns.out / "compare.md",
        "# Two callstream trees, the same streams: µs per chunk\n\n"
        f"{trees_md}\n{rounds} rounds, the trees' subprocesses alternated (baseline first). "
        "A pass is one whole stream timed whole, its figure the time over the chunks; *best* "
        "and *median* are over every pass of every round (*passes*: baseline / candidate); "
        "ratio = candidate / baseline (below 1: the candidate is faster). `stream()` reads "
        "`update.tool_calls` after every chunk; `collect()` is one call. Method: the "
        "docstring of `benchmarks/compare_trees.py`.\n\n"
        f"{tables}\n{machine_markdown(info, command)}",
    )
    print(trees_md + "\n" + tables)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
