"""Decoded payloads as the bytes a server sends: server-sent events, NDJSON lines, or AWS
eventstream messages (Bedrock).

The one writer of server bytes for callstream's tests and users' (``encode`` and the
formats' framing: which name their events, where ``data: [DONE]`` goes).
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from callstream._errors import OptionValueError
from callstream._json.dump import dumps_bounded

__all__ = (
    "BYTE_FORMATS",
    "WIRE_FORMATS",
    "Encoding",
    "encode",
    "eventstream_message",
    "ndjson_line",
    "sse_event",
)

Encoding = Literal["payloads", "bytes", "lines"]
"""What a :class:`~callstream.testing.WireStream` yields: ``payloads`` (the decoded dicts
an SDK or a JSON reader gives), ``bytes`` (one chunk of server bytes per payload: SSE
events, NDJSON lines for Ollama, AWS eventstream messages for Bedrock) or ``lines``
(those bytes as ``str`` lines without their line ends, ``""`` for a blank line, as
httpx's ``iter_lines()`` yields them; not for Bedrock)."""

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
#: the formats with a ``bytes`` encoding: the text wires and Bedrock's binary eventstream
BYTE_FORMATS = (*WIRE_FORMATS, "bedrock")


def _json(payload: Any) -> str:
    """``json.dumps(payload)`` (ASCII), by the one writer: any depth, never a
    ``RecursionError`` (:mod:`callstream._json.dump`)."""
    return dumps_bounded(payload, max_depth=None, ensure_ascii=True)


def sse_event(payload: Any, event: str | None = None) -> str:
    """One server-sent event: an ``event:`` line when ``event`` is given, the payload as
    JSON (ASCII, ``json.dumps``' default; any depth) on one ``data:`` line, a blank
    line."""
    head = "" if event is None else f"event: {event}\n"
    return f"{head}data: {_json(payload)}\n\n"


def ndjson_line(payload: Any) -> str:
    """One NDJSON line: the payload as JSON (any depth), a line feed."""
    return _json(payload) + "\n"


def eventstream_message(headers: Mapping[str, str], payload: bytes) -> bytes:
    """One AWS eventstream message (``application/vnd.amazon.eventstream``, what Bedrock's
    ConverseStream sends): a 12-byte prelude (total length, headers length, the CRC32 of
    those eight bytes, all big-endian), the headers (each a one-byte name length, the name,
    type 7 for a string, a two-byte value length, the value), the payload, and the CRC32
    of everything before it.

    Raises:
        ValueError: a header name longer than 255 bytes or a value longer than 65535.
    """
    head = bytearray()
    for name, value in headers.items():
        key, text = name.encode("utf-8"), value.encode("utf-8")
        if len(key) > 255 or len(text) > 65535:
            raise OptionValueError(f"eventstream header {name!r} is too long")
        head += struct.pack(">B", len(key)) + key + struct.pack(">BH", 7, len(text)) + text
    total = 12 + len(head) + len(payload) + 4
    prelude = struct.pack(">II", total, len(head))
    message = prelude + struct.pack(">I", zlib.crc32(prelude)) + bytes(head) + payload
    return message + struct.pack(">I", zlib.crc32(message))


def _bedrock_message(payload: Any) -> bytes:
    """A ConverseStream event (``{"<event type>": {...}}``, as boto3 yields it) framed as the
    server sends it: the type in ``:event-type`` (``:exception-type`` for an error event),
    the inner object as the JSON payload."""
    if not isinstance(payload, dict) or len(payload) != 1:
        raise OptionValueError(
            f"a bedrock payload is one {{event type: body}} pair, not {payload!r:.80}"
        )
    ((kind, body),) = payload.items()
    data = _json(body).encode("utf-8", "surrogatepass")
    if kind.endswith("Exception"):
        headers = {":exception-type": kind, ":content-type": "application/json"}
        return eventstream_message({**headers, ":message-type": "exception"}, data)
    headers = {":event-type": kind, ":content-type": "application/json"}
    return eventstream_message({**headers, ":message-type": "event"}, data)


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
    lines: NDJSON for ``ollama``; AWS eventstream messages for ``bedrock`` (bytes only:
    :func:`eventstream_message`); else SSE, with ``event:`` lines where the format names
    its events (``anthropic``, ``openai-responses``, ``cohere``, Groq's ``event: error``)
    and ``data: [DONE]`` after a finished Chat Completions (or Mistral) stream.

    Raises:
        ValueError: ``lines`` of ``bedrock`` (a binary framing has no lines), ``langchain``
            (chunks are Python objects), an unknown format, or ``as_`` other than
            ``bytes`` / ``lines``.
    """
    if as_ not in ("bytes", "lines"):
        raise OptionValueError(f"as_ must be 'bytes' or 'lines', not {as_!r}")
    if format == "bedrock" and as_ == "bytes":
        return [_bedrock_message(p) for p in payloads]
    if format not in WIRE_FORMATS:
        known = ", ".join(WIRE_FORMATS)
        raise OptionValueError(
            f"no {as_} encoding for {format!r}: one of {known} (bytes: bedrock too)"
        )
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
