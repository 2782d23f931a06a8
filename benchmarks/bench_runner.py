"""Eager tool runs: ``ToolRunner`` vs collecting the stream first, on paced replays.

Each turn is a stream we wrote in a provider's wire shape (Anthropic Messages, OpenAI
Responses, Bedrock ConverseStream, OpenAI Chat; ``_streams.py``) with 2-4 parallel calls,
replayed on a seeded schedule (20-40 ms between payloads, 8-24 characters of argument
text each). The tools (``_turns.py``) are ``async def`` functions with typed parameters
that sleep a seeded 0.3-2 s. Per turn, on the same schedule and tool durations, one
after the other:

- *eager*: ``ToolRunner(tools).arun(source, provider=...)``: each tool starts when its
  call is sealed, while the model streams the others;
- *concurrent*: ``callstream.acollect`` the stream, then every call's tool at once;
- *sequential*: ``acollect``, then the tools one by one, in call order.

Wall time is measured on anyio's clock from the request (the schedule's origin) to the
last tool's outcome. Eager's *floor* is what no runner can beat: ``max(stream end, max
over calls of seal_i + duration_i)`` from the run's own seal times (``sealed_at``); a
floor from the schedule alone (the instants the calls' end payloads were sent) is kept
too, and their difference (*seal lag*). Every strategy's outputs must be equal.

Exits 1 when eager takes more than 5 % over its floor on any turn, 2 when a strategy's
tool outputs disagree.

    python benchmarks/bench_runner.py           # full run (~2 min) -> results/runner.{md,json,png}
    python benchmarks/bench_runner.py --quick   # 3 turns, smoke run
    python benchmarks/bench_runner.py --tiny    # the test suite's: 1 turn at 1/10 time
    python benchmarks/bench_runner.py --render  # rewrite md and png from runner.json
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import random
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent))

import callstream
from _report import RESULTS, TINY_HELP, load_average, log, stamp, write_json, write_text
from _runner_report import LIMIT, plot, report, summary_table
from _streams import Call, write_turn
from _turns import (
    ACTIVE,
    QUICK,
    SCENARIOS,
    TINY,
    TINY_SCALE,
    TOOLS,
    PacedSource,
    Scenario,
    TurnClock,
    durations,
    ids,
    pieces,
    schedule,
)
from callstream.runner import ToolRunner

STRATEGIES = ("eager", "concurrent", "sequential")


async def run_strategy(
    strategy: str, scenario: Scenario, payloads: Sequence[dict[str, Any]], times: Sequence[float]
) -> dict[str, Any]:
    """One strategy's run of one turn (times in seconds from the request)."""
    gc.collect()
    await anyio.sleep(0.05)  # let the loop settle between runs
    turn = TurnClock(durations(scenario), anyio.current_time())
    ACTIVE.append(turn)
    outputs: dict[str, str] = {}
    calls: list[dict[str, Any]] = []

    async def one(name: str, args: dict[str, Any]) -> None:
        outputs[name] = await TOOLS[name](**args)

    try:
        source = PacedSource(payloads, times, turn.origin)
        if strategy == "eager":
            runner = ToolRunner(list(TOOLS.values()), eager=True, seal=scenario.seal)
            result = await runner.arun(source, provider=scenario.fmt)
            stream_end = result.stream_ended_at
            keys = ("name", "status", "sealed_at", "started_at", "finished_at", "eager", "error")
            calls = [{k: getattr(r, k) for k in keys} for r in result.results]
            outputs = {str(r.name): str(r.output) for r in result.results if r.status == "done"}
        else:
            collected = await callstream.acollect(source, provider=scenario.fmt)
            stream_end = anyio.current_time() - turn.origin
            if strategy == "concurrent":
                async with anyio.create_task_group() as group:
                    for call in collected.tool_calls:
                        group.start_soon(one, call["name"], call["args"])
            else:
                for call in collected.tool_calls:
                    await one(call["name"], call["args"])
        wall = anyio.current_time() - turn.origin
    finally:
        ACTIVE.pop()
    return {
        "wall": wall,
        "stream_end": math.nan if stream_end is None else stream_end,
        "source_end": source.delivered[-1],
        "spans": {name: list(span) for name, span in turn.spans.items()},
        "delivered": source.delivered,
        "outputs": outputs,
        "calls": calls,
    }


