"""Two source trees of callstream on the same streams in one run: µs per chunk, and the ratio.

    python benchmarks/compare_trees.py --baseline /tmp/before/src            # vs ./src
    python benchmarks/compare_trees.py --baseline A/src --candidate B/src --quick
    python benchmarks/compare_trees.py --tiny    # smoke run: ./src against itself, 4 KB

For a change's before/after on one machine at one time. Each tree is measured in its own
subprocess run with ``PYTHONPATH=<tree>`` (``callstream`` is imported from that tree,
checked against ``callstream.__file__``), and both must run the same build (a tree from
before the build switch may hold compiled modules beside its sources: then
``CALLSTREAM_PURE=1`` compares the two in pure Python); the benchmark code, streams
included, is this directory's for both, so an old tree's own ``benchmarks/`` never runs.
The subprocesses alternate, baseline then candidate, for several rounds (3; 2 with
``--quick``), so that a change in the machine's load falls on both.

Measured in each subprocess: ``bench_pipeline.py``'s ``callstream stream()`` row (a
``for`` loop over ``stream(payloads, provider=fmt)`` reading ``update.tool_calls`` after
every chunk) and its ``callstream collect()`` row (one call), on OpenAI Chat and
Anthropic streams of one call with 200 B and 1 MB of arguments (64 KB with ``--quick``)
in 4-character fragments. A pass is one whole stream timed whole (``_measure.one_pass``),
its figures the pass's CPU time and wall-clock time over the chunks; passes repeat until
0.5 s of work (at least 2; 0.1 s and 1 with ``--quick``) after one untimed warm-up. Per
tree and clock the tables give the best and the median pass over all rounds, and the
ratios candidate / baseline (below 1: the candidate is faster). Writes ``compare.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

from _measure import Series, settled, worker_json  # noqa: E402
from _ours import CallstreamCollect, CallstreamDriver  # noqa: E402
from _peers import Library  # noqa: E402
from _report import (  # noqa: E402
    RESULTS,
    TINY_HELP,
    fmt_bytes,
    git_line,
    load_average,
    log,
    markdown_table,
    shown_path,
    stamp,
    stamp_markdown,
    write_text,
)
from _streams import FORMATS  # noqa: E402
from bench_pipeline import measure_stream  # noqa: E402

SIZES = (200, 1 << 20)
QUICK_SIZES = (200, 64 << 10)
TINY_SIZES = (200, 4 << 10)
DRIVERS: tuple[Library, ...] = (CallstreamDriver(), CallstreamCollect())
ROUNDS = 3
QUICK_ROUNDS = 2


# --- the worker: one tree, in its own process ------------------------------------------------


def work(tree: Path, sizes: Sequence[int], quick: bool) -> dict[str, Any]:
    """Measure every cell with the ``callstream`` found on ``sys.path`` (it must be ``tree``'s);
    the file it was imported from is given relative to the tree."""
    import callstream

    where = Path(callstream.__file__).resolve()
    if not where.is_relative_to(tree.resolve()):
        raise SystemExit(f"callstream imported from {where}, not from the tree {tree}")
    passes: dict[str, Any] = {"budget_s": None, "max_passes": 200, "min_passes": 2 - quick}
    passes["min_time_s"] = 0.1 if quick else 0.5
    cells = []
    with settled(("callstream", "callstream._sync")):
        for fmt in FORMATS:
            series: dict[str, Series] = {}

            def series_of(lib: Library) -> Series:
                return series.setdefault(lib.label, Series(lib.label, **passes))

            for size in sizes:
                for m in measure_stream(fmt, 1, size, DRIVERS, series_of, fmt_bytes(size)):
                    cell = {"format": fmt, "size": size, "driver": m.label, "chunks": m.inputs}
                    cell["wall"] = [t * 1e6 / m.inputs for t in m.wall_s]
                    cell["cpu"] = [t * 1e6 / m.inputs for t in m.cpu_s]
                    cells.append(cell)
    compiled = bool(getattr(callstream, "COMPILED", False))
    return {
        "callstream_file": where.relative_to(tree.resolve()).as_posix(),
        "build": "compiled" if compiled else "pure",
        "cells": cells,
    }


# --- the parent: alternate the trees, then compare -----------------------------------------


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
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
    for r in range(rounds):
        for name, tree in trees.items():
            log(f"[compare] round {r + 1}/{rounds}: {name} ({tree}) ...")
            argv = [str(Path(__file__).resolve()), "--worker", str(tree), *size]
            env = {**os.environ, "PYTHONPATH": str(tree)}
            runs[name].append(worker_json(argv, env, f"{name} tree"))
    builds = {name: results[0].get("build", "pure") for name, results in runs.items()}
    if builds["baseline"] != builds["candidate"]:
        print(
            f"compare_trees.py: the baseline ran {builds['baseline']}, the candidate "
            f"{builds['candidate']} (a tree from before the build switch may hold compiled "
            "modules beside its sources): the ratio would compare builds, not trees. Rerun "
            "with CALLSTREAM_PURE=1 to compare both in pure Python.",
            file=sys.stderr,
        )
        return 2
    pure = "CALLSTREAM_PURE=1 " if os.environ.get("CALLSTREAM_PURE") == "1" else ""
    command = f"{pure}python benchmarks/compare_trees.py --baseline {shown_path(ns.baseline)}"
    if ns.candidate != parser.get_default("candidate"):
        command += f" --candidate {shown_path(ns.candidate)}"
    command += "".join(f" {a}" for a in size)
    info = stamp(command, build=builds["candidate"]) | {"load_average_1m_end": load_average()}
    trees_md = "".join(
        f"- {name}: `{shown_path(tree)}` ({_commit(tree)}); callstream imported from "
        f"`{shown_path(tree)}/{runs[name][0]['callstream_file']}`, {builds[name]} build\n"
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
        f"{tables}\n{stamp_markdown(info)}",
    )
    print(trees_md + "\n" + tables)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
