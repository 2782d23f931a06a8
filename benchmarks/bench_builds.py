"""callstream's two builds and the peers in one run: compiled vs pure Python vs the SDKs.

    python benchmarks/bench_builds.py            # full run -> results/builds.{md,json}
    python benchmarks/bench_builds.py --quick    # smoke run (small sizes, ~1 minute at most)
    python benchmarks/bench_builds.py --tiny     # the test suite's (smallest sizes, 1 round)
    python benchmarks/bench_builds.py --render   # rewrite builds.md from builds.json

Needs the compiled build installed (``CALLSTREAM_COMPILE=1 pip install '.[bench]'``, not
editable, with a C compiler); else exits
``_report.SKIP_STATUS`` with a message. Each build runs in its own subprocess of this
Python (``CALLSTREAM_PURE`` unset / ``=1``; each worker checks ``callstream.COMPILED``),
alternated compiled then pure for 3 rounds (2 with ``--quick``) so that a change in the
machine's load falls on both; the peers run once, in a third subprocess.

The streams, libraries and loop are ``bench_pipeline.py``'s (``measure_stream``: one
call, 4-character argument fragments, the preview read after every chunk, final calls
checked): its ``callstream stream()`` row at 200 B, 10 KB, 100 KB and 1 MB of arguments;
the peers where the issues compare them (the quadratic ones stop early). Each build also
times ``PartialJSONParser().feed`` over a structured document and one ``json.loads``.
Figures: the worker's CPU time per chunk, best and median over every pass of every round
(``_measure.Series``: passes timed whole, until 0.5 s of work, at least 2).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

from _measure import Series, one_shot, settled, worker_json  # noqa: E402
from _ours import CallstreamDriver, parser_consumer  # noqa: E402
from _peers import (  # noqa: E402
    PEER_MODULES,
    AnthropicAccumulate,
    LangChainAdd,
    Library,
    OpenAIStreamState,
    PydanticAIParts,
)
from _report import (  # noqa: E402
    RESULTS,
    SKIP_STATUS,
    TINY_HELP,
    fmt_bytes,
    load_average,
    log,
    markdown_table,
    shown_path,
    stamp,
    stamp_markdown,
    write_results,
)
from _streams import FORMATS, FRAGMENT, fragments, structured_document  # noqa: E402
from bench_pipeline import measure_stream  # noqa: E402


@dataclass(frozen=True)
class Plan:
    """The sizes in the roles 200 B, 10 KB, 100 KB, 1 MB (smaller when quick), and rounds."""

    sizes: tuple[int, int, int, int]
    rounds: int


FULL = Plan((200, 10 << 10, 100 << 10, 1 << 20), rounds=3)
QUICK = Plan((200, 2 << 10, 8 << 10, 32 << 10), rounds=2)
TINY = Plan((200, 512, 1 << 10, 2 << 10), rounds=1)
BUILDS = ("compiled", "pure")
PEERS_WORKER = "peers"
OPENAI, ANTHROPIC = FORMATS
STREAM = CallstreamDriver.label
PARSER = "PartialJSONParser.feed"
JSON_LOADS = "json.loads"
DOC = "structured"

PEERS: tuple[tuple[Library, tuple[int, ...]], ...] = (  # each peer and the size roles it runs at
    (OpenAIStreamState(), (0,)),
    (AnthropicAccumulate(), (0, 1, 2)),
    (PydanticAIParts(), (0, 1, 2, 3)),
    (LangChainAdd(), (0,)),
)


# --- the workers: one build (or the peers) per process ----------------------------------------


def work(mode: str, plan: Plan, quick: bool) -> dict[str, Any]:
    """The cells of one worker: the peers, or callstream in the build ``mode`` (checked)."""
    import callstream
    from callstream import _build

    if mode != PEERS_WORKER and (mode == "compiled") != callstream.COMPILED:
        raise SystemExit(
            f"asked for the {mode} build, but callstream.COMPILED is {callstream.COMPILED} "
            f"({_build.REASON}; callstream from {callstream.__file__})"
        )
    passes: dict[str, Any] = {"budget_s": None, "max_passes": 200, "min_passes": 2 - quick}
    passes["min_time_s"] = 0.1 if quick else 0.5
    cells: list[dict[str, Any]] = []
    with settled(PEER_MODULES):
        for fmt in FORMATS:
            series: dict[str, Series] = {}  # one per library: its first size is warmed up

            def series_of(lib: Library) -> Series:
                return series.setdefault(lib.label, Series(lib.label, **passes))

            for role, size in enumerate(plan.sizes):
                peers = [p for p, roles in PEERS if role in roles and fmt in p.formats]
                libs = peers if mode == PEERS_WORKER else [CallstreamDriver()]
                rows = measure_stream(fmt, 1, size, libs, series_of, fmt_bytes(size))
                cells += [{"format": fmt, **m.as_json()} for m in rows]
        if mode != PEERS_WORKER:
            parser, loads = Series(PARSER, **passes), Series(JSON_LOADS, **passes)
            for size in plan.sizes[1:]:
                text = structured_document(size)
                expected = json.loads(text)
                consumer = parser_consumer(read_value=False)
                assert consumer is not None, "callstream has no PartialJSONParser"
                rows = [parser.run(size, consumer, fragments(text))]
                if size == plan.sizes[2]:
                    rows.append(loads.run(size, one_shot(lambda t=text: json.loads(t)), [text]))
                for m in rows:
                    assert m.result == expected, f"{m.label} disagrees with json.loads"
                    m.result = None
                    cells.append({"format": DOC, **m.as_json()})
    return {"build": mode, "cells": cells}


# --- the report: the passes pooled, three tables, the targets ----------------------------------


@dataclass
class Stat:
    """One cell pooled over every pass of every round (CPU time)."""

    inputs: int
    cpu_s: list[float]
    note: str = ""

    def __post_init__(self) -> None:
        passes = self.cpu_s or [math.nan]
        self.median_s, self.best_s = statistics.median(passes), min(passes)
        self.median_us, self.best_us = (x * 1e6 / self.inputs for x in (self.median_s, self.best_s))


class Results(dict[tuple[str, str, str, int], Stat]):
    """The pooled cells by (worker, label, format, size)."""

    def of(self, worker: str, label: str, fmt: str, size: int) -> Stat:
        return self.get((worker, label, fmt, size), Stat(1, []))


def _ratio(a: float, b: float) -> float:
    return math.nan if math.isnan(a) or math.isnan(b) or b <= 0 else a / b


def _g(x: float) -> str:
    return "—" if math.isnan(x) else (f"{x:,.0f}" if x >= 100 else f"{x:.3g}")


def targets(res: Results, sizes: Sequence[int]) -> list[dict[str, Any]]:
    """The issues' targets with the values measured (CPU medians)."""
    s, m, lg, h = sizes

    def us(build: str, fmt: str, size: int, label: str = STREAM) -> float:
        return res.of(build, label, fmt, size).median_us

    def vs(peer: Library, fmt: str, size: int, build: str = "compiled") -> float:
        return _ratio(us(PEERS_WORKER, fmt, size, peer.label), us(build, fmt, size))

    def secs(build: str, fmt: str, size: int, label: str = STREAM) -> float:
        return res.of(build, label, fmt, size).median_s

    def lowest(values: list[float]) -> float:
        return min(values, key=lambda r: -math.inf if math.isnan(r) else r)

    small = f"{OPENAI} {fmt_bytes(s)}"
    comp, pure = us("compiled", OPENAI, s), us("pure", OPENAI, s)
    rows: list[tuple[str, float, float, bool]] = [
        (f"stream() {small}, compiled (µs/chunk)", comp, 2.0, True),
        (f"stream() {small}, pure (µs/chunk)", pure, 5.5, True),
        (f"pure / compiled, stream() {small}", _ratio(pure, comp), 3.3, True),
        (f"vs openai ChatCompletionStreamState, {small}", vs(PEERS[0][0], OPENAI, s), 40.0, False),
    ]
    rows += [
        (f"vs anthropic accumulate_event, {fmt_bytes(z)}", vs(PEERS[1][0], ANTHROPIC, z), b, False)
        for z, b in ((s, 2.0), (m, 6.0), (lg, 20.0))
    ]
    rows += [
        (f"ahead of pydantic-ai at every size, {fmt} (lowest ratio)",
         lowest([vs(PEERS[2][0], fmt, z) for z in sizes]), 1.0, False)
        for fmt in FORMATS
    ]  # fmt: skip
    rows += [
        (f"{fmt_bytes(h)} argument, {fmt}, {build} (s per stream)", secs(build, fmt, h), b, True)
        for fmt in FORMATS
        for build, b in (("compiled", 0.5), ("pure", 1.2))
    ]
    loads = secs("compiled", DOC, lg, JSON_LOADS)
    parser = secs("compiled", DOC, lg, PARSER)
    name = f"parser {fmt_bytes(lg)} / one json.loads, compiled"
    rows.append((name, _ratio(parser, loads), 25.0, True))
    rows += [
        (f"parser per fragment flat {fmt_bytes(m)} → {fmt_bytes(h)}, {build}",
         _ratio(us(build, DOC, h, PARSER), us(build, DOC, m, PARSER)), 1.5, True)
        for build in BUILDS
    ]  # fmt: skip
    out = []
    for name, value, bound, at_most in rows:
        met = None if math.isnan(value) else (value <= bound if at_most else value >= bound)
        shown = None if math.isnan(value) else value
        out.append({"name": name, "bound": bound, "at_most": at_most, "value": shown, "met": met})
    return out


