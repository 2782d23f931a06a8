"""Structured-output streams of our own, per provider format, as payload dicts.

``payloads(fmt, pieces, finish)`` is the stream a model of format ``fmt`` sends when it
writes ``pieces`` as its answer text (after a little reasoning, which the structured
reader must ignore) and stops for ``finish``: ``"stop"`` or ``"length"`` (the token limit).
"""

from __future__ import annotations

from typing import Any

__all__ = ("FORMATS", "payloads", "split_text")

FORMATS = (
    "anthropic",
    "bedrock",
    "cohere",
    "gemini",
    "langchain",
    "ollama",
    "openai-chat",
    "openai-responses",
)

REASONING = "The user wants JSON. {not: json}"


def split_text(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def _chat(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1_700_000_000,
        "model": "gpt-test",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def _openai_chat(pieces: list[str], finish: str) -> list[dict[str, Any]]:
    out = [_chat({"role": "assistant", "content": "", "reasoning_content": REASONING})]
    out += [_chat({"content": piece}) for piece in pieces]
    out.append(_chat({}, "length" if finish == "length" else "stop"))
    return out


def _responses(pieces: list[str], finish: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [
        {"type": "response.created", "response": {"id": "resp_1", "status": "in_progress"}},
        {"type": "response.reasoning_summary_text.delta", "delta": REASONING, "output_index": 0},
        {
            "type": "response.output_item.added",
            "output_index": 1,
            "item": {"type": "message", "id": "msg_1", "role": "assistant", "content": []},
        },
    ]
    out += [
        {"type": "response.output_text.delta", "delta": piece, "output_index": 1} for piece in pieces
    ]
    if finish == "length":
        out.append(
            {
                "type": "response.incomplete",
                "response": {
                    "id": "resp_1",
                    "status": "incomplete",
                    "incomplete_details": {"reason": "max_output_tokens"},
                },
            }
        )
    else:
        out.append(
            {"type": "response.completed", "response": {"id": "resp_1", "status": "completed"}}
        )
    return out


def _anthropic(pieces: list[str], finish: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [
        {"type": "message_start", "message": {"id": "msg_1", "content": []}},
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "thinking", "thinking": "", "signature": ""},
        },
        {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": REASONING}},
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
    ]
    out += [
        {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": piece}}
        for piece in pieces
    ]
    out.append({"type": "content_block_stop", "index": 1})
    reason = "max_tokens" if finish == "length" else "end_turn"
    out.append({"type": "message_delta", "delta": {"stop_reason": reason}})
    out.append({"type": "message_stop"})
    return out


def _gemini(pieces: list[str], finish: str) -> list[dict[str, Any]]:
    def chunk(part: dict[str, Any], reason: str | None = None) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": [part]}, "index": 0}
        if reason is not None:
            candidate["finishReason"] = reason
        return {"candidates": [candidate], "modelVersion": "gemini-test"}

    out = [chunk({"text": REASONING, "thought": True})]
    out += [chunk({"text": piece}) for piece in pieces]
    out.append(chunk({"text": ""}, "MAX_TOKENS" if finish == "length" else "STOP"))
    return out


def _bedrock(pieces: list[str], finish: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [
        {"messageStart": {"role": "assistant"}},
        {
            "contentBlockDelta": {
                "contentBlockIndex": 0,
                "delta": {"reasoningContent": {"text": REASONING}},
            }
        },
        {"contentBlockStop": {"contentBlockIndex": 0}},
    ]
    out += [
        {"contentBlockDelta": {"contentBlockIndex": 1, "delta": {"text": piece}}} for piece in pieces
    ]
    out.append({"contentBlockStop": {"contentBlockIndex": 1}})
    out.append({"messageStop": {"stopReason": "max_tokens" if finish == "length" else "end_turn"}})
    return out


def _cohere(pieces: list[str], finish: str) -> list[dict[str, Any]]:
    def content(part: dict[str, Any]) -> dict[str, Any]:
        return {"type": "content-delta", "index": 0, "delta": {"message": {"content": part}}}

    out: list[dict[str, Any]] = [
        {"type": "message-start", "id": "m", "delta": {"message": {"role": "assistant"}}},
        content({"thinking": REASONING}),
    ]
    out += [content({"text": piece}) for piece in pieces]
    reason = "MAX_TOKENS" if finish == "length" else "COMPLETE"
    out.append({"type": "message-end", "delta": {"finish_reason": reason}})
    return out


def _ollama(pieces: list[str], finish: str) -> list[dict[str, Any]]:
    def line(content: str, thinking: str | None = None, done: bool = False) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if thinking is not None:
            message["thinking"] = thinking
        out: dict[str, Any] = {"model": "qwen3", "message": message, "done": done}
        if done:
            out["done_reason"] = "length" if finish == "length" else "stop"
        return out

    return [line("", REASONING)] + [line(piece) for piece in pieces] + [line("", done=True)]


def _langchain(pieces: list[str], finish: str) -> list[dict[str, Any]]:
    def chunk(content: Any, **fields: Any) -> dict[str, Any]:
        return {"content": content, "tool_call_chunks": [], "response_metadata": {}, **fields}

    out = [chunk([{"type": "reasoning", "reasoning": REASONING}])]
    out += [chunk(piece) for piece in pieces]
    reason = "length" if finish == "length" else "stop"
    out.append(chunk("", response_metadata={"finish_reason": reason}))
    return out


_BUILDERS = {
    "anthropic": _anthropic,
    "bedrock": _bedrock,
    "cohere": _cohere,
    "gemini": _gemini,
    "langchain": _langchain,
    "ollama": _ollama,
    "openai-chat": _openai_chat,
    "openai-responses": _responses,
}


def payloads(fmt: str, pieces: list[str], finish: str = "stop") -> list[dict[str, Any]]:
    """The payloads of format ``fmt`` writing ``pieces`` then stopping for ``finish``."""
    return _BUILDERS[fmt]([piece for piece in pieces if piece], finish)
