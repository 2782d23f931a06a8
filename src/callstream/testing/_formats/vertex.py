"""Vertex AI chunks with streamed function-call arguments (``vertex``): each call's
arguments as ``partialArgs`` leaves, strings in pieces."""

from __future__ import annotations

from typing import Any

from callstream._errors import UnwritableCallError
from callstream.testing._formats._shared import Shape, WireCall, read_json
from callstream.testing._formats.gemini import GEMINI_ERROR, chunk, http_error, text_chunks

__all__ = ("http_error", "path_text", "scalars_in_order", "write")


def path_text(path: tuple[str | int, ...]) -> str:
    """``path`` as a Gemini ``jsonPath`` (``$.a[0]['odd key']``)."""
    out = ["$"]
    for segment in path:
        if isinstance(segment, int):
            out.append(f"[{segment}]")
        elif segment.isidentifier() and segment.isascii():
            out.append("." + segment)
        else:
            out.append("['" + segment.replace("\\", "\\\\").replace("'", "\\'") + "']")
    return "".join(out)


def scalars_in_order(value: Any) -> list[tuple[tuple[str | int, ...], Any]]:
    """(path, scalar) pairs of ``value`` in document order. Raises ``ValueError`` on an
    empty container below the top: leaves cannot express one."""
    out: list[tuple[tuple[str | int, ...], Any]] = []
    stack: list[tuple[tuple[str | int, ...], Any]] = [((), value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, dict):
            if not item and path:
                raise UnwritableCallError(
                    f"vertex partialArgs cannot express the empty object at {path_text(path)}"
                )
            stack.extend(((*path, key), child) for key, child in reversed(item.items()))
        elif isinstance(item, list):
            if not item and path:
                raise UnwritableCallError(
                    f"vertex partialArgs cannot express the empty array at {path_text(path)}"
                )
            stack.extend(((*path, i), child) for i, child in reversed(list(enumerate(item))))
        else:
            out.append((path, item))
    return out


def _leaf(path: tuple[str | int, ...], value: Any) -> dict[str, Any]:
    key = (
        "nullValue"
        if value is None
        else "boolValue"
        if isinstance(value, bool)
        else "numberValue"
        if isinstance(value, (int, float))
        else "stringValue"
    )
    return {"jsonPath": path_text(path), key: None if value is None else value}


def write(calls: list[WireCall], shape: Shape) -> list[Any]:
    out = text_chunks(shape)
    cut = shape.reason == "length"
    for n, call in enumerate(calls):
        out.append(
            chunk([{"functionCall": {"id": call.id, "name": call.name, "willContinue": True}}])
        )
        leaves = scalars_in_order(read_json(call.text))
        for path, value in leaves:
            if isinstance(value, str) and value:
                # a string streamed in pieces of the split's size
                pieces = [p for p in _cut_like(value, call) if p] or [value]
                for k, piece in enumerate(pieces):
                    leaf: dict[str, Any] = {"jsonPath": path_text(path), "stringValue": piece}
                    if k < len(pieces) - 1:
                        leaf["willContinue"] = True
                    out.append(
                        chunk([{"functionCall": {"partialArgs": [leaf], "willContinue": True}}])
                    )
            else:
                out.append(
                    chunk(
                        [
                            {
                                "functionCall": {
                                    "partialArgs": [_leaf(path, value)],
                                    "willContinue": True,
                                }
                            }
                        ]
                    )
                )
        if not (cut and n == len(calls) - 1):
            out.append(chunk([{"functionCall": {}}]))
    if shape.error:
        out.append({"error": dict(GEMINI_ERROR)})
    elif shape.finish:
        out.append(chunk([], "MAX_TOKENS" if cut else "STOP"))
    return out


def _cut_like(value: str, call: WireCall) -> list[str]:
    """``value`` cut into pieces as long as the call's argument pieces (the split)."""
    if len(call.pieces) <= 1:
        return [value]
    size = max(1, len(call.text) // len(call.pieces))
    return [value[i : i + size] for i in range(0, len(value), size)]
