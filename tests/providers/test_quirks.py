"""The server quirks reported this year (issue 23), each over a stream of our own in the
real wire shape (``tests/support/quirk_streams.py``): fed whole, one payload at a time, and as the
raw bytes the server sends, cut anywhere.

- Kimi K2's ids ``functions.<name>:<idx>`` are kept as given; calls are never merged
  because the counters repeat (across turns, or within a stream on distinct indexes).
- Mistral and Ollama (``/v1`` and native) send each call whole, with distinct indexes.
- vLLM's Qwen XML parsers can end a call's arguments on an unterminated prefix: that call
  is invalid with the reason, the others are intact, whatever the finish reason.
- An Anthropic ``eager_input_streaming`` call cut by ``max_tokens``: its trailing string
  shows while it streams, the call is invalid at the end.
- Anthropic event, block and delta types we do not know (and runs of pings) are ignored
  without breaking the stream.
- OpenAI Responses over a WebSocket: one JSON message per frame, ``str`` or ``bytes``.
"""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import AsyncIterator
from typing import Any

import anyio
import anyio.lowlevel
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import callstream
import callstream.providers.anthropic
from callstream import CallDone, CallInvalid, StreamResult, ToolRunner, UnknownFormatError
from callstream._pipeline import MAX_MISMATCHED
from tests.support.quirk_streams import (
    ANTHROPIC_UNKNOWN,
    EAGER_LINES,
    KIMI_GROQ,
    KIMI_REPEATED_ID,
    KIMI_TURN_1,
    KIMI_TURN_2,
    KIMI_VLLM,
    MISTRAL_WHOLE,
    OLLAMA_NATIVE,
    OLLAMA_NATIVE_LINES,
    OLLAMA_V1,
    QWEN_PREFIXES,
    RESPONSES_WS,
    RESPONSES_WS_ERROR,
    anthropic_eager,
    anthropic_sse,
    chat_sse,
    ndjson,
    vllm_chat_cut,
    vllm_responses_cut,
    ws_frames,
)
from tests.support.strategies import splits


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


CASES: dict[str, tuple[list[Any], bytes]] = {
    "kimi-turn-1": (KIMI_TURN_1, chat_sse(KIMI_TURN_1)),
    "kimi-turn-2": (KIMI_TURN_2, chat_sse(KIMI_TURN_2)),
    "kimi-repeated-id": (KIMI_REPEATED_ID, chat_sse(KIMI_REPEATED_ID)),
    "kimi-groq": (KIMI_GROQ, chat_sse(KIMI_GROQ)),
    "kimi-vllm": (KIMI_VLLM, chat_sse(KIMI_VLLM)),
    "mistral-whole": (MISTRAL_WHOLE, chat_sse(MISTRAL_WHOLE)),
    "ollama-v1": (OLLAMA_V1, chat_sse(OLLAMA_V1)),
    "ollama-native": (OLLAMA_NATIVE, ndjson(OLLAMA_NATIVE)),
    "ollama-native-lines": (OLLAMA_NATIVE_LINES, ndjson(OLLAMA_NATIVE_LINES)),
    **{
        f"vllm-{name}-{finish}": (stream, chat_sse(stream))
        for name, prefix in QWEN_PREFIXES.items()
        for finish in (None, "tool_calls", "stop")
        for stream in [vllm_chat_cut(prefix, finish)]
    },
    **{  # the Responses API names its SSE events as Anthropic does: `event: <type>`
        f"vllm-responses-{name}": (stream, anthropic_sse(stream))
        for name, prefix in QWEN_PREFIXES.items()
        for stream in [vllm_responses_cut(prefix)]
    },
    "anthropic-eager": (anthropic_eager(), anthropic_sse(anthropic_eager())),
    "anthropic-eager-block-stop": (
        anthropic_eager(block_stop=True),
        anthropic_sse(anthropic_eager(block_stop=True)),
    ),
    "anthropic-eager-invalid": (
        anthropic_eager(invalid=True),
        anthropic_sse(anthropic_eager(invalid=True)),
    ),
    "anthropic-unknown": (ANTHROPIC_UNKNOWN, anthropic_sse(ANTHROPIC_UNKNOWN)),
    "responses-websocket": (RESPONSES_WS, "".join(ws_frames(RESPONSES_WS)).encode()),
}


