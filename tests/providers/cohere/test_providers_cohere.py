"""Cohere v2 chat translator: our own streams in the real event shapes (``tool_calls`` as
an object), random re-splits of the argument text, odd payloads, and the recorded streams."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from callstream._assembly.types import CallEnd, CallFailure, Signal, StreamEnd, TextDelta
from callstream.providers.cohere import CohereTranslator, detect
from tests.support.provider_helpers import (
    RECORDED,
    assemble,
    check_expected,
    check_never_raises,
    check_recorded,
    chunk,
    load,
    odd_payloads,
    recorded,
    resplit_deltas,
    texts,
    translate_all,
)
from tests.support.strategies import json_objects, splits

MESSAGE_START = {
    "id": "66dec7d7",
    "type": "message-start",
    "delta": {"message": {"role": "assistant", "content": [], "tool_plan": "", "tool_calls": []}},
}


def plan(text: str) -> dict[str, Any]:
    return {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": text}}}


def call_start(index: int, id: str, name: str, arguments: str = "") -> dict[str, Any]:
    call = {"id": id, "type": "function", "function": {"name": name, "arguments": arguments}}
    return {"type": "tool-call-start", "index": index, "delta": {"message": {"tool_calls": call}}}


def call_delta(index: int, text: str) -> dict[str, Any]:
    return {
        "type": "tool-call-delta",
        "index": index,
        "delta": {"message": {"tool_calls": {"function": {"arguments": text}}}},
    }


def call_end(index: int) -> dict[str, Any]:
    return {"type": "tool-call-end", "index": index}


def message_end(reason: str, error: str | None = None) -> dict[str, Any]:
    delta: dict[str, Any] = {"finish_reason": reason, "usage": {"tokens": {"output_tokens": 9}}}
    if error is not None:
        delta["error"] = error
    return {"type": "message-end", "delta": delta}


def run(events: list[Any]) -> list[Signal]:
    return translate_all(CohereTranslator(), events)


def test_two_calls_keyed_by_event_index() -> None:
    events = [
        MESSAGE_START,
        plan("I will look up the weather."),
        call_start(0, "weather_1", "weather"),
        call_delta(0, '{"'),
        call_delta(0, 'location": "San'),
        call_delta(0, ' Francisco"}'),
        call_end(0),
        call_start(1, "attractions_2", "cityAttractions"),
        call_delta(1, '{"city": "SF"}'),
        call_end(1),
        message_end("TOOL_CALL"),
    ]
    assert run(events) == [
        chunk(0, name="weather", id="weather_1"),
        chunk(0, args='{"'),
        chunk(0, args='location": "San'),
        chunk(0, args=' Francisco"}'),
        CallEnd(index=0),
        chunk(1, name="cityAttractions", id="attractions_2"),
        chunk(1, args='{"city": "SF"}'),
        CallEnd(index=1),
        StreamEnd(reason="TOOL_CALL", provider_reason="TOOL_CALL"),
    ]


def test_start_with_empty_arguments_then_end_is_a_call_without_arguments() -> None:
    assert run([call_start(0, "t_1", "currentTime"), call_end(0), message_end("TOOL_CALL")]) == [
        chunk(0, name="currentTime", id="t_1"),
        CallEnd(index=0),
        StreamEnd(reason="TOOL_CALL", provider_reason="TOOL_CALL"),
    ]


def test_start_may_carry_arguments_and_a_list_is_read_too() -> None:
    signals = run([call_start(0, "t_1", "f", '{"a": 1}')])
    assert signals == [chunk(0, name="f", id="t_1", args='{"a": 1}')]
    as_list = {
        "type": "tool-call-start",
        "index": 3,
        "delta": {"message": {"tool_calls": [{"id": "t_3", "function": {"name": "g"}}]}},
    }
    assert run([as_list]) == [chunk(3, name="g", id="t_3")]


def test_max_tokens_is_length_and_leaves_open_calls_open() -> None:
    events = [call_start(0, "t", "f"), call_delta(0, '{"a": "b'), message_end("MAX_TOKENS")]
    signals = run(events)
    assert signals[-1] == StreamEnd(reason="length", provider_reason="MAX_TOKENS")
    assert not any(isinstance(s, (CallEnd, CallFailure)) for s in signals)


def test_error_finish_fails_open_calls_only() -> None:
    events = [
        call_start(0, "t0", "done"),
        call_end(0),
        call_start(1, "t1", "open"),
        call_delta(1, '{"a": '),
        message_end("ERROR", error="internal failure"),
    ]
    assert run(events)[-2:] == [
        CallFailure(error="Cohere stream ended with ERROR: internal failure", index=1),
        StreamEnd(
            reason="error",
            provider_reason="ERROR",
            provider_error="Cohere stream ended with ERROR: internal failure",
        ),
    ]


def test_content_is_text_and_citation_events_are_ignored() -> None:
    events = [
        {"type": "content-start", "index": 0, "delta": {"message": {"content": {"type": "text"}}}},
        {"type": "content-delta", "index": 0, "delta": {"message": {"content": {"text": "hi"}}}},
        {"type": "content-end", "index": 0},
        {"type": "citation-start", "index": 0, "delta": {"message": {"citations": {}}}},
        {"type": "citation-end", "index": 0},
        {"type": "debug"},
    ]
    assert run(events) == [TextDelta(text="hi")]


def test_every_message_end_is_reported_and_the_assembler_keeps_the_first() -> None:
    translator = CohereTranslator()
    assert translator.translate(message_end("COMPLETE")) == [
        StreamEnd(reason="COMPLETE", provider_reason="COMPLETE")
    ]
    # a second end marker is reported too (issue 12: the assembler owns "one end")
    second = translator.translate(message_end("MAX_TOKENS"))
    assert second == [StreamEnd(reason="length", provider_reason="MAX_TOKENS")]
    both = [StreamEnd(reason="COMPLETE", provider_reason="COMPLETE"), *second]
    assert assemble(both).finish_reason == "COMPLETE"
    translator.translate(MESSAGE_START)
    assert translator.translate(message_end("COMPLETE")) == [
        StreamEnd(reason="COMPLETE", provider_reason="COMPLETE")
    ]


def test_sdk_shaped_objects() -> None:
    ns = SimpleNamespace
    events = [
        ns(
            type="tool-call-start",
            index=0,
            delta=ns(
                message=ns(
                    tool_calls=ns(id="t", type="function", function=ns(name="f", arguments=None))
                )
            ),
        ),
        ns(
            type="tool-call-delta",
            index=0,
            delta=ns(message=ns(tool_calls=ns(function=ns(arguments="{}")))),
        ),
        ns(type="tool-call-end", index=0),
        ns(type="message-end", delta=ns(finish_reason="TOOL_CALL", error=None)),
    ]
    assert run(events) == [
        chunk(0, name="f", id="t"),
        chunk(0, args="{}"),
        CallEnd(index=0),
        StreamEnd(reason="TOOL_CALL", provider_reason="TOOL_CALL"),
    ]


def test_detect() -> None:
    assert detect(MESSAGE_START)
    assert detect(call_delta(0, "{"))
    assert detect(message_end("COMPLETE"))
    for other in (
        {"type": "message_start"},
        {"type": "response.created"},
        {"candidates": []},
        {"messageStart": {}},
        None,
        "x",
        [],
    ):
        assert not detect(other)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), value=json_objects(max_leaves=12))
def test_any_split_of_the_argument_text_gives_the_same_text(
    data: st.DataObject, value: Any
) -> None:
    text = json.dumps(value, indent=data.draw(st.sampled_from([None, 2])))
    pieces = data.draw(splits(text))
    events = [call_start(4, "t", "f", pieces[0]), *(call_delta(4, p) for p in pieces[1:])]
    signals = run([*events, call_end(4), message_end("TOOL_CALL")])
    assert texts(signals)[4] == text
    assert json.loads(texts(signals)[4]) == value
    assert signals[-2:] == [
        CallEnd(index=4),
        StreamEnd(reason="TOOL_CALL", provider_reason="TOOL_CALL"),
    ]
    assert assemble(signals).tool_calls == [
        {"name": "f", "args": value, "id": "t", "type": "tool_call"}
    ]


_VALUES = [
    "tool-call-start",
    "tool-call-delta",
    "tool-call-end",
    "message-end",
    "message-start",
    "ERROR",
    "MAX_TOKENS",
]
_KEYS = [
    "type",
    "index",
    "delta",
    "message",
    "tool_calls",
    "id",
    "function",
    "name",
    "arguments",
    "finish_reason",
    "error",
]
_ODD_PAYLOADS = odd_payloads(_KEYS, _VALUES, lowest=-2, text_size=4, max_leaves=20)


@settings(max_examples=200, deadline=None)
@given(st.lists(_ODD_PAYLOADS, max_size=8))
def test_odd_payloads_never_raise(payloads: list[Any]) -> None:
    check_never_raises(CohereTranslator(), payloads)


def test_assembled_calls_for_our_stream() -> None:
    events = [
        MESSAGE_START,
        plan("Two lookups."),
        call_start(0, "currentTime_1", "currentTime"),
        call_end(0),
        call_start(1, "weather_2", "weather"),
        call_delta(1, '{"location": '),
        call_delta(1, '"Berlin"}'),
        call_end(1),
        call_start(2, "broken_3", "broken"),
        call_delta(2, '{"a": 1,'),
        message_end("ERROR", error="upstream timeout"),
    ]
    assembler = assemble(run(events))
    assert assembler.tool_calls == [
        {"name": "currentTime", "args": {}, "id": "currentTime_1", "type": "tool_call"},
        {"name": "weather", "args": {"location": "Berlin"}, "id": "weather_2", "type": "tool_call"},
    ]
    assert [(c["name"], c["args"], c["error"]) for c in assembler.invalid_tool_calls] == [
        ("broken", '{"a": 1,', "Cohere stream ended with ERROR: upstream timeout")
    ]


@pytest.mark.skipif(not RECORDED.is_dir(), reason="recorded streams not available")
@pytest.mark.parametrize("name", recorded("cohere_"))
def test_recorded_streams_assemble_to_the_expected_calls(name: str) -> None:
    check_recorded(*load(name), detect, run)


def _arguments_piece(event: Any) -> tuple[int, str] | None:
    if event.get("type") != "tool-call-delta":
        return None
    return event["index"], event["delta"]["message"]["tool_calls"]["function"]["arguments"]


def resplit(events: list[Any], draw: Any) -> list[Any]:
    """The same stream with each call's argument deltas cut at new random points."""
    return resplit_deltas(events, draw, _arguments_piece, call_delta)


@pytest.mark.skipif(not RECORDED.is_dir(), reason="recorded streams not available")
@pytest.mark.parametrize("name", recorded("cohere_"))
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_recorded_streams_resplit_give_the_same_calls(name: str, data: st.DataObject) -> None:
    events, calls = load(name)
    check_expected(assemble(run(resplit(events, data.draw))), calls)
