"""Server-sent events: incremental line splitting and the :class:`SSEDecoder`.

The decoder follows the server-sent events format (``data:`` lines joined with ``\\n``,
``event:`` names, ``id:``, ``retry:``, ``:`` comments, LF / CR / CRLF line ends, a
leading byte-order mark), over raw chunks or over the items of a line iterator (*line
mode*, recognized from the first items; :mod:`callstream.providers.transport` describes
the rule). Deliberate leniency: :meth:`SSEDecoder.close` dispatches a final event that
lacks its blank line, because many servers and captures end that way.

Cost: linear in the input (lines are split with ``str`` methods, a partial line is kept
as a list of parts and joined once); memory bounded by ``max_event_chars`` per line and
per event.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from callstream._errors import StreamLimitError
from callstream._json.pieces import Text
from callstream.providers._chunks import (
    DEFAULT_MAX_EVENT_CHARS,
    ChunkDecoder,
    ChunkText,
    TextChunk,
    check_max_event_chars,
    too_long,
)

__all__ = ("SSEDecoder", "ServerSentEvent")


class _LineSplitter:
    """Incremental line splitting on LF, CR and CRLF (a CR at a chunk end waits for LF).

    A line longer than ``max_event_chars`` is never stored: :meth:`feed` returns the
    lines before it with the :class:`~callstream.StreamLimitError` for it.
    """

    __slots__ = ("_line", "_max_event_chars", "_skip_lf")

    def __init__(self, max_event_chars: int) -> None:
        self._line = Text()  # the line begun in earlier chunks (in blocks)
        self._max_event_chars = max_event_chars
        self._skip_lf = False

    @property
    def open(self) -> bool:
        """Whether a line was started and not ended yet."""
        return bool(self._line.pieces)

    def feed(self, text: str) -> tuple[list[str], StreamLimitError | None]:
        """The lines that ``text`` ends (without their line ends), and None; keep the rest.

        When a line is over the limit: the lines before it, and the error (the rest of
        ``text`` is dropped).
        """
        if self._skip_lf and text:
            self._skip_lf = False
            if text[0] == "\n":
                text = text[1:]
        if "\r" in text:
            self._skip_lf = text[-1] == "\r"  # the LF of a CRLF may come in the next chunk
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        lines = text.split("\n")  # str methods run at C speed; a regex walk does not
        tail = lines.pop()
        limit = self._max_event_chars
        line = self._line
        if lines:
            if line.length + len(lines[0]) > limit:
                return [], too_long("an SSE line", limit)
            if line.pieces:
                line.add(lines[0])
                lines[0] = line.value()
                line.clear()
            if len(lines) > 1 and len(text) > limit:
                lengths = list(map(len, lines))
                if max(lengths) > limit:
                    first = next(i for i, size in enumerate(lengths) if size > limit)
                    return lines[:first], too_long("an SSE line", limit)
        if tail:
            if line.length + len(tail) > limit:
                return lines, too_long("an SSE line", limit)
            line.add(tail)
        return lines, None

    def flush(self) -> list[str]:
        """The line left without a line end at the end of the stream, if any."""
        line = self._line
        if not line.pieces:
            return []
        whole = line.value()
        line.clear()
        return [whole]


@dataclass(frozen=True, slots=True)
class ServerSentEvent:
    """One dispatched server-sent event. ``event`` is None for the default type."""

    data: str
    event: str | None = None
    id: str | None = None
    retry: int | None = None


_FIELD_START = re.compile(r"(?:data|event|id|retry):")
_WHOLE_FIELD = re.compile(r"(?:event|id|retry):[^\r\n]*|:[^\r\n]*")

# How the items fed are read: not known yet, as chunks, or as lines (each ends a line).
_UNDECIDED, _CHUNKS, _LINES = 0, 1, 2


def _whole_field_line(text: str, *, alone: bool = False) -> bool:
    """Whether ``text`` is a whole SSE field line that no chunk of a valid stream could
    continue with the next field: ``event:`` / ``id:`` / ``retry:`` / a comment, or
    ``data:`` holding a JSON value that parses (an object, array, string, number or
    literal: ``data: true`` too), or ``[DONE]``. ``alone`` (no next field to tell yet):
    not a number, which a chunk could go on with more digits (``data: 1``, ``2``).
    Cost: O(len(text)) (one ``json.loads``)."""
    text = text.removeprefix("\ufeff")
    if _WHOLE_FIELD.fullmatch(text):
        return True
    if not text.startswith("data:"):
        return False
    value = text[5:].strip()
    if value == "[DONE]":
        return True
    if not value or (alone and value[-1].isdigit()):
        return False
    try:
        json.loads(value)
    except (ValueError, RecursionError):
        return False
    return True


class SSEDecoder(ChunkDecoder[ServerSentEvent]):
    """Incremental server-sent events decoder over ``str`` / ``bytes`` chunks or lines.

    ``feed`` returns the events completed by a chunk (an event completes at a blank line);
    ``close`` returns a last event that the stream ended without a blank line. Comments,
    unknown fields and events without ``data`` are dropped. The ``id`` is the last id seen,
    as the format specifies. Items of a line iterator (lines without their line ends,
    ``""`` for a blank line) are recognized at the second item and each then ends a line
    (see :mod:`callstream.providers.transport`); any item holding a line end settles the
    stream as chunks. Cost: linear in the input; memory bounded by ``max_event_chars``
    per line and per event.

    Raises:
        StreamLimitError: (from ``feed`` / ``close``) a line or an event's data is longer
            than ``max_event_chars``; the events before it are returned first (see
            :meth:`feed`).
        OptionTypeError: (from ``feed``) a chunk that is neither ``str`` nor bytes-like.
    """

    __slots__ = (
        "_blanks",
        "_data",
        "_event",
        "_first",
        "_id",
        "_lines",
        "_max_event_chars",
        "_mode",
        "_retry",
        "_size",
        "_started",
        "_text",
        "unknown_lines",
    )

    def __init__(self, *, max_event_chars: int = DEFAULT_MAX_EVENT_CHARS) -> None:
        super().__init__()
        self._max_event_chars = check_max_event_chars(max_event_chars)
        self._text = ChunkText()
        self._lines = _LineSplitter(self._max_event_chars)
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

    def feed_into(self, chunk: TextChunk, events: list[ServerSentEvent]) -> None:
        """Append the events one chunk (or one line of a line iterator) completes; a
        limit error is raised at once (the events completed before it are in ``events``
        already). :meth:`feed` wraps it with the hold rule."""
        text = self._text.decode(chunk)
        if self._mode == _CHUNKS:
            self._on_text(text, events)
        elif "\n" in text or "\r" in text:
            self._mode = _CHUNKS
            self._first = None
            self._on_text(text, events)
        elif self._mode == _LINES:
            self._on_text(text + "\n", events)
        else:
            self._on_undecided(text, events)

    def flush_into(self, events: list[ServerSentEvent]) -> None:
        """The end of the stream: a final event left without its blank line.

        The flushed text is at most one character without a line end, so a limit error
        here has nothing completed before it.
        """
        self._on_text(self._text.flush(), events)
        for line in self._lines.flush():
            self._on_line(line, events)
        self._dispatch(events)

    def _on_undecided(self, text: str, events: list[ServerSentEvent]) -> None:
        """An item without a line end while the mode is undecided: settle it if it can be."""
        first = self._first
        if first is None:
            if text and not self._lines.open:
                self._first = text
            self._on_text(text, events)
            return
        if not text:
            self._on_empty_item(first, events)
            return
        self._first = None
        blanks, self._blanks = self._blanks, 0
        # Lines if this item starts a field (or a comment) after a whole field line: after
        # a blank line too, since a line iterator's next line starts a field, while a chunk
        # may go on with the field that ``first`` began (``event:``, "", `` e0``).
        if (_FIELD_START.match(text) or text.startswith(":")) and _whole_field_line(first):
            self._mode = _LINES
            self._on_text("\n" * (1 + blanks) + text + "\n", events)
            return
        self._mode = _CHUNKS
        self._on_text(text, events)

    def _on_empty_item(self, first: str, events: list[ServerSentEvent]) -> None:
        """An empty item after ``first``: a blank line of a line iterator, or an empty read.

        After a whole ``data:`` line it is taken as a blank line at once (the event is due
        now); after a line without data (``event:`` ...) the next non-empty item settles
        it, at no cost in latency.
        """
        data_line = first.removeprefix("\ufeff").startswith("data:")
        if data_line and _whole_field_line(first, alone=True):
            self._first = None
            self._mode = _LINES
            self._on_text("\n\n", events)
            return
        self._blanks += 1

    def _on_text(self, text: str, events: list[ServerSentEvent]) -> None:
        """Take the lines ``text`` ends; a line over the limit raises after the lines
        before it were taken."""
        if not self._started and text:
            self._started = True
            text = text.removeprefix("\ufeff")
        lines, error = self._lines.feed(text)
        for line in lines:
            self._on_line(line, events)
        if error is not None:
            raise error

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
            if self._size > self._max_event_chars:
                raise too_long("an SSE event's data", self._max_event_chars)
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
