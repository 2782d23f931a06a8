"""Per-chunk cost of callstream's pipeline stages, in instructions (callgrind) and wall-clock.

A profiling aid, not a peer comparison (that is ``bench_pipeline.py``). It streams one 200 B call in
4-character argument fragments (OpenAI Chat and Anthropic wire formats) through:

- ``pipeline-openai`` / ``pipeline-anthropic``: ``callstream.stream(payloads)``, reading
  ``update.tool_calls`` after every update (what a user feels);
- ``translator-openai`` / ``translator-anthropic``: the provider translator alone;
- ``assembler``: ``ToolCallAssembler.apply`` over the pre-translated signals, reading
  ``.tool_calls`` after every signal;
- ``parser``: ``PartialJSONParser.feed`` over the 4-character argument fragments.

Usage::

    python benchmarks/profile_pipeline.py                 # wall-clock, every stage
    python benchmarks/profile_pipeline.py --callgrind     # instructions (needs valgrind)
    python benchmarks/profile_pipeline.py --run MODE N    # one stage N times (for profilers)
    python benchmarks/profile_pipeline.py --tiny          # smoke run: wall-clock, 7 passes

With ``--callgrind`` each stage is run under ``valgrind --tool=callgrind`` twice (N passes
and 0 passes) and the difference is divided by the number of inputs: instructions per
chunk, deterministic on a noisy machine.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import TINY_HELP
from _streams import anthropic_stream, fragments, make_calls, openai_chat_stream

MODES = (
    "pipeline-openai",
    "pipeline-anthropic",
    "translator-openai",
    "translator-anthropic",
    "assembler",
    "parser",
)


def _inputs(mode: str) -> list[Any]:
    from callstream.providers import get_translator

    calls = make_calls(1, 200)
    if mode.endswith("anthropic"):
        return anthropic_stream(calls)
    if mode == "parser":
        return fragments(calls[0].args)
    payloads = openai_chat_stream(calls)
    if mode == "assembler":
        translator = get_translator("openai-chat")
        return [s for p in payloads for s in translator.translate(p)]
    return payloads


def _pass(mode: str) -> Callable[[list[Any]], object]:
    if mode.startswith("pipeline"):
        from callstream._sync import stream

        def run_stream(items: list[Any]) -> object:
            last = None
            for update in stream(items):
                last = update.tool_calls
            return last

        return run_stream
    if mode.startswith("translator"):
        from callstream.providers import get_translator

        name = "anthropic" if mode.endswith("anthropic") else "openai-chat"

        def run_translator(items: list[Any]) -> object:
            translate = get_translator(name).translate
            for item in items:
                translate(item)
            return None

        return run_translator
    if mode == "assembler":
        from callstream._assembly import ToolCallAssembler

        def run_assembler(items: list[Any]) -> object:
            assembler = ToolCallAssembler()
            apply = assembler.apply
            last = None
            for item in items:
                if assembler.finished:
                    break
                apply(item)
                last = assembler.tool_calls
            return last

        return run_assembler
    from callstream._json.parser import PartialJSONParser

    def run_parser(items: list[Any]) -> object:
        feed = PartialJSONParser().feed
        for item in items:
            feed(item)
        return None

    return run_parser


def run(mode: str, passes: int) -> None:
    """Run ``mode`` ``passes`` times (everything imported and built first)."""
    items = _inputs(mode)
    body = _pass(mode)
    body(items)  # warm up (imports, caches) so that passes=0 is a fair baseline
    for _ in range(passes):
        body(items)


def _callgrind(mode: str, passes: int) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={out}",
                sys.executable,
                __file__,
                "--run",
                mode,
                str(passes),
            ],
            check=True,
            capture_output=True,
            env={**os.environ, "PYTHONHASHSEED": "0"},  # the same dict probes every run
        )
        with open(out, encoding="utf-8") as f:
            for line in f:
                m = re.match(r"(?:summary|totals): (\d+)", line)
                if m:
                    return int(m.group(1))
    raise RuntimeError("no totals in callgrind output")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--callgrind", action="store_true", help="count instructions")
    parser.add_argument("--run", nargs=2, metavar=("MODE", "N"), help="run one stage N times")
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated stages")
    parser.add_argument("--passes", type=int, default=None, help="passes per measurement")
    parser.add_argument("--tiny", action="store_true", help=f"{TINY_HELP} (wall-clock, 7 passes)")
    ns = parser.parse_args(argv)
    if ns.tiny and ns.callgrind:
        parser.error("--tiny measures wall-clock time: leave out --callgrind")
    if ns.run:
        run(ns.run[0], int(ns.run[1]))
        return
    modes = [m for m in ns.modes.split(",") if m]
    for mode in modes:
        n_items = len(_inputs(mode))
        if ns.callgrind:
            passes = ns.passes or 50
            total = _callgrind(mode, passes) - _callgrind(mode, 0)
            print(f"{mode:22s} {total / passes / n_items:9.0f} instructions per input")
        else:
            passes = ns.passes or (7 if ns.tiny else 2000)
            items = _inputs(mode)
            body = _pass(mode)
            body(items)
            times = []
            for _ in range(7):
                t0 = time.perf_counter()
                for _ in range(passes // 7 + 1):
                    body(items)
                times.append((time.perf_counter() - t0) / (passes // 7 + 1) / n_items)
            print(
                f"{mode:22s} {statistics.median(times) * 1e6:6.2f} us per input"
                f" (best {min(times) * 1e6:.2f}; {n_items} inputs)"
            )


if __name__ == "__main__":
    main()
