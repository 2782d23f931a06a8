"""callstream's two builds and the peers in one run: compiled vs pure Python vs the SDKs.

    python benchmarks/bench_builds.py            # full run -> results/builds.{md,json}
    python benchmarks/bench_builds.py --quick    # smoke run (small sizes, ~1 minute at most)
    python benchmarks/bench_builds.py --tiny     # the test suite's (smallest sizes, 1 round)

Needs the mypyc-compiled build installed (``pip install -e .`` with a C compiler); refuses
with a message otherwise (exit status ``_report.SKIP_STATUS``). Each build is measured in
its own subprocess of the same Python: the compiled one with ``CALLSTREAM_PURE`` unset,
the pure one with ``CALLSTREAM_PURE=1`` (each worker checks ``callstream.COMPILED`` is
what was asked). The two alternate, compiled then pure, for several rounds (3; 2 with
``--quick``) so that a change in the machine's load falls on both; the peers
(openai-python, anthropic, pydantic-ai, LangChain) run once, in a third subprocess after
the first round. The streams come from ``_streams.py`` (one call, argument text in
4-character fragments), the peers from ``_peers.py``, the timing from
``_measure.whole_pass`` and compare_trees' ``_passes`` (a pass is one whole stream, timed
whole; passes repeat until 0.5 s of work, at least 2), the report helpers from
``_report.py``.

What each worker measures (every pass's final calls / value checked against the original):

- ``stream()``: ``for update in stream(payloads, provider=fmt)`` reading
  ``update.tool_calls`` after every chunk (compare_trees' loop), OpenAI Chat and
  Anthropic streams of one call with 200 B, 10 KB, 100 KB and 1 MB of arguments;
- the parser alone: ``callstream.PartialJSONParser().feed`` over a structured JSON
  document of 10 KB, 100 KB and 1 MB in 4-character fragments (bench_partial_json's
  consumer), and one ``json.loads`` of the 100 KB text;
- the peers (their own worker): openai ``ChatCompletionStreamState`` (strict tools,
  ``parsed_arguments`` read every chunk) and LangChain ``AIMessageChunk +`` at 200 B,
  anthropic ``accumulate_event`` at 200 B, 10 KB and 100 KB, pydantic-ai's parts manager
  at every size; each reads what ``_peers.py`` says after every chunk, through a step
  function per chunk (callstream's loop has none: that call, ~0.05 µs, is the peers').

Figures are CPU time of the worker process (what other processes take is left out) per
chunk (the pass total over the chunks), best and median over every pass of every round;
ratios are of the medians. Wall-clock times are in the JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

from _builds_report import (  # noqa: E402
    BUILDS,
    JSON_LOADS,
    PARSER,
    PEERS_WORKER,
    STREAM,
    Plan,
    write,
)
from _measure import Consumer, Finish, passes, settled, whole_pass, worker_json  # noqa: E402
from _ours import parser_consumer, stream_loop  # noqa: E402
from _peers import (  # noqa: E402
    PEER_MODULES,
    AnthropicAccumulate,
    LangChainAdd,
    Library,
    OpenAIStreamState,
    PydanticAIParts,
    forget_sdk_objects,
)
from _report import (  # noqa: E402
    RESULTS,
    SKIP_STATUS,
    TINY_HELP,
    fmt_bytes,
    load_average,
    log,
    machine,
    shown_path,
)
from _streams import (  # noqa: E402
    FORMATS,
    FRAGMENT,
    expected_calls,
    format_calls,
    fragments,
    structured_document,
    wire_stream,
)

FULL = Plan((200, 10 << 10, 100 << 10, 1 << 20), rounds=3)
QUICK = Plan((200, 2 << 10, 8 << 10, 32 << 10), rounds=2)
TINY = Plan((200, 512, 1 << 10, 2 << 10), rounds=1)


@dataclass(frozen=True)
class PeerPlan:
    """A peer and the size roles (indices into :attr:`Plan.sizes`) it is measured at."""

    library: Library
    roles: tuple[int, ...]


PEERS: tuple[PeerPlan, ...] = (
    PeerPlan(OpenAIStreamState(), (0,)),
    PeerPlan(AnthropicAccumulate(), (0, 1, 2)),
    PeerPlan(PydanticAIParts(), (0, 1, 2, 3)),
    PeerPlan(LangChainAdd(), (0,)),
)
"""Peers and where they run: accumulate_event and LangChain re-parse the whole text on
every chunk (quadratic), so they stop where the issue's comparisons stop."""