def report(data: dict[str, Any], res: Results) -> str:
    """The markdown report: method, builds, peers, parser, targets, machine."""
    sizes = data["sizes"]
    builds = data["builds"]
    lines = [
        "# callstream compiled vs pure Python vs the peers, one run\n",
        "Each callstream build runs in its own subprocess (compiled: `CALLSTREAM_PURE` "
        "unset; pure: `CALLSTREAM_PURE=1`; each checks `callstream.COMPILED`), alternated "
        f"compiled then pure for {data['rounds']} rounds; the peers run once, in a third "
        "subprocess after the first round. A pass is one whole stream (or document) timed "
        "whole; figures are the worker's **CPU time** in **µs per chunk**, *best* and "
        "*median* over every pass of every round; ratios are of the medians (peer / "
        "callstream above 1: callstream is faster). Argument text is cut into "
        f"{FRAGMENT}-character fragments; `stream()` reads `update.tool_calls` after every "
        "chunk, each peer its parsed preview (`_peers.py`). Every pass's final calls equal "
        "the originals (asserted). Method: the docstring of `benchmarks/bench_builds.py`.\n",
    ]
    if data["quick"]:
        lines.append("**Quick run**: small sizes, few passes: the verdicts are not the issue's.\n")
    lines.append("".join(
        f"- {b}: callstream `{builds[b].get('file')}`, COMPILED={builds[b]['compiled']} "
        f"({builds[b]['reason']})\n" for b in BUILDS
    ))  # fmt: skip
    lines.append("## 1. stream(): compiled and pure Python (µs per chunk; s per stream)\n")
    rows = []
    for fmt in FORMATS:
        for size in sizes:
            comp, pure = (res.of(b, STREAM, fmt, size) for b in BUILDS)
            cells = [_g(x) for x in (comp.best_us, comp.median_us, pure.best_us, pure.median_us)]
            ratio = _g(_ratio(pure.median_us, comp.median_us))
            per_stream = f"{_g(comp.median_s)} / {_g(pure.median_s)}"
            rows.append([fmt, fmt_bytes(size), comp.inputs, *cells, ratio, per_stream])
    headers = ["format", "arguments", "chunks", "compiled best", "compiled median", "pure best"]
    headers += ["pure median", "pure / compiled", "s per stream (compiled / pure)"]
    lines.append(markdown_table(headers, rows))
    lines.append("## 2. The peers, on the same streams (µs per chunk)\n")
    rows = []
    for fmt in FORMATS:
        for size in sizes:
            for peer, _roles in PEERS:
                cell = res.get((PEERS_WORKER, peer.label, fmt, size))
                if cell is None:
                    continue
                comp, pure = (res.of(b, STREAM, fmt, size) for b in BUILDS)
                shown = [_g(cell.best_us), _g(cell.median_us)]
                if not cell.cpu_s:
                    shown = [cell.note or "n/a", "—"]
                ratios = [_g(_ratio(cell.median_us, x.median_us)) for x in (comp, pure)]
                rows.append([fmt, fmt_bytes(size), peer.label, *shown, *ratios])
    headers = ["format", "arguments", "peer", "peer best", "peer median"]
    lines.append(markdown_table([*headers, "peer / compiled", "peer / pure"], rows))
    lines.append(
        f"## 3. Parser alone: PartialJSONParser().feed over a structured document in "
        f"{FRAGMENT}-character fragments (µs per fragment; ms)\n"
    )
    rows = []
    for build in BUILDS:
        per = [res.of(build, PARSER, DOC, size) for size in sizes[1:]]
        big, loads = per[1], res.of(build, JSON_LOADS, DOC, sizes[2])
        ms = [_g(big.median_s * 1e3), _g(loads.median_s * 1e3)]
        ms.append(_g(_ratio(big.median_s, loads.median_s)))
        cells = [f"{_g(p.best_us)} / {_g(p.median_us)}" for p in per]
        rows.append([build, *ms, *cells, _g(_ratio(per[-1].median_us, per[0].median_us))])
    lg = fmt_bytes(sizes[2])
    headers = ["build", f"feed {lg} (ms)", f"json.loads {lg} (ms)", "feed / json.loads"]
    headers += [f"{fmt_bytes(size)} (best / median)" for size in sizes[1:]]
    headers.append(f"{fmt_bytes(sizes[-1])} / {fmt_bytes(sizes[1])}")
    lines.append(markdown_table(headers, rows))
    lines.append("## Targets (the issues'; CPU medians)\n")
    verdicts = {True: "met", False: "NOT met", None: "not measured"}
    rows = []
    for t in data["targets"]:
        value = "—" if t["value"] is None else _g(t["value"])
        bound = ("≤ " if t["at_most"] else "≥ ") + f"{t['bound']:g}"
        rows.append([t["name"], bound, value, verdicts[t["met"]]])
    lines.append(markdown_table(["target", "bound", "measured", "verdict"], rows))
    lines.append(stamp_markdown(data["machine"]))
    return "\n".join(lines)


