"""The one dispatch shape and the one never-raise rule of every translator
(``callstream.providers._base``): a kind the handler table does not hold gives ``[]``; a
handler that raises gives one invalid call with a readable reason, the stream and its
other calls go on; malformed data of a known kind fails its call with the reason."""

from __future__ import annotations

import importlib
from typing import Any

import pytest

import callstream
from callstream._assembly.types import CallFailure
from callstream.providers import get_translator

#: The module holding each format's handler table.
MODULES = {
    "openai-chat": "openai_chat",
    "openai-responses": "openai_responses",
    "anthropic": "anthropic",
    "gemini": "gemini",
    "bedrock": "bedrock",
    "cohere": "cohere",
    "ollama": "ollama",
    "langchain": "_langchain_events",  # its handler table is the protocol events' reader's
}

#: Per format: a payload of a kind its table does not hold (a later API's event).
UNKNOWN: dict[str, Any] = {
    "openai-chat": {"object": "chat.completion.chunk", "usage": {"total_tokens": 3}},
    "openai-responses": {"type": "response.brand_new.delta", "delta": "x"},
    "anthropic": {"type": "brand_new_event", "index": 0},
    "gemini": {"usageMetadata": {"totalTokenCount": 3}},
    "bedrock": {"metadata": {"usage": {"totalTokens": 3}}},
    "cohere": {"type": "citation-start", "index": 0},
    "ollama": {"model": "llama3", "created_at": "2025-01-01T00:00:00Z"},
    "langchain": {"type": "values", "ns": [], "data": {"messages": []}},
}

#: Per format: a payload of a known kind, and that kind.
KNOWN: dict[str, tuple[Any, str]] = {
    "openai-chat": ({"error": {"message": "overloaded"}}, "error"),
    "openai-responses": (
        {"type": "response.output_text.delta", "delta": "hi"},
        "response.output_text.delta",
    ),
    "anthropic": ({"type": "message_start", "message": {}}, "message_start"),
    "gemini": ({"candidates": [{"content": {"parts": [{"text": "hi"}]}}]}, "candidates"),
    "bedrock": ({"messageStart": {"role": "assistant"}}, "messageStart"),
    "cohere": ({"type": "message-start", "id": "m"}, "message-start"),
    "ollama": ({"message": {"role": "assistant", "content": "hi"}, "done": False}, "message"),
    "langchain": ({"event": "message-start", "role": "ai"}, "message-start"),
}


@pytest.mark.parametrize("fmt", MODULES)
def test_an_unknown_kind_is_ignored(fmt: str) -> None:
    assert get_translator(fmt).translate(UNKNOWN[fmt]) == []


