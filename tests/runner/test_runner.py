"""ToolRunner: seals per provider, eagerness, vetoes, cancellation, errors as results."""

from __future__ import annotations

import json
import threading
from typing import Any

import anyio
import pytest
from pydantic import BaseModel

import callstream
from callstream import OptionTypeError, OptionValueError, StreamUpdate, UsageError
from callstream.runner import (
    Tool,
    ToolCancelled,
    ToolFailed,
    ToolFinished,
    ToolRunner,
    ToolStarted,
)
from tests.support.runner_helpers import Recorder, on_fake_clock, paced, write

WEATHER = json.dumps({"city": "Paris", "days": 3})
LONDON = json.dumps({"city": "London", "days": 2})
TWO_CALLS = [("call_a", "weather", WEATHER), ("call_b", "forecast", LONDON)]


def first_payload_of_call(provider: str, payloads: list[Any], call: int) -> int:
    """Position of the payload that starts call ``call`` in a stream of ours."""
    for position, payload in enumerate(payloads):
        text = json.dumps(payload)
        if ("call_b" if call == 1 else "call_a") in text:
            return position
        if provider in ("gemini", "ollama") and ("forecast" if call == 1 else "weather") in text:
            return position
    raise AssertionError("no such call")


def run_turn(
    provider: str, payloads: list[Any], runner: ToolRunner, **options: Any
) -> tuple[list[Any], callstream.runner.RunResult]:
    items: list[Any] = []

    async def main() -> callstream.runner.RunResult:
        async with runner.astream(paced(payloads), provider=provider, **options) as run:
            async for item in run:
                items.append(item)
        return run.result

    return items, on_fake_clock(main)


# --- seals per provider -------------------------------------------------------------------


@pytest.mark.parametrize(
    "provider", ["anthropic", "openai-responses", "bedrock", "cohere", "gemini", "ollama"]
)
def test_a_call_with_its_own_end_runs_before_the_next_call_streams(provider: str) -> None:
    recorder = Recorder({"weather": 10.0, "forecast": 1.0})
    runner = ToolRunner([recorder.tool("weather"), recorder.tool("forecast")])
    payloads = write(provider, TWO_CALLS)
    _, result = run_turn(provider, payloads, runner)
    first, second = result.results
    # payload k arrives at second k + 1: call 0's tool started before call 1 began
    assert first.started_at is not None
    assert first.started_at < first_payload_of_call(provider, payloads, 1) + 1
    assert first.eager and first.status == "done" and first.output["city"] == "Paris"
    assert second.status == "done" and second.output["city"] == "London"
    # the stream ends at the payload with the finish reason (Anthropic: message_delta)
    assert result.stream_ended_at in (len(payloads) - 1, len(payloads))
    # the floor: call 0 sealed early and took 10 s; the turn ends with it, not 10 s later
    assert result.finished_at == pytest.approx(first.sealed_at + 10.0)  # type: ignore[operator]


def test_openai_chat_seals_at_the_finish_by_default() -> None:
    recorder = Recorder()
    runner = ToolRunner([recorder.tool("weather"), recorder.tool("forecast")])
    payloads = write("openai-chat", TWO_CALLS)
    _, result = run_turn("openai-chat", payloads, runner)
    for outcome in result.results:
        assert outcome.sealed_at == pytest.approx(len(payloads))
        assert not outcome.eager and outcome.status == "done"


def test_openai_chat_next_call_seals_a_closed_call_when_the_next_starts() -> None:
    recorder = Recorder({"weather": 1.0})
    runner = ToolRunner([recorder.tool("weather"), recorder.tool("forecast")], seal="next-call")
    payloads = write("openai-chat", TWO_CALLS)
    _, result = run_turn("openai-chat", payloads, runner)
    first, second = result.results
    starts_second = first_payload_of_call("openai-chat", payloads, 1) + 1
    assert first.sealed_at == pytest.approx(starts_second)
    assert first.eager and first.status == "done"
    assert second.sealed_at == pytest.approx(len(payloads))  # the last call: at the finish
    assert recorder.calls == [
        ("weather", {"city": "Paris", "days": 3}),
        ("forecast", {"city": "London", "days": 2}),
    ]


