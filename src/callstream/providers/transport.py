"""Incremental decoders for raw transport chunks: server-sent events and JSON streams.

Network reads cut a stream anywhere: inside a UTF-8 character, inside a line, between a
``\\r`` and its ``\\n``. The decoders here take ``str`` or ``bytes`` chunks as they come and
return only what is complete, carrying the rest over.

- :class:`SSEDecoder` follows the server-sent events format (``data:`` lines joined with
  ``\\n``, ``event:`` names, ``id:``, ``retry:``, ``:`` comments, LF / CR / CRLF line ends,
  a leading byte-order mark). Deliberate leniency: :meth:`SSEDecoder.close` dispatches a
  final event that lacks its blank line, because many servers and captures end that way.
- :class:`JSONStreamDecoder` splits NDJSON, concatenated or pretty-printed JSON objects,
  and a JSON array of objects (Gemini's non-SSE stream) into one text per top-level object.
- :class:`TransportDecoder` picks one of the two from the first non-blank character
  (``{`` or ``[`` means JSON, anything else SSE) and turns the results into decoded payloads
  (:class:`TransportMessage`), dropping ``[DONE]`` and data that is not JSON.

Cost: every character is examined a bounded number of times (regex searches from the
current position; partial lines and values are kept as lists of parts and joined once),
so decoding is linear in the stream size however it is chunked.
"""

from __future__ import annotations

import codecs
import json
import re
from dataclasses import dataclass
from typing import Any, Literal

__all__ = (
    "JSONStreamDecoder",
    "SSEDecoder",
    "ServerSentEvent",
    "TextChunk",
    "TransportDecoder",
    "TransportMessage",
    "is_transport_chunk",
)

TextChunk = str | bytes | bytearray | memoryview
"""A raw chunk as read from the network: text, or bytes in UTF-8."""

_LINE_END = re.compile(r"\r\n|\r|\n")


def is_transport_chunk(item: object) -> bool:
    """True for raw transport chunks (``str`` or bytes-like), False for decoded payloads."""
    return isinstance(item, (str, bytes, bytearray, memoryview))


class _Text:
    """Incremental UTF-8 decoding of bytes chunks; ``str`` chunks pass through.

    A character split across chunks is held until complete; undecodable bytes become
    U+FFFD (bad bytes are data, not a crash).
    """

    __slots__ = ("_decoder",)

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def decode(self, chunk: TextChunk) -> str:
        if isinstance(chunk, str):
            # A text chunk after bytes: whatever partial character was pending is lost.
            held = self._decoder.decode(b"", final=True)
            self._decoder.reset()
            return held + chunk
        return self._decoder.decode(bytes(chunk))

    def flush(self) -> str:
        text = self._decoder.decode(b"", final=True)
        self._decoder.reset()
        return text


class _Lines:
    """Incremental line splitting on LF, CR and CRLF (a CR at a chunk end waits for LF)."""

    __slots__ = ("_parts", "_skip_lf")

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._skip_lf = False

    def feed(self, text: str) -> list[str]:
        lines: list[str] = []
        position = 0
        if self._skip_lf and text:
            self._skip_lf = False
            if text[0] == "\n":
                position = 1
        for match in _LINE_END.finditer(text, position):
            end = match.start()
            if match.group() == "\r" and match.end() == len(text):
                self._skip_lf = True  # the LF of a CRLF may come in the next chunk
            if self._parts:
                self._parts.append(text[position:end])
                lines.append("".join(self._parts))
                self._parts.clear()
            else:
                lines.append(text[position:end])
            position = match.end()
        if position < len(text):
            self._parts.append(text[position:])
        return lines

    def flush(self) -> list[str]:
        if not self._parts:
            return []
        line = "".join(self._parts)
        self._parts.clear()
        return [line]


@dataclass(frozen=True, slots=True)
class ServerSentEvent:
    """One dispatched server-sent event. ``event`` is None for the default type."""

    data: str
    event: str | None = None
    id: str | None = None
    retry: int | None = None


