"""Cohere v2 chat stream events (``cohere``)."""

from __future__ import annotations

from typing import Any

from callstream.testing._formats._shared import Shape, WireCall

__all__ = ("COHERE_ERROR", "write")


COHERE_ERROR = "an internal error occurred during generation"
"""The ``delta.error`` of the ``message-end`` event (``finish_reason`` ``ERROR``) the
``provider-error`` quirk ends a Cohere v2 stream with."""


def write(calls: list[WireCall], shape: Shape) -> list[Any]:
    message = {"role": "assistant", "content": [], "tool_plan": "", "tool_calls": []}
    out: list[Any] = [{"id": "m_t", "type": "message-start", "delta": {"message": message}}]
    if shape.reasoning:
        out.append(
            {
                "type": "content-delta",
                "index": 0,
                "delta": {"message": {"content": {"thinking": shape.reasoning}}},
            }
        )
    if shape.text:
        out.append(
            {
                "type": "content-start",
                "index": 0,
                "delta": {"message": {"content": {"type": "text", "text": ""}}},
            }
        )
        out.append(
            {
                "type": "content-delta",
                "index": 0,
                "delta": {"message": {"content": {"text": shape.text}}},
            }
        )
        out.append({"type": "content-end", "index": 0})
    cut = shape.cuts_last
    for i, call in enumerate(calls):
        entry = {
            "id": call.id,
            "type": "function",
            "function": {"name": call.name, "arguments": ""},
        }
        out.append(
            {"type": "tool-call-start", "index": i, "delta": {"message": {"tool_calls": entry}}}
        )
        for piece in call.pieces:
            delta = {"message": {"tool_calls": {"function": {"arguments": piece}}}}
            out.append({"type": "tool-call-delta", "index": i, "delta": delta})
        if not (cut and i == len(calls) - 1):
            out.append({"type": "tool-call-end", "index": i})
    if shape.error:
        failed = {"finish_reason": "ERROR", "error": COHERE_ERROR}
        out.append({"type": "message-end", "delta": failed})
    elif shape.finish:
        out.append(
            {
                "type": "message-end",
                "delta": {"finish_reason": "MAX_TOKENS" if cut else "TOOL_CALL"},
            }
        )
    return out
