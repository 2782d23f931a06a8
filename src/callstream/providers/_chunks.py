"""Raw transport chunks: their type, incremental UTF-8 decoding, the per-event limit, the
one decoding of a payload's JSON (:func:`load_payload`), and the one protocol every
decoder follows (:class:`ChunkDecoder`: feed / hold / flush).

Shared by the SSE decoder (:mod:`callstream.providers._sse`), the JSON stream decoder
(:mod:`callstream.providers._json_stream`, which also reads WebSocket frames: each frame
is one or more whole JSON texts), the AWS eventstream decoder
(:mod:`callstream.providers._eventstream`) and the transport decoder
(:mod:`callstream.providers.transport`, which documents the whole transport layer and
re-exports the public names defined here).
"""

from __future__ import annotations

import codecs
import json
from typing import Any, Final, Generic, TypeVar

from callstream._errors import (
    MalformedStreamError,
    OptionTypeError,
    OptionValueError,
    StreamLimitError,
)

__all__ = (
    "DEFAULT_MAX_EVENT_CHARS",
    "ChunkDecoder",
    "ChunkText",
    "STREAM_ERRORS",
    "LimitHold",
    "StreamError",
    "TextChunk",
    "check_max_event_chars",
    "is_transport_chunk",
    "load_payload",
    "too_long",
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


def too_long(what: str, limit: int) -> StreamLimitError:
    """The error for ``what`` (a line, an event's data, an object) over ``limit`` chars.

    The message does not say how much was read when the check fired: that depends on
    where the chunks were cut, and the message must not (it becomes the reason of the
    calls the error interrupts).
    """
    return StreamLimitError(
        f"{what} exceeds max_event_chars={limit} characters;"
        " raise the limit (stream(..., max_event_chars=...) or"
        " TransportDecoder(max_event_chars=...)) if this is expected"
    )


def load_payload(text: str | bytes) -> tuple[bool, Any]:
    """``(True, value)`` for JSON text, ``(False, None)`` for text that is not JSON (the
    caller drops and counts it). Every decoder reads its payloads through this, so a
    payload too deep to decode is the same error, with the same message, over SSE,
    NDJSON and AWS eventstream. Cost: one ``json.loads``.

    Raises:
        StreamLimitError: the text is JSON nested too deep for ``json.loads``.
    """
    try:
        return True, json.loads(text)
    except RecursionError:
        raise StreamLimitError(
            "a payload is nested too deep to decode (json.loads hit the recursion limit)"
        ) from None
    except ValueError:
        return False, None


StreamError = StreamLimitError | MalformedStreamError
"""What ends a raw stream part way: a limit passed, or framing broken."""

STREAM_ERRORS: Final = (StreamLimitError, MalformedStreamError)
"""The classes of :data:`StreamError`, as an ``except`` clause takes them."""


class LimitHold:
    """Where a decoder keeps a :class:`~callstream.StreamLimitError` (or a
    :class:`~callstream.MalformedStreamError`) it must not raise yet.

    The rule (the same for every decoder, so the output never depends on where the
    network cut): what a chunk completed *before* the line, event or object that broke
    a limit is returned by that ``feed``, and the error is raised by the next ``feed`` or
    ``close``; when the chunk completed nothing before it, it is raised at once. Cost: O(1).
    """

    __slots__ = ("error",)

    def __init__(self) -> None:
        self.error: StreamError | None = None
        """The error held for the next call, None when there is none."""

    def check(self) -> None:
        """Raise the error held back (once), if any."""
        error = self.error
        if error is not None:
            self.error = None
            raise error

    def keep(self, error: StreamError, completed: int) -> None:
        """``error`` stopped a chunk after ``completed`` items: hold it, or raise it now
        when there are none to return first."""
        if not completed:
            raise error
        self.error = error


def is_transport_chunk(item: object) -> bool:
    """True for raw transport chunks (``str`` or bytes-like), False for decoded payloads.

    Reads the item's real type only (an object faking ``__class__`` cannot make this
    raise or lie). Cost: O(1).
    """
    return issubclass(type(item), (str, bytes, bytearray, memoryview))


class ChunkText:
    """Incremental UTF-8 decoding of bytes chunks; ``str`` chunks pass through.

    A character split across chunks is held until complete; undecodable bytes become
    U+FFFD (bad bytes are data, not a crash). Cost: O(size of the chunk) per chunk.
    """

    __slots__ = ("_decoder",)

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def decode(self, chunk: TextChunk) -> str:
        """The text that ``chunk`` completes (a partial character waits for the next).

        Raises:
            OptionTypeError: ``chunk`` is neither ``str`` nor bytes-like (``bytes(5)``
                would silently make five NUL bytes of an int).
        """
        if not is_transport_chunk(chunk):
            raise OptionTypeError(
                "a transport chunk must be str, bytes, bytearray or memoryview, got "
                f"{type(chunk).__qualname__}"
            )
        if isinstance(chunk, str):
            # A text chunk after bytes: a partial character pending becomes U+FFFD.
            held = self._decoder.decode(b"", final=True)
            self._decoder.reset()
            return held + chunk
        return self._decoder.decode(bytes(chunk))

    def flush(self) -> str:
        """The end of the text: a partial character left over becomes U+FFFD."""
        text = self._decoder.decode(b"", final=True)
        self._decoder.reset()
        return text


T = TypeVar("T")


class ChunkDecoder(Generic[T]):
    """The protocol of every transport decoder: chunks in, whole items out (the shape of
    httpx's ``ContentDecoder``: ``decode`` is :meth:`feed`, ``flush`` is :meth:`close`).

    A subclass writes two methods: :meth:`feed_into` (append what one chunk completes;
    raise a :data:`StreamError` at once, after appending what came before it) and
    :meth:`flush_into` (the same for the end of the stream). This class adds the hold
    rule of :class:`LimitHold` once for all of them: :meth:`feed` returns what a chunk
    completed before an error and raises the error on the next call, so the output
    never depends on where the network cut. Cost: O(1) besides the subclass's work.
    """

    __slots__ = ("_hold",)

    def __init__(self) -> None:
        self._hold = LimitHold()

    @property
    def error(self) -> StreamError | None:
        """The error the next :meth:`feed` or :meth:`close` will raise, None when there
        is none (set when a chunk completed items before the error; they were returned
        first). A caller that stops at an error reads it here at once."""
        return self._hold.error

    def feed(self, chunk: TextChunk) -> list[T]:
        """Decode one chunk; return the items it completed.

        Past a limit (or at broken framing), the items the chunk completed before the
        offending one are returned and the error is raised by the next call (at once
        when there are none).
        """
        self._hold.check()
        out: list[T] = []
        try:
            self.feed_into(chunk, out)
        except STREAM_ERRORS as exc:
            self._hold.keep(exc, len(out))
        return out

    def close(self) -> list[T]:
        """Flush the end of the stream; return what it completed. An error here is
        raised at once (after the error held from the last :meth:`feed`, if any)."""
        self._hold.check()
        out: list[T] = []
        self.flush_into(out)
        return out

    def feed_into(self, chunk: TextChunk, out: list[T]) -> None:
        """Append the items ``chunk`` completes to ``out``; raise an error at once."""
        raise NotImplementedError

    def flush_into(self, out: list[T]) -> None:
        """Append the items the end of the stream completes to ``out``."""
        raise NotImplementedError