class SSEDecoder:
    """Incremental server-sent events decoder over ``str`` / ``bytes`` chunks.

    ``feed`` returns the events completed by a chunk (an event completes at a blank line);
    ``close`` returns a last event that the stream ended without a blank line. Comments,
    unknown fields and events without ``data`` are dropped. The ``id`` is the last id seen,
    as the format specifies. Cost: linear in the input.
    """

    __slots__ = ("_data", "_event", "_id", "_lines", "_retry", "_started", "_text")

    def __init__(self) -> None:
        self._text = _Text()
        self._lines = _Lines()
        self._data: list[str] = []
        self._event: str | None = None
        self._id: str | None = None
        self._retry: int | None = None
        self._started = False

    def feed(self, chunk: TextChunk) -> list[ServerSentEvent]:
        """Decode one chunk; return the events it completed."""
        return self._on_text(self._text.decode(chunk))

    def close(self) -> list[ServerSentEvent]:
        """Flush the end of the stream; return a final event left without its blank line."""
        events = self._on_text(self._text.flush())
        for line in self._lines.flush():
            self._on_line(line, events)
        self._dispatch(events)
        return events

    def _on_text(self, text: str) -> list[ServerSentEvent]:
        if not self._started and text:
            self._started = True
            text = text.removeprefix("\ufeff")
        events: list[ServerSentEvent] = []
        for line in self._lines.feed(text):
            self._on_line(line, events)
        return events

    def _on_line(self, line: str, events: list[ServerSentEvent]) -> None:
        if not line:
            self._dispatch(events)
            return
        if line[0] == ":":
            return
        field, colon, value = line.partition(":")
        if colon and value[:1] == " ":
            value = value[1:]
        if field == "data":
            self._data.append(value)
        elif field == "event":
            self._event = value or None
        elif field == "id":
            if "\x00" not in value:
                self._id = value
        elif field == "retry":
            if value.isdigit() and value.isascii():
                self._retry = int(value)

    def _dispatch(self, events: list[ServerSentEvent]) -> None:
        if self._data:
            events.append(
                ServerSentEvent(
                    data="\n".join(self._data), event=self._event, id=self._id, retry=self._retry
                )
            )
        self._data = []
        self._event = None


_IN_VALUE = re.compile(r'[{}"]')
_IN_STRING = re.compile(r'["\\]')


class JSONStreamDecoder:
    """Split a stream of JSON objects into one text per top-level object.

    Accepts NDJSON, concatenated or pretty-printed objects, and a JSON array of objects
    (``[{...},\\n{...}]``): outside an object everything but ``{`` is skipped (brackets,
    commas, blank lines, stray text). Only braces and string boundaries are tracked (depth,
    inside a string, after a backslash), so the state carried between chunks is bounded;
    the text of the object being read is kept as parts and joined once it closes.
    Cost: linear in the input.
    """

    __slots__ = ("_depth", "_escape", "_in_string", "_parts", "_text")

    def __init__(self) -> None:
        self._text = _Text()
        self._parts: list[str] = []
        self._depth = 0
        self._in_string = False
        self._escape = False

    def feed(self, chunk: TextChunk) -> list[str]:
        """Decode one chunk; return the texts of the objects it completed."""
        return self._scan(self._text.decode(chunk))

    def close(self) -> list[str]:
        """Flush the end of the stream. An object left open is dropped (it was cut off)."""
        texts = self._scan(self._text.flush())
        self._parts.clear()
        self._depth = 0
        self._in_string = self._escape = False
        return texts

    def _scan(self, text: str) -> list[str]:
        texts: list[str] = []
        position = 0
        length = len(text)
        start = 0  # where the current object's text begins in this chunk
        while position < length:
            if self._depth == 0:
                position = text.find("{", position)
                if position < 0:
                    return texts
                start = position
                self._depth = 1
                position += 1
                continue
            if self._escape:
                self._escape = False
                position += 1
                continue
            if self._in_string:
                match = _IN_STRING.search(text, position)
                if match is None:
                    break
                position = match.end()
                if match.group() == '"':
                    self._in_string = False
                else:
                    self._escape = True
                continue
            match = _IN_VALUE.search(text, position)
            if match is None:
                break
            position = match.end()
            char = match.group()
            if char == '"':
                self._in_string = True
            elif char == "{":
                self._depth += 1
            else:
                self._depth -= 1
                if self._depth == 0:
                    self._parts.append(text[start:position])
                    texts.append("".join(self._parts))
                    self._parts.clear()
        if self._depth > 0:
            self._parts.append(text[start:])
        return texts