def test_next_call_seal_broken_by_late_text_is_an_error_never_done() -> None:
    # a server that sends more text for call 0 after starting call 1: '{"city": "Paris"}'
    # looks closed, then ' x' arrives -> the call is malformed at the finish
    def chunk(delta: dict[str, Any], reason: str | None = None) -> dict[str, Any]:
        return {
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": delta, "finish_reason": reason}],
        }

    def call(index: int, args: str, **extra: Any) -> dict[str, Any]:
        function: dict[str, Any] = {"arguments": args}
        if "name" in extra:
            function["name"] = extra.pop("name")
        return chunk({"tool_calls": [{"index": index, "function": function, **extra}]})

    payloads = [
        call(0, '{"city": "Paris"}', id="call_a", name="weather"),
        call(1, '{"city": "Rome"}', id="call_b", name="forecast"),
        call(0, " x"),
        chunk({}, "tool_calls"),
    ]
    recorder = Recorder({"weather": 5.0})
    runner = ToolRunner([recorder.tool("weather"), recorder.tool("forecast")], seal="next-call")
    items, result = run_turn("openai-chat", payloads, runner)
    first, second = result.results
    assert recorder.calls[0] == ("weather", {"city": "Paris", "days": 1})  # it did start
    assert recorder.cancelled == ["weather"]  # and was stopped when the seal broke
    assert first.status == "error" and "after it was sealed" in (first.error or "")
    assert second.status == "done"
    assert not any(isinstance(i, ToolFinished) and i.index == 0 for i in items)


# --- eagerness --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "runner_options, wrap",
    [
        ({"eager": False}, False),
        ({}, True),
        ({"eager": lambda call: call["name"] != "weather"}, False),
    ],
    ids=["runner-eager-false", "tool-eager-false", "predicate"],
)
def test_a_tool_that_is_not_eager_starts_after_the_stream_ended(
    runner_options: dict[str, Any], wrap: bool
) -> None:
    recorder = Recorder()
    weather = Tool(recorder.tool("weather"), eager=False) if wrap else recorder.tool("weather")
    runner = ToolRunner([weather, recorder.tool("forecast")], **runner_options)
    payloads = write("anthropic", TWO_CALLS)
    _, result = run_turn("anthropic", payloads, runner)
    first = result.results[0]
    assert result.stream_ended_at is not None
    assert first.started_at is not None and first.started_at >= result.stream_ended_at
    assert not first.eager and first.status == "done"


def test_max_concurrency_one_runs_tools_one_at_a_time() -> None:
    recorder = Recorder({"weather": 3.0, "forecast": 3.0})
    runner = ToolRunner([recorder.tool("weather"), recorder.tool("forecast")], max_concurrency=1)
    payloads = write("anthropic", TWO_CALLS)
    _, result = run_turn(
        "anthropic",
        payloads,
        runner,
    )
    first, second = result.results
    assert first.finished_at is not None and second.started_at is not None
    assert second.started_at >= first.finished_at


# --- vetoes and cancellation ------------------------------------------------------------------


def test_a_voiding_finish_reason_cancels_started_tools_and_starts_no_other() -> None:
    recorder = Recorder({"weather": 100.0})
    runner = ToolRunner([recorder.tool("weather"), Tool(recorder.tool("forecast"), eager=False)])
    payloads = write("bedrock", TWO_CALLS)
    payloads[-1] = {"messageStop": {"stopReason": "malformed_tool_use"}}
    items, result = run_turn("bedrock", payloads, runner)
    assert result.voided == "malformed_tool_use"
    assert recorder.cancelled == ["weather"] and recorder.finished == []
    assert [r.status for r in result.results] == ["cancelled", "cancelled"]
    assert result.results[1].started_at is None  # never started
    assert "malformed_tool_use" in (result.results[0].error or "")
    cancelled = [i.index for i in items if isinstance(i, ToolCancelled)]
    assert sorted(cancelled) == [0, 1]
    assert not any(isinstance(i, ToolFinished) for i in items)


