"""Reading the provider error an SDK exception carries: the one recognizer, used by
:meth:`~callstream._pipeline.Pipeline.recover` and the LangChain output parser.

An SDK raises where the raw byte stream would have carried an error payload (Groq's
``tool_use_failed`` through the openai SDK, an Anthropic mid-stream ``error`` event):
:func:`provider_error_payload` rebuilds that payload in its wire shape, so it goes
through the same translator as the raw path; :func:`error_signals` reads it with its
own provider's translator, for a reader whose format has no error events (LangChain
message chunks). Any other exception is named by
:func:`callstream.providers._base.describe_exception`. Neither ever raises, whatever
the exception object does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from callstream._assembly.types import Signal, StreamEnd

__all__ = ("error_signals", "provider_error_payload")


_ANTHROPIC_ERRORS = frozenset({"overloaded_error", "api_error"})


def _attr(obj: Any, name: str) -> Any:
    """``getattr(obj, name, None)`` that never raises (hostile or broken objects)."""
    try:
        return getattr(obj, name, None)
    except Exception:
        return None


def provider_error_payload(exc: BaseException) -> dict[str, Any] | None:
    """The provider error payload an SDK exception carries, in its raw wire shape.

    Recognized: an ``error`` object with ``code == "tool_use_failed"`` or a
    ``failed_generation`` (Groq, through the openai SDK: ``exc.body``), and an Anthropic
    mid-stream ``overloaded_error`` / ``api_error`` (``exc.body`` is the whole event).
    The body is read from ``exc.body``, else from ``exc.response.json()``. Returns
    ``{"error": {...}}`` or ``{"type": "error", "error": {...}}`` (what the SSE data
    would have been), or None. Never raises, whatever the exception object does.

    Cost: O(size of the error body).
    """
    try:
        body = _attr(exc, "body")
        if not isinstance(body, Mapping):
            response = _attr(exc, "response")
            reader = _attr(response, "json")
            body = reader() if callable(reader) else None
        if not isinstance(body, Mapping):
            return None
        inner = body.get("error")
        error = inner if isinstance(inner, Mapping) else body
        if error.get("code") == "tool_use_failed" or "failed_generation" in error:
            return {"error": dict(error)}
        kind = error.get("type")
        if isinstance(kind, str) and kind in _ANTHROPIC_ERRORS:
            return {"type": "error", "error": dict(error)}
    except Exception:  # a hostile body or response: not a provider error we understand
        return None
    return None


def error_signals(payload: Mapping[str, Any]) -> list[Signal]:
    """The signals of a payload :func:`provider_error_payload` gave, read by its own
    provider's translator (a fresh one: ``"anthropic"`` for ``{"type": "error", ...}``,
    else ``"openai-chat"``, Groq's ``{"error": ...}``), so Groq's failed calls become
    invalid calls; the last is always a ``StreamEnd("error")`` (with the provider's
    message). Cost: O(size of the error)."""
    from callstream.providers import get_translator  # the registry, above this module

    name = "anthropic" if payload.get("type") == "error" else "openai-chat"
    signals = get_translator(name).translate(payload)
    if not signals or not isinstance(signals[-1], StreamEnd):
        signals.append(StreamEnd(reason="error"))
    return signals
