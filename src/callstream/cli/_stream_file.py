"""Reading a recorded stream from a file, line by line, with errors that name the line.

Three layouts are recognized from the first non-blank line:

- JSON lines (also NDJSON): one decoded payload per line, as in the bundled examples.
  A file that is one JSON array of payloads (or one payload object, pretty-printed over
  several lines) is accepted too: when the first line is not JSON by itself, the file is
  split into its top-level objects instead (a payload that is not JSON there is named by
  the line its error is on; if no payload comes out, the error is the first line's).
- Server-sent events text (``data:`` / ``event:`` lines separated by blank lines), as it
  comes off the wire. ``data: [DONE]`` is kept as the end marker it is.
- A recording of ``callstream.testing``'s ``RecordingTransport`` (its header line first):
  the response body of its first streamed exchange, decoded as the transport decoder
  decodes raw chunks (:mod:`callstream.providers._recording`, the one reading of that
  format), each payload named by its exchange's line.

A third layout is taken only when asked for (``--provider text``, :func:`load_path` with
``raw_text=True``): the file is the model's raw output, read in blocks of
:data:`RAW_BLOCK` bytes whatever its lines (one text piece each, UTF-8 decoded across the
block ends, bytes that are not UTF-8 as U+FFFD, as ``provider="text"`` reads bytes).

The file is streamed: :func:`load_path` reads only its first lines (to fail fast on a
missing file, an empty file or an unknown layout, exit status 2), and the payloads are
then read one line at a time while the replay runs, so memory stays bounded by the
longest line (or payload), not the file. A line that is not JSON stops the replay with
its line number. A last line cut off mid-way (no line end, not complete JSON) is what a
recording of an interrupted stream looks like: it is dropped, like callstream's own
transport decoder does, and the stream ends there (the call it belonged to becomes an
invalid tool call, "cut off").

Integers longer than Python's int conversion limit (``sys.get_int_max_str_digits()``,
4,300 digits by default) in a payload are refused with a one-line error naming the line,
instead of a ``ValueError`` traceback (converting them would cost quadratic time).

Cost: O(size of the file); one ``json.loads`` per payload; memory O(longest line): about
twice the longest line, its text and the payload decoded from it.
"""

from __future__ import annotations

import codecs
import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, Any, Literal

from callstream.providers._recording import FORMAT, is_header
from callstream.providers.transport import JSONStreamDecoder, SSEDecoder, TransportDecoder

__all__ = (
    "DONE",
    "RAW_BLOCK",
    "InputError",
    "Record",
    "Recording",
    "Source",
    "load_path",
    "load_text",
)


Layout = Literal["jsonl", "sse", "recording", "text"]
"""How a recording file is laid out (see the module docstring)."""


class InputError(Exception):
    """A file that cannot be replayed: missing, unreadable, not JSON, unknown layout."""


RAW_BLOCK = 64 * 1024
"""Bytes read at a time from a file of raw text (``--provider text``): one piece each."""

DONE: Any = object()
"""The payload of the record standing for ``data: [DONE]`` in a streamed :class:`Source`."""


@dataclass(frozen=True, slots=True)
class Record:
    """One payload of a recording: where it starts, its SSE event name, the value."""

    line: int
    payload: Any
    event: str | None = None


@dataclass(frozen=True, slots=True)
class Recording:
    """A whole recording held in memory: layout, payloads in order, name for messages;
    ``size``: its text in UTF-8 bytes."""

    name: str
    layout: Layout
    records: tuple[Record, ...]
    done_marker: bool = False
    size: int = 0

    def stream(self) -> Iterator[Record]:
        """The records, then a :data:`DONE` record if the stream had its end marker."""
        yield from self.records
        if self.done_marker:
            yield Record(self.records[-1].line if self.records else 1, DONE)


@dataclass(slots=True)
class _Tally:
    """The bytes of a recording read so far (its line reader counts them)."""

    bytes: int = 0