def test_a_voiding_reason_in_the_same_payload_as_the_seal_starts_nothing() -> None:
    recorder = Recorder()
    runner = ToolRunner([recorder.tool("weather"), recorder.tool("forecast")])
    payloads = write("openai-chat", TWO_CALLS)
    payloads[-1]["choices"][0]["finish_reason"] = "content_filter"
    _, result = run_turn("openai-chat", payloads, runner)
    assert recorder.calls == []
    assert result.voided == "content_filter"
    assert [r.status for r in result.results] == ["cancelled", "cancelled"]


def test_a_tool_done_before_the_veto_stays_done() -> None:
    recorder = Recorder({"weather": 0.5, "forecast": 5.0})
    runner = ToolRunner([recorder.tool("weather"), recorder.tool("forecast")])
    payloads = write("bedrock", TWO_CALLS)
    payloads[-1] = {"messageStop": {"stopReason": "guardrail_intervened"}}
    _, result = run_turn("bedrock", payloads, runner)
    first, second = result.results
    assert first.status == "done" and first.finished_at < result.stream_ended_at  # type: ignore[operator]
    assert second.status == "cancelled"


def test_a_source_error_cancels_the_tools_and_is_raised_with_the_run_result() -> None:
    recorder = Recorder({"weather": 100.0})
    runner = ToolRunner([recorder.tool("weather"), recorder.tool("forecast")])
    payloads = write("anthropic", TWO_CALLS)
    cut = first_payload_of_call("anthropic", payloads, 1) + 1

    async def failing() -> Any:
        async for payload in paced(payloads[:cut]):
            yield payload
        raise ConnectionError("peer closed")

    items: list[Any] = []

    async def main() -> None:
        async with runner.astream(failing()) as run:
            async for item in run:
                items.append(item)

    with pytest.raises(ConnectionError) as caught:
        on_fake_clock(main)
    result = caught.value.callstream_run_result  # type: ignore[attr-defined]
    assert recorder.cancelled == ["weather"]
    assert [r.status for r in result.results] == ["cancelled", "cancelled"]
    assert "ConnectionError" in (result.voided or "")
    assert result.stream.interrupted
    assert any(isinstance(i, ToolCancelled) and i.index == 0 for i in items)


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_cancelling_the_run_cancels_started_async_tools(backend: str) -> None:
    started = anyio.Event() if False else None  # created inside the loop below
    recorder = Recorder({"weather": 1000.0})
    runner = ToolRunner([recorder.tool("weather"), recorder.tool("forecast")])
    payloads = write("anthropic", TWO_CALLS)
    del started

    async def main() -> Any:
        go_on = anyio.Event()

        async def source() -> Any:
            for payload in payloads:
                await anyio.sleep(0)
                yield payload
            await go_on.wait()  # the stream stays open: the model "keeps streaming"

        run = runner.astream(source())
        with anyio.move_on_after(0.2):
            async with run:
                async for _ in run:
                    pass
        return run.result

    result = anyio.run(main, backend=backend)
    assert recorder.cancelled == ["weather"]
    assert [r.status for r in result.results][:1] == ["cancelled"]
    assert all(r.status != "done" for r in result.results if r.name == "weather")


def test_leaving_the_block_early_cancels_running_tools() -> None:
    recorder = Recorder({"weather": 100.0})
    runner = ToolRunner([recorder.tool("weather"), recorder.tool("forecast")])
    payloads = write("anthropic", TWO_CALLS)

    async def main() -> Any:
        async with runner.astream(paced(payloads)) as run:
            async for item in run:
                if isinstance(item, ToolStarted):
                    break
        return run.result

    result = on_fake_clock(main)
    assert recorder.cancelled == ["weather"]
    assert result.results[0].status == "cancelled"


