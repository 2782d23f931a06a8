"""OpenAI Chat Completions chunks (``openai-chat``; Groq's whole calls and its failed-call
error, and the other Chat dialects' quirks)."""

from __future__ import annotations

from typing import Any

from callstream.testing._formats._shared import Shape, WireCall, in_order, interleave, loads_or_text

__all__ = ("GROQ_TOOL_USE_FAILED", "OPENAI_ERRORS", "chunk", "http_error", "opening", "write")


GROQ_TOOL_USE_FAILED = (
    "Failed to call a function. Please adjust your prompt. "
    "See 'failed_generation' for more details."
)


def _chat_key(entry: dict[str, Any], i: int, q: frozenset[str]) -> dict[str, Any]:
    if "missing-index" not in q:
        entry["index"] = 0 if "shared-index" in q else i
    return entry


def _chat_whole(calls: list[WireCall], q: frozenset[str]) -> list[dict[str, Any]]:
    """Every call whole: one ``tool_calls`` entry each (arguments as an object or text)."""
    entries = []
    for i, call in enumerate(calls):
        args: Any = loads_or_text(call.text) if "arguments-object" in q else call.text
        function = {"name": call.name, "arguments": args}
        entries.append(_chat_key({"id": call.id, "type": "function", "function": function}, i, q))
    return entries


def _chat_fragments(calls: list[WireCall], q: frozenset[str]) -> list[dict[str, Any]]:
    """One ``tool_calls`` entry per argument fragment, in stream order."""
    out = []
    order = interleave(calls) if "interleaved" in q else in_order(calls)
    for i, j in order:
        call = calls[i]
        named = j == 0 or "resent-ids" in q
        if j == 0 and "empty-first-fragment" in q:
            function = {"name": call.name, "arguments": ""}
            out.append(_chat_key({"id": call.id, "type": "function", "function": function}, i, q))
            named = "resent-ids" in q
        # cumulative-arguments: the text so far on every chunk, not the new piece
        piece = "".join(call.pieces[: j + 1]) if "cumulative-arguments" in q else call.pieces[j]
        entry: dict[str, Any] = {"function": {"arguments": piece}}
        if named:
            entry.update(id=call.id, type="function")
            entry["function"]["name"] = call.name
        out.append(_chat_key(entry, i, q))
    return out


def chunk(delta: dict[str, Any], reason: str | None = None) -> dict[str, Any]:
    """One ``chat.completion.chunk`` whose one choice carries ``delta`` (and ``reason``)."""
    choice = {"index": 0, "delta": delta, "finish_reason": reason}
    return {
        "id": "chatcmpl-t",
        "object": "chat.completion.chunk",
        "created": 1_760_000_000,
        "model": "test-model",
        "choices": [choice],
    }


def opening(shape: Shape) -> list[Any]:
    """The chunks before the calls: the role, then ``shape``'s reasoning and text."""
    out = [chunk({"role": "assistant", "content": None})]
    if shape.reasoning:
        out.append(chunk({"reasoning_content": shape.reasoning}))
    if shape.text:
        out.append(chunk({"content": shape.text}))
    return out


def write(calls: list[WireCall], shape: Shape) -> list[Any]:
    """The chunks of ``calls`` as OpenAI Chat Completions streams them (the quirks of the
    Chat dialects applied: see ``callstream.testing._stream``)."""
    q = shape.quirks
    out = opening(shape)
    if "whole-calls" in q or "arguments-object" in q:
        # Groq and Mistral send every call of a turn in one delta
        out.append(chunk({"tool_calls": _chat_whole(calls, q)}))
    else:
        out += [chunk({"tool_calls": [entry]}) for entry in _chat_fragments(calls, q)]
    if shape.error:
        failed = calls[-1]
        error = {
            "message": GROQ_TOOL_USE_FAILED,
            "type": "invalid_request_error",
            "code": "tool_use_failed",
            "failed_generation": f"<function={failed.name}>{failed.text}</function>",
        }
        out.append({"error": error})
        return out
    if shape.finish:
        out.append(chunk({}, shape.reason))
    return out


#: the ``error.type`` and ``error.code`` of OpenAI's error body, per status
OPENAI_ERRORS = {
    401: ("invalid_request_error", "invalid_api_key"),
    404: ("invalid_request_error", "model_not_found"),
    429: ("requests", "rate_limit_exceeded"),
}


def http_error(status: int, message: str) -> tuple[dict[str, str], Any]:
    """The extra headers and the body of an OpenAI error reply (Chat Completions and
    Responses alike) for ``status``."""
    fallback_type = "server_error" if status >= 500 else "invalid_request_error"
    kind, code = OPENAI_ERRORS.get(status, (fallback_type, None))
    return {}, {"error": {"message": message, "type": kind, "param": None, "code": code}}