@dataclass(eq=False)
class Source:
    """A recording read lazily from a file: iterate :meth:`stream` once for its records.

    ``cut`` tells, once the records were read, whether the last line was cut off.
    """

    name: str
    layout: Layout
    _lines: Iterator[tuple[int, str, bool]] = field(repr=False)
    _head: list[tuple[int, str, bool]] = field(repr=False)
    _tally: _Tally = field(repr=False)
    cut: bool = False

    @property
    def size(self) -> int:
        """The bytes of the file read so far: all of it once :meth:`stream` is done."""
        return self._tally.bytes

    def stream(self) -> Iterator[Record]:
        """Yield the records in order (a :data:`DONE` record for ``data: [DONE]``).

        Raises:
            InputError: a payload that is not JSON (naming its line), an integer over the
                conversion limit, or no payload at all.
        """
        lines = _chain(self._head, self._lines)
        self._head = []  # _chain empties the list as it goes: no line is held past its turn
        reader = _READERS[self.layout]
        count = 0
        for record in reader(self, lines):
            if record.payload is not DONE:
                count += 1
            yield record
        if not count:
            empty = "the file is empty (no text)" if self.layout == "text" else ""
            raise InputError(f"{self.name}: {empty or 'no payloads in this stream'}")


def _chain(
    head: list[tuple[int, str, bool]], rest: Iterator[tuple[int, str, bool]]
) -> Iterator[tuple[int, str, bool]]:
    head.reverse()
    while head:
        yield head.pop()
    yield from rest


# --- JSON with a bounded integer size -------------------------------------------------------


class _BigInteger(Exception):
    def __init__(self, digits: int) -> None:
        super().__init__(digits)
        self.digits = digits


def _parse_int(text: str) -> int:
    limit = sys.get_int_max_str_digits()
    digits = len(text) - (text[0] == "-")
    if limit and digits > limit:
        raise _BigInteger(digits)
    return int(text)


def _loads(text: str) -> Any:
    """``json.loads``, raising :class:`_BigInteger` for integers over the limit."""
    return json.loads(text, parse_int=_parse_int)


_EXCERPT = 60


def _excerpt(text: str) -> str:
    text = text.strip()
    return repr(text if len(text) <= _EXCERPT else text[:_EXCERPT] + "...")


def _decode_error(name: str, line: int, text: str, error: Exception, what: str) -> InputError:
    if isinstance(error, json.JSONDecodeError):
        return InputError(
            f"{name}:{line}: {what} ({error.msg} at column {error.colno}): {_excerpt(text)}"
        )
    if isinstance(error, _BigInteger):
        return InputError(
            f"{name}:{line}: an integer of {error.digits:,} digits is over Python's limit of "
            f"{sys.get_int_max_str_digits():,} (set PYTHONINTMAXSTRDIGITS to allow it)"
        )
    return InputError(f"{name}:{line}: JSON nested too deeply")


_DECODE_ERRORS = (json.JSONDecodeError, _BigInteger, RecursionError)


# --- the two layouts ------------------------------------------------------------------------


def _json_records(source: Source, lines: Iterator[tuple[int, str, bool]]) -> Iterator[Record]:
    name = source.name
    first = True
    for number, line, ended in lines:
        if not line or line.isspace():  # no stripped copy of a long line
            continue
        try:
            value = _loads(line)
        except _DECODE_ERRORS as error:
            if not ended:  # the last line, cut off mid-way
                if first:
                    raise _decode_error(name, number, line, error, "not JSON") from None
                source.cut = True
                return
            if first and isinstance(error, json.JSONDecodeError):
                yield from _document_records(source, number, line, lines, error)
                return
            raise _decode_error(name, number, line, error, "not JSON") from None
        first = False
        if isinstance(value, list):
            for item in value:
                yield Record(number, item)
        else:
            yield Record(number, value)


def _document_records(
    source: Source,
    number: int,
    line: str,
    lines: Iterator[tuple[int, str, bool]],
    first_error: json.JSONDecodeError,
) -> Iterator[Record]:
    """Split a pretty-printed array of payloads (or a single payload) into its objects.

    ``line`` (line ``number``) is the first line, not JSON by itself (``first_error``):
    if no payload comes out of the document either, that is the error reported.
    """
    first_number, first_line = number, line
    decoder = JSONStreamDecoder()
    texts = decoder.feed(line + "\n")
    ended = True
    found = False
    while True:
        for text in texts:
            found = True
            yield _document_record(source.name, number, text)
        if not ended:
            break
        try:
            number, line, ended = next(lines)
        except StopIteration:
            break
        texts = decoder.feed(line + "\n" if ended else line)
    for text in decoder.close():  # an object left open at the end was cut off: dropped
        found = True
        yield _document_record(source.name, number, text)
    if not found:
        raise _decode_error(source.name, first_number, first_line, first_error, "not JSON")


