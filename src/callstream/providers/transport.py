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
  (``{`` or ``[`` means JSON, anything else SSE; "blank" is any Unicode whitespace or a
  byte-order mark, decoded incrementally, so where a chunk is cut never changes the
  choice) and turns the results into decoded payloads (:class:`TransportMessage`),
  dropping ``[DONE]`` and data that is not JSON.

Line iterators. Besides raw chunks, the decoders take the items of a line iterator:
``httpx``'s ``iter_lines()`` / ``aiter_lines()`` (``str`` lines without their line ends,
``""`` for a blank line), ``requests``' ``iter_lines()`` (the same as ``bytes``) and
``aiohttp``'s ``async for line in response.content`` (``bytes`` lines that keep their
``b"\n"``, which are ordinary chunks). An SSE stream is read in *line mode* (every item
ends a line) when its first non-empty item holds no line end, is a whole SSE field line
(``data:`` with a JSON object, array or ``[DONE]``; ``event:``, ``id:``, ``retry:``, a
``:`` comment) and the next item starts a new field, or is empty after a ``data:`` line
(empty items after a line without data wait for the next non-empty item: an empty read
of a chunk iterator is not a blank line). Chunk iterators cannot produce that: the next
chunk of a whole line starts with its line end, and an item that holds a line end
settles the stream as chunks for good. NDJSON needs no line ends.

Limits. A line, an SSE event's data and a JSON object are each bounded by
``max_event_chars`` (default :data:`DEFAULT_MAX_EVENT_CHARS`, 32 Mi characters: real
events are at most a few megabytes, a base64 image included); past it
:class:`~callstream.StreamLimitError` is raised, so memory while buffering stays
O(limit) whatever the stream sends. A payload nested too deep for ``json.loads`` raises
the same error instead of vanishing.

Cost: every character is examined a bounded number of times (regex searches from the
current position; partial lines and values are kept as lists of parts and joined once),
so decoding is linear in the stream size however it is chunked.
"""

from __future__ import annotations

import codecs
import json
import re
from dataclasses import dataclass
from typing import Any

from callstream._errors import OptionTypeError, OptionValueError, StreamLimitError

__all__ = (
    "DEFAULT_MAX_EVENT_CHARS",
    "JSONStreamDecoder",
    "SSEDecoder",
    "ServerSentEvent",
    "TextChunk",
    "TransportDecoder",
    "TransportMessage",
    "check_max_event_chars",
    "is_transport_chunk",
)

TextChunk = str | bytes | bytearray | memoryview
"""A raw chunk as read from the network: text, or bytes in UTF-8."""


DEFAULT_MAX_EVENT_CHARS = 32 * 1024 * 1024
"""Default bound on one line, one SSE event's data and one JSON object (in characters)."""