# --- the workers: one build (or the peers) per process ----------------------------------------


def _cell(
    kind: str,
    label: str,
    fmt: str,
    size: int,
    consumer: Consumer,
    inputs: Sequence[Any],
    expected: Any,
    quick: bool,
    warm: bool = True,
) -> dict[str, Any]:
    """Time ``consumer`` over ``inputs`` (an untimed warm-up pass first if ``warm``)."""
    log(f"[builds]   {label} {fmt} {fmt_bytes(size)} ...")
    if warm:
        whole_pass(consumer, inputs)
    walls, cpus = passes(consumer, inputs, expected, quick)
    walls, cpus = [_digits(t) for t in walls], [_digits(t) for t in cpus]
    return {
        "kind": kind,
        "label": label,
        "format": fmt,
        "size": size,
        "inputs": len(inputs),
        "cpu_s": cpus,
        "wall_s": walls,
    }


def _digits(seconds: float) -> float:
    """``seconds`` to 4 significant digits (0.05% at most: below the noise; keeps the JSON
    small, and the report is made from the same rounded figures when re-rendered)."""
    return float(f"{seconds:.4g}")


def _loads_once(text: str) -> Consumer:
    """One ``json.loads`` of the whole text per pass (a one-shot consumer)."""

    def make() -> tuple[None, Finish]:
        return None, lambda: json.loads(text)

    return make


def work_build(mode: str, plan: Plan, quick: bool) -> dict[str, Any]:
    """Measure callstream's cells with the build ``mode`` asks for (checked first)."""
    import callstream
    from callstream import _build

    want = mode == "compiled"
    if want != callstream.COMPILED:
        raise SystemExit(
            f"asked for the {mode} build, but callstream.COMPILED is {callstream.COMPILED} "
            f"({_build.REASON}; callstream from {callstream.__file__})"
        )
    cells: list[dict[str, Any]] = []
    with settled(("callstream", "callstream._sync", "callstream._json")):
        for fmt in FORMATS:
            for i, size in enumerate(plan.sizes):
                calls = format_calls(fmt, 1, size)
                payloads = wire_stream(fmt, calls)
                consumer = stream_loop(fmt, payloads)
                expected = expected_calls(calls)
                cells.append(
                    _cell(STREAM, STREAM, fmt, size, consumer, payloads, expected, quick, i == 0)
                )
                del payloads
        parser = parser_consumer(read_value=False)
        assert parser is not None, "callstream has no PartialJSONParser"
        for i, size in enumerate(plan.parser_sizes):
            text = structured_document(size)
            expected = json.loads(text)
            frags = fragments(text)
            doc = "structured"
            cells.append(_cell(PARSER, PARSER, doc, size, parser, frags, expected, quick, i == 0))
            if size == plan.large:
                once = _loads_once(text)
                cells.append(
                    _cell(JSON_LOADS, JSON_LOADS, doc, size, once, [text], expected, quick)
                )
    return {
        "build": mode,
        "compiled": callstream.COMPILED,
        "reason": _build.REASON,
        "callstream_file": shown_path(callstream.__file__),
        "cells": cells,
    }


def work_peers(plan: Plan, quick: bool) -> dict[str, Any]:
    """Measure every peer at its sizes (inputs built per stream, shared by the peers)."""
    cells: list[dict[str, Any]] = []
    warmed: set[tuple[str, str]] = set()
    with settled(PEER_MODULES):
        for fmt in FORMATS:
            for role, size in enumerate(plan.sizes):
                here = [p.library for p in PEERS if role in p.roles and fmt in p.library.formats]
                if not here:
                    continue
                calls = format_calls(fmt, 1, size)
                payloads = wire_stream(fmt, calls)
                expected = expected_calls(calls)
                for lib in here:
                    why = lib.missing()
                    if why is not None:
                        cell = {"kind": "peer", "label": lib.label, "format": fmt, "size": size}
                        cells.append({**cell, "inputs": len(payloads), "cpu_s": [], "wall_s": []})
                        cells[-1]["note"] = why
                        continue
                    inputs = lib.prepare(fmt, payloads)
                    key = (lib.label, fmt)
                    consumer = lib.consumer(fmt, inputs)
                    warm = key not in warmed
                    cells.append(
                        _cell("peer", lib.label, fmt, size, consumer, inputs, expected, quick, warm)
                    )
                    warmed.add(key)
                    del inputs
                forget_sdk_objects()
                del payloads
    return {"build": PEERS_WORKER, "cells": cells}


# --- the parent: probe, alternate the builds, report ------------------------------------------

