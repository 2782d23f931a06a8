"""A provider error that ends the stream: no call is invented, and the provider's message
is readable in one place, ``StreamResult.provider_error``, on every path.

Groq answers a request whose ``tool_choice`` forces a tool, when the model called none,
with an error event whose ``failed_generation`` is empty: "Tool choice is required, but
model did not call a tool". Nothing was generated, so there is no call, not even an
invalid one (before, it became an invalid call with no name, no id and no arguments).
The message is the result's ``provider_error``, carried by the ``StreamFinished`` event
to the UIs (AG-UI ``RUN_ERROR``, the Vercel ``error`` chunk), the event feed, the parse
sessions and the runner's ``RunResult``. A non-empty ``failed_generation`` still gives
the failed call, as an invalid call with the provider's reason and the text as args.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import openai
import pytest

import callstream
from callstream import ChunkValidationError, StreamEnd, StreamFinished, ToolCallAssembler
from callstream.feed import to_feed
from callstream.parsers import JsonToolsParser
from callstream.ui import agui_stream, vercel_stream
from tests.support.real_clients import (
    async_sdk_stream,
    byte_pieces,
    chat_chunk,
    chat_sse,
    sdk_stream,
)
from tests.ui.test_ui import events_of

NO_CALL = "Tool choice is required, but model did not call a tool"
NO_CALL_ERROR = {
    "error": {
        "message": NO_CALL,
        "type": "invalid_request_error",
        "code": "tool_use_failed",
        "failed_generation": "",
    }
}
# Groq's schema check of a call it parsed: the code, no failed generation at all
SCHEMA_ERROR = {
    "error": {
        "message": "tool call validation failed: parameters for tool get_weather did not match schema",
        "type": "invalid_request_error",
        "param": "",
        "code": "tool_use_failed",
    }
}
FAILED = '<function=get_weather>{"city": "Paris", "units": celsius}</function>'
FAILED_ERROR = {
    "error": {
        "message": "Failed to call a function. See 'failed_generation' for more details.",
        "type": "invalid_request_error",
        "code": "tool_use_failed",
        "failed_generation": FAILED,
    }
}

OPENING = [chat_chunk({"role": "assistant", "content": None})]


def payloads(error: dict[str, Any], opening: list[Any] = OPENING) -> list[Any]:
    return [*opening, error]


def body(error: dict[str, Any], opening: list[Any] = OPENING) -> bytes:
    """The stream as Groq sends it: chunks, then ``event: error`` (no ``[DONE]``)."""
    return chat_sse(opening, done=False, tail=f"event: error\ndata: {json.dumps(error)}\n\n")


def check_no_call(result: callstream.StreamResult, message: str = NO_CALL) -> None:
    assert result.tool_calls == [] and result.invalid_tool_calls == []
    assert result.server_tool_calls == []
    assert result.finish_reason == "error" and result.finished and not result.interrupted
    assert result.provider_error == message


# --- the result, over dicts, raw bytes and the real openai SDK -------------------------------


@pytest.mark.parametrize("error", [NO_CALL_ERROR, SCHEMA_ERROR], ids=["empty", "absent"])
def test_no_failed_generation_is_no_call(error: dict[str, Any]) -> None:
    message = error["error"]["message"]
    check_no_call(callstream.collect(payloads(error)), message)
    data = body(error)
    check_no_call(callstream.collect([data]), message)
    for size in (1, 2, 7, 64):
        check_no_call(callstream.collect(byte_pieces(data, size)), message)
    # the error event's data without its "error" wrapper (as some proxies send it)
    bare = f"data: {json.dumps(OPENING[0])}\n\nevent: error\ndata: {json.dumps(error['error'])}\n\n"
    check_no_call(callstream.collect([bare]), message)


def test_the_error_alone_is_no_call() -> None:
    check_no_call(callstream.collect([NO_CALL_ERROR]))
    check_no_call(callstream.collect(byte_pieces(body(NO_CALL_ERROR, opening=[]), 3)))


def test_a_blank_failed_generation_is_no_call() -> None:
    blank = {"error": {**NO_CALL_ERROR["error"], "failed_generation": " \n "}}
    check_no_call(callstream.collect(payloads(blank)))


def test_a_failed_generation_still_gives_the_failed_call() -> None:
    for result in (
        callstream.collect(payloads(FAILED_ERROR)),
        callstream.collect(byte_pieces(body(FAILED_ERROR), 5)),
    ):
        [bad] = result.invalid_tool_calls
        assert bad["name"] == "get_weather" and bad["id"] is None
        assert bad["error"] == FAILED_ERROR["error"]["message"]
        assert bad["args"] == '{"city": "Paris", "units": celsius}'
        assert result.tool_calls == [] and result.finish_reason == "error"
        assert result.provider_error == FAILED_ERROR["error"]["message"]


def test_the_openai_sdk_raises_for_it() -> None:
    # The premise: the real client turns the error event into openai.APIError.
    with pytest.raises(openai.APIError) as info:
        list(sdk_stream("openai", body(NO_CALL_ERROR)))
    assert info.value.body == NO_CALL_ERROR["error"]


@pytest.mark.parametrize("error", [NO_CALL_ERROR, SCHEMA_ERROR], ids=["empty", "absent"])
def test_through_the_real_openai_sdk(error: dict[str, Any]) -> None:
    data = body(error)
    result = callstream.collect(sdk_stream("openai", data))
    check_no_call(result, error["error"]["message"])
    assert result == callstream.collect(byte_pieces(data, 3))  # the raw-bytes result
    with callstream.stream(sdk_stream("openai", data)) as updates:
        seen = list(updates)
    assert updates.result == result and updates.provider_error == result.provider_error
    assert seen[-1].events[-1] == StreamFinished(
        reason="error", provider_error=error["error"]["message"]
    )


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_through_the_real_async_openai_sdk(backend: str) -> None:
    data = body(NO_CALL_ERROR)

    async def main() -> tuple[callstream.StreamResult, callstream.StreamResult]:
        collected = await callstream.acollect(await async_sdk_stream("openai", data))
        async with callstream.astream(await async_sdk_stream("openai", data)) as updates:
            async for _ in updates:
                pass
        return collected, updates.result

    collected, streamed = anyio.run(main, backend=backend)
    check_no_call(collected)
    assert streamed == collected == callstream.collect([data])


# --- every consumer of the result ---------------------------------------------------------------


def test_the_uis_carry_the_providers_message() -> None:
    agui = events_of(list(agui_stream(callstream.stream(payloads(NO_CALL_ERROR)))))
    assert [e["type"] for e in agui if e["type"].startswith("TOOL_CALL")] == []
    assert [e for e in agui if e["type"] == "CUSTOM"] == []
    assert agui[-1] == {"type": "RUN_ERROR", "message": NO_CALL, "code": "provider_error"}
    vercel = events_of(list(vercel_stream(callstream.stream(payloads(NO_CALL_ERROR)))))
    assert [c for c in vercel if c["type"].startswith("tool-")] == []
    assert vercel[-2:] == [
        {"type": "error", "errorText": NO_CALL},
        {"type": "finish", "finishReason": "error"},
    ]


def test_the_event_feed_carries_it() -> None:
    [update] = [u for u in callstream.stream(payloads(NO_CALL_ERROR)) if u.events]
    assert [to_feed(e) for e in update.events] == [
        {"type": "stream_finished", "reason": "error", "provider_error": NO_CALL}
    ]


def test_the_parsers_carry_it() -> None:
    parser = JsonToolsParser()
    session = parser.session()
    for update in callstream.stream(payloads(NO_CALL_ERROR)):
        session.feed(update)
    session.close()
    assert session.result == [] and session.provider_error == NO_CALL
    parsed = parser.parse_session(callstream.collect(payloads(NO_CALL_ERROR)))
    assert parsed.result == [] and parsed.provider_error == NO_CALL
    assert list(parser.stream(callstream.stream(payloads(NO_CALL_ERROR)))) == [[]]


def test_the_runner_carries_it() -> None:
    def get_weather(city: str) -> str:
        """The weather in a city."""
        return "sunny"

    result = callstream.ToolRunner([get_weather]).run(sdk_stream("openai", body(NO_CALL_ERROR)))
    assert result.results == [] and result.voided is not None
    assert result.provider_error == NO_CALL == result.stream.provider_error


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        (
            {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
            "Anthropic stream error (overloaded_error): Overloaded",
        ),
        ({"error": "model 'x' not found"}, "model 'x' not found"),
    ],
    ids=["anthropic", "ollama"],
)
def test_other_providers_error_events_carry_their_message(payload: Any, message: str) -> None:
    provider = "anthropic" if "type" in payload else "ollama"
    result = callstream.collect([payload], provider=provider)
    assert result.finish_reason == "error" and result.provider_error == message


def test_other_ends_have_no_provider_error() -> None:
    result = callstream.collect([chat_chunk({"content": "hi"}), chat_chunk({}, "stop")])
    assert result.finish_reason == "stop" and result.provider_error is None
    assert callstream.collect([]).provider_error is None


def test_the_assembler_keeps_it() -> None:
    assembler = ToolCallAssembler()
    assert assembler.provider_error is None
    with pytest.raises(ChunkValidationError, match="provider_error must be a str or None"):
        assembler.finish("error", provider_error=5)  # type: ignore[arg-type]
    assert assembler.apply(StreamEnd(reason="error", provider_error="Overloaded")) == [
        StreamFinished(reason="error", provider_error="Overloaded")
    ]
    assert assembler.provider_error == "Overloaded" and assembler.finish_reason == "error"
    interrupted = ToolCallAssembler()
    assert interrupted.interrupt("ConnectionError") == [StreamFinished(reason=None)]
    assert interrupted.provider_error is None
