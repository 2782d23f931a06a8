"""Gemini ``streamGenerateContent`` chunks (``gemini``): every call whole, arguments as an
object; the chunk and error shapes Vertex shares."""

from __future__ import annotations

from typing import Any

from callstream.testing._formats._shared import Shape, WireCall, loads_or_text

__all__ = ("GEMINI_ERROR", "GOOGLE_ERRORS", "chunk", "http_error", "text_chunks", "write")


def chunk(parts: list[Any], reason: str | None = None) -> dict[str, Any]:
    """One chunk of one candidate holding ``parts`` (and its ``finishReason``, if given)."""
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if reason is not None:
        candidate["finishReason"] = reason
    return {"candidates": [candidate], "modelVersion": "test-model"}


def text_chunks(shape: Shape) -> list[Any]:
    """The chunks of ``shape``'s reasoning (a thought part) and text, before the calls."""
    out: list[Any] = []
    if shape.reasoning:
        out.append(chunk([{"text": shape.reasoning, "thought": True}]))
    if shape.text:
        out.append(chunk([{"text": shape.text}]))
    return out


GEMINI_ERROR = {
    "code": 503,
    "message": "The model is overloaded. Please try again later.",
    "status": "UNAVAILABLE",
}
"""The Google API error the ``provider-error`` quirk ends a Gemini or Vertex stream with,
as one more chunk ``{"error": ...}`` (google-genai raises its ``APIError`` on such a
chunk of a stream)."""


def write(calls: list[WireCall], shape: Shape) -> list[Any]:
    out = text_chunks(shape)
    for call in calls:
        part = {
            "functionCall": {"id": call.id, "name": call.name, "args": loads_or_text(call.text)}
        }
        out.append(chunk([part]))
    if shape.error:
        out.append({"error": dict(GEMINI_ERROR)})
    elif shape.finish:
        out.append(chunk([], "MAX_TOKENS" if shape.reason == "length" else "STOP"))
    return out


#: the ``error.status`` of a Google API error body, per status
GOOGLE_ERRORS = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    409: "ABORTED",
    429: "RESOURCE_EXHAUSTED",
    499: "CANCELLED",
    500: "INTERNAL",
    501: "NOT_IMPLEMENTED",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


def http_error(status: int, message: str) -> tuple[dict[str, str], Any]:
    """The extra headers and the body of a Google API error reply (Gemini and Vertex alike)
    for ``status``."""
    word = GOOGLE_ERRORS.get(status, "INTERNAL" if status >= 500 else "FAILED_PRECONDITION")
    return {}, {"error": {"code": status, "message": message, "status": word}}