@pytest.mark.parametrize("fmt", MODULES)
def test_a_handler_that_raises_gives_one_invalid_call_with_the_reason(
    fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    payload, kind = KNOWN[fmt]
    module = importlib.import_module(f"callstream.providers.{MODULES[fmt]}")

    def broken(translator: Any, payload: Any) -> Any:
        raise KeyError("boom")

    monkeypatch.setitem(module._HANDLERS, kind, broken)
    signals = get_translator(fmt).translate(payload)
    assert signals == [
        CallFailure(error=f"{fmt} {kind} payload could not be read (KeyError: 'boom')")
    ]


def test_the_other_calls_survive_a_payload_that_could_not_be_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from callstream.providers import anthropic

    read = anthropic._HANDLERS["content_block_delta"]

    def broken_on_marker(translator: Any, payload: Any) -> Any:
        if payload.get("marker"):
            raise RecursionError("too deep")
        return read(translator, payload)

    monkeypatch.setitem(anthropic._HANDLERS, "content_block_delta", broken_on_marker)

    def call(index: int, name: str, args: str) -> list[dict[str, Any]]:
        block = {"type": "tool_use", "id": f"t{index}", "name": name, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": args}
        return [
            {"type": "content_block_start", "index": index, "content_block": block},
            {"type": "content_block_delta", "index": index, "delta": delta},
            {"type": "content_block_stop", "index": index},
        ]

    marker = {"type": "content_block_delta", "index": 5, "delta": {}, "marker": True}
    payloads = [*call(0, "f", '{"a": 1}'), marker, *call(1, "g", '{"b": 2}')]
    result = callstream.collect([*payloads, {"type": "message_stop"}], provider="anthropic")
    assert [(c["id"], c["args"]) for c in result.tool_calls] == [("t0", {"a": 1}), ("t1", {"b": 2})]
    assert [c["error"] for c in result.invalid_tool_calls] == [
        "anthropic content_block_delta payload could not be read (RecursionError: too deep)"
    ]


def _chat(entry: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": {"tool_calls": [entry]}, "finish_reason": finish}]}


#: Per format: payloads with malformed data of a known kind, and a part of the reason the
#: call they name fails with.
MALFORMED: dict[str, tuple[list[Any], str]] = {
    "openai-chat": (
        [_chat({"index": True, "id": "c", "function": {"name": "f", "arguments": "{}"}}, "stop")],
        "unusable index true",
    ),
    "openai-responses": (
        [
            {
                "type": "response.output_item.added",
                "output_index": "abc",
                "item": {"type": "function_call", "call_id": "c", "name": "f", "arguments": ""},
            },
            {"type": "response.completed", "response": {}},
        ],
        'unusable output_index "abc"',
    ),
    "anthropic": (
        [
            {
                "type": "content_block_start",
                "index": -1,
                "content_block": {"type": "tool_use", "id": "t", "name": "f", "input": {}},
            },
            {"type": "message_stop"},
        ],
        "unusable index -1",
    ),
    "gemini": (
        [
            {
                "candidates": [
                    {
                        "content": {
                            "parts": [
                                {"functionCall": {"name": "f", "willContinue": True}},
                                {
                                    "functionCall": {
                                        "partialArgs": [{"jsonPath": "no path", "stringValue": "x"}]
                                    }
                                },
                            ]
                        },
                        "finishReason": "STOP",
                    }
                ]
            }
        ],
        "streamed arguments",
    ),
    "bedrock": (
        [
            {
                "contentBlockStart": {
                    "contentBlockIndex": "x",
                    "start": {"toolUse": {"toolUseId": "t", "name": "f"}},
                }
            },
            {"messageStop": {"stopReason": "tool_use"}},
        ],
        'unusable contentBlockIndex "x"',
    ),
    "cohere": (
        [
            {
                "type": "tool-call-start",
                "index": 1.5,
                "delta": {"message": {"tool_calls": {"id": "t", "function": {"name": "f"}}}},
            },
            {"type": "message-end", "delta": {"finish_reason": "TOOL_CALL"}},
        ],
        "unusable index 1.5",
    ),
    "ollama": (
        [
            {
                "message": {"tool_calls": [{"function": {"name": "f", "arguments": {1j: 2}}}]},
                "done": True,
                "done_reason": "stop",
            }
        ],
        "not JSON data",
    ),
    "langchain": (
        [
            {
                "event": "content-block-start",
                "index": True,
                "content": {"type": "tool_call_chunk", "id": "t", "name": "f", "args": ""},
            },
            {"event": "message-finish", "metadata": {"finish_reason": "tool_calls"}},
        ],
        "unusable LangChain content-block index true",
    ),
}


@pytest.mark.parametrize("fmt", MODULES)
def test_malformed_data_of_a_known_kind_fails_its_call_with_the_reason(fmt: str) -> None:
    payloads, reason = MALFORMED[fmt]
    result = callstream.collect(payloads, provider=fmt)
    assert result.tool_calls == []
    errors = [c["error"] for c in result.invalid_tool_calls]
    assert len(errors) == 1 and reason in errors[0], errors
