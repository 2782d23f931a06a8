"""OpenAI Chat translator: our own streams in the shapes of OpenAI and the compatible
servers (Groq, DeepSeek, xAI, Alibaba, Mistral, TGI, vLLM, llama.cpp, Ollama /v1), every
quirk from the recordings, random re-splits of the argument text, SDK objects, raw SSE."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from callstream._assembly.assembler import ToolCallAssembler
from callstream._assembly.types import CallChunk, CallDone, CallFailure, StreamEnd, StreamFinished
from callstream._pipeline import StreamResult
from callstream._sync import collect, stream
from callstream.providers import detect_format
from callstream.providers.openai_chat import (
    OpenAIChatTranslator,
    detect,
    failed_generation_calls,
    normalize_finish_reason,
)
from tests.support.strategies import json_objects, splits

# --- builders: the wire shapes ----------------------------------------------------------


def chunk(
    *entries: dict[str, Any],
    finish: str | None = None,
    role: bool = False,
    content: str | None = None,
    extra_delta: dict[str, Any] | None = None,
    index: int = 0,
) -> dict[str, Any]:
    delta: dict[str, Any] = {}
    if role:
        delta["role"] = "assistant"
    if content is not None:
        delta["content"] = content
    if entries:
        delta["tool_calls"] = list(entries)
    delta.update(extra_delta or {})
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [{"index": index, "delta": delta, "finish_reason": finish, "logprobs": None}],
    }


def entry(
    index: int | None = 0,
    *,
    id: str | None = None,
    name: str | None = None,
    args: Any = None,
    type: str | None = "function",
) -> dict[str, Any]:
    out: dict[str, Any] = {"function": {}}
    if index is not None:
        out["index"] = index
    if id is not None:
        out["id"] = id
    if type is not None:
        out["type"] = type
    if name is not None:
        out["function"]["name"] = name
    if args is not None:
        out["function"]["arguments"] = args
    return out


def usage_chunk() -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "choices": [],
        "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7},
    }


def calls(result: StreamResult) -> list[tuple[str | None, str | None, Any]]:
    return [(c["name"], c["id"], c["args"]) for c in result.tool_calls]


def openai_stream(
    items: list[tuple[str, str, str]], *, pieces: list[list[str]], finish: str = "tool_calls"
) -> list[dict[str, Any]]:
    """OpenAI's shape: role chunk, then per call a head chunk (id, name, "") and fragments."""
    out = [chunk(role=True, content=None)]
    for i, ((call_id, name, _), frags) in enumerate(zip(items, pieces)):
        out.append(chunk(entry(i, id=call_id, name=name, args="")))
        out.extend(chunk(entry(i, args=f, type=None)) for f in frags)
    out.append(chunk(finish=finish))
    out.append(usage_chunk())
    return out


# --- translator signals -----------------------------------------------------------------


def test_detect() -> None:
    assert detect(chunk(role=True))
    assert detect(usage_chunk())
    assert detect({"choices": []})
    assert detect({"error": {"code": "tool_use_failed", "failed_generation": "x"}})
    assert not detect({"error": {"message": "rate limited"}})
    assert not detect({"type": "message_start"})
    assert not detect("data: x")
    assert not detect(None)
    assert detect_format(chunk(role=True)) == "openai-chat"


def test_signals_pass_entries_and_finish() -> None:
    t = OpenAIChatTranslator()
    assert t.translate(chunk(role=True, content="")) == []
    assert t.translate(usage_chunk()) == []
    assert t.translate(chunk(entry(0, id="call_1", name="f", args=""))) == [
        CallChunk(name="f", args="", id="call_1", index=0)
    ]
    assert t.translate(chunk(finish="tool_calls")) == [
        StreamEnd(reason="tool_calls", provider_reason="tool_calls")
    ]


def test_finish_reason_normalization() -> None:
    assert normalize_finish_reason("eos_token") == "stop"
    assert normalize_finish_reason("MAX_TOKENS") == "length"
    assert normalize_finish_reason("tool_calls") == "tool_calls"
    t = OpenAIChatTranslator()
    assert t.translate(chunk(finish="eos_token")) == [
        StreamEnd(reason="stop", provider_reason="eos_token")
    ]


def test_other_choices_are_ignored() -> None:
    t = OpenAIChatTranslator()
    assert t.translate(chunk(entry(0, name="f"), index=1)) == []
    assert OpenAIChatTranslator(choice=1).translate(chunk(entry(0, name="f"), index=1)) != []


