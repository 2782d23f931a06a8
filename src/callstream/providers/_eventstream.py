"""AWS eventstream (``application/vnd.amazon.eventstream``): Bedrock's binary stream framing.

Bedrock's ``ConverseStream`` and ``InvokeModelWithResponseStream`` answer in binary
messages, not text: each is a prelude (total length and headers length, 4 bytes each,
big-endian, then the CRC-32 of those 8 bytes), headers (a name of 1 to 255 bytes, a type
byte, a value whose size the type gives), the payload and the CRC-32 of everything
before it. The headers say what the payload is: ``:message-type`` ``event`` with the
``:event-type`` (``messageStart``, ``contentBlockDelta`` ...), ``exception`` with the
``:exception-type`` (``throttlingException`` ...), or ``error`` with ``:error-code`` and
``:error-message``.

:class:`EventStreamDecoder` takes the raw bytes as the network cuts them and gives one
payload per message, keyed the way the SDKs give them (``{"contentBlockDelta": {...}}``,
``{"throttlingException": {"message": ...}}``), which is what the Bedrock translator reads.
A message whose length or checksum is wrong breaks the framing: nothing after it can be
found, so :class:`~callstream.MalformedStreamError` is raised (after the messages before
it, by the rule of :class:`~callstream.providers._chunks.LimitHold`). A message over
``max_event_chars`` bytes raises :class:`~callstream.StreamLimitError` the same way. A
payload that is not JSON is dropped and counted, as SSE data that is not JSON is; one
nested too deep to decode raises :class:`~callstream.StreamLimitError` after the
messages before it, as it does over SSE (both read it with
:func:`~callstream.providers._chunks.load_payload`).

Cost: linear in the bytes (each byte is copied into the buffer once and read once; the
buffer is compacted when what was read outgrows what is left), plus ``json.loads`` of
each payload.
"""

from __future__ import annotations

import struct
import zlib
from typing import Any, Final

from callstream._errors import MalformedStreamError
from callstream.providers._chunks import ChunkDecoder, TextChunk, load_payload, too_long

__all__ = ("EventStreamDecoder", "is_eventstream_start")

_PRELUDE: Final = 12  # total length, headers length, prelude CRC
_OVERHEAD: Final = 16  # the prelude and the message CRC
_UINT32: Final = struct.Struct(">I")
# Header value types: the size of the fixed-size ones; 6 (bytes) and 7 (string) carry a
# 2-byte length first.
_FIXED_SIZES: Final = {0: 0, 1: 0, 2: 1, 3: 2, 4: 4, 5: 8, 8: 8, 9: 16}
_BYTES: Final = 6
_STRING: Final = 7


def is_eventstream_start(first: str) -> bool:
    """Whether the first character of a raw stream (decoded) starts an eventstream: the
    high byte of a message's total length, zero for any message under 16 MiB. Neither
    server-sent events nor JSON can start with U+0000."""
    return first == "\x00"


class EventStreamDecoder(ChunkDecoder[Any]):
    """AWS eventstream bytes in, one payload per message out (see the module docstring)."""

    __slots__ = ("_buffer", "_max_event_chars", "_start", "dropped", "messages")

    def __init__(self, *, max_event_chars: int) -> None:
        super().__init__()
        self._buffer = bytearray()
        self._start = 0  # where the next message begins in the buffer
        self._max_event_chars = max_event_chars
        self.dropped = 0  # messages whose payload is not JSON, or left cut at the end
        self.messages = 0  # messages read so far

    def feed_into(self, chunk: TextChunk, out: list[Any]) -> None:
        """Append the payloads ``chunk`` completed to ``out`` (:meth:`feed` wraps it
        with the hold rule).

        Raises:
            MalformedStreamError: a text chunk, or a message whose length or checksum is
                wrong (the payloads before it are appended first).
            StreamLimitError: a message longer than ``max_event_chars`` bytes, or a
                payload nested too deep to decode (the payloads before it are appended
                first).
        """
        if isinstance(chunk, str):
            raise MalformedStreamError(
                f"a text chunk inside an AWS eventstream after {self.messages} messages: "
                "the stream is binary, read it as bytes"
            )
        buffer = self._buffer
        buffer += chunk
        while True:
            start = self._start
            if len(buffer) - start < _PRELUDE:
                break
            total = _UINT32.unpack_from(buffer, start)[0]
            headers = _UINT32.unpack_from(buffer, start + 4)[0]
            self._check_prelude(buffer, start, total, headers)
            if len(buffer) - start < total:
                break
            message = bytes(buffer[start : start + total])
            self._start = start + total
            payload = self._payload(message, headers)
            self.messages += 1
            if payload is not None:
                out.append(payload)
        if self._start > len(buffer) // 2:
            del buffer[: self._start]
            self._start = 0

    def flush_into(self, out: list[Any]) -> None:
        """The end of the stream: a message left cut short counts as dropped (nothing
        completes at the end of a binary stream)."""
        if len(self._buffer) > self._start:
            self.dropped += 1
        self._buffer.clear()
        self._start = 0

    def _check_prelude(self, buffer: bytearray, start: int, total: int, headers: int) -> None:
        crc = _UINT32.unpack_from(buffer, start + 8)[0]
        if zlib.crc32(buffer[start : start + 8]) != crc:
            raise self._broken("its prelude checksum does not match")
        if total < _OVERHEAD or headers > total - _OVERHEAD:
            raise self._broken(f"it claims {total} bytes with {headers} bytes of headers")
        if total > self._max_event_chars:
            raise too_long("an AWS eventstream message", self._max_event_chars)

    def _payload(self, message: bytes, headers_length: int) -> Any:
        crc = _UINT32.unpack_from(message, len(message) - 4)[0]
        if zlib.crc32(message[:-4]) != crc:
            raise self._broken("its message checksum does not match")
        headers = self._headers(message[_PRELUDE : _PRELUDE + headers_length])
        data = message[_PRELUDE + headers_length : -4]
        kind = headers.get(":message-type", "event")
        if kind == "error":
            code = headers.get(":error-code") or "error"
            return {code: {"message": headers.get(":error-message", "")}}
        name = headers.get(":exception-type" if kind == "exception" else ":event-type")
        if not name:
            self.dropped += 1
            return None
        if not data:
            return {name: {}}
        ok, value = load_payload(data)
        if not ok:
            self.dropped += 1
            return None
        return {name: value}

    def _headers(self, raw: bytes) -> dict[str, str]:
        """The string headers of a message (other types are read past, not kept)."""
        found: dict[str, str] = {}
        at, end = 0, len(raw)
        try:
            while at < end:
                size = raw[at]
                name = raw[at + 1 : at + 1 + size].decode("utf-8", "replace")
                at += 1 + size
                kind = raw[at]
                at += 1
                if kind in (_BYTES, _STRING):
                    length = int.from_bytes(raw[at : at + 2], "big")
                    value = raw[at + 2 : at + 2 + length]
                    at += 2 + length
                    if kind == _STRING:
                        found[name] = value.decode("utf-8", "replace")
                elif kind in _FIXED_SIZES:
                    at += _FIXED_SIZES[kind]
                else:
                    raise self._broken(f"a header has the unknown value type {kind}")
        except IndexError:
            raise self._broken("its headers run past their length") from None
        if at != end:
            raise self._broken("its headers run past their length")
        return found

    def _broken(self, why: str) -> MalformedStreamError:
        return MalformedStreamError(
            f"AWS eventstream message {self.messages + 1} is corrupt ({why}): the framing "
            "is lost, nothing after it can be read"
        )