@functools.cache
def expected(name: str) -> StreamResult:
    return callstream.collect(CASES[name][0])


def calls(result: StreamResult) -> list[tuple[str | None, str, Any]]:
    return [(c["id"], c["name"], c["args"]) for c in result.tool_calls]


# --- every quirk, every path ---------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(CASES))
def test_fed_whole_one_payload_at_a_time_and_as_raw_bytes_alike(name: str) -> None:
    payloads, raw = CASES[name]
    whole = expected(name)
    assert whole.finished and not whole.interrupted
    updates = callstream.stream(iter(payloads))
    seen = list(updates)
    assert [u.payload for u in seen[: len(payloads)]] == payloads  # one update per payload
    extra = seen[len(payloads) :]  # a stream without an end marker is finished at its end
    assert len(extra) <= 1
    if extra:
        assert extra[0].events[-1] == callstream.StreamFinished(reason=None)
    assert updates.result == whole
    assert callstream.collect([raw]) == whole
    assert callstream.collect(raw.decode()) == whole  # one str chunk


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(CASES)), st.data())
def test_raw_bytes_cut_anywhere_give_the_same_result(name: str, data: st.DataObject) -> None:
    raw = CASES[name][1]
    pieces = data.draw(splits(raw, max_cuts=40))  # also inside UTF-8 characters and CRLFs
    assert callstream.collect(pieces) == expected(name)


# --- Kimi K2: ids kept as given, never merged -------------------------------------------------


def test_kimi_ids_are_kept_as_given() -> None:
    first = expected("kimi-turn-1")
    assert calls(first) == [
        ("functions.get_weather:0", "get_weather", {"city": "Beijing", "unit": "c"}),
        ("functions.get_weather:1", "get_weather", {"city": "Shanghai", "unit": "c"}),
    ]
    assert first.text == "I'll check both cities." and first.finish_reason == "tool_calls"
    assert calls(expected("kimi-turn-2")) == [
        ("functions.get_weather:0", "get_weather", {"city": "Hangzhou", "unit": "c"})
    ]
    assert calls(expected("kimi-vllm")) == [
        ("functions.get_current_weather:0", "get_current_weather", {"city": "Berlin"}),
        ("functions.get_forecast:1", "get_forecast", {"city": "Berlin", "days": 5}),
    ]
    assert calls(expected("kimi-groq")) == [
        ("functions.get_weather:0", "get_weather", {"city": "Lhasa"}),
        ("functions.get_time:1", "get_time", {"tz": "Asia/Shanghai"}),
    ]


def test_two_calls_with_one_repeated_kimi_id_stay_two_calls() -> None:
    result = expected("kimi-repeated-id")
    assert calls(result) == [
        ("functions.get_weather:0", "get_weather", {"city": "Xi'an"}),
        ("functions.get_weather:0", "get_weather", {"city": "Chengdu"}),
    ]
    assert result.invalid_tool_calls == []
    # one payload at a time: the first call is never extended by the second's text
    for update in callstream.stream(KIMI_REPEATED_ID):
        assert [c["id"] for c in update.tool_calls] in (
            [],
            ["functions.get_weather:0"],
            ["functions.get_weather:0"] * 2,
        )
        if update.tool_calls:
            assert update.tool_calls[0]["args"] in ({}, {"city": "Xi"}, {"city": "Xi'an"})


def get_weather(city: str, unit: str = "c") -> dict[str, Any]:
    """The weather in a city."""
    return {"city": city, "unit": unit, "high": 21}


