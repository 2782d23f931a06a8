"""Decoded payloads as the bytes a server sends: server-sent events or NDJSON lines.

The one writer of server bytes for callstream's tests and users' (``encode`` and the
formats' framing: which name their events, where ``data: [DONE]`` goes).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, Literal

__all__ = ("WIRE_FORMATS", "Encoding", "encode", "ndjson_line", "sse_event")

Encoding = Literal["payloads", "bytes", "lines"]
"""What a :class:`~callstream.testing.WireStream` yields: ``payloads`` (the decoded dicts
an SDK or a JSON reader gives), ``bytes`` (one chunk of server bytes per payload: SSE
events, or NDJSON lines for Ollama) or ``lines`` (those bytes as ``str`` lines without
their line ends, ``""`` for a blank line, as httpx's ``iter_lines()`` yields them)."""

#: formats whose servers name each event after the payload's ``type``
_NAMED_EVENTS = ("anthropic", "openai-responses", "cohere")
#: the formats with a byte encoding here (not bedrock, not langchain)
WIRE_FORMATS = (
    "openai-chat",
    "openai-responses",
    "anthropic",
    "gemini",
    "vertex",
    "cohere",
    "mistral",
    "ollama",
)


def sse_event(payload: Any, event: str | None = None) -> str:
    """One server-sent event: an ``event:`` line when ``event`` is given, the payload as
    JSON (ASCII, ``json.dumps``' default) on one ``data:`` line, a blank line."""
    head = "" if event is None else f"event: {event}\n"
    return f"{head}data: {json.dumps(payload)}\n\n"


def ndjson_line(payload: Any) -> str:
    """One NDJSON line: the payload as JSON, a line feed."""
    return json.dumps(payload) + "\n"


def _event_name(payload: Any, format: str) -> str | None:
    if not isinstance(payload, dict):
        return None
    if "error" in payload and format in ("openai-chat", "mistral"):
        return "error"  # Groq's error event
    kind = payload.get("type")
    if format in _NAMED_EVENTS and isinstance(kind, str) and kind.isprintable():
        return kind
    return None


def _finished_chat(payload: Any) -> bool:
    choices = payload.get("choices") if isinstance(payload, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return False
    return choices[0].get("finish_reason") is not None


def encode(payloads: Iterable[Any], format: str, as_: Encoding = "bytes") -> list[Any]:
    """``payloads`` of ``format`` as the server's bytes (one chunk per payload) or as its
    lines: NDJSON for ``ollama``; else SSE, with ``event:`` lines where the format names
    its events (``anthropic``, ``openai-responses``, ``cohere``, Groq's ``event: error``)
    and ``data: [DONE]`` after a finished Chat Completions (or Mistral) stream.

    Raises:
        ValueError: ``bedrock`` (its AWS eventstream framing is not written yet),
            ``langchain`` (chunks are Python objects), an unknown format, or ``as_`` other
            than ``bytes`` / ``lines``.
    """
    if format not in WIRE_FORMATS:
        raise ValueError(f"no byte encoding for {format!r}: one of {', '.join(WIRE_FORMATS)}")
    if as_ not in ("bytes", "lines"):
        raise ValueError(f"as_ must be 'bytes' or 'lines', not {as_!r}")
    items = list(payloads)
    if format == "ollama":
        texts = [ndjson_line(p) for p in items]
    else:
        texts = [sse_event(p, _event_name(p, format)) for p in items]
        if format in ("openai-chat", "mistral") and items and _finished_chat(items[-1]):
            texts.append("data: [DONE]\n\n")
    if as_ == "bytes":
        return [t.encode("utf-8", "surrogatepass") for t in texts]
    return [line for t in texts for line in t.split("\n")[:-1]]
