"""The drivers against the real openai and anthropic clients (sync, asyncio and trio):
closing what we were given, provider errors the SDKs raise, dropped connections,
snapshots and options. The clients replay streams of our own through
``httpx2.MockTransport`` (see ``tests/support/real_clients.py``)."""

from __future__ import annotations

import gc
import json
import warnings
from collections.abc import Iterator
from typing import Any

import anthropic
import anyio
import anyio.lowlevel
import httpx2
import openai
import pytest

import callstream
from callstream._errors import OptionTypeError, UsageError
from tests.support.real_clients import (
    FORMATS,
    Replay,
    anthropic_sse,
    async_sdk_stream,
    byte_pieces,
    chat_chunk,
    chat_sse,
    dropped_connection_errors,
    from_dropped_connection,
    sdk_stream,
)


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


KINDS = ["openai", "anthropic"]

# --- our streams, in the wire shapes --------------------------------------------------------

EDINBURGH = ['{"city": ', '"Edinburgh", ', '"country": "', 'UK"}']

CHAT_CHUNKS = [
    chat_chunk({"role": "assistant", "content": None}),
    chat_chunk(
        {
            "tool_calls": [
                {
                    "index": 0,
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": ""},
                }
            ]
        }
    ),
    chat_chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"city": "Paris"}'}}]}),
    chat_chunk(
        {
            "tool_calls": [
                {
                    "index": 1,
                    "id": "call_2",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": ""},
                }
            ]
        }
    ),
    *[
        chat_chunk({"tool_calls": [{"index": 1, "function": {"arguments": piece}}]})
        for piece in EDINBURGH
    ],
    chat_chunk({}, "tool_calls"),
    chat_chunk({}, usage=True),
]
CHAT_CUT = 7  # chunks before the connection drops: the second call ends at '"country": "'

ANTHROPIC_EVENTS: list[dict[str, Any]] = [
    {
        "type": "message_start",
        "message": {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-test",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 5, "output_tokens": 1},
        },
    },
    {
        "type": "content_block_start",
        "index": 0,
        "content_block": {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}},
    },
    {
        "type": "content_block_delta",
        "index": 0,
        "delta": {"type": "input_json_delta", "partial_json": '{"city": "Paris"}'},
    },
    {"type": "content_block_stop", "index": 0},
    {
        "type": "content_block_start",
        "index": 1,
        "content_block": {"type": "tool_use", "id": "toolu_2", "name": "get_weather", "input": {}},
    },
    *[
        {
            "type": "content_block_delta",
            "index": 1,
            "delta": {"type": "input_json_delta", "partial_json": piece},
        }
        for piece in EDINBURGH
    ],
    {"type": "content_block_stop", "index": 1},
    {
        "type": "message_delta",
        "delta": {"stop_reason": "tool_use", "stop_sequence": None},
        "usage": {"output_tokens": 20},
    },
    {"type": "message_stop"},
]
ANTHROPIC_CUT = 8  # events before the connection drops: the second call is at '"country": "'

PARIS = {"name": "get_weather", "args": {"city": "Paris"}, "type": "tool_call"}


def full_body(kind: str) -> bytes:
    return chat_sse(CHAT_CHUNKS) if kind == "openai" else anthropic_sse(ANTHROPIC_EVENTS)


def cut_body(kind: str) -> bytes:
    """The body up to the middle of the second call's arguments."""
    if kind == "openai":
        return chat_sse(CHAT_CHUNKS[:CHAT_CUT], done=False)
    return anthropic_sse(ANTHROPIC_EVENTS[:ANTHROPIC_CUT])


def dropped(kind: str) -> Replay:
    """The cut body, then the connection drops (the client's ``RemoteProtocolError``)."""
    return Replay(cut_body(kind), FORMATS[kind], dropped=True)


def sdk_error(kind: str) -> tuple[type[BaseException], ...]:
    """What each SDK raises for a dropped connection mid-stream."""
    return dropped_connection_errors(kind)


def names_args(calls: list[Any]) -> list[tuple[str, Any]]:
    return [(c["name"], c["args"]) for c in calls]


def check_complete(result: callstream.StreamResult) -> None:
    assert names_args(result.tool_calls) == [
        ("get_weather", {"city": "Paris"}),
        ("get_weather", {"city": "Edinburgh", "country": "UK"}),
    ]
    assert result.invalid_tool_calls == [] and result.finished and not result.interrupted