def test_kimi_turns_through_the_runner_answer_each_id_as_given() -> None:
    # Each turn is its own stream: a counter repeated in the next turn, or within one,
    # never makes one call's result another's.
    runner = ToolRunner([get_weather])
    for turn, cities in [
        (KIMI_TURN_1, ["Beijing", "Shanghai"]),
        (KIMI_TURN_2, ["Hangzhou"]),
        (KIMI_REPEATED_ID, ["Xi'an", "Chengdu"]),
    ]:
        run = runner.run(iter(turn))
        ids = [c["id"] for c in run.stream.tool_calls]
        assert [r.id for r in run.results] == ids
        assert [r.output["city"] for r in run.results] == cities
        assert [r.status for r in run.results] == ["done"] * len(cities)
        messages = run.tool_messages("openai")
        assert [m["tool_call_id"] for m in messages] == ids
        assert all(i.startswith("functions.get_weather:") for i in ids)


def test_the_ui_streams_keep_a_repeated_kimi_id_apart() -> None:
    # A UI protocol needs one id per call: the first keeps the id as given, the repeat
    # gets a suffix (callstream.ui's rule for ids seen twice in a run).
    from callstream.ui import agui_stream, vercel_stream

    def ids(frames: Any, kind: str, key: str) -> list[str]:
        events = [json.loads(f[len("data: ") :]) for f in frames if f.startswith("data: {")]
        return [e[key] for e in events if e["type"] == kind]

    agui = ids(agui_stream(callstream.stream(KIMI_REPEATED_ID)), "TOOL_CALL_START", "toolCallId")
    vercel = ids(
        vercel_stream(callstream.stream(KIMI_REPEATED_ID)), "tool-input-start", "toolCallId"
    )
    for started in (agui, vercel):
        assert len(started) == 2 and len(set(started)) == 2
        assert started[0] == "functions.get_weather:0"


# --- Mistral and Ollama: each call whole in one chunk ---------------------------------------


def test_mistral_whole_calls_in_one_chunk_with_distinct_indexes() -> None:
    result = expected("mistral-whole")
    assert calls(result) == [
        ("D681PevKs", "get_weather", {"city": "Lyon"}),
        ("A3bq7Xk2p", "get_weather", {"city": "Marseille", "days": 2}),
    ]
    assert result.finish_reason == "tool_calls"
    updates = [u.snapshot() for u in callstream.stream(MISTRAL_WHOLE)]
    # the chunk that holds both calls shows both, whole, and is the stream's end
    assert calls(updates[1]) == calls(result)
    assert [type(e).__name__ for e in updates[1].events].count("CallDone") == 2


def test_ollama_v1_whole_calls_in_chunks_of_their_own() -> None:
    result = expected("ollama-v1")
    assert calls(result) == [
        ("call_wteop8bt", "run_command", {"command": "ls"}),
        ("call_rk2xye1l", "run_command", {"command": "ls -l"}),
    ]
    updates = [u.snapshot() for u in callstream.stream(OLLAMA_V1)]
    assert [len(u.tool_calls) for u in updates] == [1, 2, 2]
    assert updates[0].tool_calls[0]["args"] == {"command": "ls"}  # whole at once


@pytest.mark.parametrize("name", ["ollama-native", "ollama-native-lines"])
def test_ollama_native_whole_calls_are_sealed_at_their_line(name: str) -> None:
    payloads = CASES[name][0]
    result = expected(name)
    assert calls(result) == [
        ("call_5x0l3kfa", "get_weather", {"city": "Toronto"}),
        ("call_q8m2nd7c", "get_weather", {"city": "Montreal"}),
    ]
    assert result.finish_reason == "stop"
    done = [
        [e.tool_call["id"] for e in u.events if isinstance(e, CallDone)]
        for u in callstream.stream(payloads)
    ]
    if name == "ollama-native":
        assert done == [[], ["call_5x0l3kfa", "call_q8m2nd7c"], []]
    else:
        assert done == [["call_5x0l3kfa"], ["call_q8m2nd7c"], []]
    assert callstream.collect(payloads, reasoning=True).reasoning == (
        "Two cities, two calls." if name == "ollama-native" else ""
    )


def test_ollama_sdk_objects() -> None:
    ollama_types = pytest.importorskip("ollama._types")
    objects = [ollama_types.ChatResponse.model_validate(line) for line in OLLAMA_NATIVE]
    result = callstream.collect(objects)
    # the SDK's ToolCall model keeps neither id nor index: the calls stay two, in order
    assert [(c["name"], c["args"]) for c in result.tool_calls] == [
        ("get_weather", {"city": "Toronto"}),
        ("get_weather", {"city": "Montreal"}),
    ]