def write(out: Path, data: dict[str, Any]) -> int:
    """Pool the cells, add the targets, write builds.md and builds.json."""
    res = Results()
    for c in data["cells"]:
        st = Stat(c["inputs"], c["cpu_s"], c.get("note", ""))
        res[(c["worker"], c["label"], c["format"], c["size"])] = st
        c["cpu_best_us_per_input"] = None if math.isnan(st.best_us) else st.best_us
        c["cpu_median_us_per_input"] = None if math.isnan(st.median_us) else st.median_us
    data["targets"] = targets(res, data["sizes"])
    return write_results(out, "builds", report(data, res), data)


# --- the parent: probe, alternate the builds, pool ---------------------------------------------

_PROBE = "import json, callstream\nfrom callstream import _build as b\nprint(json.dumps({"
_PROBE += "'compiled': callstream.COMPILED, 'reason': b.REASON, 'file': callstream.__file__}))"


def _env(mode: str) -> dict[str, str]:
    """This process's environment with ``CALLSTREAM_PURE`` set for ``pure`` only."""
    env = {k: v for k, v in os.environ.items() if k != "CALLSTREAM_PURE"}
    return env | {"CALLSTREAM_PURE": "1"} if mode == "pure" else env


def build_info(mode: str) -> dict[str, Any]:
    """What ``import callstream`` gives in a fresh process of this Python for ``mode``:
    ``compiled``, ``reason``, ``file``; or ``compiled`` False and an ``error``."""
    argv, env = [sys.executable, "-c", _PROBE], _env(mode)
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False, timeout=120)
    if done.returncode != 0:
        return {"compiled": False, "reason": "import failed", "error": done.stderr[-2000:]}
    out = json.loads(done.stdout.strip().splitlines()[-1])
    return {**out, "file": shown_path(out["file"])}


