"""The finish reason: one vocabulary for every format, and the provider's own word kept.

``finish_reason`` says "length" for every token limit and "error" for a provider error
event; other reasons pass through. ``provider_finish_reason`` is the word as sent.
"""

from __future__ import annotations

from typing import Any

import pytest

import callstream
from callstream import ToolCallAssembler
from callstream._errors import ChunkValidationError

CALL = {"index": 0, "id": "call_1", "type": "function"}


def _chat(reason: str) -> list[dict[str, Any]]:
    return [
        {
            "object": "chat.completion.chunk",
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "tool_calls": [{**CALL, "function": {"name": "f", "arguments": '{"a": 1}'}}]
                    },
                }
            ],
        },
        {"object": "chat.completion.chunk", "choices": [{"index": 0, "finish_reason": reason}]},
    ]


def _anthropic(reason: str) -> list[dict[str, Any]]:
    return [
        {"type": "message_start", "message": {"id": "m", "content": []}},
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "tool_use", "id": "t", "name": "f", "input": {}},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": '{"a": 1}'},
        },
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": reason}},
        {"type": "message_stop"},
    ]


def _gemini(reason: str) -> list[dict[str, Any]]:
    return [
        {
            "candidates": [
                {
                    "content": {"parts": [{"functionCall": {"name": "f", "args": {"a": 1}}}]},
                    "finishReason": reason,
                }
            ]
        }
    ]


def _bedrock(reason: str) -> list[dict[str, Any]]:
    return [
        {"messageStart": {"role": "assistant"}},
        {
            "contentBlockStart": {
                "contentBlockIndex": 0,
                "start": {"toolUse": {"toolUseId": "t", "name": "f"}},
            }
        },
        {
            "contentBlockDelta": {
                "contentBlockIndex": 0,
                "delta": {"toolUse": {"input": '{"a": 1}'}},
            }
        },
        {"contentBlockStop": {"contentBlockIndex": 0}},
        {"messageStop": {"stopReason": reason}},
    ]


def _cohere(reason: str) -> list[dict[str, Any]]:
    return [
        {"type": "message-start", "id": "m"},
        {
            "type": "tool-call-start",
            "index": 0,
            "delta": {
                "message": {
                    "tool_calls": {
                        "id": "t",
                        "type": "function",
                        "function": {"name": "f", "arguments": ""},
                    }
                }
            },
        },
        {
            "type": "tool-call-delta",
            "index": 0,
            "delta": {"message": {"tool_calls": {"function": {"arguments": '{"a": 1}'}}}},
        },
        {"type": "tool-call-end", "index": 0},
        {"type": "message-end", "delta": {"finish_reason": reason}},
    ]


def _ollama(reason: str) -> list[dict[str, Any]]:
    return [
        {
            "model": "m",
            "message": {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"function": {"name": "f", "arguments": {"a": 1}}}],
            },
            "done": False,
        },
        {
            "model": "m",
            "message": {"role": "assistant", "content": ""},
            "done": True,
            "done_reason": reason,
        },
    ]


CASES = [
    ("openai-chat", _chat, "tool_calls", "tool_calls"),
    ("openai-chat", _chat, "length", "length"),
    ("openai-chat", _chat, "eos_token", "stop"),
    ("anthropic", _anthropic, "tool_use", "tool_use"),
    ("anthropic", _anthropic, "max_tokens", "length"),
    ("anthropic", _anthropic, "model_context_window_exceeded", "length"),
    ("gemini", _gemini, "STOP", "STOP"),
    ("gemini", _gemini, "MAX_TOKENS", "length"),
    ("bedrock", _bedrock, "tool_use", "tool_use"),
    ("bedrock", _bedrock, "max_tokens", "length"),
    ("cohere", _cohere, "TOOL_CALL", "TOOL_CALL"),
    ("cohere", _cohere, "MAX_TOKENS", "length"),
    ("ollama", _ollama, "stop", "stop"),
    ("ollama", _ollama, "length", "length"),
]


@pytest.mark.parametrize(("provider", "make", "word", "normalized"), CASES)
def test_normalized_reason_and_provider_word(
    provider: str, make: Any, word: str, normalized: str
) -> None:
    for source_provider in (provider, "auto"):
        result = callstream.collect(make(word), provider=source_provider)
        assert result.finish_reason == normalized
        assert result.provider_finish_reason == word
        with callstream.stream(make(word), provider=provider) as st:
            for _ in st:
                pass
            assert st.finish_reason == normalized
            assert st.provider_finish_reason == word


def _responses(last: dict[str, Any], delta: str = '{"a": 1}') -> list[dict[str, Any]]:
    item = {"type": "function_call", "id": "fc", "call_id": "c", "name": "f", "arguments": ""}
    return [
        {"type": "response.created", "response": {"id": "r", "status": "in_progress"}},
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {
            "type": "response.function_call_arguments.delta",
            "item_id": "fc",
            "output_index": 0,
            "delta": delta,
        },
        last,
    ]


def test_responses_completed_and_incomplete() -> None:
    done = callstream.collect(
        _responses({"type": "response.completed", "response": {"id": "r", "status": "completed"}})
    )
    assert (done.finish_reason, done.provider_finish_reason) == ("tool_calls", "completed")
    cut = callstream.collect(
        _responses(
            {
                "type": "response.incomplete",
                "response": {"id": "r", "incomplete_details": {"reason": "max_output_tokens"}},
            },
            delta='{"a": ',
        )
    )
    assert (cut.finish_reason, cut.provider_finish_reason) == ("length", "max_output_tokens")
    assert cut.invalid_tool_calls and not cut.tool_calls  # the open call was cut off
    assert "cut off" in cut.invalid_tool_calls[0]["error"]


def test_error_events_say_error_with_no_provider_word() -> None:
    events = _anthropic("tool_use")[:3] + [
        {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    ]
    result = callstream.collect(events)
    assert (result.finish_reason, result.provider_finish_reason) == ("error", None)


def test_langchain_token_limit_is_length_like_the_other_formats() -> None:
    messages = pytest.importorskip("langchain_core.messages")
    chunks = [
        messages.AIMessageChunk(
            content="",
            tool_call_chunks=[{"name": "f", "args": '{"a": 1}', "id": "t", "index": 0}],
        ),
        messages.AIMessageChunk(content="", response_metadata={"stop_reason": "max_tokens"}),
    ]
    result = callstream.collect(chunks)
    assert (result.finish_reason, result.provider_finish_reason) == ("length", "max_tokens")
    assert [c["args"] for c in result.tool_calls] == [{"a": 1}]  # complete: stays valid


def test_interrupted_stream_has_no_finish_reason() -> None:
    def source() -> Any:
        yield from _chat("stop")[:1]
        raise ConnectionError("dropped")

    with pytest.raises(ConnectionError) as info:
        callstream.collect(source())
    partial = info.value.callstream_result  # type: ignore[attr-defined]
    assert (partial.finish_reason, partial.provider_finish_reason) == (None, None)


def test_assembler_keeps_the_provider_word() -> None:
    asm = ToolCallAssembler()
    asm.finish("length", provider_reason="MAX_TOKENS")
    assert (asm.finish_reason, asm.provider_finish_reason) == ("length", "MAX_TOKENS")
    with pytest.raises(ChunkValidationError, match="provider_reason"):
        ToolCallAssembler().finish("stop", provider_reason=1)  # type: ignore[arg-type]
