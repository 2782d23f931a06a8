"""Bedrock ConverseStream translator: our own streams in the boto3 event shapes, random
re-splits of the argument text, odd payloads, and the recorded streams."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from callstream._assembly.types import (
    CallChunk,
    CallEnd,
    CallFailure,
    ServerToolUse,
    Signal,
    StreamEnd,
    TextDelta,
)
from callstream.providers.bedrock import BedrockTranslator, detect
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

PAD = "abcdefghij"  # Bedrock pads every event with a meaningless "p" field


def tool_start(index: int, name: str, tool_use_id: str, kind: str | None = None) -> dict[str, Any]:
    tool: dict[str, Any] = {"name": name, "toolUseId": tool_use_id}
    if kind is not None:
        tool["type"] = kind
    return {"contentBlockStart": {"contentBlockIndex": index, "p": PAD, "start": {"toolUse": tool}}}


def tool_delta(index: int, text: str) -> dict[str, Any]:
    return {
        "contentBlockDelta": {
            "contentBlockIndex": index,
            "delta": {"toolUse": {"input": text}},
            "p": PAD,
        }
    }


def text_delta(index: int, text: str) -> dict[str, Any]:
    return {"contentBlockDelta": {"contentBlockIndex": index, "delta": {"text": text}, "p": PAD}}


def block_stop(index: int) -> dict[str, Any]:
    return {"contentBlockStop": {"contentBlockIndex": index, "p": PAD}}


def message_stop(reason: str) -> dict[str, Any]:
    return {"messageStop": {"p": PAD, "stopReason": reason}}


MESSAGE_START = {"messageStart": {"p": PAD, "role": "assistant"}}
METADATA = {
    "metadata": {"metrics": {"latencyMs": 422}, "usage": {"inputTokens": 4, "outputTokens": 9}}
}


def run(events: list[Any]) -> list[Signal]:
    return translate_all(BedrockTranslator(), events)


def test_text_block_without_start_then_tool_block() -> None:
    events = [
        MESSAGE_START,
        text_delta(0, "<thinking> I will use get_temperature"),
        text_delta(0, "</thinking>\n"),
        block_stop(0),
        tool_start(1, "get_temperature", "tooluse_A"),
        tool_delta(1, '{"city":"Paris"}'),
        block_stop(1),
        message_stop("tool_use"),
        METADATA,
    ]
    assert run(events) == [
        TextDelta(text="<thinking> I will use get_temperature"),  # text, as sent
        TextDelta(text="</thinking>\n"),
        chunk(1, name="get_temperature", id="tooluse_A"),
        chunk(1, args='{"city":"Paris"}'),
        CallEnd(index=1),
        StreamEnd(reason="tool_use", provider_reason="tool_use"),
    ]


def test_server_tool_use_and_tool_result_blocks() -> None:
    events = [
        MESSAGE_START,
        tool_start(0, "nova_code_interpreter", "tooluse_S", kind="server_tool_use"),
        tool_delta(0, '{"snippet":"1234 * 5678"}'),
        block_stop(0),
        {
            "contentBlockStart": {
                "contentBlockIndex": 1,
                "start": {"toolResult": {"status": "success", "toolUseId": "tooluse_S"}},
            }
        },
        {"contentBlockDelta": {"contentBlockIndex": 1, "delta": {"toolResult": [{"json": {}}]}}},
        block_stop(1),
        tool_start(2, "final_result", "tooluse_F", kind="tool_use"),
        tool_delta(2, '{"result":'),
        tool_delta(2, "7006652.0}"),
        block_stop(2),
        message_stop("tool_use"),
    ]
    signals = run(events)
    assert texts(signals) == {0: '{"snippet":"1234 * 5678"}', 2: '{"result":7006652.0}'}
    assert [s for s in signals if not isinstance(s, CallChunk)] == [
        ServerToolUse(index=0, id="tooluse_S"),
        CallEnd(index=0),
        CallEnd(index=2),
        StreamEnd(reason="tool_use", provider_reason="tool_use"),
    ]


def test_max_tokens_is_length_with_the_block_left_open() -> None:
    events = [tool_start(0, "f", "t1"), tool_delta(0, '{"a": "b'), message_stop("max_tokens")]
    assert run(events)[-1] == StreamEnd(reason="length", provider_reason="max_tokens")
    assert not any(isinstance(s, CallEnd) for s in run(events))


def test_other_stop_reasons_pass_through_and_the_assembler_keeps_the_first() -> None:
    translator = BedrockTranslator()
    first = translator.translate(message_stop("guardrail_intervened"))
    assert first == [
        StreamEnd(reason="guardrail_intervened", provider_reason="guardrail_intervened")
    ]
    # every end marker is reported (issue 12: the assembler owns "one end of stream")
    second = translator.translate(message_stop("end_turn"))
    assert second == [StreamEnd(reason="end_turn", provider_reason="end_turn")]
    assert assemble(first + second).finish_reason == "guardrail_intervened"


def test_exception_event_fails_open_blocks() -> None:
    events = [
        tool_start(0, "f", "t1"),
        tool_delta(0, '{"a": '),
        {"modelStreamErrorException": {"message": "model failed", "originalStatusCode": 500}},
    ]
    assert run(events)[-2:] == [
        CallFailure(
            error="Bedrock stream error (modelStreamErrorException): model failed", index=0
        ),
        StreamEnd(
            reason="error",
            provider_error="Bedrock stream error (modelStreamErrorException): model failed",
        ),
    ]


def test_parallel_blocks_and_decoded_input_objects() -> None:
    events = [
        tool_start(0, "a", "t_a"),
        tool_start(1, "b", "t_b"),
        tool_delta(1, '{"y": 2}'),
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"toolUse": {"input": {"x": 1}}}}},
        block_stop(1),
        block_stop(0),
    ]
    assert run(events)[2:] == [
        chunk(1, args='{"y": 2}'),
        chunk(0, args='{"x": 1}'),
        CallEnd(index=1),
        CallEnd(index=0),
    ]


def test_deltas_for_blocks_that_are_not_tool_blocks_are_ignored() -> None:
    # a text delta is reported as text (issue 15), never as a call's arguments
    assert run([tool_delta(5, '{"a": 1}'), block_stop(5), text_delta(0, "hi")]) == [
        TextDelta(text="hi")
    ]


def test_detect() -> None:
    assert detect(MESSAGE_START)
    assert detect(tool_delta(0, "{"))
    assert detect(message_stop("end_turn"))
    for other in (METADATA, {"type": "message_start"}, {"candidates": []}, None, "x", [], {}):
        assert not detect(other)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), value=json_objects(max_leaves=12))
def test_any_split_of_the_input_text_gives_the_same_text(data: st.DataObject, value: Any) -> None:
    text = json.dumps(value)
    events = [MESSAGE_START, tool_start(2, "f", "tooluse_x")]
    events += [tool_delta(2, piece) for piece in data.draw(splits(text))]
    events += [block_stop(2), message_stop("tool_use")]
    signals = run(events)
    assert json.loads(texts(signals)[2]) == value
    assert texts(signals)[2] == text
    assert signals[-2:] == [
        CallEnd(index=2),
        StreamEnd(reason="tool_use", provider_reason="tool_use"),
    ]
    assert assemble(signals).tool_calls == [
        {"name": "f", "args": value, "id": "tooluse_x", "type": "tool_call"}
    ]


_VALUES = ["tool_use", "max_tokens", "{", "}"]
_KEYS = [
    "messageStart",
    "contentBlockStart",
    "contentBlockDelta",
    "contentBlockStop",
    "messageStop",
    "metadata",
    "contentBlockIndex",
    "start",
    "toolUse",
    "delta",
    "input",
    "name",
    "toolUseId",
    "stopReason",
    "internalServerException",
    "message",
    "p",
]
_ODD_PAYLOADS = odd_payloads(_KEYS, _VALUES, lowest=-2, text_size=4, max_leaves=20)


@settings(max_examples=200, deadline=None)
@given(st.lists(_ODD_PAYLOADS, max_size=8))
def test_odd_payloads_never_raise(payloads: list[Any]) -> None:
    check_never_raises(BedrockTranslator(), payloads)


def test_assembled_calls_for_our_stream() -> None:
    events = [
        MESSAGE_START,
        text_delta(0, "Let me compute."),
        block_stop(0),
        tool_start(1, "calc", "tooluse_1", kind="server_tool_use"),
        tool_delta(1, '{"snippet":'),
        tool_delta(1, '"1 + 1"}'),
        block_stop(1),
        tool_start(2, "final", "tooluse_2"),
        tool_delta(2, '{"result": [1, 2'),
        message_stop("max_tokens"),
        METADATA,
    ]
    assembler = assemble(run(events))
    assert assembler.server_tool_calls == [
        {
            "type": "server_tool_call",
            "name": "calc",
            "args": {"snippet": "1 + 1"},
            "id": "tooluse_1",
        }
    ]
    assert assembler.tool_calls == []
    (cut,) = assembler.invalid_tool_calls
    assert (cut["name"], cut["id"], cut["args"]) == ("final", "tooluse_2", '{"result": [1, 2')
    assert cut["error"] is not None and "cut off" in cut["error"]


@pytest.mark.skipif(not RECORDED.is_dir(), reason="recorded streams not available")
@pytest.mark.parametrize("name", recorded("bedrock_"))
def test_recorded_streams_assemble_to_the_expected_calls(name: str) -> None:
    check_recorded_split(name, *load(name), detect, run)


def _tool_input(event: Any) -> str | None:
    delta = event.get("contentBlockDelta")
    tool = delta.get("delta", {}).get("toolUse") if isinstance(delta, dict) else None
    return tool.get("input") if isinstance(tool, dict) else None


def _input_piece(event: Any) -> tuple[int, str] | None:
    piece = _tool_input(event)
    if piece is None:
        return None
    return event["contentBlockDelta"]["contentBlockIndex"], piece


def resplit(events: list[Any], draw: Any) -> list[Any]:
    """The same stream with each tool block's input text cut at new random points."""
    return resplit_deltas(events, draw, _input_piece, tool_delta)


@pytest.mark.skipif(not RECORDED.is_dir(), reason="recorded streams not available")
@pytest.mark.parametrize("name", recorded("bedrock_"))
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_recorded_streams_resplit_give_the_same_calls(name: str, data: st.DataObject) -> None:
    events, calls = load(name)
    check_split(name, assemble(run(resplit(events, data.draw))), calls)
