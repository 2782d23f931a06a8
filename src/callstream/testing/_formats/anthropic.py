"""Anthropic Messages events (``anthropic``): thinking, text and ``tool_use`` blocks."""

from __future__ import annotations

from typing import Any

from callstream.testing._formats._shared import Shape, WireCall

__all__ = ("ANTHROPIC_ERRORS", "ANTHROPIC_OVERLOADED", "http_error", "write")


ANTHROPIC_OVERLOADED = {
    "type": "error",
    "error": {"type": "overloaded_error", "message": "Overloaded"},
}


def write(calls: list[WireCall], shape: Shape) -> list[Any]:
    q = shape.quirks
    message: dict[str, Any] = {
        "id": "msg_t",
        "type": "message",
        "role": "assistant",
        "model": "test-model",
        "content": [],
        "stop_reason": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    out: list[Any] = [{"type": "message_start", "message": message}]
    index = 0
    if shape.reasoning:
        block: dict[str, Any] = {"type": "thinking", "thinking": "", "signature": ""}
        out.append({"type": "content_block_start", "index": index, "content_block": block})
        out.append(
            {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "thinking_delta", "thinking": shape.reasoning},
            }
        )
        out.append({"type": "content_block_stop", "index": index})
        index += 1
    if shape.text:
        block = {"type": "text", "text": ""}
        out.append({"type": "content_block_start", "index": index, "content_block": block})
        out.append(
            {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "text_delta", "text": shape.text},
            }
        )
        out.append({"type": "content_block_stop", "index": index})
        index += 1
    cut = shape.reason == "length"
    for n, call in enumerate(calls):
        block = {"type": "tool_use", "id": call.id, "name": call.name, "input": {}}
        out.append({"type": "content_block_start", "index": index, "content_block": block})
        pieces = ("", *call.pieces) if "empty-first-fragment" in q else call.pieces
        for piece in pieces:
            delta = {"type": "input_json_delta", "partial_json": piece}
            out.append({"type": "content_block_delta", "index": index, "delta": delta})
        last = n == len(calls) - 1
        if shape.error and last:
            out.append(ANTHROPIC_OVERLOADED)
            return out
        if not (cut and last):
            out.append({"type": "content_block_stop", "index": index})
        index += 1
    if shape.finish:
        reason = "max_tokens" if cut else "tool_use"
        out.append(
            {
                "type": "message_delta",
                "delta": {"stop_reason": reason},
                "usage": {"output_tokens": 1},
            }
        )
        out.append({"type": "message_stop"})
    return out


#: the ``error.type`` of Anthropic's error body, per status
ANTHROPIC_ERRORS = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    504: "timeout_error",
    529: "overloaded_error",
}


def http_error(status: int, message: str) -> tuple[dict[str, str], Any]:
    """The extra headers and the body of an Anthropic error reply for ``status``."""
    kind = ANTHROPIC_ERRORS.get(status, "api_error" if status >= 500 else "invalid_request_error")
    error = {"type": kind, "message": message}
    return {}, {"type": "error", "error": error, "request_id": "req_callstream_mock"}
