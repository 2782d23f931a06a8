"""JSON streams: :class:`JSONStreamDecoder` cuts a stream of JSON values into their texts.

NDJSON, concatenated or pretty-printed objects, and a JSON array of objects (Gemini's
non-SSE stream) all become one text per top-level object; a string, number or literal
between them (``true``, ``1``, ``"x"``) becomes a text of its own; parsing the texts is
left to the caller (:class:`~callstream.providers.transport.TransportDecoder`).

Cost: linear in the input (regex searches from the current position, whole strings
skipped in one match); memory bounded by ``max_event_chars`` per object.
"""

from __future__ import annotations

import re

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

__all__ = ("JSONStreamDecoder",)

# Inside an object: a brace, a whole string (skipped in one match), or the opening quote
# of a string that goes on in the next chunk.
_IN_VALUE = re.compile(r'[{}]|"[^"\\]*(?:\\.[^"\\]*)*"|"', re.DOTALL)
_STRING_REST = re.compile(r'[^"\\]*(?:\\.[^"\\]*)*', re.DOTALL)
# Outside a value: the first character of the next one (blank text, commas, brackets and a
# stray closing brace only separate values).
_VALUE_START = re.compile(r"[^\s,\[\]}]")
# The rest of a number or literal (or of stray text): up to what separates or begins a value.
_WORD_REST = re.compile(r'[^\s,\[\]{}"]*')


class JSONStreamDecoder(ChunkDecoder[str]):
    """Split a stream of JSON values into one text per top-level value.

    Accepts NDJSON, concatenated or pretty-printed objects, and a JSON array of objects
    (``[{...},\\n{...}]``): outside an object, blank text, commas, brackets and a stray
    ``}`` separate values; a string is a value of its own, and so is any other run of
    characters (a number, a literal, or stray text, which the caller finds is not JSON and
    counts as dropped). Only braces and string boundaries are tracked (depth, inside a
    string, after a backslash), so the state carried between chunks is bounded; the text
    of the value being read is kept as parts and joined once it ends.
    Cost: linear in the input; memory bounded by ``max_event_chars`` per object.

    Raises:
        StreamLimitError: (from ``feed``) a value is longer than ``max_event_chars``;
            the values before it are returned first (see :meth:`feed`).
        OptionTypeError: (from ``feed``) a chunk that is neither ``str`` nor bytes-like.
    """

    __slots__ = (
        "_depth",
        "_escape",
        "_in_string",
        "_max_event_chars",
        "_open",
        "_scalar",
        "_text",
        "unclosed",
    )

    def __init__(self, *, max_event_chars: int = DEFAULT_MAX_EVENT_CHARS) -> None:
        super().__init__()
        self._max_event_chars = check_max_event_chars(max_event_chars)
        self._text = ChunkText()
        self._open = Text()  # the open object's text from earlier chunks (in blocks)
        self._depth = 0
        self._in_string = False
        self._escape = False
        self._scalar = False  # inside a top-level value that is no object
        self.unclosed = False
        """Whether :meth:`close` dropped an object or a string left open."""

    def feed_into(self, chunk: TextChunk, texts: list[str]) -> None:
        """Append the texts of the values one chunk completes; a limit error is raised at
        once (the texts completed before it are in ``texts`` already). :meth:`feed`
        wraps it with the hold rule."""
        self._scan(self._text.decode(chunk), texts)

    def flush_into(self, texts: list[str]) -> None:
        """The end of the stream. An object or a string left open is dropped (it was cut
        off); a number or literal the stream ends with is complete. The flushed text is
        at most one character and closes no object, so a limit error here has nothing
        completed before it.
        """
        self._scan(self._text.flush(), texts)
        self.unclosed = self._depth > 0 or self._in_string
        if self._scalar and not self._in_string:
            texts.append(self._open.value())
        self._open.clear()
        self._depth = 0
        self._in_string = self._escape = self._scalar = False

    def _scan(self, text: str, texts: list[str]) -> None:
        """Append the values ``text`` completes to ``texts``; the open value's part is
        kept for later."""
        position = 0
        length = len(text)
        start = 0  # where the current value's text begins in this chunk
        while position < length:
            if self._depth == 0 and not self._scalar:
                found = _VALUE_START.search(text, position)
                if found is None:
                    return
                start = found.start()
                position = self._begin_value(text[start], start)
            elif self._escape:
                self._escape = False
                position += 1
            elif self._in_string:
                position = self._end_of_string(text, position)
                if self._scalar and not self._in_string:  # a top-level string ended
                    self._close_object(text[start:position], texts)
            elif self._scalar:
                position = _WORD_REST.match(text, position).end()  # type: ignore[union-attr]
                if position < length:  # the number or literal ended here
                    self._close_object(text[start:position], texts)
            else:
                position = self._next_token(text, position, start, texts)
        if self._depth > 0 or self._scalar:
            if self._open.length + length - start > self._max_event_chars:
                raise self._too_long()
            self._open.add(text[start:])

    def _begin_value(self, first: str, position: int) -> int:
        """A top-level value begins at ``position`` with ``first``: an object, a string,
        or a number or literal (any other run of characters); where to go on from."""
        if first == "{":
            self._depth = 1
            return position + 1
        self._scalar = True
        if first == '"':
            self._in_string = True
            return position + 1
        return position

    def _end_of_string(self, text: str, position: int) -> int:
        """Skip the rest of a string: past its closing quote, or to the chunk's end.

        A backslash is skipped with the character after it; a backslash that is the
        chunk's last character leaves ``_escape`` set for the next chunk.
        """
        position = _STRING_REST.match(text, position).end()  # type: ignore[union-attr]
        if position == len(text):
            return position
        if text[position] == '"':
            self._in_string = False
        else:
            self._escape = True
        return position + 1

    def _next_token(self, text: str, position: int, start: int, texts: list[str]) -> int:
        """Step over the next brace or string inside an object; where to go on from.

        A brace that closes the top-level object appends its text (from ``start`` in
        this chunk, after the parts kept from earlier chunks) to ``texts``.
        """
        match = _IN_VALUE.search(text, position)
        if match is None:
            return len(text)
        position = match.end()
        token = match.group()
        if token == '"':
            self._in_string = True  # the string goes on in the next chunk
        elif token == "{":
            self._depth += 1
        elif token == "}":
            self._depth -= 1
            if self._depth == 0:
                self._close_object(text[start:position], texts)
        return position  # anything else was a whole string

    def _close_object(self, last_part: str, texts: list[str]) -> None:
        """A top-level value (an object, or another value) ended with ``last_part``."""
        whole = self._open
        if whole.length + len(last_part) > self._max_event_chars:
            raise self._too_long()
        if whole.pieces:
            whole.add(last_part)
            texts.append(whole.value())
            whole.clear()
        else:
            texts.append(last_part)
        self._scalar = False

    def _too_long(self) -> StreamLimitError:
        what = "a JSON value" if self._scalar else "a JSON object"
        return too_long(what, self._max_event_chars)