_PROBE = (
    "import json, callstream\n"
    "from callstream import _build\n"
    "print(json.dumps({'compiled': callstream.COMPILED, 'reason': _build.REASON,"
    " 'file': callstream.__file__}))\n"
)


def _env(mode: str) -> dict[str, str]:
    """This process's environment with ``CALLSTREAM_PURE`` set for ``pure`` only."""
    env = {k: v for k, v in os.environ.items() if k != "CALLSTREAM_PURE"}
    if mode == "pure":
        env["CALLSTREAM_PURE"] = "1"
    return env


def build_info(mode: str) -> dict[str, Any]:
    """What ``import callstream`` gives in a fresh process of this Python for ``mode``
    (``compiled``: ``CALLSTREAM_PURE`` unset; ``pure``: set): ``compiled``, ``reason``,
    ``file``; or ``compiled`` False and an ``error`` when the import fails."""
    argv, env = [sys.executable, "-c", _PROBE], _env(mode)
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False, timeout=120)
    if done.returncode != 0:
        return {"compiled": False, "reason": "import failed", "error": done.stderr[-2000:]}
    out: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    out["file"] = shown_path(out["file"])
    return out


def _run_worker(mode: str, size: Sequence[str]) -> dict[str, Any]:
    """One worker's results; ``size``: ``--quick`` or ``--tiny`` or nothing, as given."""
    return worker_json([str(Path(__file__).resolve()), "--worker", mode, *size], _env(mode), mode)


def main(argv: Sequence[str] | None = None) -> int:
    """Probe the builds, alternate their workers, run the peers; write builds.{md,json}."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--quick", action="store_true", help="small sizes, 2 rounds, few passes")
    parser.add_argument("--tiny", action="store_true", help=TINY_HELP)
    parser.add_argument("--rounds", type=int, default=None, help="rounds per build")
    parser.add_argument("--out", type=Path, default=RESULTS, help="results folder")
    parser.add_argument(
        "--render",
        action="store_true",
        help="measure nothing: rewrite builds.md from the builds.json already in --out",
    )
    parser.add_argument("--worker", choices=(*BUILDS, PEERS_WORKER), help=argparse.SUPPRESS)
    ns = parser.parse_args(argv)
    plan = TINY if ns.tiny else QUICK if ns.quick else FULL
    size = ["--tiny"] if ns.tiny else ["--quick"] if ns.quick else []
    ns.quick = ns.quick or ns.tiny
    if ns.worker == PEERS_WORKER:
        print(json.dumps(work_peers(plan, ns.quick)))
        return 0
    if ns.worker is not None:
        print(json.dumps(work_build(ns.worker, plan, ns.quick)))
        return 0
    if ns.render:
        return write(ns.out, json.loads((ns.out / "builds.json").read_text(encoding="utf-8")))
    builds = {b: build_info(b) for b in BUILDS}
    compiled = builds["compiled"]
    if not compiled["compiled"]:
        error = f"; {compiled['error'].strip()}" if "error" in compiled else ""
        print(
            "bench_builds.py: the compiled build of callstream is not installed for "
            f"{sys.executable} (callstream._build.REASON: {compiled['reason']}{error}). "
            "Install it with `pip install -e .` on a machine with a C compiler (the build "
            "prints 'compiled N modules with mypyc'), then rerun.",
            file=sys.stderr,
        )
        return SKIP_STATUS
    if builds["pure"]["compiled"]:
        print("bench_builds.py: CALLSTREAM_PURE=1 did not select pure Python", file=sys.stderr)
        return 2
    rounds = ns.rounds or plan.rounds
    info = machine()
    info["callstream_build"] = "compiled and pure Python, each in its own subprocess"
    runs: list[dict[str, Any]] = []
    for r in range(rounds):
        for build in BUILDS:
            log(f"[builds] round {r + 1}/{rounds}: {build} ...")
            runs.append(_run_worker(build, size))
        if r == 0:
            log("[builds] peers (once) ...")
            runs.append(_run_worker(PEERS_WORKER, size))
    info["load_average_1m_end"] = load_average()
    info["command"] = "python benchmarks/bench_builds.py" + "".join(f" {a}" for a in size)
    data = {
        "machine": info,
        "quick": ns.quick,
        "rounds": rounds,
        "sizes": list(plan.sizes),
        "fragment_chars": FRAGMENT,
        "builds": builds,
        "runs": runs,
    }
    return write(ns.out, data)


if __name__ == "__main__":
    raise SystemExit(main())