def test_a_timeout_gives_an_error_result_not_a_hang() -> None:
    recorder = Recorder({"weather": 50.0, "forecast": 1.0})
    runner = ToolRunner(
        [Tool(recorder.tool("weather"), timeout=2), recorder.tool("forecast")], timeout=30
    )
    payloads = write("anthropic", TWO_CALLS)
    _, result = run_turn("anthropic", payloads, runner)
    first, second = result.results
    assert first.status == "error" and first.error == "Error: weather did not finish within 2 s"
    assert first.finished_at == pytest.approx(first.started_at + 2)  # type: ignore[operator]
    assert second.status == "done"


def test_a_sync_tool_abandoned_on_veto_is_reported_cancelled() -> None:
    release = threading.Event()
    ran: list[str] = []

    def weather(city: str) -> str:
        release.wait(10)
        ran.append(city)
        return city

    runner = ToolRunner([weather])
    payloads = write("bedrock", [("call_a", "weather", WEATHER)])
    payloads[-1] = {"messageStop": {"stopReason": "malformed_tool_use"}}

    async def main() -> Any:
        async def source() -> Any:
            for payload in payloads:
                await anyio.sleep(0.01)
                yield payload

        return await runner.arun(source())

    try:
        result = anyio.run(main)
    finally:
        release.set()
    assert [r.status for r in result.results] == ["cancelled"]
    assert result.results[0].output is None


# --- errors are results -----------------------------------------------------------------------


def test_every_kind_of_bad_call_is_an_error_result_and_the_others_run() -> None:
    def weather(city: str, days: int = 1) -> str:
        return f"{city}/{days}"

    def explode(city: str) -> str:
        raise ValueError("no such city")

    runner = ToolRunner([weather, explode])
    calls = [
        ("c0", "weather", '{"city": "Paris", "days": "many"}'),  # fails validation
        ("c1", "unknown_tool", "{}"),  # no such tool
        ("c2", "explode", '{"city": "Atlantis"}'),  # raises
        ("c3", "weather", '{"city": "Oslo"'),  # cut off: invalid call
        ("c4", "weather", '{"city": "Rome"}'),  # fine
    ]
    payloads = write("anthropic", calls)
    items, result = run_turn("anthropic", payloads, runner)
    by_id = {r.id: r for r in result.results}
    assert [r.index for r in result.results] == [0, 1, 2, 3, 4]
    assert by_id["c0"].status == "error" and "days" in (by_id["c0"].error or "")
    assert (
        by_id["c1"].error
        == "Error: there is no tool named 'unknown_tool' (the tools are: explode, weather)"
    )
    assert by_id["c2"].error == "Error: explode raised ValueError: no such city"
    assert by_id["c3"].status == "error" and "cut off" in (by_id["c3"].error or "")
    assert by_id["c4"].status == "done" and by_id["c4"].output == "Rome/1"
    failed = sorted(i.index for i in items if isinstance(i, ToolFailed))
    assert failed == [0, 1, 2, 3]
    assert all(r.content == (r.error if r.is_error else r.output) for r in result.results)


def test_no_argument_text_runs_only_a_tool_without_required_arguments() -> None:
    def now() -> str:
        return "noon"

    def weather(city: str) -> str:
        return city

    runner = ToolRunner([now, weather])
    payloads = write("anthropic", [("c0", "now", ""), ("c1", "weather", "")])
    _, result = run_turn("anthropic", payloads, runner)
    assert result.results[0].status == "done" and result.results[0].output == "noon"
    assert result.results[1].status == "error" and "city" in (result.results[1].error or "")

    strict_runner = ToolRunner([now, weather])
    _, strict = run_turn("anthropic", payloads, strict_runner, empty_args="invalid")
    assert [r.status for r in strict.results] == ["error", "error"]


