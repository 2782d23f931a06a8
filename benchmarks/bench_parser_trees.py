"""The partial-JSON parser of two source trees side by side: ``feed`` in 4-char fragments.

For an internal change that must not slow the parser (the container frames as a slotted
class instead of lists, the split of ``parser.py`` into modules), this times
``PartialJSONParser.feed`` (then ``close``) over 200-byte and 1 MB documents (structured
records; 256 KB of arrays nested 500 deep, where the frames do most of the work) cut into
4-character fragments. Every source tree given is imported into this one process (each
as its own copy of the ``callstream`` package), and the trees are timed in turn, pass by
pass, so machine load hits them alike; the best and the median pass are printed.

    python benchmarks/bench_parser_trees.py /tmp/before/src src [--passes 9]
    python benchmarks/bench_parser_trees.py --tiny   # smoke run: ./src against itself
"""

from __future__ import annotations

import argparse
import gc
import importlib
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from _report import TINY_HELP  # noqa: E402
from _streams import fragments, structured_document  # noqa: E402


def load_parser(tree: str) -> Callable[..., Any]:
    """``PartialJSONParser`` imported from ``tree`` (a fresh copy of the package)."""
    for name in [m for m in sys.modules if m == "callstream" or m.startswith("callstream.")]:
        del sys.modules[name]
    sys.path.insert(0, str(Path(tree).resolve()))
    try:
        module = importlib.import_module("callstream._json")
    finally:
        sys.path.pop(0)
    parser: Callable[..., Any] = module.PartialJSONParser
    return parser


def nested(target: int) -> str:
    """Arrays 500 deep, repeated to about ``target`` characters."""
    depth = 500
    unit = "[" * depth + '{"k": [1, "x"]}' + "]" * depth
    return "[" + ",".join([unit] * max(1, target // len(unit))) + "]"


DOCS: dict[str, Callable[[], str]] = {
    "structured 200 B": lambda: structured_document(200),
    "structured 1 MB": lambda: structured_document(1 << 20),
    "nested 256 KB": lambda: nested(1 << 18),
}

TINY_DOCS: dict[str, Callable[[], str]] = {
    "structured 200 B": lambda: structured_document(200),
    "structured 8 KB": lambda: structured_document(8 << 10),
    "nested 16 KB": lambda: nested(16 << 10),
}
"""``--tiny``: the same kinds of document, small."""


def one_pass(make: Callable[..., Any], parts: list[str], inner: int) -> float:
    """ns for one feed of the whole document (averaged over ``inner`` parsers)."""
    gc.collect()
    t0 = time.perf_counter_ns()
    for _ in range(inner):
        p = make(max_depth=10_000)
        feed = p.feed
        for f in parts:
            feed(f)
        p.close()
    return (time.perf_counter_ns() - t0) / inner


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "trees", nargs="*", help="source trees (folders holding callstream/); two or more"
    )
    parser.add_argument("--passes", type=int, default=None, help="passes per tree and document")
    parser.add_argument(
        "--tiny", action="store_true", help=f"{TINY_HELP} (trees: ./src against itself)"
    )
    args = parser.parse_args(argv)
    if args.tiny and not args.trees:
        args.trees = [str(BENCH.parent / "src")] * 2
    if len(args.trees) < 2:
        parser.error("give two source trees or more (or --tiny)")
    args.passes = args.passes or (1 if args.tiny else 9)
    docs = TINY_DOCS if args.tiny else DOCS
    makers = [load_parser(tree) for tree in args.trees]  # a tree may come twice (--tiny)
    print(f"Python {sys.version.split()[0]}; {args.passes} passes per tree, trees in turn")
    header = " | ".join(f"{t}: best / median (ms)" for t in args.trees)
    print(f"| document | {header} | ratio of best (last / first) |")
    print("|---|" + "---:|" * (len(args.trees) + 1))
    for doc, build in docs.items():
        text = build()
        parts = fragments(text)
        inner = max(1, 50_000 // len(text))
        times: list[list[float]] = [[] for _ in args.trees]
        for k in range(args.passes):
            order = range(len(makers)) if k % 2 == 0 else reversed(range(len(makers)))
            for i in order:
                times[i].append(one_pass(makers[i], parts, inner))
        cells = [f"{min(s) / 1e6:.3f} / {statistics.median(s) / 1e6:.3f}" for s in times]
        ratio = min(times[-1]) / min(times[0])
        print(f"| {doc} ({len(text):,} chars) | " + " | ".join(cells) + f" | {ratio:.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
