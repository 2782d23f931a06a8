"""Eager tool runs: ``ToolRunner`` vs collecting the stream first, on paced replays.

Each turn is a stream we wrote in a provider's wire shape (Anthropic Messages, OpenAI
Responses, Bedrock ConverseStream, OpenAI Chat; ``_paced.py``) with 2-4 parallel calls
(some short, some carrying a file's content), replayed on a seeded schedule (20-40 ms
between payloads, 8-24 characters of argument text each). The tools are ``async def``
functions with typed parameters that sleep a seeded 0.3-2 s (per tool a range:
``DURATION_S``). Per turn, on the same
stream schedule and the same tool durations, in this order, one after the other:

- *eager*: ``ToolRunner(tools).arun(source, provider=...)``: each tool starts when its
  call is sealed, while the model streams the others;
- *concurrent*: ``callstream.acollect`` the stream, then run every call's tool at once
  (an anyio task group);
- *sequential*: ``acollect``, then the tools one by one, in call order.

The wall time of each is measured on anyio's clock from the request (the schedule's
origin) to the last tool's outcome. Eager's *floor* is what no runner can beat:
``max(stream end, max over calls of seal_i + duration_i)``, from the run's own seal times
(``sealed_at``) and stream end; the seal times are cross-checked with the instants the
payloads that end the calls were sent (*seal lag*), and a schedule floor is computed from
those instants alone. Every strategy's outputs must equal the others' (asserted).

Exits 1 when eager takes more than 5 % over its floor on any turn (eager / floor > 1.05),
2 when a strategy's tool outputs disagree.

    python benchmarks/bench_runner.py           # full run (~2 min) -> results/runner.{md,json,png}
    python benchmarks/bench_runner.py --quick   # 3 turns, smoke run
    python benchmarks/bench_runner.py --tiny    # the test suite's: 1 turn at 1/10 time
    python benchmarks/bench_runner.py --render  # rewrite md and png from runner.json
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent))

import callstream
from _paced import CallSpec, PacedSource, schedule, wire_turn
from _report import (
    RESULTS,
    TINY_HELP,
    git_line,
    load_average,
    log,
    machine,
    shown_path,
    write_json,
    write_text,
)
from _runner_report import LIMIT, plot, report, summary_table
from _turns import (
    ACTIVE,
    QUICK,
    SCENARIOS,
    TIMELINE,
    TINY,
    TINY_SCALE,
    TOOLS,
    Scenario,
    TurnClock,
    durations,
    ids,
)
from callstream.runner import ToolRunner

# --- the strategies ---------------------------------------------------------------------------


@dataclass
class Run:
    """One strategy's run of one turn (times in seconds from the request)."""

    wall: float
    stream_end: float  # the runner's stream end, or when acollect returned
    source_end: float  # when the last payload was handed over
    spans: dict[str, tuple[float, float]]
    outputs: dict[str, str]
    delivered: list[float]
    calls: list[dict[str, Any]]  # eager only: the runner's per-call times


async def _begin(d: dict[str, float]) -> TurnClock:
    gc.collect()
    await anyio.sleep(0.05)  # let the loop settle between runs
    turn = TurnClock(d, anyio.current_time())
    ACTIVE.append(turn)
    return turn


async def run_eager(
    scenario: Scenario, payloads: Sequence[dict[str, Any]], times: Sequence[float]
) -> Run:
    """Strategy *eager*: ``ToolRunner.arun`` over the paced source."""
    runner = ToolRunner(list(TOOLS.values()), eager=True, seal=scenario.seal)
    turn = await _begin(durations(scenario))
    try:
        source = PacedSource(payloads, times, turn.origin)
        result = await runner.arun(source, provider=scenario.fmt)
        wall = anyio.current_time() - turn.origin
    finally:
        ACTIVE.pop()
    calls = [
        {
            "name": r.name,
            "status": r.status,
            "sealed_at": r.sealed_at,
            "started_at": r.started_at,
            "finished_at": r.finished_at,
            "eager": r.eager,
            "error": r.error,
        }
        for r in result.results
    ]
    return Run(
        wall=wall,
        stream_end=result.stream_ended_at if result.stream_ended_at is not None else float("nan"),
        source_end=source.delivered[-1],
        spans=turn.spans,
        outputs={str(r.name): str(r.output) for r in result.results if r.status == "done"},
        delivered=source.delivered,
        calls=calls,
    )


async def _collect(
    scenario: Scenario,
    payloads: Sequence[dict[str, Any]],
    times: Sequence[float],
    *,
    concurrent: bool,
) -> Run:
    turn = await _begin(durations(scenario))
    outputs: dict[str, str] = {}

    async def one(name: str, args: dict[str, Any]) -> None:
        outputs[name] = await TOOLS[name](**args)

    try:
        source = PacedSource(payloads, times, turn.origin)
        result = await callstream.acollect(source, provider=scenario.fmt)
        stream_end = anyio.current_time() - turn.origin
        if concurrent:
            async with anyio.create_task_group() as group:
                for call in result.tool_calls:
                    group.start_soon(one, call["name"], call["args"])
        else:
            for call in result.tool_calls:
                await one(call["name"], call["args"])
        wall = anyio.current_time() - turn.origin
    finally:
        ACTIVE.pop()
    return Run(
        wall=wall,
        stream_end=stream_end,
        source_end=source.delivered[-1],
        spans=turn.spans,
        outputs=outputs,
        delivered=source.delivered,
        calls=[],
    )