def main(argv: Sequence[str] | None = None) -> int:
    """Probe the builds, alternate their workers, run the peers; write builds.{md,json}."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--quick", action="store_true", help="small sizes, 2 rounds, few passes")
    parser.add_argument("--tiny", action="store_true", help=TINY_HELP)
    parser.add_argument("--rounds", type=int, default=None, help="rounds per build")
    parser.add_argument("--out", type=Path, default=RESULTS, help="results folder")
    parser.add_argument("--render", action="store_true", help="rewrite builds.md from builds.json")
    parser.add_argument("--worker", choices=(*BUILDS, PEERS_WORKER), help=argparse.SUPPRESS)
    ns = parser.parse_args(argv)
    plan = TINY if ns.tiny else QUICK if ns.quick else FULL
    size = ["--tiny"] if ns.tiny else ["--quick"] if ns.quick else []
    if ns.worker is not None:
        print(json.dumps(work(ns.worker, plan, bool(size))))
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
            "Install it with `CALLSTREAM_COMPILE=1 pip install '.[bench]'` (not editable: a "
            "development tree never holds compiled files) on a machine with a C compiler, "
            "then rerun from the checkout.",
            file=sys.stderr,
        )
        return SKIP_STATUS
    if builds["pure"]["compiled"]:
        print("bench_builds.py: CALLSTREAM_PURE=1 did not select pure Python", file=sys.stderr)
        return 2
    rounds = ns.rounds or plan.rounds
    command = "python benchmarks/bench_builds.py" + "".join(f" {a}" for a in size)
    info = stamp(command, build="compiled and pure")
    pooled: dict[tuple[str, str, str, int], dict[str, Any]] = {}
    script = str(Path(__file__).resolve())
    for r in range(rounds):
        for worker in (*BUILDS, PEERS_WORKER) if r == 0 else BUILDS:
            log(f"[builds] round {r + 1}/{rounds}: {worker} ...")
            run = worker_json([script, "--worker", worker, *size], _env(worker), worker)
            for c in run["cells"]:
                key = (worker, c["label"], c["format"], c["size"])
                first = {"worker": worker, **{k: c[k] for k in ("label", "format", "size")}}
                first |= {"inputs": c["inputs"], "cpu_s": [], "wall_s": [], "note": c["note"]}
                cell = pooled.setdefault(key, first)
                cell["cpu_s"] += c["cpu_s"]
                cell["wall_s"] += c["wall_s"]
    info["load_average_1m_end"] = load_average()
    data = {"machine": info, "quick": bool(size), "rounds": rounds, "sizes": list(plan.sizes)}
    data |= {"fragment_chars": FRAGMENT, "builds": builds, "cells": list(pooled.values())}
    return write(ns.out, data)


if __name__ == "__main__":
    raise SystemExit(main())
