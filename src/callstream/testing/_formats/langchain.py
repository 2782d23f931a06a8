"""LangChain ``AIMessageChunk`` dumps (``langchain``): ``tool_call_chunks`` per piece."""

from __future__ import annotations

from typing import Any

from callstream.testing._formats._shared import Shape, WireCall, in_order, interleave

__all__ = ("write",)


def write(calls: list[WireCall], shape: Shape) -> list[Any]:
    def message(content: Any = "", chunks: list[Any] | None = None, **more: Any) -> dict[str, Any]:
        return {
            "type": "AIMessageChunk",
            "content": content,
            "tool_call_chunks": chunks or [],
            "additional_kwargs": {},
            "response_metadata": {},
            **more,
        }

    out: list[Any] = []
    if shape.reasoning:
        out.append(message([{"type": "reasoning", "reasoning": shape.reasoning}]))
    if shape.text:
        out.append(message(shape.text))
    order = interleave(calls) if "interleaved" in shape.quirks else in_order(calls)
    for i, j in order:
        call = calls[i]
        first = j == 0
        chunk = {
            "type": "tool_call_chunk",
            "index": i,
            "args": call.pieces[j],
            "id": call.id if first else None,
            "name": call.name if first else None,
        }
        out.append(message("", [chunk]))
    if shape.finish:
        reason = "length" if shape.reason == "length" else "tool_calls"
        out.append(message("", response_metadata={"finish_reason": reason}, chunk_position="last"))
    return out
