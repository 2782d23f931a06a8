"""Chunk-exact record and replay of HTTP exchanges, for httpx and httpx2 clients.

:class:`RecordingTransport` wraps a transport and writes every exchange it carries to a
JSON Lines file: the request's method, path and body, the response's status and headers,
and the response body as the chunks the wrapped transport yielded them, each with its time.
:class:`ReplayTransport` answers requests from such a file with the same chunks, cut at
the same places, at the recorded pace or at once. SSE ``event:`` / ``id:`` lines, comments
and multi-line ``data:`` survive because nothing is parsed: the body is kept as bytes.

The file format is described on :class:`Recording` (``callstream.testing._recording``).

Credentials are never written (:class:`RecordingTransport` says what is left out).

httpx and httpx2 are imported only when a transport or a request of that library is seen.
"""

from __future__ import annotations

import importlib
import os
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from types import ModuleType, TracebackType
from typing import Any, Literal

from callstream._errors import OptionTypeError, OptionValueError
from callstream.testing._recording import Exchange, Recording, load_recording
from callstream.testing._secrets import is_secret_header, is_secret_parameter

__all__ = ("RecordingTransport", "ReplayError", "ReplayTransport")

_LIBRARIES = ("httpx", "httpx2")


class ReplayError(AssertionError):
    """A :class:`ReplayTransport` was asked for what its recording does not hold: a request
    other than the one recorded next (the message names both), more requests than
    recorded, or the body past where the recording stops (the client closed it early)."""


class RecordingTransport:
    """Wraps an httpx or httpx2 transport (sync or async) and records each exchange into
    ``path``, a JSON Lines file (its format: :class:`Recording`).

    Use it as the client's transport: ``httpx2.Client(transport=RecordingTransport(
    httpx2.HTTPTransport(), "run.jsonl"))``. The file is created (truncated) with its
    header line at once; an exchange is appended when its response body ends, fails, or is
    closed before its end (then marked incomplete). A request that fails before a response
    (a refused connection) is not recorded. The body reaches the client unchanged, chunk
    for chunk; recording costs one copy of the body in memory until the exchange is
    written, and one small blocking file append per exchange.

    Credentials are never written: request headers are not recorded at all, response headers
    that carry credentials or cookies are dropped (``authorization``, ``x-api-key``,
    ``api-key``, ``x-goog-api-key``, ``cookie``, ``set-cookie``, ``x-amz-security-token``,
    any name ending in ``-api-key`` or ``-token`` or containing ``secret``), and query
    parameters that carry them (``key``, ``api_key``, ``access_token``, ``sig``,
    ``X-Amz-Signature``, ...) are removed from the path. The request body is written as sent.

    Args:
        transport: the transport to wrap: any ``BaseTransport`` or ``AsyncBaseTransport``
            of httpx or httpx2 (``HTTPTransport``, ``MockTransport``, one of your own).
        path: the file to write.

    Raises:
        TypeError: ``transport`` is not an httpx or httpx2 transport.

    Attributes:
        library: ``"httpx"`` or ``"httpx2"``, the wrapped transport's library.
        exchanges: the exchanges written so far, in file order.
    """

    def __init__(self, transport: Any, path: str | os.PathLike[str]) -> None:
        self.library = _library_of(transport, "transport")
        self.transport = transport
        self.path = Path(path)
        self.exchanges: list[Exchange] = []
        self._lock = threading.Lock()
        self.path.write_text(Recording().dumps(), encoding="utf-8", newline="\n")

    def handle_request(self, request: Any) -> Any:
        """Forward ``request`` to the wrapped transport; the response's body is recorded
        as the client reads it."""
        request.read()
        start = _now()
        response = self.transport.handle_request(request)
        return self._tapped(request, response, start)

    async def handle_async_request(self, request: Any) -> Any:
        """The async face of :meth:`handle_request`."""
        await request.aread()
        start = _now()
        response = await self.transport.handle_async_request(request)
        return self._tapped(request, response, start)

    def _tapped(self, request: Any, response: Any, start: float) -> Any:
        lib = _library(self.library)
        pending = _Pending(self, request, response, start)
        return lib.Response(
            response.status_code,
            headers=response.headers.raw,
            stream=_stream_class(self.library)(_Tap(response.stream, pending)),
            extensions=response.extensions,
        )

    def _write(self, exchange: Exchange) -> None:
        line = exchange.dumps() + "\n"
        with self._lock, self.path.open("a", encoding="utf-8", newline="\n") as file:
            file.write(line)
            self.exchanges.append(exchange)

    def close(self) -> None:
        """Close the wrapped transport."""
        self.transport.close()

    async def aclose(self) -> None:
        """Close the wrapped async transport."""
        await self.transport.aclose()

    def __enter__(self) -> RecordingTransport:
        self.transport.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.transport.__exit__(*exc)

    async def __aenter__(self) -> RecordingTransport:
        await self.transport.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None = None,
        exc_value: BaseException | None = None,
        traceback: TracebackType | None = None,
    ) -> None:
        await self.transport.__aexit__(exc_type, exc_value, traceback)


