"""Incremental decoders for raw transport chunks: server-sent events and JSON streams.

Network reads cut a stream anywhere: inside a UTF-8 character, inside a line, between a
``\\r`` and its ``\\n``. The decoders here take ``str`` or ``bytes`` chunks as they come and
return only what is complete, carrying the rest over.

- :class:`SSEDecoder` follows the server-sent events format (``data:`` lines joined with
  ``\\n``, ``event:`` names, ``id:``, ``retry:``, ``:`` comments, LF / CR / CRLF line ends,
  a leading byte-order mark). Deliberate leniency: :meth:`SSEDecoder.close` dispatches a
  final event that lacks its blank line, because many servers and captures end that way.
- :class:`JSONStreamDecoder` splits NDJSON, concatenated or pretty-printed JSON objects,
  and a JSON array of objects (Gemini's non-SSE stream) into one text per top-level
  object (and one per string, number or literal between them).
- :class:`~callstream.providers._eventstream.EventStreamDecoder` reads Bedrock's binary
  AWS eventstream messages (``application/vnd.amazon.eventstream``), checksums included.
- :class:`TransportDecoder` picks one of them from how the text begins (a JSON value
  means JSON: an object, array, string, number, or ``true`` / ``false`` / ``null``
  followed by blank text, a separator or the end; U+0000 an eventstream; anything else
  SSE; blank text before it, any Unicode whitespace or a byte-order mark, is skipped,
  decoded incrementally, so where a chunk is cut never changes the choice) and turns the
  results into decoded payloads (:class:`TransportMessage`), dropping ``[DONE]`` and
  data that is not JSON. A JSON value that is no object (``true``, ``1``, ``"x"``,
  ``null``) is a payload like any other, in either kind of stream: it is data that no
  format reads (the pipeline counts it, see :mod:`callstream._pipeline`), and the frames
  after it are read as usual.

Line iterators. Besides raw chunks, the decoders take the items of a line iterator:
``httpx``'s ``iter_lines()`` / ``aiter_lines()`` (``str`` lines without their line ends,
``""`` for a blank line), ``requests``' ``iter_lines()`` (the same as ``bytes``) and
``aiohttp``'s ``async for line in response.content`` (``bytes`` lines that keep their
``b"\n"``, which are ordinary chunks). An SSE stream is read in *line mode* (every item
ends a line) when its first non-empty item holds no line end, is a whole SSE field line
(``data:`` with a JSON value or ``[DONE]``; ``event:``, ``id:``, ``retry:``, a ``:``
comment) and the next item starts a new field, or is empty after a ``data:`` line whose
value is no number (empty items after a line without data, or with a number that more
digits could continue, wait for the next non-empty item: an empty read of a chunk
iterator is not a blank line). Chunk iterators cannot produce that: the next chunk of a
whole line starts with its line end, and an item that holds a line end settles the
stream as chunks for good. NDJSON needs no line ends.

Limits. A line, an SSE event's data and a JSON object are each bounded by
``max_event_chars`` (default :data:`DEFAULT_MAX_EVENT_CHARS`, 32 Mi characters: real
events are at most a few megabytes, a base64 image included); past it
:class:`~callstream.StreamLimitError` is raised, so memory while buffering stays
O(limit) whatever the stream sends. A payload nested too deep for ``json.loads`` raises
the same error instead of vanishing. What came before the offending line, event or
object is never lost, wherever the network cut: a ``feed`` returns the payloads its
chunk completed before it, and the next ``feed`` or ``close`` raises the error (at once
when there were none; :attr:`TransportDecoder.error` shows it in between). The message
names the limit, not how much was read (that depends on the cuts).

Cost: every character is examined a bounded number of times (regex searches from the
current position; partial lines and values are kept as lists of parts and joined once),
so decoding is linear in the stream size however it is chunked.

Modules: this one holds :class:`TransportDecoder` (the choice between the two formats
and the payloads); :mod:`~callstream.providers._sse` the SSE line splitting and decoder;
:mod:`~callstream.providers._json_stream` the JSON object splitter;
:mod:`~callstream.providers._chunks` what they share (the chunk type, incremental UTF-8
decoding, the ``max_event_chars`` check). Every public name is imported from here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Final

from callstream._errors import StreamLimitError
from callstream.providers._chunks import (
    DEFAULT_MAX_EVENT_CHARS,
    STREAM_ERRORS,
    ChunkDecoder,
    ChunkText,
    StreamError,
    TextChunk,
    check_max_event_chars,
    is_transport_chunk,
    load_payload,
    too_long,
)
from callstream.providers._eventstream import EventStreamDecoder, is_eventstream_start
from callstream.providers._json_stream import JSONStreamDecoder
from callstream.providers._sse import ServerSentEvent, SSEDecoder

__all__ = (
    "DEFAULT_MAX_EVENT_CHARS",
    "STREAM_ERRORS",
    "JSONStreamDecoder",
    "SSEDecoder",
    "StreamError",
    "ServerSentEvent",
    "TextChunk",
    "TransportDecoder",
    "TransportMessage",
    "check_max_event_chars",
    "is_transport_chunk",
)

#: Blank text before the first character that decides the kind of stream: Unicode
#: whitespace and byte-order marks, in any order.
_BLANKS = re.compile(r"[\s\ufeff]*")

_LITERALS: Final = ("true", "false", "null")
_LEAD: Final = 6  # characters that decide: the longest literal and the one after it
#: What may follow a JSON literal that begins a stream: blank text, or what separates or
#: begins the next value.
_AFTER_LITERAL: Final = frozenset(' \t\r\n\ufeff,[]{}"')


def _begins_json(lead: str, *, ended: bool = False) -> bool | None:
    """Whether text whose first non-blank characters are ``lead`` is a JSON stream: it
    begins with a JSON value (``{``, ``[``, ``"``, ``-``, a digit, or ``true`` / ``false``
    / ``null`` followed by blank text, a separator or the end); no SSE field name does.
    None while ``lead`` is too short to tell (a prefix of a literal, and the stream not
    ``ended``). Cost: O(1).
    """
    if lead[0] in '{["-0123456789':
        return True
    for literal in _LITERALS:
        if lead.startswith(literal):
            if len(lead) == len(literal):
                return True if ended else None
            return lead[len(literal)] in _AFTER_LITERAL or lead[len(literal)].isspace()
        if literal.startswith(lead):
            return False if ended else None
    return False


@dataclass(frozen=True, slots=True)
class TransportMessage:
    """A payload decoded from raw transport, with the SSE event name when there was one."""

    payload: Any
    event: str | None = None


class TransportDecoder(ChunkDecoder[TransportMessage]):
    """Raw ``str`` / ``bytes`` chunks in, decoded payloads out; SSE or JSON found automatically.

    How the text begins decides: a JSON value (see the module docstring) means a JSON stream
    (NDJSON, concatenated values, or an array of objects), U+0000 Bedrock's binary AWS
    eventstream (read from bytes chunks), anything else server-sent events.
    Blank text before it (Unicode whitespace or byte-order marks) is skipped, read
    through an incremental UTF-8 decoder, and chunks are held until the first few
    characters decide, so the choice is the same wherever the chunks are cut. SSE
    ``data`` that is ``[DONE]``, empty, or not JSON is dropped; so is a JSON value that
    does not parse. A value that is no object is a payload too, and line iterators work
    (see the module docstring). Cost: linear in the input, plus ``json.loads`` of each
    payload; memory O(``max_event_chars``) besides the chunk being decoded.

    Raises:
        StreamLimitError: (from ``feed`` / ``close``) a line, event or object is longer
            than ``max_event_chars``, or a payload is nested too deep to decode; the
            payloads before it are returned first (see :meth:`feed`).
        MalformedStreamError: (from ``feed``) an eventstream message whose length or
            checksum is wrong, the same way.
        OptionTypeError: (from ``feed``) a chunk that is neither ``str`` nor bytes-like.
    """

    __slots__ = (
        "_blank_chars",
        "_dropped",
        "_events",
        "_head",
        "_json",
        "_lead",
        "_max_event_chars",
        "_sniffer",
        "_sse",
    )

    def __init__(self, *, max_event_chars: int = DEFAULT_MAX_EVENT_CHARS) -> None:
        """Set up for one stream.

        Args:
            max_event_chars: the longest line, SSE event data or JSON object accepted,
                in characters.

        Raises:
            OptionTypeError: ``max_event_chars`` is not an int.
            OptionValueError: ``max_event_chars`` is below 1.
        """
        super().__init__()
        self._max_event_chars = check_max_event_chars(max_event_chars)
        self._head: list[TextChunk] | None = []  # None once the kind is known
        self._sniffer = ChunkText()
        self._blank_chars = 0
        self._lead = ""  # the first non-blank characters, while they do not decide
        self._dropped = 0
        self._sse: SSEDecoder | None = None
        self._json: JSONStreamDecoder | None = None
        self._events: EventStreamDecoder | None = None

    @property
    def dropped(self) -> int:
        """How much text was dropped as undecodable so far: SSE data or JSON objects that
        are not JSON, lines that are no SSE field, an object left open at the end, an
        eventstream message without JSON or cut short at the end.
        ``[DONE]``, comments and blank text do not count."""
        dropped = self._dropped
        if self._sse is not None:
            dropped += self._sse.unknown_lines
        if self._json is not None:
            dropped += self._json.unclosed
        if self._events is not None:
            dropped += self._events.dropped
        return dropped

    def flush_into(self, out: list[TransportMessage]) -> None:
        """Flush the end of the stream into ``out``: the end completes at most one
        payload, so an error here has nothing before it."""
        if self._head is not None and self._lead:  # a stream as short as "nul" or "true"
            self._choose(bool(_begins_json(self._lead, ended=True)), out)
        if self._sse is not None:
            self._messages(self._sse.close(), out)
        elif self._json is not None:
            self._objects(self._json.close(), out)
        elif self._events is not None:
            self._events.close()

    def feed_into(self, chunk: TextChunk, out: list[TransportMessage]) -> None:
        """Decode one chunk into ``out``; a limit error is raised at once, after the
        payloads completed before it were appended (:meth:`feed` wraps it with the
        hold rule)."""
        head = self._head
        if head is None:
            self._decode(chunk, out)
            return
        text = self._sniffer.decode(chunk)  # first: a chunk of the wrong type raises here
        head.append(chunk)
        if not self._lead:
            # Blank characters before the first one that decides are bounded (they are
            # held), counted as characters, in the chunk that decides too: the same
            # wherever it is cut.
            blanks = _BLANKS.match(text).end()  # type: ignore[union-attr]
            self._blank_chars += blanks
            if self._blank_chars > self._max_event_chars:
                raise too_long("leading whitespace", self._max_event_chars)
            text = text[blanks:]
            if not text:
                return
            if is_eventstream_start(text[0]) and not isinstance(chunk, str):
                self._events = EventStreamDecoder(max_event_chars=self._max_event_chars)
                self._replay(out)
                return
        self._lead += text[: _LEAD - len(self._lead)]
        json_stream = _begins_json(self._lead)
        if json_stream is not None:
            self._choose(json_stream, out)

    def _choose(self, json_stream: bool, out: list[TransportMessage]) -> None:
        """The kind is known: JSON or SSE; decode the chunks held until now into ``out``."""
        if json_stream:
            self._json = JSONStreamDecoder(max_event_chars=self._max_event_chars)
        else:
            self._sse = SSEDecoder(max_event_chars=self._max_event_chars)
        self._replay(out)

    def _replay(self, out: list[TransportMessage]) -> None:
        """Decode the chunks held while the kind was open into ``out``, in order."""
        head = self._head
        assert head is not None
        self._head = None
        for piece in head:
            self._decode(piece, out)

    def _decode(self, chunk: TextChunk, out: list[TransportMessage]) -> None:
        """One chunk through the chosen decoder into ``out``. The payloads completed
        before a limit error are decoded first; a payload among them too deep to decode
        comes first in the stream, so its error is the one raised."""
        error: StreamError | None = None
        if self._events is not None:
            payloads: list[Any] = []
            try:
                self._events.feed_into(chunk, payloads)
            except STREAM_ERRORS as exc:
                error = exc
            out.extend(TransportMessage(payload) for payload in payloads)
        elif self._sse is not None:
            events: list[ServerSentEvent] = []
            try:
                self._sse.feed_into(chunk, events)
            except StreamLimitError as exc:
                error = exc
            self._messages(events, out)
        else:
            assert self._json is not None
            texts: list[str] = []
            try:
                self._json.feed_into(chunk, texts)
            except StreamLimitError as exc:
                error = exc
            self._objects(texts, out)
        if error is not None:
            raise error

    def _objects(self, texts: list[str], out: list[TransportMessage]) -> None:
        for text in texts:
            ok, value = load_payload(text)
            if ok:
                out.append(TransportMessage(value))
            else:
                self._dropped += 1

    def _messages(self, events: list[ServerSentEvent], out: list[TransportMessage]) -> None:
        for event in events:
            data = event.data.strip()
            if not data or data == "[DONE]":
                continue
            ok, value = load_payload(data)
            if ok:
                out.append(TransportMessage(value, event.event))
            else:
                self._dropped += 1