def _document_record(name: str, end: int, text: str) -> Record:
    """The payload of one object of a document, which ends on line ``end``; a decode
    error names the line it is on (every line was fed with one line end)."""
    try:
        return Record(end, _loads(text))
    except json.JSONDecodeError as error:
        start = end - text.count("\n")
        at = text.split("\n")[error.lineno - 1]
        raise _decode_error(name, start + error.lineno - 1, at, error, "not JSON") from None
    except _DECODE_ERRORS as error:
        raise _decode_error(name, end, text, error, "not JSON") from None


def _sse_records(source: Source, lines: Iterator[tuple[int, str, bool]]) -> Iterator[Record]:
    decoder = SSEDecoder()
    data_line: int | None = None  # line of the first data line of the pending event
    number = 0
    last_ended = True
    for number, line, ended in lines:
        last_ended = ended
        if line.startswith("data") and data_line is None:
            data_line = number
        for event in decoder.feed(line + "\n"):
            yield from _sse_record(source, event, data_line or number, final=False)
            data_line = None
    for event in decoder.close():
        yield from _sse_record(source, event, data_line or number, final=not last_ended)


def _sse_record(source: Source, event: Any, start: int, *, final: bool) -> Iterator[Record]:
    data = event.data.strip()
    if data == "[DONE]":
        yield Record(start, DONE)
        return
    if not data:
        return
    try:
        yield Record(start, _loads(data), event.event)
    except _DECODE_ERRORS as error:
        if final:  # the last event, cut off mid-line
            source.cut = True
            return
        raise _decode_error(source.name, start, data, error, "SSE data is not JSON") from None


def _text_records(source: Source, blocks: Iterator[tuple[int, str, bool]]) -> Iterator[Record]:
    """Raw text: each block is one piece of text (its number stands for the line)."""
    for number, text, _ in blocks:
        if text:
            yield Record(number, text)


def _recording_records(
    source: Source, lines: Iterator[tuple[int, str, bool]]
) -> Iterator[Record]:
    """The payloads of a ``RecordingTransport`` file, read by the transport decoder (which
    knows the recording's header and exchanges: :mod:`callstream.providers._recording`)."""
    decoder = TransportDecoder()
    number = 0
    for number, line, _ in lines:
        for message in decoder.feed(line + "\n"):
            yield Record(number, message.payload, message.event)
    for message in decoder.close():
        yield Record(number, message.payload, message.event)


_READERS = {
    "jsonl": _json_records,
    "sse": _sse_records,
    "recording": _recording_records,
    "text": _text_records,
}


def _is_recording(line: str) -> bool:
    """Whether ``line`` is a recording's header line."""
    if FORMAT not in line:
        return False
    try:
        return is_header(json.loads(line))
    except ValueError:
        return False


# --- reading lines --------------------------------------------------------------------------

_SSE_LINE = re.compile(r"^(?:data|event|id|retry)(?::|$)|^:")
_LINE_END = re.compile(r"\r\n|\r|\n")


def _text_lines(text: str, tally: _Tally) -> Iterator[tuple[int, str, bool]]:
    """(number, line, ended) of text; not str.splitlines (JSON may hold U+2028 raw)."""
    tally.bytes = len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
    parts = _LINE_END.split(text)
    last = len(parts) - 1
    for number, line in enumerate(parts, start=1):
        if number - 1 == last:
            if line:
                yield number, line, False
            return
        yield number, line, True


def _byte_lines(file: IO[bytes], name: str, tally: _Tally) -> Iterator[tuple[int, str, bool]]:
    """(number, line, ended) of a binary file, decoded as UTF-8, read one line at a time.

    Only the decoded line is held while it is yielded (the bytes are decoded in place and
    let go first), so a long line costs its text once, not three times.
    """
    number = 0
    try:
        for raw in file:
            start = tally.bytes  # of the current piece in the file, for error messages
            tally.bytes += len(raw)
            # Lines end at LF; a CR alone also ends a line (old Mac files, SSE allows it).
            end = len(raw)
            ended = raw.endswith(b"\n")
            end -= ended
            if end and raw[end - 1] == 13:  # CR
                end -= 1
                ended = True
            body = memoryview(raw)[:end]  # no copy of the line
            pieces: list[bytes | memoryview] = (
                [*bytes(body).split(b"\r")] if raw.find(b"\r", 0, end) >= 0 else [body]
            )
            del raw, body
            last = len(pieces) - 1
            for position in range(last + 1):
                piece = pieces[position]
                pieces[position] = b""
                number += 1
                try:
                    text = str(piece, "utf-8")
                except UnicodeDecodeError as error:
                    raise InputError(
                        f"{name}:{number}: not UTF-8 text (byte {start + error.start})"
                    ) from None
                start += len(piece) + 1
                del piece
                if number == 1:
                    text = text.removeprefix("\ufeff")
                yield number, text, ended or position < last
                del text
    finally:
        file.close()