class ReplayTransport:
    """Answers an httpx or httpx2 client's requests (sync or async) from a recording,
    each response body the recorded chunks, one body chunk each, byte for byte.

    Args:
        recording: a :class:`Recording` or the path of a recording file.
        pace: ``"zero"`` answers at once; ``"recorded"`` waits until each chunk's recorded
            offset from the request (``time.sleep`` in sync clients, ``anyio.sleep`` in
            async ones), so the client sees the recorded cadence.
        match: ``"order"``: the n-th request must be the n-th exchange's method and path;
            ``"request"``: each request gets the first unused exchange with its method and
            path, in any order (for concurrent requests).

    A request the recording cannot answer raises :class:`ReplayError` naming what was
    expected and what came. A recorded read error is raised again after the recorded
    chunks, as the client library's exception of that name (``RemoteProtocolError``,
    ``ReadError``, ...). Reading a body the client closed early while recording past its
    last chunk raises :class:`ReplayError`. Costs nothing beyond the recording in memory.

    Attributes:
        recording: the recording answered from.
        served: the exchanges answered, in order.
    """

    def __init__(
        self,
        recording: Recording | str | os.PathLike[str],
        *,
        pace: Literal["recorded", "zero"] = "zero",
        match: Literal["order", "request"] = "order",
    ) -> None:
        if pace not in ("recorded", "zero"):
            raise OptionValueError(f"pace must be 'recorded' or 'zero', not {pace!r}")
        if match not in ("order", "request"):
            raise OptionValueError(f"match must be 'order' or 'request', not {match!r}")
        if not isinstance(recording, Recording):
            recording = load_recording(recording)
        self.recording = recording
        self.pace = pace
        self.match = match
        self.served: list[Exchange] = []
        self._unused = list(range(len(recording.exchanges)))
        self._count = 0
        self._lock = threading.Lock()

    def _next(self, request: Any) -> Exchange:
        method, path = str(request.method).upper(), _path_of(request)
        with self._lock:
            self._count += 1
            number = self._count
            exchanges = self.recording.exchanges
            if self.match == "order":
                if not self._unused:
                    raise ReplayError(
                        f"request {number} ({method} {path}): the recording holds only "
                        f"{len(exchanges)} exchanges"
                    )
                expected = exchanges[self._unused[0]]
                if (expected.method, expected.path) != (method, path):
                    raise ReplayError(
                        f"request {number}: expected {expected.method} {expected.path}, "
                        f"got {method} {path}"
                    )
                index = self._unused.pop(0)
            else:
                found = [i for i in self._unused if exchanges[i].method == method]
                found = [i for i in found if exchanges[i].path == path]
                if not found:
                    left = ", ".join(
                        f"{exchanges[i].method} {exchanges[i].path}" for i in self._unused
                    )
                    raise ReplayError(
                        f"request {number}: no unused recorded exchange for {method} {path}; "
                        f"unused: {left or 'none'}"
                    )
                index = found[0]
                self._unused.remove(index)
            self.served.append(exchanges[index])
            return exchanges[index]

    def _response(self, request: Any, exchange: Exchange, start: float) -> Any:
        name = _library_of(request, "request")
        body = _Replay(exchange, _library(name), start, paced=self.pace == "recorded")
        return _library(name).Response(
            exchange.status,
            headers=list(exchange.headers),
            stream=_stream_class(name)(body),
        )

    def handle_request(self, request: Any) -> Any:
        """Answer ``request`` with its recorded response."""
        start = _now()
        request.read()
        exchange = self._next(request)
        if self.pace == "recorded":
            _wait(start + exchange.at)
        return self._response(request, exchange, start)

    async def handle_async_request(self, request: Any) -> Any:
        """The async face of :meth:`handle_request`."""
        start = _now()
        await request.aread()
        exchange = self._next(request)
        if self.pace == "recorded":
            await _await(start + exchange.at)
        return self._response(request, exchange, start)

    def close(self) -> None:
        """Nothing to release."""

    async def aclose(self) -> None:
        """Nothing to release."""

    def __enter__(self) -> ReplayTransport:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    async def __aenter__(self) -> ReplayTransport:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None