def test_a_pydantic_model_tool_returns_the_validated_instance() -> None:
    class Weather(BaseModel):
        city: str
        days: int = 1

    runner = ToolRunner([Weather])
    payloads = write("anthropic", [("c0", "Weather", WEATHER)])
    _, result = run_turn("anthropic", payloads, runner)
    assert result.results[0].output == Weather(city="Paris", days=3)
    assert result.results[0].content == '{"city":"Paris","days":3}'


def test_langchain_tools_run() -> None:
    tools = pytest.importorskip("langchain_core.tools")

    @tools.tool
    def weather(city: str, days: int = 1) -> str:
        """Weather for a city."""
        return f"{city} x{days}"

    @tools.tool
    async def forecast(city: str, days: int = 1) -> str:
        """Forecast for a city."""
        await anyio.sleep(0)
        return f"later in {city}"

    runner = ToolRunner([weather, forecast])
    payloads = write("anthropic", TWO_CALLS)
    for backend in ("asyncio", "trio"):
        result = anyio.run(runner.arun, payloads, backend=backend)
        assert [r.output for r in result.results] == ["Paris x3", "later in London"]


# --- sync faces -------------------------------------------------------------------------------


def test_run_and_stream_agree_with_arun() -> None:
    def weather(city: str, days: int = 1) -> str:
        return f"{city}/{days}"

    async def forecast(city: str, days: int = 1) -> str:
        return f"{city}+{days}"

    runner = ToolRunner([weather, forecast])
    payloads = write("anthropic", TWO_CALLS)
    from_async = anyio.run(runner.arun, payloads)
    from_sync = runner.run(iter(payloads))  # an iterator: read in worker threads
    with runner.stream(payloads, backend="trio") as items:
        kinds = [type(item) for item in items]
    streamed = items.result
    for result in (from_sync, streamed):
        assert [(r.index, r.status, r.output, r.args) for r in result.results] == [
            (r.index, r.status, r.output, r.args) for r in from_async.results
        ]
        assert result.tool_calls == from_async.tool_calls
    assert kinds.count(StreamUpdate) == len(payloads)
    assert kinds.count(ToolStarted) == 2 and kinds.count(ToolFinished) == 2


def test_sync_run_refuses_a_running_loop() -> None:
    runner = ToolRunner([])

    async def main() -> None:
        with pytest.raises(UsageError, match="running event loop"):
            runner.run([])

    anyio.run(main)


# --- misuse -------------------------------------------------------------------------------------


def test_options_are_checked() -> None:
    def weather(city: str) -> str:
        return city

    with pytest.raises(OptionTypeError):
        ToolRunner([weather], eager="yes")  # type: ignore[arg-type]
    with pytest.raises(OptionValueError):
        ToolRunner([weather], max_concurrency=0)
    with pytest.raises(OptionValueError):
        ToolRunner([weather], timeout=-1)
    with pytest.raises(OptionValueError):
        ToolRunner([weather], seal="never")  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="two tools are named 'weather'"):
        ToolRunner([weather, weather])
    with pytest.raises(UsageError):
        ToolRunner("weather")
    with pytest.raises(callstream.ToolDefinitionError):
        ToolRunner([42])
    with pytest.raises(UsageError):
        ToolRunner([weather]).astream(42)


def test_iterating_outside_the_block_or_twice_is_a_usage_error() -> None:
    runner = ToolRunner([])

    async def main() -> None:
        run = runner.astream([])
        with pytest.raises(UsageError, match="inside its block"):
            await run.__anext__()
        async with run:
            async for _ in run:
                pass
        with pytest.raises(UsageError, match="entered once"):
            async with run:
                pass

    anyio.run(main)


