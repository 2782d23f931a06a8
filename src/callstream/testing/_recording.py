"""The recording file: :class:`Exchange` (one recorded request and its response),
:class:`Recording` (a file's exchanges, and the file format, described on it) and
:func:`load_recording`.

Every line is written by the one JSON writer (:mod:`callstream._json.dump`) under its output
rule; a file that cannot be read raises :class:`~callstream.RecordingFileError` naming the
line.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from callstream._errors import OptionValueError, RecordingFileError
from callstream._json.dump import dumps_bounded

__all__ = ("FORMAT", "VERSION", "Exchange", "Recording", "load_recording")

FORMAT = "callstream-recording"
VERSION = 1


@dataclass(frozen=True)
class Exchange:
    """One recorded request and the response it got.

    Attributes:
        method: the request method, upper case.
        path: the request path and query, without credential parameters.
        body: the request body's bytes (from a file's ``json`` body: the value written
            as compact JSON); :meth:`json` reads it.
        status: the response status code.
        headers: the response headers, in order, without credentials and cookies.
        at: seconds from the request to the response's status and headers.
        chunks: the response body, chunk by chunk, exactly as the transport yielded it.
        offsets: each chunk's time, in seconds from the request.
        complete: whether the body was read to its end.
        error: ``(type name, message)`` of what reading the body raised, if it did.
    """

    method: str
    path: str
    body: bytes
    status: int
    headers: tuple[tuple[str, str], ...]
    at: float
    chunks: tuple[bytes, ...]
    offsets: tuple[float, ...]
    complete: bool = True
    error: tuple[str, str] | None = None

    def __post_init__(self) -> None:
        if len(self.chunks) != len(self.offsets):
            raise OptionValueError(f"{len(self.chunks)} chunks but {len(self.offsets)} offsets")

    def json(self) -> Any:
        """The request body read as JSON (``None`` when empty).

        Raises:
            ValueError: the body is not JSON.
        """
        return json.loads(self.body, parse_constant=_reject_constant) if self.body else None

    def dumps(self) -> str:
        """The exchange as one line of the file (no newline): valid UTF-8 JSON."""
        pairs = zip(self.offsets, self.chunks, strict=True)
        chunks = [{"at": at, **_bytes_field(chunk)} for at, chunk in pairs]
        error = None
        if self.error is not None:
            error = {"type": self.error[0], "message": self.error[1]}
        line = {
            "request": {"method": self.method, "path": self.path, "body": _body_field(self.body)},
            "response": {
                "status": self.status,
                "headers": [list(pair) for pair in self.headers],
                "at": self.at,
            },
            "chunks": chunks,
            "complete": self.complete,
            "error": error,
        }
        return _compact(line)


@dataclass(frozen=True)
class Recording:
    """The exchanges of a recording file, in file order (:func:`load_recording`).

    The file (format version 1) is UTF-8 JSON Lines. Line 1 is the header,
    ``{"format": "callstream-recording", "version": 1}``; then comes one line per exchange,
    in the order the exchanges ended (for a client that sends one request at a time, the
    order of the requests). An exchange's line, wrapped here::

        {"request": {"method": "POST", "path": "/v1/chat/completions?stream=1",
                     "body": {"json": {"model": "m", "stream": true}}},
         "response": {"status": 200, "headers": [["content-type", "text/event-stream"]],
                      "at": 0.21},
         "chunks": [{"at": 0.25, "text": "data: {...}\\n\\n"}, {"at": 0.31, "base64": "8J+Y"}],
         "complete": true,
         "error": null}

    ``at`` is seconds since the request was handed to the transport (``response.at``: when
    the status and headers arrived). A chunk is ``text`` when its bytes are valid UTF-8 on
    their own, else ``base64`` (a chunk cut inside a character, gzip). The request ``body``
    is ``{"json": value}`` when the bytes parse as JSON, else ``{"text": ...}`` or
    ``{"base64": ...}``, or ``null`` when empty. ``complete`` is false when the body was
    not read to its end: then ``error`` is ``{"type": ..., "message": ...}`` when reading
    it raised, or ``null`` when the client closed the response early.
    """

    exchanges: tuple[Exchange, ...] = field(default_factory=tuple)

    def dumps(self) -> str:
        """The whole file's text: the header line, then one line per exchange."""
        header = dumps_bounded(
            {"format": FORMAT, "version": VERSION},
            max_depth=None,
            ensure_ascii=True,
            separators=(",", ":"),
        )
        return "".join(line + "\n" for line in [header, *(e.dumps() for e in self.exchanges)])


