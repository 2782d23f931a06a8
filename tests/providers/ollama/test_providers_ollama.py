"""Ollama native /api/chat translator: whole calls without index or id, done:true, NDJSON."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pydantic

from callstream._assembly.types import CallChunk, CallDone, CallEnd, StreamEnd
from callstream._sync import collect, stream
from callstream.providers import detect_format
from callstream.providers.ollama import OllamaTranslator, detect


def line(
    tool_calls: list[dict[str, Any]] | None = None,
    *,
    content: str = "",
    done: bool = False,
    **extra: Any,
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls is not None:
        message["tool_calls"] = tool_calls
    return {
        "model": "llama3.2",
        "created_at": "2025-07-07T20:22:19Z",
        "message": message,
        "done": done,
        **extra,
    }


def call(name: str, arguments: Any, **extra: Any) -> dict[str, Any]:
    return {"function": {"name": name, "arguments": arguments}, **extra}


def final(reason: str = "stop") -> dict[str, Any]:
    return line(done=True, done_reason=reason, eval_count=15)


def test_detect() -> None:
    assert detect(line())
    assert detect(final())
    assert not detect({"choices": []})
    assert not detect({"message": "x", "done": True})
    assert not detect({"done": "yes", "message": {}})
    assert detect_format(line()) == "ollama"


def test_signals_whole_call_is_ended_at_once() -> None:
    t = OllamaTranslator()
    assert t.translate(line([call("get_weather", {"city": "Tokyo"})])) == [
        CallChunk(name="get_weather", args={"city": "Tokyo"}, id=None, index=0),
        CallEnd(index=0),
    ]
    assert t.translate(final()) == [StreamEnd(reason="stop", provider_reason="stop")]


def test_docs_stream_single_call() -> None:
    result = collect([line([call("get_weather", {"city": "Tokyo"})]), final()])
    assert result.tool_calls == [
        {"name": "get_weather", "args": {"city": "Tokyo"}, "id": None, "type": "tool_call"}
    ]
    assert result.finish_reason == "stop"
    assert result.provider == "ollama"


def test_calls_without_index_or_id_are_appended_not_merged() -> None:
    payloads = [
        line(content="Let me check."),
        line([call("f", {"a": 1}), call("f", {"a": 2})]),
        line([call("g", {})]),
        final(),
    ]
    result = collect(payloads)
    assert [(c["name"], c["args"]) for c in result.tool_calls] == [
        ("f", {"a": 1}),
        ("f", {"a": 2}),
        ("g", {}),
    ]


def test_newer_servers_with_id_and_function_index() -> None:
    payloads = [
        line([{"id": "call_1", "function": {"index": 0, "name": "f", "arguments": {"x": "y"}}}]),
        line([{"id": "call_2", "function": {"index": 0, "name": "f", "arguments": {"x": "z"}}}]),
        final(),
    ]
    result = collect(payloads)
    assert [(c["id"], c["args"]) for c in result.tool_calls] == [
        ("call_1", {"x": "y"}),
        ("call_2", {"x": "z"}),
    ]


def test_call_done_arrives_with_its_line() -> None:
    updates = list(stream([line([call("f", {})]), final()]))
    assert any(isinstance(e, CallDone) for e in updates[0].events)


def test_missing_arguments_mean_empty_object_and_string_arguments_are_parsed() -> None:
    payloads = [line([{"function": {"name": "now"}}, call("f", '{"a": true}')]), final()]
    assert [c["args"] for c in collect(payloads).tool_calls] == [{}, {"a": True}]


def test_length_and_error_lines() -> None:
    assert collect([line(content="x"), final("length")]).finish_reason == "length"
    result = collect([line(content="x"), {"error": "model crashed"}])
    assert result.finish_reason == "error"


def test_no_done_line_is_finished_at_the_end() -> None:
    result = collect([line([call("f", {"a": 1})])])
    assert result.tool_calls[0]["args"] == {"a": 1} and result.finish_reason is None


def test_raw_ndjson_bytes() -> None:
    payloads = [line(content="h\u00e9llo \U0001f600"), line([call("f", {"s": "\u00e9"})]), final()]
    data = "".join(json.dumps(p, ensure_ascii=False) + "\n" for p in payloads).encode()
    for size in (1, 5, 17, len(data)):
        assert collect(data[i : i + size] for i in range(0, len(data), size)) == collect(payloads)


def test_odd_payloads() -> None:
    t = OllamaTranslator()
    for payload in [
        None,
        3,
        "x",
        {"message": None, "done": False},
        {"message": {"tool_calls": [None, 5, {"function": None}]}},
    ]:
        for signal in t.translate(payload):
            assert isinstance(signal, (CallChunk, CallEnd))


# --- SDK-like objects (the ollama package's ChatResponse is a pydantic model) -----------


class Function(pydantic.BaseModel):
    name: str
    arguments: dict[str, Any]


class ToolCall(pydantic.BaseModel):
    function: Function


class Message(pydantic.BaseModel):
    role: str
    content: str = ""
    tool_calls: list[ToolCall] | None = None


class ChatResponse(pydantic.BaseModel):
    model: str
    message: Message
    done: bool
    done_reason: str | None = None


@dataclass
class DCMessage:
    role: str
    tool_calls: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class DCResponse:
    message: DCMessage
    done: bool
    done_reason: str | None = None


def test_pydantic_and_dataclass_objects() -> None:
    objects: list[Any] = [
        ChatResponse(
            model="m",
            message=Message(
                role="assistant",
                tool_calls=[ToolCall(function=Function(name="f", arguments={"n": [1]}))],
            ),
            done=False,
        ),
        ChatResponse(model="m", message=Message(role="assistant"), done=True, done_reason="stop"),
    ]
    result = collect(objects)
    assert result.tool_calls == [{"name": "f", "args": {"n": [1]}, "id": None, "type": "tool_call"}]
    dcs = [
        DCResponse(DCMessage("assistant", [call("g", {"k": "v"})]), False),
        DCResponse(DCMessage("assistant"), True, "stop"),
    ]
    assert collect(dcs).tool_calls == [
        {"name": "g", "args": {"k": "v"}, "id": None, "type": "tool_call"}
    ]
