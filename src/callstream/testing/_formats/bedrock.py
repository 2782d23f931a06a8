"""Bedrock ConverseStream events (``bedrock``), as decoded ``{event type: body}`` pairs."""

from __future__ import annotations

from typing import Any

from callstream.testing._formats._shared import Shape, WireCall, in_order, interleave

__all__ = ("BEDROCK_ERRORS", "BEDROCK_STREAM_ERROR", "http_error", "write")


BEDROCK_STREAM_ERROR = {
    "message": "The model failed while streaming its response.",
    "originalStatusCode": 500,
    "originalMessage": "internal error",
}
"""The ``modelStreamErrorException`` event the ``provider-error`` quirk ends a Bedrock
stream with (its members as botocore's ``bedrock-runtime`` model has them)."""


def write(calls: list[WireCall], shape: Shape) -> list[Any]:
    q = shape.quirks
    out: list[Any] = [{"messageStart": {"role": "assistant"}}]
    index = 0
    if shape.reasoning:
        delta = {"reasoningContent": {"text": shape.reasoning}}
        out.append({"contentBlockDelta": {"delta": delta, "contentBlockIndex": index}})
        out.append({"contentBlockStop": {"contentBlockIndex": index}})
        index += 1
    if shape.text:
        out.append(
            {"contentBlockDelta": {"delta": {"text": shape.text}, "contentBlockIndex": index}}
        )
        out.append({"contentBlockStop": {"contentBlockIndex": index}})
        index += 1
    cut = shape.cuts_last
    order = interleave(calls) if "interleaved" in q else in_order(calls)
    for i, j in order:
        call = calls[i]
        if j == 0:
            start = {"toolUse": {"toolUseId": call.id, "name": call.name}}
            out.append({"contentBlockStart": {"start": start, "contentBlockIndex": index + i}})
        delta = {"toolUse": {"input": call.pieces[j]}}
        out.append({"contentBlockDelta": {"delta": delta, "contentBlockIndex": index + i}})
        if j == len(call.pieces) - 1 and not (cut and i == len(calls) - 1):
            out.append({"contentBlockStop": {"contentBlockIndex": index + i}})
    if shape.error:
        out.append({"modelStreamErrorException": dict(BEDROCK_STREAM_ERROR)})
    elif shape.finish:
        out.append({"messageStop": {"stopReason": "max_tokens" if cut else "tool_use"}})
    return out


#: the ``x-amzn-errortype`` of a Bedrock error reply, per status
BEDROCK_ERRORS = {
    400: "ValidationException",
    403: "AccessDeniedException",
    404: "ResourceNotFoundException",
    408: "ModelTimeoutException",
    424: "ModelErrorException",
    429: "ThrottlingException",
    500: "InternalServerException",
    503: "ServiceUnavailableException",
}


def http_error(status: int, message: str) -> tuple[dict[str, str], Any]:
    """The extra headers (``x-amzn-errortype``, kept even when a turn gives its own body)
    and the body of a Bedrock error reply for ``status``."""
    fallback = "InternalServerException" if status >= 500 else "ValidationException"
    return {"x-amzn-errortype": BEDROCK_ERRORS.get(status, fallback)}, {"message": message}
