"""One owner of "at most one end of stream": translators report every end marker, the
assembler keeps the first and ignores every later signal (issue 12)."""

from __future__ import annotations

from typing import Any

import pytest

from callstream import ToolCallAssembler, collect
from callstream._assembly.types import StreamEnd
from callstream.providers import get_translator


def anthropic_stream() -> list[Any]:
    block = {"type": "tool_use", "id": "t1", "name": "f", "input": {}}
    return [
        {"type": "content_block_start", "index": 0, "content_block": block},
        {"type": "content_block_delta", "index": 0,
         "delta": {"type": "input_json_delta", "partial_json": '{"a": 1}'}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"}},
        {"type": "message_stop"},
        {"type": "error", "error": {"type": "overloaded_error", "message": "late"}},
    ]  # fmt: skip


def bedrock_stream() -> list[Any]:
    start = {"toolUse": {"toolUseId": "t1", "name": "f"}}
    return [
        {"contentBlockStart": {"contentBlockIndex": 0, "start": start}},
        {"contentBlockDelta": {"contentBlockIndex": 0,
                               "delta": {"toolUse": {"input": '{"a": 1}'}}}},
        {"contentBlockStop": {"contentBlockIndex": 0}},
        {"messageStop": {"stopReason": "tool_use"}},
        {"messageStop": {"stopReason": "max_tokens"}},
        {"throttlingException": {"message": "late"}},
    ]  # fmt: skip


def cohere_stream() -> list[Any]:
    call = {"id": "t1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}
    return [
        {"type": "tool-call-start", "index": 0, "delta": {"message": {"tool_calls": call}}},
        {"type": "tool-call-end", "index": 0},
        {"type": "message-end", "delta": {"finish_reason": "TOOL_CALL"}},
        {"type": "message-end", "delta": {"finish_reason": "ERROR", "error": "late"}},
    ]


def gemini_stream() -> list[Any]:
    part = {"functionCall": {"id": "t1", "name": "f", "args": {"a": 1}}}
    return [
        {"candidates": [{"content": {"parts": [part]}, "finishReason": "STOP"}]},
        {"candidates": [{"finishReason": "MAX_TOKENS"}]},
        {"error": {"code": 500, "message": "late"}},
    ]


def langchain_stream() -> list[Any]:
    def message(chunks: list[Any], **fields: Any) -> dict[str, Any]:
        return {"tool_call_chunks": chunks, "content": "", **fields}

    chunk = {"name": "f", "args": '{"a": 1}', "id": "t1", "index": 0}
    return [
        message([chunk]),
        message([], response_metadata={"finish_reason": "tool_calls"}),
        message([], chunk_position="last"),
        message([{"name": "g", "args": "{}", "id": "t2", "index": 1}]),
    ]


STREAMS = {
    "anthropic": (anthropic_stream, "tool_use"),
    "bedrock": (bedrock_stream, "tool_use"),
    "cohere": (cohere_stream, "TOOL_CALL"),
    "gemini": (gemini_stream, "STOP"),
    "langchain": (langchain_stream, "tool_calls"),
}


@pytest.mark.parametrize("fmt", sorted(STREAMS))
def test_translators_report_every_end_and_the_assembler_keeps_the_first(fmt: str) -> None:
    make, reason = STREAMS[fmt]
    translator = get_translator(fmt)
    signals = [s for payload in make() for s in translator.translate(payload)]
    assert sum(isinstance(s, StreamEnd) for s in signals) >= 2  # every end is reported
    assembler = ToolCallAssembler()
    assembler.apply(signals)  # late signals are ignored, never an AssemblerStateError
    assert assembler.finished and assembler.finish_reason == reason
    assert assembler.tool_calls == [
        {"name": "f", "args": {"a": 1}, "id": "t1", "type": "tool_call"}
    ]
    assert assembler.invalid_tool_calls == []


@pytest.mark.parametrize("fmt", sorted(STREAMS))
def test_the_drivers_keep_the_first_end(fmt: str) -> None:
    make, reason = STREAMS[fmt]
    result = collect(make(), provider=fmt)
    assert result.finish_reason == reason
    assert result.tool_calls == [{"name": "f", "args": {"a": 1}, "id": "t1", "type": "tool_call"}]
    assert result.invalid_tool_calls == []
