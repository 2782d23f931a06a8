"""Ollama ``/api/chat`` lines (``ollama``): calls whole, arguments as an object."""

from __future__ import annotations

from typing import Any

from callstream.testing._formats._shared import Shape, WireCall, loads_or_text

__all__ = ("OLLAMA_ERROR", "http_error", "write")


OLLAMA_ERROR = "an error was encountered while running the model"
"""The text of the ``{"error": ...}`` line the ``provider-error`` quirk ends an Ollama
``/api/chat`` stream with (the ollama client raises ``ResponseError`` on such a line)."""


def write(calls: list[WireCall], shape: Shape) -> list[Any]:
    out: list[Any] = []

    def line(message: dict[str, Any], **more: Any) -> dict[str, Any]:
        return {
            "model": "test-model",
            "created_at": "2026-01-01T00:00:00Z",
            "message": {"role": "assistant", "content": "", **message},
            "done": False,
            **more,
        }

    if shape.reasoning:
        out.append(line({"thinking": shape.reasoning}))
    if shape.text:
        out.append(line({"content": shape.text}))
    # newer servers give each call an id and a function.index, arguments as an object; a
    # call comes in a line of its own as the server's parser closes it, or (the
    # whole-calls quirk, as a recorded stream shows) every call of a turn in one line
    entries = [
        {
            "id": call.id,
            "function": {"index": i, "name": call.name, "arguments": loads_or_text(call.text)},
        }
        for i, call in enumerate(calls)
    ]
    if "whole-calls" in shape.quirks and entries:
        out.append(line({"tool_calls": entries}))
    else:
        out += [line({"tool_calls": [entry]}) for entry in entries]
    if shape.error:
        out.append({"error": OLLAMA_ERROR})
    elif shape.finish:
        out.append(
            line({}, done=True, done_reason="length" if shape.reason == "length" else "stop")
        )
    return out


def http_error(status: int, message: str) -> tuple[dict[str, str], Any]:
    """The extra headers and the body of an Ollama error reply for ``status``."""
    return {}, {"error": message}