def load_recording(path: str | os.PathLike[str]) -> Recording:
    """Read a recording file written by :class:`RecordingTransport` (or by hand, in the
    format :class:`Recording` describes). Reads the whole file; costs its size.

    Raises:
        ValueError: the file is not a version-1 recording, or a line is malformed (the
            message names the line).
    """
    try:
        text = Path(path).read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RecordingFileError(f"{path}: not UTF-8: {exc}") from exc
    # split on newlines only: str.splitlines would also cut at U+2028 or U+0085, which a
    # chunk's text may hold unescaped
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    if not lines:
        raise RecordingFileError(f"{path}: empty file, expected the recording header line")
    header = _json_line(lines[0], path, 1)
    if header != {"format": FORMAT, "version": VERSION}:
        raise RecordingFileError(
            f"{path}:1: not a {FORMAT} version {VERSION} header: {lines[0][:200]}"
        )
    exchanges = []
    for number, text in enumerate(lines[1:], start=2):
        if not text.strip():
            continue
        try:
            exchanges.append(_exchange(_json_line(text, path, number)))
        except (AttributeError, KeyError, TypeError, ValueError, binascii.Error) as exc:
            raise RecordingFileError(f"{path}:{number}: malformed exchange: {exc!r}") from exc
    return Recording(tuple(exchanges))


def _bytes_field(data: bytes) -> dict[str, str]:
    try:
        return {"text": data.decode("utf-8")}
    except UnicodeDecodeError:
        return {"base64": base64.b64encode(data).decode("ascii")}


def _reject_constant(name: str) -> Any:
    raise RecordingFileError(f"{name} is not JSON")


def _body_field(body: bytes) -> dict[str, Any] | None:
    """The request body as the file holds it: JSON, else text, else base64."""
    if not body:
        return None
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return {"base64": base64.b64encode(body).decode("ascii")}
    try:
        return {"json": json.loads(text, parse_constant=_reject_constant)}
    except ValueError:
        return {"text": text}


def _compact(value: Any) -> str:
    """``value`` as compact JSON by the one writer, under its output rule (valid UTF-8 JSON:
    no lone surrogate, no ``NaN``)."""
    return dumps_bounded(value, max_depth=None, strict=True, separators=(",", ":"))


def _json_line(text: str, path: object, number: int) -> Any:
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except ValueError as exc:
        raise RecordingFileError(f"{path}:{number}: not JSON: {exc}") from exc


def _chunk(item: dict[str, Any]) -> tuple[float, bytes]:
    at = _seconds(item["at"])
    if set(item) == {"at", "text"} and isinstance(item["text"], str):
        return at, item["text"].encode("utf-8")
    if set(item) == {"at", "base64"} and isinstance(item["base64"], str):
        return at, base64.b64decode(item["base64"], validate=True)
    raise RecordingFileError(f"a chunk is {{'at', 'text' or 'base64'}}, got {sorted(item)}")


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise RecordingFileError(f"expected a string, got {value!r}")
    return value


def _seconds(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise RecordingFileError(f"a time is a number of seconds >= 0, got {value!r}")
    return float(value)


def _exchange(line: dict[str, Any]) -> Exchange:
    request, response = line["request"], line["response"]
    body = b""
    if request["body"] is not None:
        ((kind, value),) = request["body"].items()
        if kind == "base64" and isinstance(value, str):
            body = base64.b64decode(value, validate=True)
        elif kind == "text" and isinstance(value, str):
            body = value.encode("utf-8")
        elif kind == "json":
            body = _compact(value).encode("utf-8")
        else:
            raise RecordingFileError(f"a request body is json, text or base64, got {kind!r}")
    pairs: Sequence[tuple[float, bytes]] = [_chunk(item) for item in line["chunks"]]
    headers = tuple((_text(k), _text(v)) for k, v in response["headers"])
    error = line["error"]
    if error is not None:
        error = (_text(error["type"]), _text(error["message"]))
    complete = line["complete"]
    status = response["status"]
    if not isinstance(complete, bool) or not isinstance(status, int) or isinstance(status, bool):
        raise RecordingFileError("complete is a boolean and status an integer")
    if not isinstance(request["method"], str) or not isinstance(request["path"], str):
        raise RecordingFileError("method and path are strings")
    return Exchange(
        method=request["method"],
        path=request["path"],
        body=body,
        status=status,
        headers=headers,
        at=_seconds(response["at"]),
        chunks=tuple(chunk for _, chunk in pairs),
        offsets=tuple(at for at, _ in pairs),
        complete=complete,
        error=error,
    )
