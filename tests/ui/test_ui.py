"""callstream.ui: what the AG-UI, Vercel and MCP Apps encoders send, and its invariants.

Invariants checked over every format we write (``tests/support/fuzz_streams.py``) and random
splits: one start per call and one end, every argument byte exactly once, in order,
under the right id; the final input equals ``collect()``'s tool calls; invalid calls are
never silent; text arrives whole and in order. The protocols' own readers check the
same streams in ``tests/ui/test_ui_protocols.py``.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import anyio
import anyio.lowlevel
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import callstream
from callstream import UsageError
from callstream.examples import read_example
from callstream.ui import (
    VERCEL_HEADERS,
    AGUIEncoder,
    McpAppsEncoder,
    VercelEncoder,
    agui_stream,
    mcp_apps_notifications,
    sse_frame,
    vercel_stream,
)
from tests.support.fuzz_streams import WRITERS, calls
from tests.support.strict_json import strict_loads


def events_of(frames: list[str]) -> list[Any]:
    """The JSON events of SSE frames (``[DONE]`` left out)."""
    out = []
    for frame in frames:
        assert frame.startswith("data: ") and frame.endswith("\n\n"), frame
        body = frame[len("data: ") : -2]
        if body != "[DONE]":
            out.append(json.loads(body))
    return out


def text_deltas(provider: str) -> list[Any]:
    """A stream with text, then two calls, in ``provider``'s shape (where it has text)."""
    payloads = WRITERS[provider](
        [("call_a", "get_weather", '{"city": "Paris"}'), ("call_b", "search", '{"q": "x"}')],
        [5],
        "ok",
    )
    return payloads


turns = st.fixed_dictionaries(
    {
        "provider": st.sampled_from(sorted(WRITERS)),
        "calls": calls,
        "cuts": st.lists(st.integers(0, 60), max_size=4),
        "finish": st.sampled_from(["ok", "length"]),
    }
)


@settings(max_examples=150, deadline=None)
@given(turns)
def test_agui_sends_each_argument_byte_once_under_the_right_id(turn: dict[str, Any]) -> None:
    payloads = WRITERS[turn["provider"]](turn["calls"], turn["cuts"], turn["finish"])
    result = callstream.collect(payloads, provider=turn["provider"])
    updates = list(callstream.stream(payloads, provider=turn["provider"]))
    events = events_of(list(agui_stream(updates)))
    assert events[0]["type"] == "RUN_STARTED" and events[-1]["type"] == "RUN_FINISHED"
    starts = [e for e in events if e["type"] == "TOOL_CALL_START"]
    ends = [e["toolCallId"] for e in events if e["type"] == "TOOL_CALL_END"]
    ids = [e["toolCallId"] for e in starts]
    assert len(ids) == len(set(ids)) and sorted(ids) == sorted(ends)  # one start, one end
    text: dict[str, str] = dict.fromkeys(ids, "")
    for event in events:
        if event["type"] == "TOOL_CALL_ARGS":
            assert event["delta"]
            text[event["toolCallId"]] += event["delta"]  # KeyError: args before start
    by_name = {e["toolCallId"]: e["toolCallName"] for e in starts}
    # calls are announced when they have a name and text (or at their end): compare by id
    valid = {
        call_id: {"name": by_name[call_id], "args": json.loads(args)}
        for call_id, args in text.items()
        if call_id not in invalid_ids(events)
    }
    expected = [{"name": c["name"], "args": c["args"]} for c in result.tool_calls]
    if all(c["id"] for c in result.tool_calls):
        assert valid == {c["id"]: e for c, e in zip(result.tool_calls, expected, strict=True)}
    else:  # Gemini, Ollama: no ids, whole calls announced in call order
        assert list(valid.values()) == expected
    assert len(invalid_ids(events)) == len(result.invalid_tool_calls)  # never silent


def invalid_ids(events: list[Any]) -> list[str]:
    return [
        e["value"]["toolCallId"]
        for e in events
        if e["type"] == "CUSTOM" and e["name"] == "callstream.tool_call_invalid"
    ]