def check_interrupted(result: callstream.StreamResult, *, interrupted: bool = True) -> None:
    """The complete first call is kept; the cut one is invalid, never a partial valid call.
    ``interrupted``: whether the exception is an interruption (a dropped connection), not
    code failing (which ends the calls the same way)."""
    assert names_args(result.tool_calls) == [("get_weather", {"city": "Paris"})]
    [bad] = result.invalid_tool_calls
    assert bad["name"] == "get_weather"
    assert bad["args"] == '{"city": "Edinburgh", "country": "'
    assert bad["error"].startswith("the stream was interrupted before the call completed (")
    assert ("the source raised" not in bad["error"]) is interrupted
    assert result.interrupted is interrupted
    assert not result.finished and result.finish_reason is None


# --- 0. the happy path through both SDKs --------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_sdk_streams_give_the_same_result_as_the_raw_bytes(kind: str) -> None:
    result = callstream.collect(sdk_stream(kind, full_body(kind)))
    check_complete(result)
    raw = callstream.collect(byte_pieces(full_body(kind), 5))
    assert result.tool_calls == raw.tool_calls and result.finish_reason == raw.finish_reason


@pytest.mark.anyio
@pytest.mark.parametrize("kind", KINDS)
async def test_async_sdk_streams(kind: str) -> None:
    check_complete(await callstream.acollect(await async_sdk_stream(kind, full_body(kind))))


# --- 1. closing what we were given --------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("how", ["with", "close", "break", "error-in-block"])
def test_leaving_early_closes_the_sdk_stream_itself(kind: str, how: str) -> None:
    mock = Replay(full_body(kind), FORMATS[kind])
    source = sdk_stream(kind, mock)
    assert not source.response.is_closed
    if how == "with":
        with callstream.stream(source) as updates:
            next(updates)
    elif how == "close":
        updates = callstream.stream(source)
        next(updates)
        updates.close()
    elif how == "break":
        for _ in callstream.stream(source):
            break
    else:
        with pytest.raises(KeyError), callstream.stream(source) as updates:
            next(updates)
            raise KeyError("the consumer's own error")
    gc.collect()
    assert source.response.is_closed and mock.closed == (True,)


@pytest.mark.parametrize("kind", KINDS)
def test_close_before_iterating_closes_the_sdk_stream(kind: str) -> None:
    mock = Replay(full_body(kind), FORMATS[kind])
    source = sdk_stream(kind, mock)
    callstream.stream(source).close()
    assert source.response.is_closed and mock.closed == (True,)


@pytest.mark.parametrize("kind", KINDS)
def test_the_end_and_a_dropped_connection_close_the_sdk_stream(kind: str) -> None:
    source = sdk_stream(kind, full_body(kind))
    callstream.collect(source)
    assert source.response.is_closed
    source = sdk_stream(kind, dropped(kind))
    with pytest.raises(sdk_error(kind)):
        callstream.collect(source)
    assert source.response.is_closed


def test_generators_and_objects_with_close_are_closed() -> None:
    log: list[str] = []

    class Source:
        def __iter__(self) -> Any:
            return iter(CHAT_CHUNKS)

        def close(self) -> None:
            log.append("closed")

    with callstream.stream(Source()) as updates:
        next(updates)
    assert log == ["closed"]


@pytest.mark.anyio
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("how", ["async-with", "aclose", "error-in-block"])
async def test_async_leaving_early_closes_the_sdk_stream_itself(kind: str, how: str) -> None:
    mock = Replay(full_body(kind), FORMATS[kind])
    source = await async_sdk_stream(kind, mock)
    if how == "async-with":
        async with callstream.astream(source) as updates:
            await updates.__anext__()
    elif how == "aclose":
        updates = callstream.astream(source)
        await updates.__anext__()
        await updates.aclose()
    else:
        with pytest.raises(KeyError):
            async with callstream.astream(source) as updates:
                await updates.__anext__()
                raise KeyError("the consumer's own error")
    assert source.response.is_closed and mock.closed == (True,)