def _raw_blocks(file: IO[bytes], tally: _Tally) -> Iterator[tuple[int, str, bool]]:
    """(number, text, True) of a binary file read in blocks of :data:`RAW_BLOCK` bytes,
    decoded as UTF-8 across block ends (undecodable bytes as U+FFFD)."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    number = 0
    try:
        while block := file.read(RAW_BLOCK):
            tally.bytes += len(block)
            number += 1
            yield number, decoder.decode(block), True
        yield number + 1, decoder.decode(b"", final=True), True
    finally:
        file.close()


def _open_raw(file: IO[bytes], name: str) -> Source:
    """A file of raw text, as a :class:`Source` of layout ``"text"``."""
    tally = _Tally()
    return Source(name, "text", _raw_blocks(file, tally), [], tally)


def _open(lines: Iterator[tuple[int, str, bool]], name: str, tally: _Tally) -> Source:
    """Read up to the first non-blank line to find the layout; keep what was read."""
    head: list[tuple[int, str, bool]] = []
    for number, line, ended in lines:
        head.append((number, line, ended))
        stripped = line.strip()
        if not stripped:
            continue
        if stripped[0] in "{[":
            layout: Layout = "recording" if _is_recording(stripped) else "jsonl"
            return Source(name, layout, lines, head, tally)
        if _SSE_LINE.match(stripped):
            return Source(name, "sse", lines, head, tally)
        raise InputError(
            f"{name}:{number}: not a recorded stream: expected JSON lines or "
            f"server-sent events ('data: ...'), found {_excerpt(stripped)} (for a file of "
            "the model's raw text, pass --provider text)"
        )
    raise InputError(f"{name}: the file is empty (no payloads)")


def load_text(text: str, name: str) -> Recording:
    """Parse a whole recording from its text; ``name`` is used in error messages.

    Raises:
        InputError: the text is empty, in neither layout, or holds a payload that is not
            JSON (the message names the line).
    """
    tally = _Tally()
    source = _open(_text_lines(text.removeprefix("\ufeff"), tally), name, tally)
    records: list[Record] = []
    done = False
    for record in source.stream():
        if record.payload is DONE:
            done = True
        else:
            records.append(record)
    return Recording(name, source.layout, tuple(records), done_marker=done, size=source.size)


def load_path(path: str, *, raw_text: bool = False) -> Source:
    """Open the recording at ``path`` (``-`` reads standard input) for streaming.

    Reads only up to the first non-blank line; iterate :meth:`Source.stream` for the rest.
    ``raw_text``: the file is the model's raw output (layout ``"text"``, see the module
    docstring), read lazily in blocks.

    Raises:
        InputError: the file is missing, unreadable, empty, not UTF-8, or not a recording.
    """
    if path == "-":
        stdin: Any = sys.stdin
        buffer = getattr(stdin, "buffer", None)
        if buffer is None:  # a text stream without bytes underneath (tests, IDEs)
            tally = _Tally()
            text = stdin.read()
            if raw_text:
                tally.bytes = len(text.encode("utf-8", "surrogatepass"))
                return Source("<stdin>", "text", iter([(1, text, True)]), [], tally)
            return _open(_text_lines(text, tally), "<stdin>", tally)
        if raw_text:
            return _open_raw(buffer, "<stdin>")
        tally = _Tally()
        return _open(_byte_lines(buffer, "<stdin>", tally), "<stdin>", tally)
    try:
        file = open(path, "rb")  # noqa: SIM115 - closed by _byte_lines / _raw_blocks
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory, not a file") from None
    except OSError as error:
        raise InputError(f"{path}: cannot read: {error.strerror or error}") from None
    if raw_text:
        return _open_raw(file, path)
    try:
        tally = _Tally()
        return _open(_byte_lines(file, path, tally), path, tally)
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory, not a file") from None
    except OSError as error:
        raise InputError(f"{path}: cannot read: {error.strerror or error}") from None