def check_max_event_chars(value: object) -> int:
    """``value`` if it is a usable ``max_event_chars`` (an int >= 1).

    Raises:
        OptionTypeError: not an int.
        OptionValueError: below 1.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise OptionTypeError(f"max_event_chars must be an int, got {value!r}")
    if value < 1:
        raise OptionValueError(f"max_event_chars must be at least 1, got {value}")
    return value


def _too_long(what: str, size: int, limit: int) -> StreamLimitError:
    return StreamLimitError(
        f"{what} exceeds max_event_chars={limit} characters (at least {size} read);"
        " raise the limit (stream(..., max_event_chars=...) or"
        " TransportDecoder(max_event_chars=...)) if this is expected"
    )


def is_transport_chunk(item: object) -> bool:
    """True for raw transport chunks (``str`` or bytes-like), False for decoded payloads.

    Reads the item's real type only (an object faking ``__class__`` cannot make this
    raise or lie). Cost: O(1).
    """
    return issubclass(type(item), (str, bytes, bytearray, memoryview))


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
    """Incremental line splitting on LF, CR and CRLF (a CR at a chunk end waits for LF).

    A line longer than ``max_chars`` raises :class:`StreamLimitError` before it is stored.
    """

    __slots__ = ("_max", "_parts", "_size", "_skip_lf")

    def __init__(self, max_chars: int) -> None:
        self._parts: list[str] = []
        self._size = 0
        self._max = max_chars
        self._skip_lf = False

    @property
    def open(self) -> bool:
        """Whether a line was started and not ended yet."""
        return bool(self._parts)

    def feed(self, text: str) -> list[str]:
        if self._skip_lf and text:
            self._skip_lf = False
            if text[0] == "\n":
                text = text[1:]
        if "\r" in text:
            self._skip_lf = text[-1] == "\r"  # the LF of a CRLF may come in the next chunk
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        lines = text.split("\n")  # str methods run at C speed; a regex walk does not
        tail = lines.pop()
        if lines:
            if self._size + len(lines[0]) > self._max:
                raise _too_long("an SSE line", self._size + len(lines[0]), self._max)
            if self._parts:
                self._parts.append(lines[0])
                lines[0] = "".join(self._parts)
                self._parts.clear()
                self._size = 0
            if len(lines) > 1 and len(text) > self._max:
                longest = max(map(len, lines))
                if longest > self._max:
                    raise _too_long("an SSE line", longest, self._max)
        if tail:
            self._size += len(tail)
            if self._size > self._max:
                raise _too_long("an SSE line", self._size, self._max)
            self._parts.append(tail)
        return lines

    def flush(self) -> list[str]:
        if not self._parts:
            return []
        line = "".join(self._parts)
        self._parts.clear()
        self._size = 0
        return [line]


@dataclass(frozen=True, slots=True)
class ServerSentEvent:
    """One dispatched server-sent event. ``event`` is None for the default type."""

    data: str
    event: str | None = None
    id: str | None = None
    retry: int | None = None


_FIELD_START = re.compile(r"(?:data|event|id|retry):")
_WHOLE_FIELD = re.compile(r"(?:event|id|retry):[^\r\n]*|:[^\r\n]*")

_UNDECIDED, _CHUNKS, _LINES = 0, 1, 2

#: Blank text before the first character that decides the kind of stream: Unicode
#: whitespace and byte-order marks, in any order.
_BLANKS = re.compile(r"[\s\ufeff]*")


def _whole_field_line(text: str) -> bool:
    """Whether ``text`` is a whole SSE field line that no chunk of a valid stream could
    continue: ``event:`` / ``id:`` / ``retry:`` / a comment, or ``data:`` holding a JSON
    object or array that parses, or ``[DONE]``. Cost: O(len(text)) (one ``json.loads``)."""
    text = text.removeprefix("\ufeff")
    if _WHOLE_FIELD.fullmatch(text):
        return True
    if not text.startswith("data:"):
        return False
    value = text[5:].strip()
    if value == "[DONE]":
        return True
    if value[:1] not in ("{", "["):
        return False
    try:
        json.loads(value)
    except (ValueError, RecursionError):
        return False
    return True


class SSEDecoder:
    """Incremental server-sent events decoder over ``str`` / ``bytes`` chunks or lines.

    ``feed`` returns the events completed by a chunk (an event completes at a blank line);
    ``close`` returns a last event that the stream ended without a blank line. Comments,
    unknown fields and events without ``data`` are dropped. The ``id`` is the last id seen,
    as the format specifies. Items of a line iterator (lines without their line ends,
    ``""`` for a blank line) are recognized at the second item and each then ends a line
    (see the module docstring); any item holding a line end settles the stream as chunks.
    Cost: linear in the input; memory bounded by ``max_event_chars`` per line and per event.

    Raises:
        StreamLimitError: (from ``feed`` / ``close``) a line or an event's data is longer
            than ``max_event_chars``.
    """

    __slots__ = (
        "_blanks",
        "_data",
        "_event",
        "_first",
        "_id",
        "_lines",
        "_max",
        "_mode",
        "_retry",
        "_size",
        "_started",
        "_text",
        "unknown_lines",
    )

    def __init__(self, *, max_event_chars: int = DEFAULT_MAX_EVENT_CHARS) -> None:
        self._max = check_max_event_chars(max_event_chars)
        self._text = _Text()
        self._lines = _Lines(self._max)
        self._data: list[str] = []
        self._size = 0
        self._event: str | None = None
        self._id: str | None = None
        self._retry: int | None = None
        self._started = False
        self._mode = _UNDECIDED
        self._first: str | None = None  # the first non-empty item while it may be a line
        self._blanks = 0  # empty items after it, while undecided (blank lines or no-ops)
        self.unknown_lines = 0
        """Lines that were no field of the format (text that is not SSE), ignored."""

    def feed(self, chunk: TextChunk) -> list[ServerSentEvent]:
        """Decode one chunk (or one line of a line iterator); return the events it completed."""
        text = self._text.decode(chunk)
        if self._mode == _CHUNKS:
            return self._on_text(text)
        if "\n" in text or "\r" in text:
            self._mode = _CHUNKS
            self._first = None
            return self._on_text(text)
        if self._mode == _LINES:
            return self._on_text(text + "\n")
        first = self._first
        if first is None:
            if text and not self._lines.open:
                self._first = text
            return self._on_text(text)
        if not text:
            # An empty item: a blank line of a line iterator, or an empty read of a chunk
            # iterator. After a whole ``data:`` line it is taken as a blank line at once
            # (the event is due now); after a line without data (``event:`` ...) the
            # next non-empty item settles it, at no cost in latency.
            if first.removeprefix("\ufeff").startswith("data:") and _whole_field_line(first):
                self._first = None
                self._mode = _LINES
                return self._on_text("\n\n")
            self._blanks += 1
            return []
        self._first = None
        blanks, self._blanks = self._blanks, 0
        if (blanks or _FIELD_START.match(text)) and _whole_field_line(first):
            self._mode = _LINES
            return self._on_text("\n" * (1 + blanks) + text + "\n")
        self._mode = _CHUNKS
        return self._on_text(text)

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
            self._size += len(value) + 1
            if self._size > self._max:
                raise _too_long("an SSE event's data", self._size, self._max)
            self._data.append(value)
        elif field == "event":
            self._event = value or None
        elif field == "id":
            if "\x00" not in value:
                self._id = value
        elif field == "retry":
            if value.isdigit() and value.isascii():
                self._retry = int(value)
        else:
            self.unknown_lines += 1

    def _dispatch(self, events: list[ServerSentEvent]) -> None:
        if self._data:
            events.append(
                ServerSentEvent(
                    data="\n".join(self._data), event=self._event, id=self._id, retry=self._retry
                )
            )
        self._data = []
        self._size = 0
        self._event = None


# Inside an object: a brace, a whole string (skipped in one match), or the opening quote
# of a string that goes on in the next chunk.
_IN_VALUE = re.compile(r'[{}]|"[^"\\]*(?:\\.[^"\\]*)*"|"', re.DOTALL)
_STRING_REST = re.compile(r'[^"\\]*(?:\\.[^"\\]*)*', re.DOTALL)


class JSONStreamDecoder:
    """Split a stream of JSON objects into one text per top-level object.

    Accepts NDJSON, concatenated or pretty-printed objects, and a JSON array of objects
    (``[{...},\\n{...}]``): outside an object everything but ``{`` is skipped (brackets,
    commas, blank lines, stray text). Only braces and string boundaries are tracked (depth,
    inside a string, after a backslash), so the state carried between chunks is bounded;
    the text of the object being read is kept as parts and joined once it closes.
    Cost: linear in the input; memory bounded by ``max_event_chars`` per object.

    Raises:
        StreamLimitError: (from ``feed``) an object is longer than ``max_event_chars``.
    """

    __slots__ = (
        "_depth",
        "_escape",
        "_in_string",
        "_max",
        "_parts",
        "_size",
        "_text",
        "unclosed",
    )

    def __init__(self, *, max_event_chars: int = DEFAULT_MAX_EVENT_CHARS) -> None:
        self._max = check_max_event_chars(max_event_chars)
        self._text = _Text()
        self._parts: list[str] = []
        self._size = 0
        self._depth = 0
        self._in_string = False
        self._escape = False
        self.unclosed = False
        """Whether :meth:`close` dropped an object left open."""

    def feed(self, chunk: TextChunk) -> list[str]:
        """Decode one chunk; return the texts of the objects it completed."""
        return self._scan(self._text.decode(chunk))

    def close(self) -> list[str]:
        """Flush the end of the stream. An object left open is dropped (it was cut off)."""
        texts = self._scan(self._text.flush())
        self.unclosed = self._depth > 0
        self._parts.clear()
        self._size = 0
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
                # the rest of the string: stops at its closing quote, or at the chunk's end
                # (a backslash that is the chunk's last character waits for its pair)
                position = _STRING_REST.match(text, position).end()  # type: ignore[union-attr]
                if position == length:
                    break
                if text[position] == '"':
                    self._in_string = False
                else:
                    self._escape = True
                position += 1
                continue
            match = _IN_VALUE.search(text, position)
            if match is None:
                break
            position = match.end()
            char = match.group()
            if char == '"':
                self._in_string = True
            elif char[0] == '"':
                pass  # a whole string
            elif char == "{":
                self._depth += 1
            else:
                self._depth -= 1
                if self._depth == 0:
                    if self._size + position - start > self._max:
                        raise _too_long("a JSON object", self._size + position - start, self._max)
                    self._parts.append(text[start:position])
                    texts.append("".join(self._parts))
                    self._parts.clear()
                    self._size = 0
        if self._depth > 0:
            self._size += length - start
            if self._size > self._max:
                raise _too_long("a JSON object", self._size, self._max)
            self._parts.append(text[start:])
        return texts


@dataclass(frozen=True, slots=True)
class TransportMessage:
    """A payload decoded from raw transport, with the SSE event name when there was one."""

    payload: Any
    event: str | None = None


def _loads(text: str) -> tuple[bool, Any]:
    """``(True, value)`` for JSON text, ``(False, None)`` for text that is not JSON.

    Raises:
        StreamLimitError: the text is JSON nested too deep for ``json.loads``.
    """
    try:
        return True, json.loads(text)
    except RecursionError:
        raise StreamLimitError(
            f"a payload of {len(text)} characters is nested too deep to decode"
            " (json.loads hit the recursion limit)"
        ) from None
    except ValueError:
        return False, None


class TransportDecoder:
    """Raw ``str`` / ``bytes`` chunks in, decoded payloads out; SSE or JSON found automatically.

    The first non-blank character decides: ``{`` or ``[`` means a JSON stream (NDJSON,
    concatenated objects, or an array of objects), anything else server-sent events.
    Blank means Unicode whitespace or a byte-order mark, read through an incremental
    UTF-8 decoder, so the choice is the same wherever the chunks are cut. SSE ``data``
    that is ``[DONE]``, empty, or not JSON is dropped; so is a JSON object that does not
    parse. Line iterators work too (see the module docstring). Cost: linear in the
    input, plus ``json.loads`` of each payload; memory O(``max_event_chars``) besides the
    chunk being decoded.

    Raises:
        StreamLimitError: (from ``feed`` / ``close``) a line, event or object is longer
            than ``max_event_chars``, or a payload is nested too deep to decode.
    """

    __slots__ = ("_blank", "_dropped", "_head", "_json", "_max", "_sniffer", "_sse")

    def __init__(self, *, max_event_chars: int = DEFAULT_MAX_EVENT_CHARS) -> None:
        """Set up for one stream.

        Args:
            max_event_chars: the longest line, SSE event data or JSON object accepted,
                in characters.

        Raises:
            OptionTypeError: ``max_event_chars`` is not an int.
            OptionValueError: ``max_event_chars`` is below 1.
        """
        self._max = check_max_event_chars(max_event_chars)
        self._head: list[TextChunk] | None = []  # None once the kind is known
        self._sniffer = _Text()
        self._blank = 0
        self._dropped = 0
        self._sse: SSEDecoder | None = None
        self._json: JSONStreamDecoder | None = None

    @property
    def dropped(self) -> int:
        """How much text was dropped as undecodable so far: SSE data or JSON objects that
        are not JSON, lines that are no SSE field, an object left open at the end.
        ``[DONE]``, comments and blank text do not count."""
        dropped = self._dropped
        if self._sse is not None:
            dropped += self._sse.unknown_lines
        if self._json is not None:
            dropped += self._json.unclosed
        return dropped

    def feed(self, chunk: TextChunk) -> list[TransportMessage]:
        """Decode one chunk; return the payloads it completed."""
        head = self._head
        if head is None:
            return self._feed(chunk)
        head.append(chunk)
        text = self._sniffer.decode(chunk)
        text = text[_BLANKS.match(text).end() :]  # type: ignore[union-attr]
        if not text:
            self._blank += len(chunk)
            if self._blank > self._max:  # a flood of whitespace is bounded too
                raise _too_long("leading whitespace", self._blank, self._max)
            return []
        self._head = None
        if text[0] in "{[":
            self._json = JSONStreamDecoder(max_event_chars=self._max)
        else:
            self._sse = SSEDecoder(max_event_chars=self._max)
        out: list[TransportMessage] = []
        for piece in head:
            out.extend(self._feed(piece))
        return out

    def close(self) -> list[TransportMessage]:
        """Flush the end of the stream; return what it completed."""
        if self._sse is not None:
            return self._messages(self._sse.close())
        if self._json is not None:
            return self._objects(self._json.close())
        return []

    def _feed(self, chunk: TextChunk) -> list[TransportMessage]:
        if self._sse is not None:
            return self._messages(self._sse.feed(chunk))
        assert self._json is not None
        return self._objects(self._json.feed(chunk))

    def _objects(self, texts: list[str]) -> list[TransportMessage]:
        out: list[TransportMessage] = []
        for text in texts:
            ok, value = _loads(text)
            if ok:
                out.append(TransportMessage(value))
            else:
                self._dropped += 1
        return out

    def _messages(self, events: list[ServerSentEvent]) -> list[TransportMessage]:
        out: list[TransportMessage] = []
        for event in events:
            data = event.data.strip()
            if not data or data == "[DONE]":
                continue
            ok, value = _loads(data)
            if ok:
                out.append(TransportMessage(value, event.event))
            else:
                self._dropped += 1
        return out