@dataclass(frozen=True, slots=True)
class TransportMessage:
    """A payload decoded from raw transport, with the SSE event name when there was one."""

    payload: Any
    event: str | None = None


def _loads(text: str) -> tuple[bool, Any]:
    try:
        return True, json.loads(text)
    except (ValueError, RecursionError):
        return False, None


class TransportDecoder:
    """Raw ``str`` / ``bytes`` chunks in, decoded payloads out; SSE or JSON found automatically.

    The first non-blank character decides: ``{`` or ``[`` means a JSON stream (NDJSON,
    concatenated objects, or an array of objects), anything else server-sent events. SSE
    ``data`` that is ``[DONE]``, empty, or not JSON is dropped; so is a JSON object that does
    not parse. Cost: linear in the input, plus ``json.loads`` of each payload.
    """

    __slots__ = ("_head", "_json", "_kind", "_sse")

    def __init__(self) -> None:
        self._kind: Literal["sse", "json"] | None = None
        self._head: list[TextChunk] = []
        self._sse: SSEDecoder | None = None
        self._json: JSONStreamDecoder | None = None

    @property
    def kind(self) -> Literal["sse", "json"] | None:
        """``"sse"`` or ``"json"`` once the first non-blank character was seen, else None."""
        return self._kind

    def feed(self, chunk: TextChunk) -> list[TransportMessage]:
        """Decode one chunk; return the payloads it completed."""
        if self._kind is None:
            self._head.append(chunk)
            kind = _sniff(chunk)
            if kind is None:
                return []
            self._kind = kind
            head, self._head = self._head, []
            out: list[TransportMessage] = []
            for piece in head:
                out.extend(self._feed(piece))
            return out
        return self._feed(chunk)

    def close(self) -> list[TransportMessage]:
        """Flush the end of the stream; return what it completed."""
        if self._sse is not None:
            return self._messages(self._sse.close())
        if self._json is not None:
            return [TransportMessage(v) for ok, v in map(_loads, self._json.close()) if ok]
        return []

    def _feed(self, chunk: TextChunk) -> list[TransportMessage]:
        if self._kind == "sse":
            if self._sse is None:
                self._sse = SSEDecoder()
            return self._messages(self._sse.feed(chunk))
        if self._json is None:
            self._json = JSONStreamDecoder()
        return [TransportMessage(v) for ok, v in map(_loads, self._json.feed(chunk)) if ok]

    @staticmethod
    def _messages(events: list[ServerSentEvent]) -> list[TransportMessage]:
        out: list[TransportMessage] = []
        for event in events:
            data = event.data.strip()
            if not data or data == "[DONE]":
                continue
            ok, value = _loads(data)
            if ok:
                out.append(TransportMessage(value, event.event))
        return out


def _sniff(chunk: TextChunk) -> Literal["sse", "json"] | None:
    """Decide SSE or JSON from the first non-blank character, or None if ``chunk`` is blank.

    Only the newest chunk needs looking at: the ones before it were blank (ASCII
    whitespace or a byte-order mark), so no character of interest straddles them.
    """
    text = chunk if isinstance(chunk, str) else bytes(chunk).decode("utf-8", errors="ignore")
    stripped = text.lstrip("\ufeff \t\r\n")
    if not stripped:
        return None
    return "json" if stripped[0] in "{[" else "sse"