def test_odd_payloads_give_nothing() -> None:
    t = OpenAIChatTranslator()
    odd: list[Any] = [
        None,
        5,
        "x",
        [],
        {},
        {"choices": "x"},
        {"choices": [None, 3, "x"]},
        {"choices": [{"delta": None}]},
        {"choices": [{"delta": {"tool_calls": 5}}]},
        {"choices": [{"delta": {"tool_calls": [None, 1, "x"]}}]},
        {"choices": [{"index": "x", "delta": {"tool_calls": [{"function": None}]}}]},
        {"choices": [{"delta": {}, "finish_reason": 3}]},
    ]
    for payload in odd:
        for signal in t.translate(payload):
            assert not isinstance(signal, StreamEnd)
            assert isinstance(signal, dict)
            assert signal["name"] is None and signal["args"] is None


def test_custom_tool_entries_are_skipped() -> None:
    payload = chunk({"index": 0, "type": "custom", "custom": {"name": "sh", "input": "ls"}})
    assert OpenAIChatTranslator().translate(payload) == []


def test_arguments_as_object_and_as_non_object() -> None:
    t = OpenAIChatTranslator()
    [sig] = t.translate(chunk(entry(0, name="f", args={"a": [1, 2]})))
    assert isinstance(sig, CallChunk) and sig.args == {"a": [1, 2]}
    [sig] = t.translate(chunk(entry(0, name="f", args=[1])))
    assert isinstance(sig, CallChunk) and sig.args == "[1]"


# --- assembled results: every server quirk -----------------------------------------------


def test_openai_typical_stream() -> None:
    payloads = openai_stream(
        [("call_1", "get_weather", "")], pieces=[['{"ci', 'ty": "Par', 'is"}']]
    )
    result = collect(payloads)
    assert calls(result) == [("get_weather", "call_1", {"city": "Paris"})]
    assert result.finish_reason == "tool_calls"
    assert result.invalid_tool_calls == []
    assert result.provider == "openai-chat"


def test_call_is_final_at_finish_chunk_and_usage_chunk_changes_nothing() -> None:
    payloads = openai_stream([("c", "f", "")], pieces=[['{"a": 1}']])
    updates = list(stream(payloads))
    done_at = [i for i, u in enumerate(updates) if any(isinstance(e, CallDone) for e in u.events)]
    assert done_at == [len(payloads) - 2]  # the finish chunk, not the last args fragment
    assert updates[-1].events == ()  # the usage-only chunk
    assert len(updates) == len(payloads)


def test_parallel_calls_sequential_indexes() -> None:
    payloads = openai_stream(
        [("c1", "GetWeatherArgs", ""), ("c2", "get_stock_price", "")],
        pieces=[['{"city": ', '"Edinburgh"}'], ['{"ticker"', ': "AAPL"}']],
    )
    assert calls(collect(payloads)) == [
        ("GetWeatherArgs", "c1", {"city": "Edinburgh"}),
        ("get_stock_price", "c2", {"ticker": "AAPL"}),
    ]


def test_interleaved_parallel_calls() -> None:
    payloads = [
        chunk(entry(0, id="a", name="f", args=""), entry(1, id="b", name="g", args="")),
        chunk(entry(1, args='{"y"'), entry(0, args='{"x"')),
        chunk(entry(0, args=": 1}")),
        chunk(entry(1, args=": 2}")),
        chunk(finish="tool_calls"),
    ]
    assert calls(collect(payloads)) == [("f", "a", {"x": 1}), ("g", "b", {"y": 2})]


def test_tgi_id_resent_on_every_chunk_and_no_finish_chunk() -> None:
    frags = ["{", ' "', "location", '":', ' "', "Bro", "oklyn", '"}']
    payloads = [
        {
            "choices": [
                {
                    "delta": {
                        "content": None,
                        "role": "assistant",
                        "tool_calls": [
                            {
                                "function": {"arguments": f, "name": "get_w" if i == 0 else None},
                                "id": "0",
                                "index": 0,
                                "type": "function",
                            }
                        ],
                    },
                    "finish_reason": None,
                    "index": 0,
                    "logprobs": None,
                }
            ],
            "id": "",
            "object": "chat.completion.chunk",
            "usage": None,
        }
        for i, f in enumerate(frags)
    ]
    result = collect(payloads)
    assert calls(result) == [("get_w", "0", {"location": "Brooklyn"})]
    assert result.finish_reason is None  # finished at the end of the source