# --- vLLM: a call left on an unterminated prefix -------------------------------------------


@pytest.mark.parametrize("finish", [None, "tool_calls", "stop"])
@pytest.mark.parametrize("prefix_name", sorted(QWEN_PREFIXES))
def test_a_call_left_unterminated_is_invalid_and_the_others_intact(
    prefix_name: str, finish: str | None
) -> None:
    prefix = QWEN_PREFIXES[prefix_name]
    result = expected(f"vllm-{prefix_name}-{finish}")
    assert calls(result) == [("chatcmpl-tool-a1b2c3d4e5f6", "read_file", {"path": "notes.md"})]
    [bad] = result.invalid_tool_calls
    assert (bad["id"], bad["name"], bad["args"]) == (
        "chatcmpl-tool-f6e5d4c3b2a1",
        "exec_command",
        prefix,
    )
    assert bad["error"].startswith(
        "arguments were cut off: the stream ended before they were complete ("
    )
    assert result.finish_reason == finish and result.finished


def test_the_leaked_key_never_shows_in_a_preview() -> None:
    # '"echo SAC_NAME=...</parameter": ' is a key without a value: previews show no key
    # before its value has begun.
    for update in callstream.stream(vllm_chat_cut(QWEN_PREFIXES["leaked-key"], None)):
        for call in update.tool_calls:
            if call["name"] == "exec_command":
                assert list(call["args"]) in ([], ["cmd"])


def test_the_runner_runs_the_intact_call_and_reports_the_cut_one() -> None:
    def read_file(path: str) -> str:
        """A file's text."""
        return f"contents of {path}"

    def exec_command(cmd: str) -> str:
        """Run a command."""
        raise AssertionError("a cut-off call must never run")

    run = ToolRunner([read_file, exec_command]).run(
        iter(vllm_chat_cut(QWEN_PREFIXES["leaked-key"], "tool_calls"))
    )
    assert [(r.name, r.status) for r in run.results] == [
        ("read_file", "done"),
        ("exec_command", "error"),
    ]
    assert "cut off" in run.results[1].content


@pytest.mark.parametrize("prefix_name", sorted(QWEN_PREFIXES))
def test_the_responses_flow_with_a_done_event_holding_the_prefix(prefix_name: str) -> None:
    result = expected(f"vllm-responses-{prefix_name}")
    assert calls(result) == [("call_read", "read_file", {"path": "notes.md"})]
    [bad] = result.invalid_tool_calls
    assert bad["id"] == "call_exec" and bad["args"] == QWEN_PREFIXES[prefix_name]
    assert bad["error"].startswith(
        "arguments were cut off: the call ended before they were complete ("
    )


# --- Anthropic: eager_input_streaming cut by max_tokens -------------------------------------


@pytest.mark.parametrize("block_stop", [False, True])
def test_an_eager_call_shows_its_trailing_string_then_is_cut_off(block_stop: bool) -> None:
    name = "anthropic-eager-block-stop" if block_stop else "anthropic-eager"
    shown = []
    for update in callstream.stream(CASES[name][0]):
        frozen = update.snapshot()
        files = [c for c in frozen.tool_calls if c["name"] == "make_file"]
        if files and "lines_of_text" in files[0]["args"]:
            shown.append(files[0]["args"]["lines_of_text"])
    assert shown == [
        ["Roses are red,", "Vio"],
        ["Roses are red,", "Violets are blue,", "Streams arrive in pie"],
        ["Roses are red,", "Violets are blue,", "Streams arrive in pieces", "and so do yo"],
    ]
    result = expected(name)
    assert calls(result) == [("toolu_01Weather", "get_weather", {"city": "Paris", "days": 3})]
    [bad] = result.invalid_tool_calls
    text = "".join(EAGER_LINES)
    assert (bad["id"], bad["args"]) == ("toolu_01MakeFile", text)
    where = f"unterminated string at position {len(text)}"  # where the text stops
    if block_stop:  # the block's own stop came first: the call ended incomplete
        assert bad["error"] == (
            f"arguments were cut off: the call ended before they were complete ({where})"
        )
    else:
        assert bad["error"] == (
            f"arguments were cut off by the token limit (finish reason 'length'): {where}"
        )
    assert (result.finish_reason, result.provider_finish_reason) == ("length", "max_tokens")
    assert result.text == "On it."