async def run_turn(scenario: Scenario) -> dict[str, Any]:
    """Run the three strategies on one turn; return its record (see the JSON file)."""
    call_ids = ids(scenario.fmt, len(scenario.calls), scenario.seed)
    specs = [
        Call(name, cid, json.dumps(args, ensure_ascii=False))
        for (name, args), cid in zip(scenario.calls, call_ids)
    ]
    rng = random.Random(f"{scenario.seed}-pieces")
    wire = write_turn(scenario.fmt, specs, lambda text: pieces(text, rng), scenario.preamble)
    sched = schedule(wire, random.Random(f"{scenario.seed}-schedule"))
    times = [t * scenario.time_scale for t in sched]
    runs = {s: await run_strategy(s, scenario, wire.payloads, times) for s in STRATEGIES}
    eager = runs["eager"]
    d = durations(scenario)
    names = [name for name, _ in scenario.calls]
    sched_seal = [times[k] for k in wire.seal_at(scenario.seal)]
    run_seal = [c["sealed_at"] for c in eager["calls"]]
    ok = len(eager["calls"]) == len(names) and all(c["status"] == "done" for c in eager["calls"])
    agree = ok and all(r["outputs"] == eager["outputs"] for r in runs.values())
    ends = [s + d[n] for s, n in zip(run_seal, names)] if ok else []
    floor = max(eager["stream_end"], eager["source_end"], *ends) if ok else math.nan
    floor_schedule = max(times[-1], *(s + d[n] for s, n in zip(sched_seal, names)))
    lags = [r - s for r, s in zip(run_seal, sched_seal) if r is not None]
    for r in runs.values():
        del r["outputs"]
    return {
        "label": scenario.label,
        "format": scenario.fmt,
        "seal": scenario.seal,
        "seed": scenario.seed,
        "time_scale": scenario.time_scale,
        "payloads": len(wire.payloads),
        "args_chars": [len(s.args) for s in specs],
        "names": names,
        "durations": [d[n] for n in names],
        "schedule_end": times[-1],
        "schedule_seal": sched_seal,
        "owner": wire.owner,
        "eager_calls": eager.pop("calls"),
        "strategies": {s: {k: v for k, v in r.items() if k != "calls"} for s, r in runs.items()},
        "agree": agree,
        "floor": floor,
        "floor_schedule": floor_schedule,
        "ratio": eager["wall"] / floor if ok else math.nan,
        "ratio_schedule": eager["wall"] / floor_schedule,
        "seal_lag_max": max(lags) if lags else math.nan,
        "saved_vs_concurrent": runs["concurrent"]["wall"] - eager["wall"],
        "saved_vs_sequential": runs["sequential"]["wall"] - eager["wall"],
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Run the turns, write ``runner.{json,md,png}``, print the table; the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help=f"only turns {', '.join(QUICK)}")
    parser.add_argument("--tiny", action="store_true", help=TINY_HELP)
    parser.add_argument("--out", type=Path, default=RESULTS, help="results folder")
    parser.add_argument("--no-plot", action="store_true", help="skip the PNG plot")
    parser.add_argument("--backend", default="asyncio", choices=("asyncio", "trio"))
    parser.add_argument("--render", action="store_true", help="rewrite md and png from the JSON")
    ns = parser.parse_args(argv)
    json_path = ns.out / "runner.json"
    if ns.render:
        data = json.loads(json_path.read_text(encoding="utf-8"))
    else:
        if ns.tiny:
            chosen = [replace(s, time_scale=TINY_SCALE) for s in SCENARIOS if s.label == TINY]
        else:
            chosen = [s for s in SCENARIOS if not ns.quick or s.label in QUICK]
        command = "python benchmarks/bench_runner.py"
        command += " --tiny" if ns.tiny else " --quick" if ns.quick else ""
        command += f" --backend {ns.backend}" if ns.backend != "asyncio" else ""
        info = stamp(command) | {"backend": ns.backend}

        async def all_turns() -> list[dict[str, Any]]:
            out = []
            for scenario in chosen:
                log(f"turn {scenario.label} ({scenario.fmt}, seal={scenario.seal}) ...")
                out.append(await run_turn(scenario))
            return out

        turns = anyio.run(all_turns, backend=ns.backend)
        info["load_average_1m_end"] = load_average()
        data = {"machine": info, "limit": LIMIT, "turns": turns}
        write_json(json_path, data)
    write_text(ns.out / "runner.md", report(data))
    if not ns.no_plot:
        plot(data, ns.out / "runner.png")
    turns = data["turns"]
    print(summary_table(turns))
    for t in turns:
        if not t["agree"]:
            wrong = [f"{c['name']}: {c['status']} ({c['error']})" for c in t["eager_calls"]]
            print(f"FAIL: turn {t['label']}: outputs disagree; eager: {wrong}", file=sys.stderr)
    if not all(t["agree"] for t in turns):
        return 2
    worst = max(t["ratio"] for t in turns)
    if any(t.get("time_scale", 1.0) != 1.0 for t in turns):
        print(f"eager / floor up to {worst:.3f} on turns at scaled time: not judged")
        return 0
    over = [t["label"] for t in turns if not t["ratio"] <= LIMIT]
    if over:
        print(f"FAIL: eager over {LIMIT} x its floor on {over}", file=sys.stderr)
        return 1
    print(f"eager / floor <= {worst:.3f} on every turn (limit {LIMIT})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