@pytest.mark.anyio
@pytest.mark.parametrize("kind", KINDS)
async def test_async_cancellation_closes_the_sdk_stream_itself(kind: str) -> None:
    mock = Replay(full_body(kind), FORMATS[kind])
    source = await async_sdk_stream(kind, mock)
    reached = anyio.Event()

    async def consume() -> None:
        async with callstream.astream(source) as updates:
            async for update in updates:
                if update.tool_calls:
                    reached.set()
                    await anyio.sleep_forever()

    async with anyio.create_task_group() as tg:
        tg.start_soon(consume)
        await reached.wait()
        tg.cancel_scope.cancel()
    assert source.response.is_closed and mock.closed == (True,)


# --- 2. break out of async for, without async with -------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize("kind", KINDS)
async def test_break_without_async_with_closes_at_the_next_loop_step(kind: str) -> None:
    mock = Replay(full_body(kind), FORMATS[kind])
    source = await async_sdk_stream(kind, mock)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        async for update in callstream.astream(source):
            if update.tool_calls:
                break  # the README quickstart pattern
        for _ in range(5):  # the scheduled close runs at the loop's next steps
            await anyio.lowlevel.checkpoint()
        assert source.response.is_closed and mock.closed == (True,)
        del source
        gc.collect()
        await anyio.lowlevel.checkpoint()
    # The SDKs' own internal async generators are left suspended by their close() (trio
    # warns about them even with the SDK's own `async with`); none of ours may warn: not
    # the drivers', nor the body the mock transport serves (an iterator object, not a
    # generator, so a client that lets it go part way leaves nothing to finalize).
    messages = [str(w.message) for w in caught]
    ours = [m for m in messages if "callstream" in m]
    assert ours == []


@pytest.mark.anyio
async def test_break_without_async_with_closes_an_async_generator_source() -> None:
    closed: list[bool] = []

    async def source() -> Any:
        try:
            for chunk in CHAT_CHUNKS:
                await anyio.lowlevel.checkpoint()
                yield chunk
        finally:
            await anyio.lowlevel.checkpoint()  # an awaiting finally: needs the event loop
            closed.append(True)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        async for _ in callstream.astream(source()):
            break
        for _ in range(5):
            await anyio.lowlevel.checkpoint()
        gc.collect()
    assert closed == [True]
    assert [str(w.message) for w in caught] == []


# --- 3. provider errors the SDKs raise ---------------------------------------------------------

GROQ_FAILED = '<function=get_weather>{"city": "Paris", "units": celsius}</function>'
GROQ_ERROR = {
    "error": {
        "message": "Failed to call a function. Please adjust your prompt. See 'failed_generation' for more details.",
        "type": "invalid_request_error",
        "code": "tool_use_failed",
        "failed_generation": GROQ_FAILED,
    }
}
GROQ_BODY = chat_sse(
    [chat_chunk({"role": "assistant", "content": None})],
    done=False,
    tail=f"event: error\ndata: {json.dumps(GROQ_ERROR)}\n\n",
)

OVERLOADED = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
ANTHROPIC_OVERLOADED_BODY = anthropic_sse([*ANTHROPIC_EVENTS[:ANTHROPIC_CUT], OVERLOADED])
API_ERROR = {"type": "error", "error": {"type": "api_error", "message": "Internal server error"}}
ANTHROPIC_API_ERROR_BODY = anthropic_sse([*ANTHROPIC_EVENTS[:3], API_ERROR])

ERROR_CASES = [
    ("openai", GROQ_BODY),
    ("anthropic", ANTHROPIC_OVERLOADED_BODY),
    ("anthropic", ANTHROPIC_API_ERROR_BODY),
]


def test_the_sdks_do_raise_on_these_error_events() -> None:
    # The premise: without callstream, each SDK turns the error event into an exception.
    for kind, data in ERROR_CASES:
        with pytest.raises((openai.APIError, anthropic.APIError)):
            list(sdk_stream(kind, data))


@pytest.mark.parametrize(("kind", "data"), ERROR_CASES)
def test_provider_errors_raised_by_the_sdk_give_the_raw_bytes_result(
    kind: str, data: bytes
) -> None:
    result = callstream.collect(sdk_stream(kind, data))
    assert result == callstream.collect(byte_pieces(data, 3))  # the raw-bytes path
    assert result.finish_reason == "error" and result.finished
    if kind == "openai":
        [bad] = result.invalid_tool_calls
        assert bad["name"] == "get_weather" and bad["error"].startswith("Failed to call")
        assert bad["args"] == '{"city": "Paris", "units": celsius}'
    elif data is ANTHROPIC_OVERLOADED_BODY:
        assert names_args(result.tool_calls) == [("get_weather", {"city": "Paris"})]
        [bad] = result.invalid_tool_calls
        assert "overloaded_error" in bad["error"] and bad["args"].startswith('{"city": "Edin')