def test_eager_input_that_is_not_json_is_invalid_at_once() -> None:
    events = anthropic_eager(invalid=True)
    updates = list(callstream.stream(events))
    position = [
        i for i, u in enumerate(updates) if any(isinstance(e, CallInvalid) for e in u.events)
    ]
    broken = [i for i, e in enumerate(events) if "\n" in e.get("delta", {}).get("partial_json", "")]
    assert position == broken  # the fragment with the raw line break, not the end
    result = expected("anthropic-eager-invalid")
    assert calls(result) == [("toolu_01Weather", "get_weather", {"city": "Paris", "days": 3})]
    [bad] = result.invalid_tool_calls
    assert bad["name"] == "make_file" and "invalid control character" in bad["error"]


# --- Anthropic: events, blocks and deltas we do not know --------------------------------------


@pytest.mark.parametrize("provider", ["auto", "anthropic"])
def test_unknown_anthropic_events_and_blocks_are_ignored(provider: str) -> None:
    result = callstream.collect(ANTHROPIC_UNKNOWN, provider=provider)
    assert result == expected("anthropic-unknown")
    assert calls(result) == [
        ("toolu_01Paris", "get_weather", {"city": "Paris"}),
        ("toolu_01Rome", "get_weather", {"city": "Rome"}),
    ]
    assert result.invalid_tool_calls == [] and result.server_tool_calls == []
    assert (result.text, result.finish_reason) == ("Checking.", "tool_use")
    known = {"message_start", "content_block_start", "content_block_delta"}
    before: list[Any] = []
    for event, update in zip(ANTHROPIC_UNKNOWN, callstream.stream(ANTHROPIC_UNKNOWN)):
        now = update.snapshot().tool_calls
        if event["type"] not in known | {"content_block_stop", "message_delta", "message_stop"}:
            assert update.events == () and now == before, event  # nothing changed
        before = now


def test_runs_of_pings_and_unknown_events_never_look_like_another_format() -> None:
    # The regression: past MAX_MISMATCHED payloads in a row that detect() does not know,
    # provider="auto" raised UnknownFormatError in the middle of a good stream.
    head, tail = ANTHROPIC_UNKNOWN[:13], ANTHROPIC_UNKNOWN[13:]
    for filler in ({"type": "ping"}, {"type": "tool_change"}, {"type": "system_message"}):
        source = [*head, *[filler] * (4 * MAX_MISMATCHED), *tail]
        assert callstream.collect(source) == expected("anthropic-unknown")
        assert callstream.collect(anthropic_sse(source)) == expected("anthropic-unknown")
    # a stream that really turns into another format is still noticed
    for foreign in (
        {"type": "response.output_text.delta", "delta": "x"},
        {"type": "content-delta", "index": 0},
        {"choices": [{"index": 0, "delta": {}}]},
    ):
        with pytest.raises(UnknownFormatError, match="read as 'anthropic'"):
            callstream.collect([*head, *[foreign] * (MAX_MISMATCHED + 1), *tail])


def test_what_counts_as_an_anthropic_event() -> None:
    for kind in ("ping", "error", "message_start", "tool_change", "compaction_delta"):
        assert callstream.providers.anthropic.recognizes({"type": kind})
    for kind in ("response.created", "content-delta", "AIMessageChunk", "", "tool change"):
        assert not callstream.providers.anthropic.recognizes({"type": kind})
    assert not callstream.providers.anthropic.recognizes({"choices": []})
    bedrock = {"chunk": {"bytes": b'{"type": "ping"}'}}
    assert callstream.providers.anthropic.recognizes(bedrock)


# --- OpenAI Responses over a WebSocket ----------------------------------------------------------