# --- the body streams -------------------------------------------------------------------


class _Pending:
    """One exchange being recorded: its chunks so far, written once when it ends."""

    def __init__(self, owner: RecordingTransport, request: Any, response: Any, start: float):
        self.owner = owner
        self.start = start
        self.method = str(request.method).upper()
        self.path = _path_of(request)
        self.body = bytes(request.content)
        self.status = int(response.status_code)
        self.headers = tuple(
            (str(k), str(v))
            for k, v in response.headers.multi_items()
            if not is_secret_header(str(k))
        )
        self.at = _offset(start)
        self.chunks: list[bytes] = []
        self.offsets: list[float] = []
        self.done = False

    def add(self, chunk: bytes) -> None:
        self.offsets.append(_offset(self.start))
        self.chunks.append(bytes(chunk))

    def finish(self, complete: bool, error: BaseException | None = None) -> None:
        if self.done:
            return
        self.done = True
        self.owner._write(
            Exchange(
                method=self.method,
                path=self.path,
                body=self.body,
                status=self.status,
                headers=self.headers,
                at=self.at,
                chunks=tuple(self.chunks),
                offsets=tuple(self.offsets),
                complete=complete,
                error=None if error is None else (type(error).__name__, str(error)),
            )
        )


class _Tap:
    """The wrapped response body, passed through chunk by chunk and recorded."""

    def __init__(self, stream: Any, pending: _Pending) -> None:
        self.stream = stream
        self.pending = pending

    def __iter__(self) -> Iterator[bytes]:
        try:
            for chunk in self.stream:
                self.pending.add(chunk)
                yield chunk
        except Exception as exc:
            self.pending.finish(False, exc)
            raise
        self.pending.finish(True)

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self.stream:
                self.pending.add(chunk)
                yield chunk
        except Exception as exc:
            self.pending.finish(False, exc)
            raise
        self.pending.finish(True)

    def close(self) -> None:
        try:
            self.stream.close()
        finally:
            self.pending.finish(False)

    async def aclose(self) -> None:
        try:
            await self.stream.aclose()
        finally:
            self.pending.finish(False)