@settings(max_examples=150, deadline=None)
@given(turns)
def test_vercel_gives_final_inputs_equal_to_collect(turn: dict[str, Any]) -> None:
    payloads = WRITERS[turn["provider"]](turn["calls"], turn["cuts"], turn["finish"])
    result = callstream.collect(payloads, provider=turn["provider"])
    frames = list(vercel_stream(callstream.stream(payloads, provider=turn["provider"])))
    assert frames[-1] == "data: [DONE]\n\n"
    chunks = events_of(frames)
    assert chunks[0]["type"] == "start" and chunks[-1]["type"] == "finish"
    available = [
        {"name": c["toolName"], "args": c["input"]}
        for c in chunks
        if c["type"] == "tool-input-available"
    ]
    assert available == [{"name": c["name"], "args": c["args"]} for c in result.tool_calls]
    errors = [c for c in chunks if c["type"] == "tool-input-error"]
    # invalid calls are sent when found invalid (the result lists them in call order)
    assert sorted(c["errorText"] for c in errors) == sorted(
        str(c["error"]) for c in result.invalid_tool_calls
    )
    streamed: dict[str, str] = {}
    for chunk in chunks:
        if chunk["type"] == "tool-input-start":
            assert chunk["toolCallId"] not in streamed
            streamed[chunk["toolCallId"]] = ""
        elif chunk["type"] == "tool-input-delta":
            streamed[chunk["toolCallId"]] += chunk["inputTextDelta"]
    for chunk in chunks:
        if chunk["type"] == "tool-input-available":
            assert json.loads(streamed[chunk["toolCallId"]] or "{}") == chunk["input"]


