"""The recording file of ``callstream.testing``'s ``RecordingTransport``, read as a stream.

One recording format serves every reader: ``collect`` / ``stream`` (its text or lines
given as the source: :class:`~callstream.providers.transport.TransportDecoder`), the
command (``callstream inspect rec.jsonl``: :mod:`callstream.cli._stream_file`) and
``callstream.testing``'s ``ReplayTransport``. The file is UTF-8 JSON Lines: a header line
``{"format": "callstream-recording", "version": 1}``, then one line per HTTP exchange,
whose ``chunks`` hold the response body as the transport yielded it (each ``{"at":
seconds, "text": ...}``, or ``"base64"`` for bytes that are no UTF-8 text of their own);
the whole format is described on ``callstream.testing.Recording``.

Read as a stream, a recording is the body of its first exchange answered with a 2xx
status (the first streamed turn; an error turn's body is no stream), its chunks decoded
as any raw transport is (SSE, JSON lines, AWS eventstream). Later exchanges (the next
turns of an agent loop) are not read. Cost: one base64 decoding of the chunks that need
it; memory: one exchange line (bounded by ``max_event_chars``, as any JSON object).
"""

from __future__ import annotations

import base64
import binascii
from typing import Any, Final

__all__ = ("FORMAT", "VERSION", "exchange_body", "is_header")

FORMAT: Final = "callstream-recording"
"""The ``format`` of a recording's header line."""

VERSION: Final = 1
"""The recording format version read here."""


def is_header(value: Any) -> bool:
    """Whether ``value`` (a decoded JSON value) is a recording's header line."""
    return (
        type(value) is dict
        and value.get("format") == FORMAT
        and value.get("version") == VERSION
        and len(value) == 2
    )


def exchange_body(exchange: Any) -> list[bytes] | None:
    """The response body chunks of one exchange line (decoded JSON), None when the
    exchange is not a streamed answer: not a 2xx status, or not shaped as one (a
    malformed line is no stream, never an exception). Cost: O(size of the body)."""
    if type(exchange) is not dict:
        return None
    response = exchange.get("response")
    status = response.get("status") if type(response) is dict else None
    chunks = exchange.get("chunks")
    if type(status) is not int or not 200 <= status < 300 or type(chunks) is not list:
        return None
    body: list[bytes] = []
    for chunk in chunks:
        if type(chunk) is not dict:
            return None
        text = chunk.get("text")
        if type(text) is str:
            body.append(text.encode("utf-8", "surrogatepass"))
            continue
        data = chunk.get("base64")
        if type(data) is not str:
            return None
        try:
            body.append(base64.b64decode(data, validate=True))
        except (binascii.Error, ValueError):
            return None
    return body