class _Replay:
    """A recorded body: its chunks, paced or not, then its recorded end."""

    def __init__(self, exchange: Exchange, lib: ModuleType, start: float, *, paced: bool):
        self.exchange = exchange
        self.lib = lib
        self.start = start
        self.paced = paced

    def __iter__(self) -> Iterator[bytes]:
        for at, chunk in zip(self.exchange.offsets, self.exchange.chunks, strict=True):
            if self.paced:
                _wait(self.start + at)
            yield chunk
        self._end()

    async def __aiter__(self) -> AsyncIterator[bytes]:
        import anyio.lowlevel

        for at, chunk in zip(self.exchange.offsets, self.exchange.chunks, strict=True):
            if self.paced:
                await _await(self.start + at)
            else:
                await anyio.lowlevel.checkpoint()
            yield chunk
        self._end()

    def _end(self) -> None:
        exchange = self.exchange
        if exchange.error is not None:
            kind, message = exchange.error
            error = getattr(self.lib, kind, None)
            if not (isinstance(error, type) and issubclass(error, self.lib.TransportError)):
                error, message = self.lib.ReadError, f"{kind}: {message}"
            raise error(message)
        if not exchange.complete:
            raise ReplayError(
                f"{exchange.method} {exchange.path}: the recording ends after "
                f"{len(exchange.chunks)} chunks (the client closed the response early "
                "while recording)"
            )

    def close(self) -> None:
        return None

    async def aclose(self) -> None:
        return None


_STREAM_CLASSES: dict[str, type] = {}


def _stream_class(name: str) -> type:
    """A body class that is the library's ``SyncByteStream`` and ``AsyncByteStream`` (the
    clients check), delegating to a :class:`_Tap` or :class:`_Replay`."""
    if name not in _STREAM_CLASSES:
        lib = _library(name)

        class _Body(lib.SyncByteStream, lib.AsyncByteStream):  # type: ignore[name-defined,misc]
            def __init__(self, inner: _Tap | _Replay) -> None:
                self.inner = inner

            def __iter__(self) -> Iterator[bytes]:
                return iter(self.inner)

            def __aiter__(self) -> AsyncIterator[bytes]:
                return self.inner.__aiter__()

            def close(self) -> None:
                self.inner.close()

            async def aclose(self) -> None:
                await self.inner.aclose()

        _STREAM_CLASSES[name] = _Body
    return _STREAM_CLASSES[name]


# --- clocks -------------------------------------------------------------------------------


def _now() -> float:
    return time.monotonic()


def _offset(start: float) -> float:
    """Seconds since ``start``, to the microsecond (what the file keeps)."""
    return round(max(_now() - start, 0.0), 6)


def _sleep(seconds: float) -> None:
    time.sleep(seconds)


async def _asleep(seconds: float) -> None:
    import anyio

    await anyio.sleep(seconds)


def _wait(deadline: float) -> None:
    """Sleep until ``deadline`` (a :func:`_now` time), if it is ahead."""
    delay = deadline - _now()
    if delay > 0:
        _sleep(delay)


async def _await(deadline: float) -> None:
    delay = deadline - _now()
    if delay > 0:
        await _asleep(delay)
    else:
        await _asleep(0)


# --- the pieces of a line -----------------------------------------------------------------


def _library_of(thing: object, what: str) -> str:
    """``"httpx"`` or ``"httpx2"``: the library ``thing``'s class comes from."""
    for cls in type(thing).__mro__:
        root = cls.__module__.split(".")[0]
        if root in _LIBRARIES:
            return root
    raise OptionTypeError(f"expected an httpx or httpx2 {what}, got {type(thing).__qualname__}")


def _library(name: str) -> ModuleType:
    return importlib.import_module(name)


def _path_of(request: Any) -> str:
    """The request's path and query, without credential parameters."""
    raw = bytes(request.url.raw_path).decode("ascii", "backslashreplace")
    path, mark, query = raw.partition("?")
    if not mark:
        return path
    kept = [
        part
        for part in query.split("&")
        if not is_secret_parameter(_unquote(part.partition("=")[0]))
    ]
    return path + ("?" + "&".join(kept) if kept else "")


def _unquote(text: str) -> str:
    from urllib.parse import unquote_plus

    return unquote_plus(text)