@pytest.mark.anyio
@pytest.mark.parametrize(("kind", "data"), ERROR_CASES)
async def test_async_provider_errors_give_the_raw_bytes_result(kind: str, data: bytes) -> None:
    result = await callstream.acollect(await async_sdk_stream(kind, data))
    assert result == callstream.collect(byte_pieces(data, 3))
    updates = [u async for u in callstream.astream(await async_sdk_stream(kind, data))]
    assert updates[-1].events[-1] == callstream.StreamFinished(
        reason="error", provider_error=result.provider_error
    )
    assert result.provider_error


class Hostile(Exception):
    """An exception whose every duck-typed attribute misbehaves."""

    @property
    def body(self) -> Any:
        raise RuntimeError("body exploded")

    @property
    def response(self) -> Any:
        class Response:
            def json(self) -> Any:
                raise ValueError("not JSON")

        return Response()

    def __str__(self) -> str:
        raise RuntimeError("no text either")


class NoAttributes(Exception):
    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("read-only exception")

    def add_note(self, note: str) -> None:
        raise TypeError("no notes")


class OddBodies(Exception):
    def __init__(self, body: Any) -> None:
        super().__init__("odd")
        self.body = body


@pytest.mark.parametrize(
    "error",
    [
        Hostile(),
        NoAttributes("refuses attributes"),
        OddBodies({"error": {"code": ["tool_use_failed"]}}),  # unhashable code
        OddBodies({"error": "text"}),
        OddBodies({"type": "error", "error": {"type": "invalid_request_error"}}),
        OddBodies(["not", "a", "mapping"]),
        ValueError("plain"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_other_exceptions_propagate_unchanged(error: Exception) -> None:
    def source() -> Any:
        yield from CHAT_CHUNKS[:CHAT_CUT]
        raise error

    with pytest.raises(type(error)) as info:
        callstream.collect(source())
    assert info.value is error
    assert not getattr(error, "__notes__", None)  # code failing: no "interrupted" note
    updates = callstream.stream(source())
    with pytest.raises(type(error)):
        list(updates)
    check_interrupted(updates.result, interrupted=False)
    if not isinstance(error, NoAttributes):
        result = info.value.callstream_result  # type: ignore[attr-defined]
        check_interrupted(result, interrupted=False)


# --- 4. dropped connections ---------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_dropped_connection_through_the_sdk(kind: str) -> None:
    with pytest.raises(sdk_error(kind)) as info:
        callstream.collect(sdk_stream(kind, dropped(kind)))
    assert from_dropped_connection(info.value)
    result = info.value.callstream_result  # type: ignore[attr-defined]
    check_interrupted(result)
    assert any("callstream_result" in note for note in info.value.__notes__)
    updates = callstream.stream(sdk_stream(kind, dropped(kind)))
    with pytest.raises(sdk_error(kind)):
        for _ in updates:
            pass
    assert updates.result == result
    assert updates.tool_calls == result.tool_calls


def cut_then(data: bytes, error: Exception) -> Iterator[bytes]:
    """``data`` in small pieces, then ``error`` (the raw-bytes path's dropped connection)."""
    yield from byte_pieces(data)
    raise error


def test_dropped_connection_on_the_raw_bytes_path() -> None:
    error = httpx2.RemoteProtocolError("peer closed connection")
    for kind in KINDS:
        with pytest.raises(httpx2.RemoteProtocolError) as info:
            callstream.collect(cut_then(cut_body(kind), error))
        assert info.value is error
        check_interrupted(info.value.callstream_result)  # type: ignore[attr-defined]


@pytest.mark.anyio
@pytest.mark.parametrize("kind", KINDS)
async def test_async_dropped_connection_through_the_sdk(kind: str) -> None:
    source = await async_sdk_stream(kind, dropped(kind))
    with pytest.raises(sdk_error(kind)) as info:
        await callstream.acollect(source)
    assert from_dropped_connection(info.value)
    check_interrupted(info.value.callstream_result)  # type: ignore[attr-defined]
    assert source.response.is_closed
    updates = callstream.astream(await async_sdk_stream(kind, dropped(kind)))
    with pytest.raises(sdk_error(kind)):
        async for _ in updates:
            pass
    check_interrupted(updates.result)


@pytest.mark.parametrize("kind", KINDS)
def test_a_stream_that_just_stops_reports_the_cut_call_invalid(kind: str) -> None:
    # No end-of-stream marker, no error: the transport simply ends.
    result = callstream.collect(sdk_stream(kind, cut_body(kind)))
    assert names_args(result.tool_calls) == [("get_weather", {"city": "Paris"})]
    [bad] = result.invalid_tool_calls
    assert "cut off" in bad["error"] and result.finish_reason is None


# --- 5. snapshots ---------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_updates_share_live_args_and_snapshot_freezes_them(kind: str) -> None:
    live = list(callstream.stream(sdk_stream(kind, full_body(kind))))
    frozen = [u.snapshot() for u in callstream.stream(sdk_stream(kind, full_body(kind)))]
    final = {"city": "Edinburgh", "country": "UK"}
    second = [u.tool_calls[1]["args"] for u in live if len(u.tool_calls) > 1]
    seen = [json.dumps(u.tool_calls[1]["args"]) for u in frozen if len(u.tool_calls) > 1]
    # Live views: updates made before the last fragment already show the final args.
    assert second.count(final) > seen.count(json.dumps(final))
    assert seen[0] == "{}" and seen[-1] == '{"city": "Edinburgh", "country": "UK"}'
    assert '{"city": "Edinburgh"}' in seen
    assert [u.events for u in frozen] == [u.events for u in live]


# --- 6. options -------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_assembler_options_reach_the_assembler_through_the_sdk(kind: str) -> None:
    result = callstream.collect(sdk_stream(kind, full_body(kind)), max_argument_chars=20)
    assert names_args(result.tool_calls) == [("get_weather", {"city": "Paris"})]
    assert "max_argument_chars=20" in result.invalid_tool_calls[0]["error"]


@pytest.mark.anyio
async def test_unknown_options_raise_at_call_time() -> None:
    mock = Replay(full_body("openai"), "openai-chat")
    source = sdk_stream("openai", mock)
    for call in (callstream.stream, callstream.collect, callstream.astream):
        with pytest.raises(OptionTypeError, match="'max_text'") as info:
            call(source, max_text=10)  # type: ignore[operator]
        assert isinstance(info.value, (UsageError, TypeError))
        assert "max_argument_chars" in str(info.value)
    with pytest.raises(OptionTypeError, match="'max_text'"):
        await callstream.acollect(source, max_text=10)
    # a bad value is not re-wrapped by the drivers (bad options: tests/assembly/test_options.py)
    with pytest.raises(ValueError, match="max_calls"):
        callstream.stream(source, max_calls=-1)
    assert mock.closed == (False,)


# --- raw bytes from an httpx response we are given ----------------------------------------------


def test_a_streamed_httpx_response_is_read_and_closed() -> None:
    import httpx

    data = full_body("openai")
    for module in (httpx, httpx2):
        mock = Replay(data, "openai-chat", times=2)
        client = module.Client(transport=module.MockTransport(mock))
        request = client.build_request("POST", "http://test/v1/chat/completions", json={})
        response = client.send(request, stream=True)
        with callstream.stream(response) as updates:
            next(updates)
        assert response.is_closed and mock.closed == (True,)
        response = client.send(request, stream=True)
        check_complete(callstream.collect(response))
        assert response.is_closed and mock.closed == (True, True)


@pytest.mark.anyio
async def test_a_streamed_async_httpx_response_is_read_and_closed() -> None:
    import httpx

    data = full_body("anthropic")
    for module in (httpx, httpx2):
        mock = Replay(data, "anthropic", times=2)
        client = module.AsyncClient(transport=module.MockTransport(mock))
        request = client.build_request("POST", "http://test/v1/messages", json={})
        response = await client.send(request, stream=True)
        async with callstream.astream(response) as updates:
            await updates.__anext__()
        assert response.is_closed and mock.closed == (True,)
        response = await client.send(request, stream=True)
        with pytest.raises(UsageError, match="iterable"):
            callstream.stream(object())  # an object without iter_bytes is still refused
        check_complete(await callstream.acollect(response))
        assert response.is_closed and mock.closed == (True, True)
