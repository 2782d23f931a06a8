"""OpenAI Responses translator: output_index keys, .done events as the authority, the end
events (completed / incomplete / failed), random re-splits, SDK event objects."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from callstream._assembly.types import (
    CallChunk,
    CallDone,
    CallEnd,
    CallFailure,
    CallInvalid,
    StreamEnd,
)
from callstream._pipeline import StreamResult
from callstream._sync import collect, stream
from callstream.providers import detect_format
from callstream.providers.openai_responses import OpenAIResponsesTranslator, detect
from tests.support.strategies import json_objects, splits

# --- builders ---------------------------------------------------------------------------------


def response(status: str, **extra: Any) -> dict[str, Any]:
    return {"id": "resp_1", "object": "response", "status": status, "output": [], **extra}


def created() -> dict[str, Any]:
    return {"type": "response.created", "response": response("in_progress")}


def fc_item(
    item_id: str, call_id: str, name: str, arguments: str = "", status: str = "in_progress"
) -> dict[str, Any]:
    return {
        "type": "function_call",
        "id": item_id,
        "call_id": call_id,
        "name": name,
        "arguments": arguments,
        "status": status,
    }


def added(index: int, item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "response.output_item.added", "output_index": index, "item": item}


def item_done(index: int, item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "response.output_item.done", "output_index": index, "item": item}


def delta(index: int, text: str, item_id: str = "fc_1") -> dict[str, Any]:
    return {
        "type": "response.function_call_arguments.delta",
        "item_id": item_id,
        "output_index": index,
        "delta": text,
    }


def args_done(index: int, arguments: str, item_id: str = "fc_1") -> dict[str, Any]:
    return {
        "type": "response.function_call_arguments.done",
        "item_id": item_id,
        "output_index": index,
        "arguments": arguments,
    }


def completed() -> dict[str, Any]:
    return {"type": "response.completed", "response": response("completed")}


def reasoning(index: int) -> list[dict[str, Any]]:
    item = {"type": "reasoning", "id": "rs_1", "summary": []}
    return [added(index, item), item_done(index, item)]


def full_call(
    index: int, call_id: str, name: str, frags: list[str], item_id: str = "fc_1"
) -> list[dict[str, Any]]:
    text = "".join(frags)
    return [
        added(index, fc_item(item_id, call_id, name)),
        *(delta(index, f, item_id) for f in frags),
        args_done(index, text, item_id),
        item_done(index, fc_item(item_id, call_id, name, text, "completed")),
    ]


def calls(result: StreamResult) -> list[tuple[str | None, str | None, Any]]:
    return [(c["name"], c["id"], c["args"]) for c in result.tool_calls]


# --- tests ------------------------------------------------------------------------------------


def test_detect() -> None:
    assert detect(created())
    assert detect(delta(0, "x"))
    assert not detect({"type": "message_start"})
    assert not detect({"choices": []})
    assert not detect(None)
    assert detect_format(created()) == "openai-responses"


def test_signals() -> None:
    t = OpenAIResponsesTranslator()
    assert t.translate(created()) == []
    assert t.translate(added(1, fc_item("fc_1", "call_1", "f"))) == [
        CallChunk(name="f", args=None, id="call_1", index=1)
    ]
    assert t.translate(delta(1, '{"a"')) == [CallChunk(name=None, args='{"a"', id=None, index=1)]
    assert t.translate(args_done(1, '{"a": 1}')) == [CallEnd(index=1, args='{"a": 1}')]
    # output_item.done after arguments.done adds nothing: the call already ended.
    assert t.translate(item_done(1, fc_item("fc_1", "call_1", "f", '{"a": 1}'))) == []
    assert t.translate(completed()) == [StreamEnd(reason="tool_calls", provider_reason="completed")]


def test_single_call_done_before_completed() -> None:
    payloads = [
        created(),
        *full_call(0, "call_kL", "get_capital", ['{"', "country", '":"', "France", '"}']),
        completed(),
    ]
    updates = list(stream(payloads))
    done = [i for i, u in enumerate(updates) if any(isinstance(e, CallDone) for e in u.events)]
    assert done == [len(payloads) - 3]  # at response.function_call_arguments.done
    result = collect(payloads)
    assert calls(result) == [("get_capital", "call_kL", {"country": "France"})]
    assert result.finish_reason == "tool_calls"


def test_reasoning_item_first_and_number_split_across_deltas() -> None:
    payloads = [
        created(),
        *reasoning(0),
        *full_call(1, "call_C", "final_result", ['{"result":', "666", "6}"]),
        completed(),
    ]
    updates = list(stream(payloads))
    started = [e for u in updates for e in u.events if type(e).__name__ == "CallStarted"]
    assert [(e.index, e.key) for e in started] == [(0, 1)]
    assert calls(collect(payloads)) == [("final_result", "call_C", {"result": 6666})]


def test_item_id_changing_between_events_is_keyed_by_output_index() -> None:
    payloads = [
        created(),
        added(0, fc_item("fc_A", "call_1", "f")),
        delta(0, '{"x": ', item_id="fc_B"),
        delta(0, "1}", item_id="fc_C"),
        args_done(0, '{"x": 1}', item_id="fc_D"),
        completed(),
    ]
    assert calls(collect(payloads)) == [("f", "call_1", {"x": 1})]


def test_events_without_output_index_fall_back_to_the_item_id() -> None:
    t = OpenAIResponsesTranslator()
    t.translate(added(3, fc_item("fc_9", "call_9", "f")))
    no_index = {"type": "response.function_call_arguments.delta", "item_id": "fc_9", "delta": "{}"}
    assert t.translate(no_index) == [CallChunk(name=None, args="{}", id=None, index=3)]


def test_lmstudio_no_deltas_arguments_only_in_done_events() -> None:
    payloads = [
        created(),
        added(2, fc_item("fc_z", "call_2025", "weather")),
        args_done(2, '{"location":"San Francisco"}', item_id="fc_z"),
        item_done(2, fc_item("fc_z", "call_2025", "weather", '{"location":"San Francisco"}')),
        completed(),
    ]
    assert calls(collect(payloads)) == [("weather", "call_2025", {"location": "San Francisco"})]


def test_output_item_done_alone_is_the_authority() -> None:
    payloads = [
        created(),
        added(0, fc_item("fc_1", "call_1", "f")),
        delta(0, '{"a": 1'),
        item_done(0, fc_item("fc_1", "call_1", "f", '{"a": 12}')),
        completed(),
    ]
    assert calls(collect(payloads)) == [("f", "call_1", {"a": 12})]


def test_done_arguments_win_over_streamed_text() -> None:
    payloads = [
        created(),
        added(0, fc_item("fc_1", "c", "f")),
        delta(0, '{"a": "x'),
        args_done(0, '{"a": "y"}'),
        completed(),
    ]
    assert calls(collect(payloads)) == [("f", "c", {"a": "y"})]


def test_output_item_done_without_added_brings_name_and_id() -> None:
    payloads = [created(), item_done(0, fc_item("fc_1", "c", "f", '{"k": [1]}')), completed()]
    assert calls(collect(payloads)) == [("f", "c", {"k": [1]})]


def test_incomplete_max_output_tokens_cuts_off_open_call() -> None:
    payloads = [
        created(),
        *full_call(0, "c0", "first", ['{"a": 1}']),
        added(1, fc_item("fc_2", "c1", "second")),
        delta(1, '{"text": "long', item_id="fc_2"),
        {
            "type": "response.incomplete",
            "response": response("incomplete", incomplete_details={"reason": "max_output_tokens"}),
        },
    ]
    result = collect(payloads)
    assert result.finish_reason == "length"
    assert calls(result) == [("first", "c0", {"a": 1})]
    [bad] = result.invalid_tool_calls
    assert bad["name"] == "second" and bad["error"] is not None and "cut off" in bad["error"]


def test_incomplete_other_reason_is_passed_on() -> None:
    t = OpenAIResponsesTranslator()
    payload = {
        "type": "response.incomplete",
        "response": response("incomplete", incomplete_details={"reason": "content_filter"}),
    }
    assert t.translate(payload) == [
        StreamEnd(reason="content_filter", provider_reason="content_filter")
    ]


def test_failed_response_fails_open_calls_with_the_message() -> None:
    payloads = [
        created(),
        *full_call(0, "c0", "first", ['{"a": 1}']),
        added(1, fc_item("fc_2", "c1", "second")),
        delta(1, '{"b": 2}', item_id="fc_2"),
        {
            "type": "response.failed",
            "response": response("failed", error={"code": "server_error", "message": "boom"}),
        },
    ]
    updates = list(stream(payloads))
    invalid = [e for u in updates for e in u.events if isinstance(e, CallInvalid)]
    assert [e.invalid_tool_call["error"] for e in invalid] == ["boom"]
    result = collect(payloads)
    assert result.finish_reason == "error"
    assert calls(result) == [("first", "c0", {"a": 1})]
    assert [(c["name"], c["args"]) for c in result.invalid_tool_calls] == [("second", '{"b": 2}')]


def test_error_event() -> None:
    t = OpenAIResponsesTranslator()
    t.translate(added(0, fc_item("fc_1", "c", "f")))
    assert t.translate({"type": "error", "code": "rate_limit", "message": "slow down"}) == [
        CallFailure(error="slow down", index=0),
        StreamEnd(reason="error", provider_error="slow down"),
    ]


def test_completed_without_calls_is_stop() -> None:
    text_item = {"type": "message", "id": "msg_1", "role": "assistant", "content": []}
    payloads = [
        created(),
        added(0, text_item),
        {
            "type": "response.output_text.delta",
            "output_index": 0,
            "item_id": "msg_1",
            "delta": "Hi",
        },
        item_done(0, text_item),
        completed(),
    ]
    result = collect(payloads)
    assert result.tool_calls == [] and result.finish_reason == "stop"


def test_unknown_and_odd_events_are_ignored() -> None:
    t = OpenAIResponsesTranslator()
    for payload in [
        {"type": "response.web_search_call.searching", "output_index": 0},
        {"type": "response.function_call_arguments.delta"},
        {"type": "response.function_call_arguments.done", "output_index": "x"},
        {"type": "response.output_item.added", "item": None},
        {"type": "response.output_item.done", "output_index": 0, "item": {"type": "function_call"}},
        {"type": 5},
        None,
        [],
    ]:
        for signal in t.translate(payload):
            assert isinstance(signal, (CallEnd, dict))


names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=12)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.tuples(names, json_objects(max_leaves=8)), min_size=1, max_size=3),
    st.booleans(),
    st.data(),
)
def test_random_splits_give_the_same_calls(
    items: list[tuple[str, dict[str, Any]]], with_reasoning: bool, data: st.DataObject
) -> None:
    payloads = [created()]
    offset = 0
    if with_reasoning:
        payloads += reasoning(0)
        offset = 1
    for i, (name, args) in enumerate(items):
        text = json.dumps(args)
        payloads += full_call(
            i + offset, f"call_{i}", name, data.draw(splits(text, max_cuts=10)), f"fc_{i}"
        )
    payloads.append(completed())
    result = collect(payloads)
    assert calls(result) == [(name, f"call_{i}", args) for i, (name, args) in enumerate(items)]


def test_openai_sdk_event_objects() -> None:
    responses = pytest.importorskip("openai.types.responses")
    pydantic = pytest.importorskip("pydantic")
    adapter = pydantic.TypeAdapter(responses.ResponseStreamEvent)
    payloads = [*reasoning(0), *full_call(1, "call_1", "f", ['{"a": [', "1, 2]}"])]
    seq = [dict(p, sequence_number=n) for n, p in enumerate(payloads)]
    for p in seq:
        if "item" in p:
            p["item"] = dict(p["item"])
    objects = [adapter.validate_python(p) for p in seq]
    assert type(objects[3]).__name__ != "dict"
    result = collect(objects)
    assert calls(result) == [("f", "call_1", {"a": [1, 2]})]


def test_third_party_shapes_obfuscation_uuid_ids_one_character_deltas() -> None:
    text = '{"city": "Tokyo"}'
    item_id = "5f0c9a4e-3b1d-4a8e-9c1f-2f6a1b7d8e90"
    payloads = [created(), added(0, fc_item(item_id, "call_00_xj", "get_temperature"))]
    payloads += [
        dict(delta(0, ch, item_id), obfuscation="ab", sequence_number=n)
        for n, ch in enumerate(text)
    ]
    payloads += [args_done(0, text, item_id), completed()]
    assert calls(collect(payloads)) == [("get_temperature", "call_00_xj", {"city": "Tokyo"})]
