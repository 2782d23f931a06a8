"""Reading a recorded stream from a file, with errors that name the line.

Two layouts are recognized from the first non-blank line:

- JSON lines (also NDJSON): one decoded payload per line, as in the bundled examples.
  A file that is one JSON array of payloads (or one payload object, pretty-printed over
  several lines) is accepted too.
- Server-sent events text (``data:`` / ``event:`` lines separated by blank lines), as it
  comes off the wire. ``data: [DONE]`` is kept as the end marker it is.

Everything is checked before the replay starts, so a bad file fails fast with the line
number (exit status 2) instead of half-way through a live display. The payloads are then
handed to callstream: JSON-lines payloads as decoded dicts, SSE text as raw text, one
event per chunk (so callstream's own SSE decoding is what runs).

Cost: O(size of the file); one ``json.loads`` per payload.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from callstream.providers.transport import SSEDecoder

__all__ = ("InputError", "Record", "Recording", "load_path", "load_text")


class InputError(Exception):
    """A file that cannot be replayed: missing, unreadable, not JSON, unknown layout."""


@dataclass(frozen=True, slots=True)
class Record:
    """One payload of a recording: where it starts, its SSE event name, the value."""

    line: int
    payload: Any
    event: str | None = None


@dataclass(frozen=True, slots=True)
class Recording:
    """A whole recording: its layout, payloads in order, and its name for messages."""

    name: str
    layout: Literal["jsonl", "sse"]
    records: tuple[Record, ...]
    done_marker: bool = False

    def payloads(self) -> list[Any]:
        """The decoded payloads, in order."""
        return [r.payload for r in self.records]


_SSE_LINE = re.compile(r"^(?:data|event|id|retry)(?::|$)|^:")
_EXCERPT = 60


def _excerpt(text: str) -> str:
    text = text.strip()
    return repr(text if len(text) <= _EXCERPT else text[:_EXCERPT] + "...")


def _json_error(name: str, line: int, text: str, error: json.JSONDecodeError) -> InputError:
    return InputError(
        f"{name}:{line}: not JSON ({error.msg} at column {error.colno}): {_excerpt(text)}"
    )


_LINE_END = re.compile(r"\r\n|\r|\n")


def _numbered(text: str) -> Iterator[tuple[int, str]]:
    # Not str.splitlines: JSON strings may hold U+2028 and friends unescaped.
    yield from enumerate(_LINE_END.split(text), start=1)


def _load_json_lines(name: str, text: str) -> Recording:
    records: list[Record] = []
    for number, line in _numbered(text):
        if not line.strip():
            continue
        try:
            records.append(Record(number, json.loads(line)))
        except json.JSONDecodeError as error:
            whole = _whole_document(text)
            if whole is not None:
                return Recording(name, "jsonl", whole)
            raise _json_error(name, number, line, error) from None
        except RecursionError:
            raise InputError(f"{name}:{number}: JSON nested too deeply") from None
    return Recording(name, "jsonl", tuple(records))


def _whole_document(text: str) -> tuple[Record, ...] | None:
    """A file holding one JSON array of payloads, or one pretty-printed payload."""
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return None
    if isinstance(value, list):
        return tuple(Record(1, item) for item in value)
    if isinstance(value, dict):
        return (Record(1, value),)
    return None


def _load_sse(name: str, text: str) -> Recording:
    decoder = SSEDecoder()
    records: list[Record] = []
    done = False
    data_line: int | None = None  # line of the first data line of the pending event
    lines = list(_numbered(text))
    for number, line in [*lines, (len(lines) + 1, "")]:
        if line.startswith("data") and data_line is None:
            data_line = number
        for event in decoder.feed(line + "\n"):
            start = data_line if data_line is not None else number
            data_line = None
            data = event.data.strip()
            if data == "[DONE]":
                done = True
                continue
            if not data:
                continue
            try:
                records.append(Record(start, json.loads(data), event.event))
            except json.JSONDecodeError as error:
                raise InputError(
                    f"{name}:{start}: SSE data is not JSON ({error.msg}): {_excerpt(data)}"
                ) from None
            except RecursionError:
                raise InputError(f"{name}:{start}: JSON nested too deeply") from None
    return Recording(name, "sse", tuple(records), done_marker=done)


def load_text(text: str, name: str) -> Recording:
    """Parse a recording from its text; ``name`` is used in error messages.

    Raises:
        InputError: the text is empty, in neither layout, or holds a payload that is not
            JSON (the message names the line).
    """
    text = text.removeprefix("\ufeff")
    for number, line in _numbered(text):
        stripped = line.strip()
        if not stripped:
            continue
        if stripped[0] in "{[":
            recording = _load_json_lines(name, text)
        elif _SSE_LINE.match(stripped):
            recording = _load_sse(name, text)
        else:
            raise InputError(
                f"{name}:{number}: not a recorded stream: expected JSON lines or "
                f"server-sent events ('data: ...'), found {_excerpt(stripped)}"
            )
        if not recording.records:
            raise InputError(f"{name}: no payloads in this stream")
        return recording
    raise InputError(f"{name}: the file is empty (no payloads)")


def load_path(path: str) -> Recording:
    """Read and parse the recording at ``path`` (``-`` reads standard input).

    Raises:
        InputError: the file is missing, unreadable, not UTF-8, or not a recording.
    """
    if path == "-":
        try:
            data = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else None
            text = data.decode("utf-8") if data is not None else sys.stdin.read()
        except UnicodeDecodeError as error:
            raise InputError(f"<stdin>: not UTF-8 text (byte {error.start})") from None
        return load_text(text, "<stdin>")
    file = Path(path)
    try:
        data = file.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory, not a file") from None
    except OSError as error:
        raise InputError(f"{path}: cannot read: {error.strerror or error}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise InputError(f"{path}:{line}: not UTF-8 text (byte {error.start})") from None
    return load_text(text, path)