async def run_turn(scenario: Scenario) -> dict[str, Any]:
    """Run the three strategies on one turn; return its record (see the JSON file)."""
    specs = [
        CallSpec(name, cid, json.dumps(args, ensure_ascii=False))
        for (name, args), cid in zip(
            scenario.calls, ids(scenario.fmt, len(scenario.calls), scenario.seed)
        )
    ]
    wire = wire_turn(
        scenario.fmt, specs, random.Random(f"{scenario.seed}-pieces"), scenario.preamble
    )
    times = [
        t * scenario.time_scale for t in schedule(wire, random.Random(f"{scenario.seed}-schedule"))
    ]
    d = durations(scenario)
    eager = await run_eager(scenario, wire.payloads, times)
    concurrent = await _collect(scenario, wire.payloads, times, concurrent=True)
    sequential = await _collect(scenario, wire.payloads, times, concurrent=False)

    names = [name for name, _ in scenario.calls]
    seal_at = wire.seal_at(scenario.seal)
    sched_seal = [times[k] for k in seal_at]
    run_seal = [c["sealed_at"] for c in eager.calls]
    ok = all(c["status"] == "done" for c in eager.calls) and len(eager.calls) == len(names)
    agree = ok and eager.outputs == concurrent.outputs == sequential.outputs
    if ok:
        floor = max(
            eager.stream_end, eager.source_end, *(s + d[n] for s, n in zip(run_seal, names))
        )
    else:
        floor = float("nan")
    floor_schedule = max(times[-1], *(s + d[n] for s, n in zip(sched_seal, names)))
    lags = [r - s for r, s in zip(run_seal, sched_seal) if r is not None]
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
        "finish_at": times[wire.finish_at],
        "owner": wire.owner,
        "seal_payload": seal_at,
        "strategies": {
            "eager": _run_record(eager),
            "concurrent": _run_record(concurrent),
            "sequential": _run_record(sequential),
        },
        "eager_calls": eager.calls,
        "agree": agree,
        "floor": floor,
        "floor_schedule": floor_schedule,
        "ratio": eager.wall / floor if ok else float("nan"),
        "ratio_schedule": eager.wall / floor_schedule,
        "seal_lag_max": max(lags) if lags else float("nan"),
        "saved_vs_concurrent": concurrent.wall - eager.wall,
        "saved_vs_sequential": sequential.wall - eager.wall,
    }


def _run_record(run: Run) -> dict[str, Any]:
    return {
        "wall": run.wall,
        "stream_end": run.stream_end,
        "source_end": run.source_end,
        "spans": {name: list(span) for name, span in run.spans.items()},
        "delivered": run.delivered,
    }


# --- main ------------------------------------------------------------------------------------


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help=f"only turns {', '.join(QUICK)}")
    parser.add_argument("--tiny", action="store_true", help=TINY_HELP)
    parser.add_argument("--out", type=Path, default=RESULTS, help="results folder")
    parser.add_argument("--no-plot", action="store_true", help="skip the PNG plot")
    parser.add_argument("--backend", default="asyncio", choices=("asyncio", "trio"))
    parser.add_argument(
        "--render", action="store_true", help="measure nothing: rewrite md and png from the JSON"
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the turns, write ``runner.{json,md,png}``, print the table; the exit status."""
    ns = _arguments(argv)
    json_path = ns.out / "runner.json"
    if ns.render:
        data = json.loads(json_path.read_text(encoding="utf-8"))
    else:
        if ns.tiny:
            chosen = [replace(s, time_scale=TINY_SCALE) for s in SCENARIOS if s.label == TINY]
        else:
            chosen = [s for s in SCENARIOS if not ns.quick or s.label in QUICK]
        info = machine()
        info["backend"] = ns.backend
        tree = Path(callstream.__file__).resolve().parent
        info["callstream_source"] = shown_path(tree)
        info["callstream_commit"] = git_line(tree, "rev-parse", "--short", "HEAD")

        async def all_turns() -> list[dict[str, Any]]:
            out = []
            for scenario in chosen:
                log(f"turn {scenario.label} ({scenario.fmt}, seal={scenario.seal}) ...")
                out.append(await run_turn(scenario))
            return out

        turns = anyio.run(all_turns, backend=ns.backend)
        info["load_average_1m_end"] = load_average()
        data = {
            "machine": info,
            "limit": LIMIT,
            "timeline": TIMELINE if TIMELINE in {s.label for s in chosen} else chosen[0].label,
            "turns": turns,
        }
        write_json(json_path, data)
    command = "python benchmarks/bench_runner.py"
    command += " --tiny" if ns.tiny else " --quick" if ns.quick else ""
    if data["machine"].get("backend", "asyncio") != "asyncio":
        command += f" --backend {data['machine']['backend']}"
    write_text(ns.out / "runner.md", report(data, command))
    if not ns.no_plot:
        plot(data, ns.out / "runner.png")
    print(summary_table(data["turns"]))
    turns = data["turns"]
    if not all(t["agree"] for t in turns):
        for t in turns:
            if not t["agree"]:
                wrong = [
                    f"{c['name']}: {c['status']} ({c['error']})"
                    for c in t["eager_calls"]
                    if c["status"] != "done"
                ]
                print(
                    f"FAIL: turn {t['label']}: the strategies' tool outputs disagree; "
                    f"eager results not done: {wrong}",
                    file=sys.stderr,
                )
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