def frames_of(kind: str) -> list[Any]:
    frames = ws_frames(RESPONSES_WS)
    if kind == "bytes":  # binary frames
        return [f.encode() for f in frames]
    if kind == "mixed":
        return [f.encode() if i % 2 else f for i, f in enumerate(frames)]
    if kind == "pretty":  # frames with line ends and indentation inside
        return [json.dumps(e, indent=2) for e in RESPONSES_WS]
    return list(frames)


@pytest.mark.parametrize("kind", ["str", "bytes", "mixed", "pretty"])
def test_websocket_frames_read_like_the_events(kind: str) -> None:
    result = callstream.collect(iter(frames_of(kind)))
    assert result == expected("responses-websocket")
    assert calls(result) == [
        ("call_ws_oslo", "get_weather", {"city": "Oslo"}),
        ("call_ws_bergen", "get_weather", {"city": "Bergen", "days": 2}),
    ]
    # one update per frame, as for the events themselves: nothing waits for a line end
    framed = [u.events for u in callstream.stream(iter(frames_of(kind)))]
    assert framed == [u.events for u in callstream.stream(RESPONSES_WS)]


def test_a_websocket_error_frame_fails_the_open_call_with_its_message() -> None:
    # The regression: the WebSocket mode nests the message in "error"; it was lost
    # ("the response failed").
    result = callstream.collect(ws_frames(RESPONSES_WS_ERROR))
    assert result.tool_calls == [] and result.finish_reason == "error"
    [bad] = result.invalid_tool_calls
    assert bad["id"] == "call_ws_oslo" and bad["args"] == '{"city":'
    assert bad["error"] == "The server had an error while processing your request."
    assert callstream.collect(RESPONSES_WS_ERROR) == result


def test_a_lone_websocket_error_frame_needs_the_provider_named() -> None:
    # {"type": "error", "error": {...}} is also Anthropic's error event: alone, it names
    # no format, so provider="auto" refuses it rather than guess.
    frames = ws_frames(RESPONSES_WS_ERROR[-1:])
    with pytest.raises(UnknownFormatError, match="pass provider="):
        callstream.collect(frames)
    result = callstream.collect(frames, provider="openai-responses")
    assert (result.finish_reason, result.tool_calls, result.invalid_tool_calls) == ("error", [], [])


class _Server:
    """A WebSocket server on loopback that answers every message with the frames of one
    response (text frames, or binary ones), then closes."""

    def __init__(self, frames: list[str | bytes]) -> None:
        from websockets.sync.server import serve

        def handler(connection: Any) -> None:
            connection.recv()  # the client's response.create
            for frame in frames:
                connection.send(frame)

        self._server = serve(handler, "127.0.0.1", 0)
        self.url = f"ws://127.0.0.1:{self._server.socket.getsockname()[1]}/v1/responses"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> _Server:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._thread.join(5)


@pytest.mark.parametrize("kind", ["str", "bytes"])
def test_websocket_frames_from_a_real_socket(kind: str) -> None:
    pytest.importorskip("websockets")
    from websockets.sync.client import connect

    with _Server(frames_of(kind)) as server, connect(server.url) as socket:
        socket.send(json.dumps({"type": "response.create", "model": "gpt-5.2", "input": "hi"}))
        result = callstream.collect(socket)  # iterating a connection yields its frames
    assert result == expected("responses-websocket")


@pytest.mark.anyio
async def test_websocket_frames_from_an_async_source(anyio_backend: str) -> None:
    async def frames() -> AsyncIterator[str | bytes]:
        for frame in frames_of("mixed"):
            await anyio.lowlevel.checkpoint()
            yield frame

    assert await callstream.acollect(frames()) == expected("responses-websocket")
    if anyio_backend != "asyncio":
        return
    pytest.importorskip("websockets")
    from websockets.asyncio.client import connect

    with _Server(frames_of("str")) as server:
        async with connect(server.url) as socket:
            await socket.send(json.dumps({"type": "response.create", "model": "m"}))
            assert await callstream.acollect(socket) == expected("responses-websocket")