def test_alibaba_empty_id_continuations_and_trailing_empty_args() -> None:
    payloads = [
        chunk(entry(0, id="call_e", name="weather", args=""), role=True),
        chunk(entry(0, id="", args='{"location": "San Francisco')),
        chunk(entry(0, id="", args='"}')),
        chunk(entry(0, id="", args="")),
        chunk(finish="tool_calls"),
        usage_chunk(),
    ]
    assert calls(collect(payloads)) == [("weather", "call_e", {"location": "San Francisco"})]


def test_glm_empty_name_continuation_and_nonstandard_delta_index() -> None:
    payloads = [
        chunk(
            entry(0, id="chatcmpl-tool-9", name="webSearchTool", args=""), extra_delta={"index": 0}
        ),
        chunk(entry(0, name="", args='{"query": "Berlin"}'), extra_delta={"index": 0}),
        chunk(finish="tool_calls", extra_delta={"index": 0}),
    ]
    assert calls(collect(payloads)) == [("webSearchTool", "chatcmpl-tool-9", {"query": "Berlin"})]


def test_mistral_whole_calls_without_index_in_the_finish_chunk() -> None:
    payloads = [
        chunk(role=True, content=""),
        chunk(
            entry(None, id="gSIMJiOkT", name="weather", args='{"location": "SF"}', type=None),
            entry(None, id="hTJNKjPlU", name="time", args="{}", type=None),
            finish="tool_calls",
        ),
    ]
    result = collect(payloads)
    assert calls(result) == [
        ("weather", "gSIMJiOkT", {"location": "SF"}),
        ("time", "hTJNKjPlU", {}),
    ]
    assert result.finish_reason == "tool_calls"


def test_groq_xai_single_chunk_call() -> None:
    payloads = [
        chunk(role=True, content=None),
        chunk(entry(0, id="tk85n1k4m", name="weather", args="{}")),
        chunk(finish="tool_calls"),
    ]
    assert calls(collect(payloads)) == [("weather", "tk85n1k4m", {})]


def test_deepseek_reasoning_content_before_call() -> None:
    payloads = [chunk(role=True, content="")]
    payloads += [chunk(extra_delta={"reasoning_content": w}) for w in ["Let", " me", " see"]]
    payloads.append(chunk(entry(0, id="call_00_x", name="weather", args="")))
    payloads += [chunk(entry(0, args=f)) for f in ['{"', "loc", '":"', "SF", '"}']]
    payloads.append(chunk(finish="tool_calls"))
    assert calls(collect(payloads)) == [("weather", "call_00_x", {"loc": "SF"})]


def test_ollama_v1_complete_calls_on_distinct_indexes() -> None:
    payloads = [
        chunk(entry(0, id="call_a", name="run", args='{"command":"ls"}'), role=True, content=""),
        chunk(entry(1, id="call_b", name="run", args='{"command":"ls -l"}'), role=True, content=""),
        chunk(role=True, content="", finish="tool_calls"),
    ]
    assert calls(collect(payloads)) == [
        ("run", "call_a", {"command": "ls"}),
        ("run", "call_b", {"command": "ls -l"}),
    ]


def test_llamacpp_arguments_as_object() -> None:
    payloads = [
        chunk(entry(0, id="c", name="f", args={"a": {"b": [1]}})),
        chunk(finish="tool_calls"),
    ]
    assert calls(collect(payloads)) == [("f", "c", {"a": {"b": [1]}})]


def test_forced_named_tool_finishes_with_stop() -> None:
    payloads = openai_stream([("c", "f", "")], pieces=[['{"a"', ": true}"]], finish="stop")
    result = collect(payloads)
    assert calls(result) == [("f", "c", {"a": True})]
    assert result.finish_reason == "stop"


def test_length_finish_mid_call_is_invalid_cut_off() -> None:
    payloads = openai_stream([("c", "f", "")], pieces=[['{"text": "once upon']], finish="length")
    result = collect(payloads)
    assert result.tool_calls == []
    [bad] = result.invalid_tool_calls
    assert bad["name"] == "f" and bad["args"] == '{"text": "once upon'
    assert bad["error"] is not None and "cut off" in bad["error"]


