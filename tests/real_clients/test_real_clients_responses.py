"""The Responses item streams of ``tests/support/responses_streams.py`` through the real openai
client (openai >= 3 over ``httpx2.MockTransport`` and ``callstream.testing.MockProvider``), sync, asyncio and trio: the SDK's own
event models (``responses.create(stream=True)`` and the ``responses.stream()`` helper)
give what the raw events give; a connection dropped in the middle of a custom tool's
input leaves that call invalid and the calls before it intact."""

from __future__ import annotations

from typing import Any

import anyio.lowlevel
import httpx2
import openai
import pytest

import callstream
from callstream import StreamResult
from tests.support.real_clients import Replay
from tests.support.responses_streams import CUSTOM, STREAMS, Stream, added, event, sse

IDS = [s.name for s in STREAMS]


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def verdicts(result: StreamResult) -> tuple[Any, ...]:
    return (
        result.tool_calls,
        result.server_tool_calls,
        result.invalid_tool_calls,
        result.call_extras,
        result.finish_reason,
        result.provider,
    )


def client(replay: Replay) -> openai.OpenAI:
    return openai.OpenAI(
        api_key="test", base_url="http://test/v1", http_client=replay.client(), max_retries=0
    )


def async_client(replay: Replay) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(
        api_key="test", base_url="http://test/v1", http_client=replay.async_client(), max_retries=0
    )


@pytest.mark.parametrize("stream", STREAMS, ids=IDS)
def test_sync_sdk_events_give_what_the_raw_events_give(stream: Stream) -> None:
    expected = verdicts(callstream.collect(stream.events))
    times = 1 if stream.own_events else 2
    replay = Replay(sse(stream.events).encode(), "openai-responses", size=11, times=times)
    source = client(replay).responses.create(model="gpt-test", input="hi", stream=True)
    assert verdicts(callstream.collect(source)) == expected
    assert replay.closed == (True,)
    if stream.own_events:
        return  # the SDK's helper snapshots the response: for OpenAI's own tool types only
    with client(replay).responses.stream(model="gpt-test", input="hi") as helper:
        assert verdicts(callstream.collect(helper)) == expected


@pytest.mark.anyio
@pytest.mark.parametrize("stream", STREAMS, ids=IDS)
async def test_async_sdk_events_give_what_the_raw_events_give(stream: Stream) -> None:
    expected = verdicts(callstream.collect(stream.events))
    replay = Replay(sse(stream.events).encode(), "openai-responses", size=13, times=2)
    source = await async_client(replay).responses.create(model="gpt-test", input="hi", stream=True)
    assert verdicts(await callstream.acollect(source)) == expected
    updates = []
    source = await async_client(replay).responses.create(model="gpt-test", input="hi", stream=True)
    async with callstream.astream(source) as stream_updates:
        async for update in stream_updates:
            updates.append(update)
            await anyio.lowlevel.checkpoint()
        assert verdicts(stream_updates.result) == expected
    assert replay.closed == (True, True)


def test_a_connection_dropped_inside_a_custom_input_leaves_that_call_invalid() -> None:
    function = {
        "type": "function_call",
        "id": "fc_9",
        "call_id": "call_first",
        "name": "f",
        "arguments": '{"a": 1}',
    }
    events = [
        *CUSTOM.events[:1],
        added(1, function),
        event("response.function_call_arguments.done", 1, "fc_9", arguments='{"a": 1}'),
        *[{**e, "output_index": 2} for e in CUSTOM.events[1:4]],  # added + two pieces
    ]
    replay = Replay(sse(events).encode(), "openai-responses", dropped=True)
    source = client(replay).responses.create(model="gpt-test", input="hi", stream=True)
    with pytest.raises((httpx2.RemoteProtocolError, openai.APIConnectionError)) as caught:
        callstream.collect(source)
    partial: StreamResult = caught.value.callstream_result  # type: ignore[attr-defined]
    assert partial.interrupted
    assert [(c["name"], c["args"]) for c in partial.tool_calls] == [("f", {"a": 1})]
    [bad] = partial.invalid_tool_calls
    assert bad["name"] == "apply_patch" and "interrupted" in (bad["error"] or "")
    assert bad["args"] is not None and bad["args"].startswith('{"__arg1": "*** Begin')