def test_vertex_streamed_arguments_seal_at_their_last_part() -> None:
    from tests.providers.gemini.test_providers_gemini import TERMINATOR, leaves, opener, response, s

    payloads = [
        response(opener("weather")),
        response(leaves(s("$.city", "Bos", more=True))),
        response(leaves(s("$.city", "ton"))),
        response(TERMINATOR),  # the end of call 0's arguments
        response(opener("forecast")),
        response(leaves(s("$.city", "Rome"))),
        response(TERMINATOR, finish="STOP"),
    ]
    recorder = Recorder({"weather": 1.0})
    runner = ToolRunner([recorder.tool("weather"), recorder.tool("forecast")])
    _, result = run_turn("gemini", payloads, runner)
    first, second = result.results
    assert first.sealed_at == 4 and first.started_at == 4  # payload 3 arrives at second 4
    assert first.output == {"tool": "weather", "city": "Boston", "days": 1}
    assert second.sealed_at == 7 and second.output["city"] == "Rome"


def test_an_eager_predicate_that_raises_fails_the_run_and_cancels_the_tools() -> None:
    recorder = Recorder({"weather": 100.0})

    def choose(call: Any) -> bool:
        if call["name"] == "forecast":
            raise RuntimeError("predicate bug")
        return True

    runner = ToolRunner([recorder.tool("weather"), recorder.tool("forecast")], eager=choose)
    payloads = write("anthropic", TWO_CALLS)
    with pytest.raises(RuntimeError, match="predicate bug") as caught:
        run_turn("anthropic", payloads, runner)
    result = caught.value.callstream_run_result  # type: ignore[attr-defined]
    assert recorder.cancelled == ["weather"]
    assert result.voided == "the run failed (RuntimeError: predicate bug)"
    assert [r.status for r in result.results] == ["cancelled", "cancelled"]


def test_a_call_without_a_name_is_an_error_result_without_a_name() -> None:
    runner = ToolRunner([Recorder().tool("weather")])
    payloads = [
        {
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "tool_calls": [{"index": 0, "id": "c0", "function": {"arguments": "{}"}}]
                    },
                    "finish_reason": None,
                }
            ]
        },
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    ]
    _, result = run_turn("openai-chat", payloads, runner)
    (only,) = result.results
    assert only.name is None and only.id == "c0" and only.status == "error"
    assert (
        only.error == "Error: a call without a tool name could not be used: tool call has no name"
    )


def test_a_provider_error_event_voids_the_turn() -> None:
    recorder = Recorder({"weather": 100.0})
    runner = ToolRunner([recorder.tool("weather"), recorder.tool("forecast")])
    payloads = write("anthropic", TWO_CALLS)
    cut = first_payload_of_call("anthropic", payloads, 1)
    overloaded = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    items, result = run_turn("anthropic", [*payloads[:cut], overloaded], runner)
    assert result.voided == "error" and result.finish_reason == "error"
    assert recorder.cancelled == ["weather"]
    assert [r.status for r in result.results] == ["cancelled"]
    assert "'error'" in (result.results[0].error or "")


def test_next_call_seals_at_the_next_calls_header_before_its_arguments() -> None:
    def chunk(delta: dict[str, Any], reason: str | None = None) -> dict[str, Any]:
        return {"choices": [{"index": 0, "delta": delta, "finish_reason": reason}]}

    def call(index: int, args: str, **header: Any) -> dict[str, Any]:
        function: dict[str, Any] = {"arguments": args}
        if "name" in header:
            function["name"] = header.pop("name")
        return chunk({"tool_calls": [{"index": index, "function": function, **header}]})

    payloads = [
        call(0, "", id="call_a", name="weather", type="function"),
        call(0, '{"city": "Paris"}'),
        call(1, "", id="call_b", name="forecast", type="function"),  # header only
        call(1, '{"city": "Rome"}'),
        chunk({}, "tool_calls"),
    ]
    recorder = Recorder()
    runner = ToolRunner([recorder.tool("weather"), recorder.tool("forecast")], seal="next-call")
    _, result = run_turn("openai-chat", payloads, runner)
    first, second = result.results
    assert first.sealed_at == 3  # payload 2 (call 1's header) arrives at second 3
    assert second.sealed_at == 5
    assert [r.status for r in result.results] == ["done", "done"]