def test_stream_without_finish_chunk_is_finished_at_the_end() -> None:
    payloads = openai_stream([("c", "f", "")], pieces=[['{"a": 1}']])[:-2]
    updates = list(stream(payloads))
    assert isinstance(updates[-1].events[-1], StreamFinished)
    assert updates[-1].payload is None
    assert updates[-1].tool_calls == [
        {"name": "f", "args": {"a": 1}, "id": "c", "type": "tool_call"}
    ]


def test_non_object_arguments_are_invalid() -> None:
    payloads = [chunk(entry(0, id="c", name="f", args="[1, 2]")), chunk(finish="tool_calls")]
    [bad] = collect(payloads).invalid_tool_calls
    assert bad["error"] == "arguments must be a JSON object, got array"


def test_legacy_function_call_delta() -> None:
    payloads = [
        chunk(extra_delta={"function_call": {"name": "f", "arguments": ""}}, role=True),
        chunk(extra_delta={"function_call": {"arguments": '{"a":'}}),
        chunk(extra_delta={"function_call": {"arguments": " 1}"}}),
        chunk(finish="function_call"),
    ]
    assert calls(collect(payloads)) == [("f", None, {"a": 1})]


def test_non_streamed_completion_as_one_payload() -> None:
    completion = {
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "tool_calls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "f", "arguments": "{}"},
                        },
                        {
                            "id": "c2",
                            "type": "function",
                            "function": {"name": "g", "arguments": '{"x":1}'},
                        },
                    ],
                },
                "finish_reason": "tool_calls",
            }
        ],
    }
    assert calls(collect([completion])) == [("f", "c1", {}), ("g", "c2", {"x": 1})]


# --- Groq: tool_use_failed error event -------------------------------------------------

GROQ_ERROR = {
    "error": {
        "message": "Tool call validation failed: parameters for tool get_x did not match schema",
        "type": "invalid_request_error",
        "code": "tool_use_failed",
        "failed_generation": '{"name": "get_x", "arguments": {\n  "bad": "value"\n}}',
        "status_code": 400,
    }
}


def test_groq_error_signals() -> None:
    signals = OpenAIChatTranslator().translate(GROQ_ERROR)
    assert signals == [
        CallFailure(error=GROQ_ERROR["error"]["message"], name="get_x", args='{"bad": "value"}'),
        StreamEnd(reason="error", provider_error=GROQ_ERROR["error"]["message"]),
    ]


def test_groq_error_event_over_raw_sse_becomes_invalid_call() -> None:
    reasoning = [chunk(role=True, content="")] + [
        chunk(extra_delta={"reasoning": w, "channel": "analysis"}) for w in ["We", " need"]
    ]
    sse = "".join(f"data: {json.dumps(p)}\n\n" for p in reasoning)
    sse += f"event: error\ndata: {json.dumps(GROQ_ERROR)}\n\n"
    data = sse.encode()
    result = collect(data[i : i + 9] for i in range(0, len(data), 9))
    assert result.tool_calls == []
    [bad] = result.invalid_tool_calls
    assert bad["name"] == "get_x"
    assert json.loads(bad["args"] or "") == {"bad": "value"}
    assert bad["error"] == GROQ_ERROR["error"]["message"]
    assert result.finish_reason == "error"


def test_sse_error_event_without_error_wrapper_is_wrapped() -> None:
    body = {"message": "bad tool", "code": "tool_use_failed", "failed_generation": "[]"}
    sse = f"data: {json.dumps(chunk(role=True))}\n\nevent: error\ndata: {json.dumps(body)}\n\n"
    result = collect([sse])
    [bad] = result.invalid_tool_calls
    assert bad["error"] == "bad tool" and bad["name"] is None


def test_failed_generation_shapes() -> None:
    assert failed_generation_calls('{"name": "f", "arguments": "{\\"a\\": 1}"}') == [
        ("f", '{"a": 1}')
    ]
    assert failed_generation_calls('[{"name": "f", "parameters": {"a": 1}}, {"name": "g"}]') == [
        ("f", '{"a": 1}'),
        ("g", ""),
    ]
    assert failed_generation_calls('<function=get_weather>{"city": "Paris"}</function>') == [
        ("get_weather", '{"city": "Paris"}')
    ]
    assert failed_generation_calls('<function=get_weather{"city": "Paris"}</function>') == [
        ("get_weather", '{"city": "Paris"}')
    ]
    assert failed_generation_calls("I cannot call that") == [(None, "I cannot call that")]