@pytest.mark.parametrize("provider", sorted(WRITERS))
def test_text_goes_out_whole_and_in_order(provider: str) -> None:
    payloads = text_deltas(provider)
    with_text = _with_text(provider, payloads, "Let me check ", "that for you.")
    result = callstream.collect(with_text, provider=provider)
    assert result.text == "Let me check that for you."
    agui = events_of(list(agui_stream(callstream.stream(with_text, provider=provider))))
    content = "".join(e["delta"] for e in agui if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert content == result.text
    kinds = [e["type"] for e in agui]
    assert kinds.index("TEXT_MESSAGE_END") < kinds.index("TOOL_CALL_START")
    vercel = events_of(list(vercel_stream(callstream.stream(with_text, provider=provider))))
    assert "".join(c["delta"] for c in vercel if c["type"] == "text-delta") == result.text


def _with_text(provider: str, payloads: list[Any], *pieces: str) -> list[Any]:
    """``payloads`` with text payloads of ``provider``'s shape put before the calls."""
    shapes = {
        "openai-chat": lambda t: {"choices": [{"index": 0, "delta": {"content": t}}]},
        "openai-responses": lambda t: {"type": "response.output_text.delta", "delta": t},
        "anthropic": lambda t: {
            "type": "content_block_delta",
            "index": 9,
            "delta": {"type": "text_delta", "text": t},
        },
        "bedrock": lambda t: {"contentBlockDelta": {"delta": {"text": t}, "contentBlockIndex": 9}},
        "cohere": lambda t: {
            "type": "content-delta",
            "index": 0,
            "delta": {"message": {"content": {"text": t}}},
        },
        "gemini": lambda t: {
            "candidates": [{"content": {"role": "model", "parts": [{"text": t}]}}]
        },
        "ollama": lambda t: {
            "model": "m",
            "message": {"role": "assistant", "content": t},
            "done": False,
        },
    }
    text = [shapes[provider](piece) for piece in pieces]
    first = (
        1
        if provider in ("openai-chat", "openai-responses", "anthropic", "bedrock", "cohere")
        else 0
    )
    return [*payloads[:first], *text, *payloads[first:]]


def test_calls_without_ids_get_distinct_ids_in_every_protocol() -> None:
    payloads = WRITERS["gemini"](
        [("", "get_weather", '{"city": "Paris"}'), ("", "get_weather", '{"city": "Rome"}')],
        [],
        "ok",
    )
    agui = events_of(list(agui_stream(callstream.stream(payloads))))
    ids = [e["toolCallId"] for e in agui if e["type"] == "TOOL_CALL_START"]
    assert ids == ["call_0", "call_1"]
    vercel = events_of(list(vercel_stream(callstream.stream(payloads))))
    assert [c["toolCallId"] for c in vercel if c["type"] == "tool-input-available"] == ids


def test_a_provider_id_reused_by_two_calls_is_made_unique() -> None:
    encoder = AGUIEncoder(message_id="m")
    encoder.start()
    started = [
        callstream.CallStarted(index=0, key=0, id="dup", name="f"),
        callstream.CallStarted(index=1, key=1, id="dup", name="g"),
    ]
    update = callstream.StreamUpdate(
        events=tuple(started), tool_calls=[], invalid_tool_calls=[], finish_reason=None
    )
    out = encoder.feed(update)
    assert [e["toolCallId"] for e in out if e["type"] == "TOOL_CALL_START"] == ["dup", "dup#2"]


def test_an_invalid_call_is_an_explicit_event_in_every_protocol() -> None:
    payloads = [
        json.loads(line)
        for line in read_example("openai_chat_invalid").splitlines()
        if line.strip()
    ]
    result = callstream.collect(payloads)
    (invalid,) = result.invalid_tool_calls
    agui = events_of(list(agui_stream(callstream.stream(payloads))))
    (custom,) = [e for e in agui if e["type"] == "CUSTOM"]
    assert custom["name"] == "callstream.tool_call_invalid"
    # the raw text known when the call was found invalid (it may grow after)
    assert custom["value"]["error"] == invalid["error"]
    assert invalid["args"].startswith(custom["value"]["arguments"])
    vercel = events_of(list(vercel_stream(callstream.stream(payloads))))
    (error,) = [c for c in vercel if c["type"] == "tool-input-error"]
    assert error["errorText"] == invalid["error"]
    assert invalid["args"].startswith(error["input"])
    mcp = list(mcp_apps_notifications(callstream.stream(payloads)))
    cancelled = [m for m in mcp if m.message["method"] == "ui/notifications/tool-cancelled"]
    assert [m.message["params"]["reason"] for m in cancelled] == [invalid["error"]]


def test_a_provider_error_ends_agui_with_run_error_and_vercel_with_finish_error() -> None:
    payloads = WRITERS["anthropic"]([("c", "get_weather", '{"city": "Par')], [], "ok")[:3]
    payloads.append(
        {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    )
    agui = events_of(list(agui_stream(callstream.stream(payloads))))
    assert agui[-1]["type"] == "RUN_ERROR" and agui[-1]["code"] == "provider_error"
    vercel = events_of(list(vercel_stream(callstream.stream(payloads))))
    assert vercel[-1] == {"type": "finish", "finishReason": "error"}


def test_a_source_that_raises_ends_with_an_error_event_and_closes_the_stream() -> None:
    closed: list[bool] = []

    class Source:
        def __iter__(self) -> Any:
            yield from WRITERS["openai-chat"]([("c", "f", '{"a": 1}')], [], "ok")[:2]
            raise ConnectionError("peer closed")

        def close(self) -> None:
            closed.append(True)

    stream = callstream.stream(Source())
    agui = events_of(list(agui_stream(stream)))
    assert agui[-1] == {
        "type": "RUN_ERROR",
        "message": "ConnectionError: peer closed",
        "code": "stream_failed",
    }
    vercel = events_of(list(vercel_stream(callstream.stream(Source()))))
    assert vercel[-2] == {"type": "error", "errorText": "ConnectionError: peer closed"}
    with pytest.raises(ConnectionError):
        list(agui_stream(callstream.stream(Source()), raise_errors=True))
    assert closed


def test_leaving_early_closes_the_items() -> None:
    closed: list[str] = []

    class Items:
        def __iter__(self) -> Any:
            return iter(callstream.stream(WRITERS["anthropic"]([("c", "f", "{}")], [], "ok")))

        def close(self) -> None:
            closed.append("closed")

    frames = agui_stream(Items())
    next(frames)
    frames.close()  # type: ignore[attr-defined]
    assert closed == ["closed"]


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_leaving_async_items_early_closes_them_shielded(backend: str) -> None:
    """Closing the emitter inside a cancelled scope still closes the items' source, and
    its awaiting ``finally`` runs (closing is shielded, as in the drivers)."""
    updates = list(callstream.stream(WRITERS["anthropic"]([("c", "f", '{"a": 1}')], [], "ok")))
    closed: list[bool] = []

    async def items() -> AsyncIterator[Any]:
        try:
            for update in updates:
                yield update
            await anyio.sleep_forever()
        finally:
            await anyio.lowlevel.checkpoint()  # an awaiting close: cancelled unless shielded
            closed.append(True)

    async def main() -> None:
        messages = mcp_apps_notifications(items(), min_interval=0)
        with anyio.CancelScope() as scope:
            await messages.__anext__()
            scope.cancel()
            await messages.aclose()  # type: ignore[attr-defined]

    anyio.run(main, backend=backend)
    assert closed == [True]


def test_sync_and_async_items_give_the_same_frames() -> None:
    payloads = WRITERS["openai-responses"](
        [("c0", "f", '{"a": [1, 2]}'), ("c1", "g", "{}")], [3], "ok"
    )

    async def main() -> list[str]:
        stream = callstream.astream(payloads)
        frames = vercel_stream(stream, message_id="m")
        return [frame async for frame in frames]

    sync = list(vercel_stream(callstream.stream(payloads), message_id="m"))
    assert anyio.run(main) == sync
    assert anyio.run(main, backend="trio") == sync


def test_tool_results_of_a_runner_reach_the_ui() -> None:
    def f(a: int = 0) -> dict[str, int]:
        return {"double": a * 2}

    def g() -> str:
        raise ValueError("nope")

    payloads = WRITERS["anthropic"]([("c0", "f", '{"a": 21}'), ("c1", "g", "{}")], [], "ok")
    runner = callstream.ToolRunner([f, g])
    with runner.stream(payloads) as items:
        vercel = events_of(list(vercel_stream(items)))
    outputs = {c["toolCallId"]: c for c in vercel if c["type"].startswith("tool-output")}
    assert outputs["c0"] == {
        "type": "tool-output-available",
        "toolCallId": "c0",
        "output": {"double": 42},
    }
    assert outputs["c1"]["type"] == "tool-output-error" and "nope" in outputs["c1"]["errorText"]
    with runner.stream(payloads) as items:
        agui = events_of(list(agui_stream(items)))
    results = {e["toolCallId"]: e["content"] for e in agui if e["type"] == "TOOL_CALL_RESULT"}
    assert results == {"c0": '{"double":42}', "c1": "Error: g raised ValueError: nope"}
    assert agui[-1]["type"] == "RUN_FINISHED"
    with runner.stream(payloads) as items:
        mcp = list(mcp_apps_notifications(items))
    assert [m.message["method"] for m in mcp if m.call == 0][-1] == "ui/notifications/tool-result"


def test_mcp_apps_partials_are_honest_and_throttled() -> None:
    text = '{"title": "Quarterly report", "pages": 12, "tags": ["a", "b"]}'
    payloads = WRITERS["anthropic"]([("c0", "write", text)], list(range(1, len(text))), "ok")
    now = [0.0]

    def clock() -> float:
        now[0] += 0.04  # every fragment is 40 ms after the last
        return now[0]

    notes = list(mcp_apps_notifications(callstream.stream(payloads), min_interval=0.1, clock=clock))
    partial = [
        n.message["params"]["arguments"] for n in notes if n.message["method"].endswith("partial")
    ]
    final = [
        n.message["params"]["arguments"]
        for n in notes
        if n.message["method"].endswith("tool-input")
    ]
    assert final == [json.loads(text)]
    assert 1 < len(partial) < len(text) // 2  # throttled: not one per fragment
    for earlier, later in zip(partial, partial[1:]):
        for key, value in earlier.items():  # keys never vanish, strings only grow
            assert key in later
            if isinstance(value, str):
                assert later[key].startswith(value)
            elif key == "pages":
                assert later[key] == value == 12  # a number appears only complete
    every = list(mcp_apps_notifications(callstream.stream(payloads), min_interval=0))
    assert len(every) > len(notes)
    assert all(n.message["jsonrpc"] == "2.0" for n in every)


def test_frames_are_valid_utf8_json_even_with_lone_surrogates_and_nan() -> None:
    frame = sse_frame({"delta": "a\ud800b", "x": float("nan"), "k\udc80": [float("inf")]})
    assert strict_loads(frame[6:-2]) == {"delta": "a\ufffdb", "x": None, "k\ufffd": [None]}


def test_misuse_is_a_usage_error() -> None:
    with pytest.raises(UsageError):
        agui_stream(42)  # type: ignore[call-overload]
    with pytest.raises(UsageError):
        AGUIEncoder(run_id=3)  # type: ignore[arg-type]
    encoder = VercelEncoder()
    with pytest.raises(UsageError, match="start"):
        encoder.feed(None)
    encoder.start()
    encoder.close()
    with pytest.raises(UsageError, match="over"):
        encoder.close()
    with pytest.raises(callstream.OptionValueError):
        McpAppsEncoder(min_interval=-1)
    with pytest.raises(UsageError, match=r"callstream.stream\(\) first"):
        list(agui_stream(['data: {"choices": []}\n\n']))  # raw chunks, not updates
    with pytest.raises(UsageError):
        list(mcp_apps_notifications([{"choices": []}]))
    assert VERCEL_HEADERS["x-vercel-ai-ui-message-stream"] == "v1"


async def _aiter(items: list[Any]) -> AsyncIterator[Any]:
    for item in items:
        yield item


@pytest.mark.parametrize("provider", ["gemini", "ollama"])
def test_a_turn_with_tool_calls_finishes_with_tool_calls_even_on_a_plain_stop(
    provider: str,
) -> None:
    payloads = WRITERS[provider]([("", "get_weather", '{"city": "Paris"}')], [], "ok")
    chunks = events_of(list(vercel_stream(callstream.stream(payloads))))
    assert chunks[-1] == {"type": "finish", "finishReason": "tool-calls"}


@pytest.mark.parametrize(
    ("exc", "cause"),
    [
        (ConnectionResetError("reset by peer"), "ConnectionResetError: reset by peer"),
        (KeyError("x"), "the source raised KeyError: 'x'"),
    ],
)
def test_a_call_cut_by_a_failure_names_its_cause_as_collect_does(
    exc: BaseException, cause: str
) -> None:
    """A bug in the user's source is not a dropped connection: the UI events say "the
    source raised", as the assembler's invalid call does (one rule, failure_cause)."""
    payloads = [
        json.loads(line)
        for line in read_example("openai_chat_parallel").splitlines()
        if line.strip()
    ][:4]  # the first call is open

    def failing() -> Any:
        yield from payloads
        raise exc

    with pytest.raises(type(exc)) as info:
        callstream.collect(failing())
    (invalid, *_) = info.value.callstream_result.invalid_tool_calls  # type: ignore[attr-defined]
    assert invalid["error"].endswith(f"({cause})")
    agui = AGUIEncoder(message_id="m")
    vercel = VercelEncoder(message_id="m")
    agui.start()
    vercel.start()
    with pytest.raises(type(exc)):
        for update in callstream.stream(failing()):
            agui.feed(update)
            vercel.feed(update)
    (custom,) = [e for e in agui.fail(exc) if e["type"] == "CUSTOM"]
    assert custom["value"]["error"] == invalid["error"]
    (error,) = [c for c in vercel.fail(exc) if c["type"] == "tool-input-error"]
    assert error["errorText"] == invalid["error"]
