"""Properties of the tool runner over random streams, splits, tool durations and endings.

Streams of our own in every format (``tests/support/fuzz_streams.py``: valid, malformed, cut-off
and non-object arguments), cut at random points, paced one payload per second on a fake
clock (trio ``MockClock``: nothing really sleeps), tools that take random times. A
stream is voided by naming its own finish word in ``void_reasons``.
"""

from __future__ import annotations

from typing import Any

import anyio
from hypothesis import given, settings
from hypothesis import strategies as st

import callstream
from callstream.runner import ToolRunner, ToolStarted
from tests.support.fuzz_streams import WRITERS, Call, calls
from tests.support.runner_helpers import on_fake_clock, paced

NAMES = ("get_weather", "search", "write_file")
NORMAL_ENDS = frozenset({"tool_calls", "tool_use", "stop", "completed", "tool_call", "length"})


def make_tools(durations: dict[str, float], log: list[tuple[str, Any]]) -> list[Any]:
    def make(name: str) -> Any:
        async def tool(city: Any = None) -> str:
            log.append(("start", name))
            try:
                await anyio.sleep(durations[name])
            except anyio.get_cancelled_exc_class():
                log.append(("cancelled", name))
                raise
            log.append(("done", name))
            return f"{name}:{city!r}"

        tool.__name__ = name
        return tool

    return [make(name) for name in NAMES]


turns = st.fixed_dictionaries(
    {
        "provider": st.sampled_from(sorted(WRITERS)),
        "calls": calls,
        "cuts": st.lists(st.integers(0, 60), max_size=4),
        "finish": st.sampled_from(["ok", "length"]),
        "durations": st.fixed_dictionaries(
            {name: st.sampled_from([0.0, 0.5, 3.0, 40.0]) for name in NAMES}
        ),
        "eager": st.booleans(),
        "seal": st.sampled_from(["end", "next-call"]),
        "void": st.booleans(),
    }
)


def run_turn(
    turn: dict[str, Any], log: list[tuple[str, Any]] | None = None
) -> tuple[list[Any], callstream.runner.RunResult, list[Any]]:
    provider = turn["provider"]
    stream_calls: list[Call] = turn["calls"]
    payloads = WRITERS[provider](stream_calls, turn["cuts"], turn["finish"])
    runner = ToolRunner(
        make_tools(turn["durations"], [] if log is None else log),
        eager=turn["eager"],
        seal=turn["seal"],
        void_reasons=NORMAL_ENDS if turn["void"] else (),
    )
    items: list[Any] = []

    async def main() -> callstream.runner.RunResult:
        async with runner.astream(paced(payloads), provider=provider) as run:
            async for item in run:
                items.append(item)
        return run.result

    return items, on_fake_clock(main), payloads


@settings(max_examples=120, deadline=None)
@given(turns)
def test_results_come_in_call_order_and_only_final_valid_arguments_ever_run(
    turn: dict[str, Any],
) -> None:
    items, result, payloads = run_turn(turn)
    final: dict[int, dict[str, Any]] = {}  # call number -> final valid arguments
    invalid: set[int] = set()
    for update in callstream.stream(payloads, provider=turn["provider"]):
        for event in update.events:
            if isinstance(event, callstream.CallDone):
                final[event.index] = event.tool_call["args"]
            elif isinstance(event, callstream.CallInvalid):
                invalid.add(event.index)
    # one result per call the model made, in call order
    assert [r.index for r in result.results] == sorted(final.keys() | invalid)
    for started in (item for item in items if isinstance(item, ToolStarted)):
        # a tool ran only on a call that is valid at the end, with exactly its final args
        assert started.index in final, started
        assert started.args == final[started.index]
    for outcome in result.results:
        if outcome.index in invalid:
            assert outcome.status == "error" and outcome.started_at is None
        if outcome.status == "done":
            assert outcome.args == final[outcome.index]


@settings(max_examples=120, deadline=None)
@given(turns)
def test_a_voided_turn_reports_done_only_what_finished_before_its_end(
    turn: dict[str, Any],
) -> None:
    log: list[tuple[str, Any]] = []
    items, result, _ = run_turn(turn, log)
    started = [item for item in items if isinstance(item, ToolStarted)]
    assert len(started) == sum(1 for kind, _ in log if kind == "start")  # no hidden runs
    if not turn["void"] or result.voided is None:
        assert result.voided is None
        for outcome in result.results:
            assert outcome.status in ("done", "error")
            if outcome.status == "error":
                assert outcome.started_at is None  # tools never fail here: only bad calls
        return
    ended = result.stream_ended_at
    assert ended is not None
    assert all(event.at < ended for event in started)  # nothing starts at or after the veto
    for outcome in result.results:
        if outcome.status == "done":
            assert outcome.finished_at is not None and outcome.finished_at <= ended
        if outcome.started_at is not None:
            assert outcome.started_at < ended  # nothing starts at or after the veto
        if outcome.status == "cancelled":
            assert outcome.output is None
    if not turn["eager"]:
        assert all(outcome.started_at is None for outcome in result.results)


@settings(max_examples=120, deadline=None)
@given(turns.filter(lambda t: not t["void"]))
def test_a_tool_that_is_not_eager_starts_only_after_the_stream_ended(
    turn: dict[str, Any],
) -> None:
    _, result, _ = run_turn(dict(turn, eager=False))
    for outcome in result.results:
        if outcome.started_at is not None:
            assert result.stream_ended_at is not None
            assert outcome.started_at >= result.stream_ended_at
            assert not outcome.eager


@settings(max_examples=40, deadline=None)
@given(turns.filter(lambda t: not t["void"]))
def test_sync_and_async_runners_agree(turn: dict[str, Any]) -> None:
    provider = turn["provider"]
    payloads = WRITERS[provider](turn["calls"], turn["cuts"], turn["finish"])
    log: list[tuple[str, Any]] = []
    runner = ToolRunner(make_tools(dict.fromkeys(NAMES, 0.0), log), seal=turn["seal"])

    def key(result: callstream.runner.RunResult) -> list[Any]:
        return [
            (r.index, r.id, r.name, r.args, r.status, r.output, r.error) for r in result.results
        ]

    from_async = anyio.run(runner.arun, payloads)
    from_trio = anyio.run(runner.arun, payloads, backend="trio")
    from_sync = runner.run(iter(payloads))
    assert key(from_async) == key(from_trio) == key(from_sync)
    assert from_sync.tool_calls == from_async.tool_calls