def test_other_errors_end_the_stream_without_inventing_calls() -> None:
    payloads = [
        chunk(entry(0, id="c", name="f", args='{"a": 1}')),
        {"error": {"message": "overloaded"}},
    ]
    result = collect(payloads)
    assert result.finish_reason == "error"
    assert calls(result) == [("f", "c", {"a": 1})]
    assert result.invalid_tool_calls == []


# --- random re-splits of the argument text ------------------------------------------------

names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=12)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.tuples(names, json_objects(max_leaves=8)), min_size=1, max_size=3),
    st.sampled_from(["openai", "tgi", "alibaba", "glm"]),
    st.data(),
)
def test_random_splits_give_the_same_calls(
    items: list[tuple[str, dict[str, Any]]], quirk: str, data: st.DataObject
) -> None:
    payloads: list[dict[str, Any]] = [chunk(role=True)]
    for i, (name, args) in enumerate(items):
        text = json.dumps(args, ensure_ascii=data.draw(st.booleans()))
        frags = data.draw(splits(text, max_cuts=12))
        call_id = f"call_{i}"
        payloads.append(chunk(entry(i, id=call_id, name=name, args="")))
        for frag in frags:
            if quirk == "tgi":
                e = entry(i, id=call_id, args=frag)  # id resent every chunk
            elif quirk == "alibaba":
                e = entry(i, id="", args=frag)
            elif quirk == "glm":
                e = entry(i, name="", args=frag)
            else:
                e = entry(i, args=frag, type=None)
            payloads.append(chunk(e))
    payloads.append(chunk(finish="tool_calls"))
    result = collect(payloads)
    assert calls(result) == [(name, f"call_{i}", args) for i, (name, args) in enumerate(items)]
    assert result.invalid_tool_calls == []


# --- SDK objects and raw transport -----------------------------------------------------------


def test_attribute_objects_are_read_like_dicts() -> None:
    def ns(value: Any) -> Any:
        if isinstance(value, dict):
            return SimpleNamespace(**{k: ns(v) for k, v in value.items()})
        if isinstance(value, list):
            return [ns(v) for v in value]
        return value

    payloads = openai_stream([("c", "f", "")], pieces=[['{"a": ', "[1, 2]}"]])
    assert calls(collect([ns(p) for p in payloads])) == [("f", "c", {"a": [1, 2]})]


def test_openai_sdk_chunk_objects() -> None:
    types = pytest.importorskip("openai.types.chat")
    payloads = openai_stream(
        [("c1", "f", ""), ("c2", "g", "")], pieces=[['{"a"', ": 1}"], ['{"b": "', 'x"}']]
    )
    objects = [
        types.ChatCompletionChunk.model_validate({"created": 1, "model": "m", **p})
        for p in payloads
    ]
    result = collect(objects)
    assert calls(result) == [("f", "c1", {"a": 1}), ("g", "c2", {"b": "x"})]
    assert result.finish_reason == "tool_calls"


def test_raw_sse_bytes_equal_payloads() -> None:
    payloads = openai_stream([("c", "f", "")], pieces=[['{"s": "caf\u00e9 \U0001f600', '"}']])
    sse = (
        "".join(f"data: {json.dumps(p, ensure_ascii=False)}\r\n\r\n" for p in payloads)
        + "data: [DONE]\r\n\r\n"
    )
    data = sse.encode()
    for size in (1, 2, 3, 7, 64, len(data)):
        pieces = [data[i : i + size] for i in range(0, len(data), size)]
        assert collect(pieces) == collect(payloads)


def test_assembler_can_be_driven_by_signals_directly() -> None:
    translator = OpenAIChatTranslator()
    assembler = ToolCallAssembler()
    for payload in openai_stream([("c", "f", "")], pieces=[['{"a": 1}']]):
        for signal in translator.translate(payload):
            if not assembler.finished:
                assembler.apply(signal)
    assert assembler.tool_calls == [{"name": "f", "args": {"a": 1}, "id": "c", "type": "tool_call"}]


def test_2025_wire_fields_obfuscation_service_tier_usage_null() -> None:
    payloads = openai_stream([("c", "get_capital", "")], pieces=[['{"co', 'untry": "UK"}']])
    for i, p in enumerate(payloads):
        p.update(service_tier="default", system_fingerprint="fp_1", obfuscation="x" * (i % 5))
        p.setdefault("usage", None)
    assert calls(collect(payloads)) == [("get_capital", "c", {"country": "UK"})]
