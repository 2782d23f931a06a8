"""Mistral's chat chunks (``mistral``, a Chat Completions dialect): every call whole, without
``index`` or ``type``, in the chunk that carries the finish reason."""

from __future__ import annotations

from typing import Any

from callstream.testing._formats._shared import Shape, WireCall
from callstream.testing._formats.openai_chat import opening

__all__ = ("write",)


def write(calls: list[WireCall], shape: Shape) -> list[Any]:
    """Mistral's API: every call whole, without ``index`` or ``type``, all in the chunk
    that carries the finish reason (ids of 9 letters and digits)."""
    out = opening(shape)
    entries = [
        {"id": call.id, "function": {"name": call.name, "arguments": call.text}} for call in calls
    ]
    last = out[-1]
    choice = {
        "index": 0,
        "delta": {"tool_calls": entries},
        "finish_reason": shape.reason if shape.finish else None,
    }
    if entries or shape.finish:
        out.append(dict(last, choices=[choice]))
    return out
