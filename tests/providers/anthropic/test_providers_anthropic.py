"""Anthropic Messages translator: our own streams in the real event shapes, random
re-splits of the argument text, odd payloads, SDK objects, and the recorded streams."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from callstream._assembly.types import (
    CallEnd,
    CallFailure,
    ServerToolUse,
    Signal,
    StreamEnd,
    TextDelta,
)
from callstream.providers.anthropic import AnthropicTranslator, detect
from tests.support.provider_helpers import (
    RECORDED,
    assemble,
    check_never_raises,
    chunk,
    load,
    odd_payloads,
    recorded,
    resplit_deltas,
    texts,
    translate_all,
)
from tests.support.recorded_server_tools import check_recorded_split, check_split
from tests.support.strategies import json_objects, splits

# --- event builders (the wire shapes) ---------------------------------------------------


def message_start() -> dict[str, Any]:
    return {
        "type": "message_start",
        "message": {
            "id": "msg_01",
            "type": "message",
            "role": "assistant",
            "content": [],
            "stop_reason": None,
        },
    }


def block_start(index: int, block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_start", "index": index, "content_block": block}


def tool_start(
    index: int,
    *,
    id: str = "toolu_01",
    name: str = "get_weather",
    input: Any = None,
    kind: str = "tool_use",
) -> dict[str, Any]:
    return block_start(
        index, {"type": kind, "id": id, "name": name, "input": {} if input is None else input}
    )


def json_delta(index: int, text: str) -> dict[str, Any]:
    return {
        "type": "content_block_delta",
        "index": index,
        "delta": {"type": "input_json_delta", "partial_json": text},
    }


def text_delta(index: int, text: str) -> dict[str, Any]:
    return {
        "type": "content_block_delta",
        "index": index,
        "delta": {"type": "text_delta", "text": text},
    }


def block_stop(index: int) -> dict[str, Any]:
    return {"type": "content_block_stop", "index": index}


def message_delta(reason: str | None) -> dict[str, Any]:
    return {
        "type": "message_delta",
        "delta": {"stop_reason": reason, "stop_sequence": None},
        "usage": {"output_tokens": 42},
    }


PING = {"type": "ping"}
MESSAGE_STOP = {"type": "message_stop"}


def run(events: list[Any]) -> list[Signal]:
    return translate_all(AnthropicTranslator(), events)


# --- streams of our own -----------------------------------------------------------------


def test_text_block_then_tool_block_keyed_by_block_index() -> None:
    events = [
        message_start(),
        block_start(0, {"type": "text", "text": ""}),
        PING,
        text_delta(0, "Checking the weather."),
        block_stop(0),
        tool_start(1, id="toolu_A", name="get_weather"),
        json_delta(1, ""),
        json_delta(1, '{"city": "Pa'),
        json_delta(1, 'ris"}'),
        block_stop(1),
        message_delta("tool_use"),
        MESSAGE_STOP,
    ]
    assert run(events) == [
        TextDelta(text="Checking the weather."),  # text is reported (issue 15)
        chunk(1, name="get_weather", id="toolu_A"),
        chunk(1, args='{"city": "Pa'),
        chunk(1, args='ris"}'),
        CallEnd(index=1),
        StreamEnd(reason="tool_use", provider_reason="tool_use"),
        StreamEnd(reason=None),  # message_stop: every end marker is reported
    ]


def test_thinking_is_reasoning_and_its_signature_is_ignored() -> None:
    events = [
        block_start(0, {"type": "thinking", "thinking": "", "signature": ""}),
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "thinking_delta", "thinking": "hm"},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "signature_delta", "signature": "Eu=="},
        },
        block_stop(0),
    ]
    assert run(events) == [TextDelta(text="hm", reasoning=True)]


def test_empty_first_delta_is_a_no_op_and_no_args_means_no_text() -> None:
    signals = run([tool_start(0), json_delta(0, ""), block_stop(0), message_delta("tool_use")])
    assert signals == [
        chunk(0, name="get_weather", id="toolu_01"),
        CallEnd(index=0),
        StreamEnd(reason="tool_use", provider_reason="tool_use"),
    ]


def test_complete_input_in_start_block_becomes_the_arguments() -> None:
    # Programmatic tool calling: the input arrives whole in content_block_start.
    events = [
        tool_start(1, id="srvtoolu_1", name="code_execution", kind="server_tool_use"),
        json_delta(1, '{"code": "print(1)"}'),
        block_stop(1),
        block_start(
            2,
            {
                "type": "tool_use",
                "id": "toolu_2",
                "name": "rollDie",
                "input": {"player": "p1"},
                "caller": {"type": "code_execution_20250825", "tool_id": "srvtoolu_1"},
            },
        ),
        block_stop(2),
        message_delta("tool_use"),
    ]
    assert run(events) == [
        ServerToolUse(index=1, id="srvtoolu_1"),  # before its chunk: server from birth
        chunk(1, name="code_execution", id="srvtoolu_1"),
        chunk(1, args='{"code": "print(1)"}'),
        CallEnd(index=1),
        chunk(2, name="rollDie", id="toolu_2"),
        CallEnd(index=2, args='{"player": "p1"}'),
        StreamEnd(reason="tool_use", provider_reason="tool_use"),
    ]


def test_streamed_deltas_win_over_a_non_empty_start_input() -> None:
    events = [tool_start(0, input={"stale": True}), json_delta(0, '{"a": 1}'), block_stop(0)]
    assert run(events)[-1] == CallEnd(index=0)


def test_max_tokens_with_an_open_tool_block_is_length() -> None:
    events = [
        tool_start(1, id="toolu_cut", name="make_file"),
        json_delta(1, '{"filename": "taxes.txt", "lines": ["# Guide'),
        message_delta("max_tokens"),
        MESSAGE_STOP,
    ]
    signals = run(events)
    # every end marker is reported; the assembler keeps the first (the stop reason)
    assert [s for s in signals if isinstance(s, StreamEnd)] == [
        StreamEnd(reason="length", provider_reason="max_tokens"),
        StreamEnd(reason=None),
    ]
    assert not any(isinstance(s, CallEnd) for s in signals)
    assert assemble(signals).finish_reason == "length"


def test_context_window_stop_is_length_too() -> None:
    assert run([message_delta("model_context_window_exceeded")]) == [
        StreamEnd(reason="length", provider_reason="model_context_window_exceeded")
    ]


def test_message_stop_without_stop_reason_still_ends_the_stream() -> None:
    assert run([tool_start(0), block_stop(0), MESSAGE_STOP]) == [
        chunk(0, name="get_weather", id="toolu_01"),
        CallEnd(index=0),
        StreamEnd(reason=None),
    ]


def test_error_event_fails_open_blocks_and_ends_the_stream() -> None:
    events = [
        tool_start(0, id="toolu_done"),
        json_delta(0, "{}"),
        block_stop(0),
        tool_start(1, id="toolu_open"),
        json_delta(1, '{"q": "x'),
        {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
        MESSAGE_STOP,
    ]
    signals = run(events)
    assert signals[-3:] == [
        CallFailure(error="Anthropic stream error (overloaded_error): Overloaded", index=1),
        StreamEnd(
            reason="error", provider_error="Anthropic stream error (overloaded_error): Overloaded"
        ),
        StreamEnd(reason=None),  # message_stop: reported too, the assembler keeps the first
    ]
    assert signals.count(CallEnd(index=0)) == 1


def test_error_event_without_open_blocks_or_details() -> None:
    assert run([{"type": "error"}]) == [
        StreamEnd(reason="error", provider_error="Anthropic stream error")
    ]
    assert run([{"type": "error", "error": "boom"}]) == [
        StreamEnd(reason="error", provider_error="Anthropic stream error: boom")
    ]


def test_server_and_mcp_tool_blocks_are_calls_tool_results_are_not() -> None:
    events = [
        tool_start(0, id="srvtoolu_1", name="web_search", kind="server_tool_use"),
        json_delta(0, '{"query": "x"}'),
        block_stop(0),
        block_start(
            1, {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []}
        ),
        block_stop(1),
        block_start(
            2,
            {
                "type": "bash_code_execution_tool_result",
                "tool_use_id": "srvtoolu_1",
                "content": {"stdout": "1\n"},
            },
        ),
        block_stop(2),
        tool_start(3, id="mcptoolu_1", name="echo", kind="mcp_tool_use", input={"text": "hi"}),
        block_stop(3),
        block_start(4, {"type": "mcp_tool_result", "tool_use_id": "mcptoolu_1", "content": []}),
        block_stop(4),
    ]
    assert run(events) == [
        ServerToolUse(index=0, id="srvtoolu_1"),
        chunk(0, name="web_search", id="srvtoolu_1"),
        chunk(0, args='{"query": "x"}'),
        CallEnd(index=0),
        ServerToolUse(index=3, id="mcptoolu_1"),
        chunk(3, name="echo", id="mcptoolu_1"),
        CallEnd(index=3, args='{"text": "hi"}'),
    ]


def test_parallel_tool_blocks_keep_their_own_index() -> None:
    events = [
        tool_start(1, id="toolu_a", name="a"),
        tool_start(2, id="toolu_b", name="b"),
        json_delta(2, '{"y": '),
        json_delta(1, '{"x": 1}'),
        json_delta(2, "2}"),
        block_stop(2),
        block_stop(1),
    ]
    signals = run(events)
    assert texts(signals) == {1: '{"x": 1}', 2: '{"y": 2}'}
    assert [s for s in signals if isinstance(s, CallEnd)] == [CallEnd(index=2), CallEnd(index=1)]


def test_deltas_and_stops_for_unknown_blocks_are_ignored() -> None:
    # text belongs to no call: it is reported whatever its block
    assert run([json_delta(7, '{"a": 1}'), block_stop(7), text_delta(0, "x")]) == [
        TextDelta(text="x")
    ]


def test_message_start_begins_a_new_message() -> None:
    translator = AnthropicTranslator()
    assert translator.translate(message_delta("end_turn")) == [
        StreamEnd(reason="end_turn", provider_reason="end_turn")
    ]
    # every end marker is reported; the assembler keeps the first
    assert translator.translate(MESSAGE_STOP) == [StreamEnd(reason=None)]
    translator.translate(message_start())
    assert translator.translate(MESSAGE_STOP) == [StreamEnd(reason=None)]


def test_detect() -> None:
    assert detect(message_start())
    assert detect(json_delta(0, "{"))
    assert detect(MESSAGE_STOP)
    assert detect(SimpleNamespace(type="content_block_stop", index=0))
    for other in (
        PING,
        {"type": "error"},
        {"choices": []},
        {"candidates": []},
        {"type": "response.created"},
        {"type": "message-start"},
        None,
        "x",
        [],
        3,
    ):
        assert not detect(other)


def test_claude_on_bedrock_chunk_wrappers_are_opened() -> None:
    def wrapped(event: dict[str, Any]) -> dict[str, Any]:
        return {"chunk": {"bytes": json.dumps(event).encode()}}

    events = [
        wrapped(message_start()),
        wrapped(tool_start(0, id="toolu_b", name="f")),
        wrapped(json_delta(0, '{"a": 1}')),
        wrapped(block_stop(0)),
        wrapped(message_delta("tool_use")),
    ]
    assert detect(events[0])
    assert run(events) == [
        chunk(0, name="f", id="toolu_b"),
        chunk(0, args='{"a": 1}'),
        CallEnd(index=0),
        StreamEnd(reason="tool_use", provider_reason="tool_use"),
    ]
    junk = [{"chunk": {"bytes": b"\xff\xfe not json"}}, {"chunk": {"bytes": b"[" * 100_000}}]
    assert run(junk) == []
    assert not detect(junk[0])
    assert not detect({"chunk": {"bytes": b'{"outputText": "llama"}'}})


# --- random re-splits -------------------------------------------------------------------


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), value=json_objects(max_leaves=12))
def test_any_split_of_the_argument_text_gives_the_same_text(
    data: st.DataObject, value: Any
) -> None:
    text = json.dumps(value, separators=data.draw(st.sampled_from([None, (",", ":")])))
    pieces = data.draw(splits(text))
    events = [tool_start(3, id="toolu_x", name="f"), json_delta(3, "")]
    events += [json_delta(3, piece) for piece in pieces]
    events += [block_stop(3), message_delta("tool_use")]
    signals = run(events)
    assert texts(signals) == ({3: text} if text else {})
    assert json.loads(texts(signals)[3]) == value
    assert signals[0] == chunk(3, name="f", id="toolu_x")
    assert signals[-2:] == [
        CallEnd(index=3),
        StreamEnd(reason="tool_use", provider_reason="tool_use"),
    ]
    assert all(s["args"] for s in signals[1:-2] if isinstance(s, dict))  # "" never sent
    assert assemble(signals).tool_calls == [
        {"name": "f", "args": value, "id": "toolu_x", "type": "tool_call"}
    ]


# --- odd payloads -----------------------------------------------------------------------

_KEYS = [
    "type",
    "index",
    "content_block",
    "delta",
    "partial_json",
    "input",
    "name",
    "id",
    "stop_reason",
    "error",
    "message",
    "text",
]
_TYPES = [
    "message_start",
    "content_block_start",
    "content_block_delta",
    "content_block_stop",
    "message_delta",
    "message_stop",
    "error",
    "ping",
    "tool_use",
    "server_tool_use",
    "input_json_delta",
    "text_delta",
]
_ODD_PAYLOADS = odd_payloads(_KEYS, _TYPES, lowest=-3, text_size=5, max_leaves=20)


@settings(max_examples=200, deadline=None)
@given(st.lists(_ODD_PAYLOADS, max_size=8))
def test_odd_payloads_never_raise(payloads: list[Any]) -> None:
    check_never_raises(AnthropicTranslator(), payloads)


def test_odd_but_plausible_payloads() -> None:
    odd = [
        {
            "type": "content_block_start",
            "index": "1",
            "content_block": {"type": "tool_use", "id": 5, "name": None, "input": "oops"},
        },
        {"type": "content_block_start", "index": None, "content_block": {"type": "tool_use"}},
        {
            "type": "content_block_delta",
            "index": 1,
            "delta": {"type": "input_json_delta", "partial_json": 12},
        },
        {"type": "content_block_delta", "index": 1, "delta": None},
        {"type": "message_delta", "delta": "stop"},
        {"type": 3},
        {"type": "content_block_start", "index": True, "content_block": {"type": "tool_use"}},
    ]
    signals = run(odd)
    # "1" reads as index 1 (a decimal string); the junk fields read as absent. The tool
    # blocks started with an unusable index (null, true) fail under keys of their own.
    assert signals[0] == chunk(1)
    failures = [s for s in signals if isinstance(s, CallFailure)]
    reason = "the provider's index is not a non-negative integer, so these pieces belong to no known call"
    assert [f.error for f in failures] == [
        f"unusable index null: {reason}",
        f"unusable index true: {reason}",
    ]
    keys = [f.index for f in failures]
    assert len(set(keys)) == 2 and all(k is not None and k < -(2**63) for k in keys)


# --- SDK-shaped objects (duck typing) ---------------------------------------------------


def test_plain_objects_with_attributes_work_like_dicts() -> None:
    ns = SimpleNamespace
    events = [
        ns(
            type="content_block_start",
            index=0,
            content_block=ns(type="tool_use", id="toolu_o", name="f", input={}),
        ),
        ns(
            type="content_block_delta",
            index=0,
            delta=ns(type="input_json_delta", partial_json='{"a"'),
        ),
        ns(
            type="content_block_delta",
            index=0,
            delta=ns(type="input_json_delta", partial_json=": 1}"),
        ),
        ns(type="content_block_stop", index=0),
        ns(type="message_delta", delta=ns(stop_reason="tool_use", stop_sequence=None)),
    ]
    assert run(events) == [
        chunk(0, name="f", id="toolu_o"),
        chunk(0, args='{"a"'),
        chunk(0, args=": 1}"),
        CallEnd(index=0),
        StreamEnd(reason="tool_use", provider_reason="tool_use"),
    ]


def test_real_sdk_event_types() -> None:
    types = pytest.importorskip("anthropic.types")
    events = [
        types.RawContentBlockStartEvent(
            type="content_block_start",
            index=1,
            content_block=types.ToolUseBlock(type="tool_use", id="toolu_s", name="f", input={}),
        ),
        types.RawContentBlockDeltaEvent(
            type="content_block_delta",
            index=1,
            delta=types.InputJSONDelta(type="input_json_delta", partial_json='{"k": "v"}'),
        ),
        types.RawContentBlockStopEvent(type="content_block_stop", index=1),
        types.RawMessageDeltaEvent.model_construct(
            type="message_delta",
            delta=SimpleNamespace(stop_reason="max_tokens", stop_sequence=None),
        ),
        types.RawMessageStopEvent(type="message_stop"),
    ]
    assert run(events) == [
        chunk(1, name="f", id="toolu_s"),
        chunk(1, args='{"k": "v"}'),
        CallEnd(index=1),
        StreamEnd(reason="length", provider_reason="max_tokens"),
        StreamEnd(reason=None),  # message_stop: reported too, the assembler keeps the first
    ]
    programmatic = types.RawContentBlockStartEvent(
        type="content_block_start",
        index=0,
        content_block=types.ToolUseBlock(type="tool_use", id="toolu_p", name="g", input={"n": 2}),
    )
    translator = AnthropicTranslator()
    translator.translate(programmatic)
    assert translator.translate(
        types.RawContentBlockStopEvent(type="content_block_stop", index=0)
    ) == [CallEnd(index=0, args='{"n": 2}')]


# --- through the assembler -------------------------------------------------------------


def test_assembled_calls_for_our_streams() -> None:
    events = [
        message_start(),
        block_start(0, {"type": "text", "text": ""}),
        block_stop(0),
        tool_start(1, id="toolu_a", name="search", kind="server_tool_use"),
        json_delta(1, ""),
        json_delta(1, '{"q": "ca'),
        json_delta(1, 'ts"}'),
        block_stop(1),
        tool_start(2, id="toolu_b", name="roll", input={"sides": 6}),
        block_stop(2),
        tool_start(3, id="toolu_c", name="noop"),
        json_delta(3, ""),
        block_stop(3),
        tool_start(4, id="toolu_d", name="write"),
        json_delta(4, '{"text": "long'),
        message_delta("max_tokens"),
        MESSAGE_STOP,
    ]
    assembler = assemble(run(events))
    assert assembler.server_tool_calls == [
        {"type": "server_tool_call", "name": "search", "args": {"q": "cats"}, "id": "toolu_a"}
    ]
    assert assembler.tool_calls == [
        {"name": "roll", "args": {"sides": 6}, "id": "toolu_b", "type": "tool_call"},
        {"name": "noop", "args": {}, "id": "toolu_c", "type": "tool_call"},
    ]
    (cut,) = assembler.invalid_tool_calls
    assert (cut["name"], cut["id"], cut["args"]) == ("write", "toolu_d", '{"text": "long')
    assert cut["error"] is not None and "cut off" in cut["error"]
    assert assembler.finish_reason == "length"


def test_assembled_error_event_gives_an_invalid_call_with_the_reason() -> None:
    events = [
        tool_start(0, id="toolu_e", name="f"),
        json_delta(0, '{"a": 1'),
        {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
    ]
    assembler = assemble(run(events))
    assert assembler.tool_calls == []
    assert [(c["name"], c["id"], c["error"]) for c in assembler.invalid_tool_calls] == [
        ("f", "toolu_e", "Anthropic stream error (overloaded_error): Overloaded")
    ]


# --- recorded streams -------------------------------------------------------------------


@pytest.mark.skipif(not RECORDED.is_dir(), reason="recorded streams not available")
@pytest.mark.parametrize("name", recorded("anthropic_"))
def test_recorded_streams_assemble_to_the_expected_calls(name: str) -> None:
    check_recorded_split(name, *load(name), detect, run)


def _json_piece(event: Any) -> tuple[int, str] | None:
    if event.get("type") == "content_block_delta" and "partial_json" in event["delta"]:
        return event["index"], event["delta"]["partial_json"]
    return None


def resplit(events: list[Any], draw: Any) -> list[Any]:
    """The same stream with each tool block's argument text cut at new random points."""
    return resplit_deltas(events, draw, _json_piece, json_delta)


@pytest.mark.skipif(not RECORDED.is_dir(), reason="recorded streams not available")
@pytest.mark.parametrize("name", recorded("anthropic_"))
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_recorded_streams_resplit_give_the_same_calls(name: str, data: st.DataObject) -> None:
    events, calls = load(name)
    check_split(name, assemble(run(resplit(events, data.draw))), calls)
