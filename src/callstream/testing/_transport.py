"""``MockProvider``: a scripted provider endpoint that answers the real SDK clients with
written streams, turn by turn, and records what each client sent.

One object serves two ways: as the handler of ``httpx.MockTransport`` or
``httpx2.MockTransport`` (sync and async clients; the response body is an iterator over
the stream's chunks, so the client sees each chunk as the network would give it), and
behind :func:`callstream.testing.serve`, a loopback HTTP server for clients that need a
socket. Both go through :meth:`MockProvider.respond`, which picks the turn, records the
request and returns a :class:`Reply`.
"""

from __future__ import annotations

import importlib
import json
import math
import re
import threading
import time
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any
from urllib.parse import parse_qsl, urlencode

from callstream._errors import OptionTypeError, OptionValueError
from callstream._json.dump import dumps_bounded
from callstream.testing._formats import HTTP_ERRORS
from callstream.testing._requests import RecordedRequest, tool_names
from callstream.testing._secrets import is_secret_header, is_secret_parameter
from callstream.testing._stream import FORMATS, WireStream, stream_of
from callstream.testing._wire import BYTE_FORMATS, encode

__all__ = (
    "CONTENT_TYPES",
    "ENDPOINTS",
    "MockProvider",
    "Reply",
    "Turn",
)

ENDPOINTS: dict[str, str] = {
    "openai-chat": "/chat/completions",
    "openai-responses": "/responses",
    "anthropic": "/v1/messages",
    "gemini": ":streamGenerateContent",
    "vertex": ":streamGenerateContent",
    "bedrock": "/model/{modelId}/converse-stream",
    "cohere": "/v2/chat",
    "mistral": "/v1/chat/completions",
    "ollama": "/api/chat",
}
"""The path each format's streaming endpoint ends with (what :class:`MockProvider`
answers; any prefix before it, such as a base URL's ``/v1``, is accepted)."""

_ROUTES: dict[str, re.Pattern[str]] = {
    fmt: re.compile(re.escape(path).replace(re.escape("{modelId}"), "[^/]+") + "$")
    for fmt, path in ENDPOINTS.items()
}

CONTENT_TYPES: dict[str, str] = {
    **dict.fromkeys(ENDPOINTS, "text/event-stream"),
    "ollama": "application/x-ndjson",
    "bedrock": "application/vnd.amazon.eventstream",
}
"""The ``content-type`` of each format's streamed response."""


@dataclass(frozen=True)
class Turn:
    """One scripted answer of a :class:`MockProvider`: a stream, or an HTTP error
    (:meth:`error`).

    Attributes:
        stream: what is streamed back (``None`` for an error turn).
        tools: when given, the turn answers only a request offering exactly these tool
            names (in any order); ``None`` answers whatever tools are offered.
        status: the HTTP status of the reply: 200 for a stream, 4xx / 5xx for an error.
        body: an error turn's JSON body as given (``None``: the format's own error body,
            see :meth:`error`); ``None`` for a stream.
        headers: an error turn's extra response headers (``retry-after``, ...), names
            lower-cased.
    """

    stream: WireStream | None
    tools: frozenset[str] | None = None
    status: int = 200
    body: Any = None
    headers: Mapping[str, str] = field(default_factory=dict)

    def __init__(self, stream: WireStream, *, tools: Iterable[str] | None = None) -> None:
        if not isinstance(stream, WireStream):
            raise OptionTypeError(
                f"Turn takes a WireStream (stream_of's result), not {stream!r:.80}"
            )
        self._set(stream, tools, 200, None, {})

    def _set(
        self,
        stream: WireStream | None,
        tools: Iterable[str] | None,
        status: int,
        body: Any,
        headers: Mapping[str, str],
    ) -> None:
        if isinstance(tools, str):
            raise OptionTypeError(
                f"tools must be a collection of tool names, not the string {tools!r}"
            )
        object.__setattr__(self, "stream", stream)
        object.__setattr__(self, "tools", None if tools is None else frozenset(tools))
        object.__setattr__(self, "status", status)
        object.__setattr__(self, "body", body)
        object.__setattr__(self, "headers", headers)

    @classmethod
    def error(
        cls,
        status: int,
        body: Any = None,
        *,
        headers: Mapping[str, str] | None = None,
        tools: Iterable[str] | None = None,
    ) -> Turn:
        """A turn that answers with an HTTP error instead of a stream.

        Args:
            status: the HTTP status, 400 to 599 (429 for a rate limit, 529 for
                Anthropic's overloaded, ...).
            body: the JSON body (any JSON value). ``None``: the mock's format's own
                error body for the status: OpenAI's ``{"error": {"message", "type",
                "param", "code"}}`` (``openai-chat``, ``openai-responses``),
                Anthropic's ``{"type": "error", "error": {"type": "rate_limit_error",
                "message"}, "request_id"}``, Google's ``{"error": {"code", "message",
                "status": "RESOURCE_EXHAUSTED"}}`` (``gemini``, ``vertex``), Bedrock's
                ``{"message"}`` with its ``x-amzn-errortype`` header
                (``ThrottlingException``, ...), Ollama's ``{"error"}``; ``cohere`` and
                ``mistral`` need ``body``.
            headers: extra response headers, such as ``{"retry-after": "0"}`` or
                openai's and anthropic's ``{"retry-after-ms": "1"}``, ``{"x-should-retry":
                "false"}``. ``content-type`` is ``application/json`` unless given.
            tools: as for a stream turn.

        Raises:
            ValueError: a status outside 400-599, a body that is not JSON (``NaN``
                included), a header that is not a string.

        Cost: O(body), once.
        """
        if type(status) is not int or not 400 <= status <= 599:
            raise OptionValueError(
                f"an error turn's status is an int from 400 to 599, not {status!r}"
            )
        if body is not None:
            try:
                dumps_bounded(body, max_depth=None)
                _refuse_non_finite(body)
            except (TypeError, ValueError) as exc:
                raise OptionValueError(f"an error turn's body must be JSON: {exc}") from None
        kept: dict[str, str] = {}
        for name, value in (headers or {}).items():
            if not isinstance(name, str) or not isinstance(value, str):
                raise OptionValueError(
                    f"header names and values are strings, not {name!r}: {value!r}"
                )
            kept[name.lower()] = value
        turn = object.__new__(cls)
        turn._set(None, tools, status, body, kept)
        return turn


@dataclass(frozen=True)
class Reply:
    """What a :class:`MockProvider` answers one request with: the status, the headers, the
    body in its chunks, the pause between chunks, and whether the connection drops after
    the last chunk (the stream was written with the ``dropped-connection`` quirk)."""

    status: int
    headers: Mapping[str, str]
    chunks: tuple[bytes, ...]
    pace: float | None = None
    dropped: bool = False


class MockProvider:
    """A provider endpoint scripted turn by turn, for the real SDK clients.

    Each request to the format's endpoint (:data:`ENDPOINTS`) is answered by the first
    turn not answered yet whose ``tools`` (if set) are the tools the request offers; the
    reply streams that turn's chunks, ``pace`` seconds apart when given. A request that
    no turn answers (another path, other tools, every turn used) gets a 404 JSON error
    whose message says what was expected; it is recorded too, and its message is kept in
    :attr:`errors`.

    Use it as the handler of ``httpx.MockTransport(mock)`` or
    ``httpx2.MockTransport(mock)`` (sync and async clients), or behind
    :func:`callstream.testing.serve` for clients that need a socket.

    Args:
        turns: the answers, in order: a :class:`WireStream` (``stream_of``'s result, as
            payloads or bytes), a :class:`Turn` (``Turn.error(429, ...)`` answers with
            an HTTP error instead of a stream), a list of tool calls (written with
            ``stream_of(calls, format=format)``) or a string (a text answer).
        format: the provider format; by default the format of the streams given.
        pace: seconds between chunks (``None``: no pause).

    Attributes:
        requests: every request received, as :class:`RecordedRequest`, in order.
        errors: the message of every error reply, in order.
        closed: one flag per response served through ``MockTransport``, in order:
            whether the client closed its body (read to the end, or let go early).

    Raises:
        ValueError: no turns, an unknown format or one with no HTTP endpoint
            (``langchain``), streams of another format, a stream of ``lines`` (they
            lost the chunk boundaries: write ``payloads`` or ``bytes``), a negative pace,
            an error turn without a body in a format that has no error body written
            (``cohere``, ``mistral``).
        TypeError: a turn of another kind.

    Cost: writing the turns once; each reply O(its bytes); thread-safe (the loopback
    server answers from its threads).
    """

    def __init__(
        self,
        *turns: WireStream | Turn | Sequence[Mapping[str, Any]] | str,
        format: str | None = None,
        pace: float | None = None,
    ) -> None:
        if not turns:
            raise OptionValueError("MockProvider needs at least one turn")
        if pace is not None and not pace >= 0:
            raise OptionValueError(f"pace must be seconds >= 0, not {pace!r}")
        streams = [t.stream if isinstance(t, Turn) else t for t in turns]
        formats = {s.format for s in streams if isinstance(s, WireStream)}
        if format is None:
            if len(formats) != 1:
                raise OptionValueError(
                    "give format=: no turn is a WireStream to take it from"
                    if not formats
                    else f"turns of several formats ({', '.join(sorted(formats))}): one per mock"
                )
            format = formats.pop()
        if format not in ENDPOINTS:
            known = ", ".join(f for f in FORMATS if f in ENDPOINTS)
            raise OptionValueError(f"no HTTP endpoint for format {format!r}: one of {known}")
        self.format = format
        self.pace = pace
        self._turns = [self._turn(n, t, format) for n, t in enumerate(turns)]
        self._answered = [False] * len(self._turns)
        self._replies = [_turn_reply(t, format) for t in self._turns]
        self._lock = threading.Lock()
        self.requests: list[RecordedRequest] = []
        self.errors: list[str] = []
        self._bodies: list[Any] = []

    @staticmethod
    def _turn(n: int, turn: Any, format: str) -> Turn:
        if isinstance(turn, Turn):
            found = turn
        elif isinstance(turn, WireStream):
            found = Turn(turn)
        elif isinstance(turn, str):
            found = Turn(stream_of([], format=format, text=turn))
        elif isinstance(turn, Sequence) and all(isinstance(c, Mapping) for c in turn):
            found = Turn(stream_of(turn, format=format))
        else:
            raise OptionTypeError(
                f"a turn is a WireStream, a Turn, a list of tool calls or a text, not {turn!r:.80}"
            )
        if found.stream is not None and found.stream.format != format:
            raise OptionValueError(
                f"turn {n} is written in {found.stream.format}; this mock serves {format}"
            )
        return found

    @property
    def turns(self) -> tuple[Turn, ...]:
        """The scripted turns, in order."""
        return tuple(self._turns)

    @property
    def unanswered(self) -> tuple[int, ...]:
        """The indexes of the turns no request has been answered with yet."""
        with self._lock:
            return tuple(n for n, done in enumerate(self._answered) if not done)

    def respond(
        self, method: str, path: str, query: str, headers: Mapping[str, str], content: bytes
    ) -> Reply:
        """Answer one request (what the transports and the server call): record it, pick
        the turn, return the :class:`Reply`. Cost: O(request + turns)."""
        kept = {k.lower(): v for k, v in headers.items() if not is_secret_header(k)}
        shown_query = urlencode([(k, v) for k, v in parse_qsl(query) if not is_secret_parameter(k)])
        try:
            body = json.loads(content) if content.strip() else None
        except ValueError:
            body = content.decode("utf-8", "replace")
            problem: str | None = "the request body is not JSON"
        else:
            problem = None
        with self._lock:
            turn = None if problem else self._match(path, body)
            if turn is not None:
                self._answered[turn] = True
            elif problem is None:
                problem = self._why_not(path, body)
            else:
                problem = f"{self._name(path)}: {problem}"
            self.requests.append(
                RecordedRequest(method, path, shown_query, kept, body, self.format, turn)
            )
            if problem is not None:
                self.errors.append(problem)
        if turn is None:
            return _error_reply(problem or "no turn")
        reply = self._replies[turn]
        if reply.status != 200:
            return reply
        return Reply(reply.status, reply.headers, reply.chunks, self.pace, reply.dropped)

    def _match(self, path: str, body: Any) -> int | None:
        if not _ROUTES[self.format].search(path):
            return None
        offered = frozenset(tool_names(body, self.format))
        for n, turn in enumerate(self._turns):
            if not self._answered[n] and turn.tools in (None, offered):
                return n
        return None

    def _name(self, path: str) -> str:
        return f"callstream MockProvider ({self.format}): request #{len(self.requests)} ({path})"

    def _why_not(self, path: str, body: Any) -> str:
        request = self._name(path)
        if not _ROUTES[self.format].search(path):
            return (
                f"{request} is not the {self.format} endpoint: expected a path ending "
                f"{ENDPOINTS[self.format]}"
            )
        left = [n for n, done in enumerate(self._answered) if not done]
        if not left:
            return f"{request}, but all {len(self._turns)} scripted turns are answered"
        offered = sorted(tool_names(body, self.format))
        wanted = "; ".join(f"turn {n}: {sorted(self._turns[n].tools or ())}" for n in left)
        return f"{request} offers tools {offered}; no turn left expects them ({wanted})"

    def __call__(self, request: Any) -> Any:
        """Answer an ``httpx`` or ``httpx2`` request (``MockTransport``'s handler): a
        response whose body yields the turn's chunks (sync or async, as the client reads),
        raising the library's ``RemoteProtocolError`` after the last chunk when the
        stream's connection drops."""
        module = importlib.import_module(type(request).__module__.split(".")[0])
        reply = self.respond(
            request.method,
            request.url.path,
            request.url.query.decode("ascii"),
            request.headers,
            request.content,
        )
        error = (
            module.RemoteProtocolError("callstream MockProvider: the stream was dropped")
            if reply.dropped
            else None
        )
        body = _body_class(module)(reply.chunks, reply.pace, error)
        with self._lock:
            self._bodies.append(body)
        return module.Response(reply.status, headers=dict(reply.headers), stream=body)

    @property
    def closed(self) -> tuple[bool, ...]:
        """For each response served through ``MockTransport``, in order, whether the
        client has closed its body (what a test of "the stream was let go" asserts).
        Cost: O(responses)."""
        with self._lock:
            return tuple(body.closed for body in self._bodies)

    def __repr__(self) -> str:
        return (
            f"<MockProvider {self.format}: {len(self._turns)} turns, {len(self.requests)} requests>"
        )


def _refuse_non_finite(value: Any) -> None:
    """Raise ``ValueError`` when ``value`` holds ``NaN`` or an infinity (not JSON), at any
    depth (an explicit stack)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            raise OptionValueError("Out of range float values are not JSON compliant")
        if isinstance(item, Mapping):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)


def _error_message(status: int) -> str:
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = "Overloaded" if status == 529 else "Error"
    return f"callstream MockProvider: {status} {phrase}"


def _error_turn_reply(turn: Turn, format: str) -> tuple[dict[str, str], bytes]:
    """The headers and body of an error turn in ``format`` (its format module's
    ``http_error``). Raises ``ValueError`` for a format with no error body of its own when
    the turn gives none."""
    status, body = turn.status, turn.body
    headers = {"content-type": "application/json"}
    error = HTTP_ERRORS.get(format)
    if error is not None:
        extra, written = error(status, _error_message(status))
        headers.update(extra)
        if body is None:
            body = written
    elif body is None:
        raise OptionValueError(
            f"no error body is written for {format}: give one, Turn.error({status}, body=...)"
        )
    headers.update(turn.headers)
    return headers, dumps_bounded(body, max_depth=None, strict=True).encode()


def _error_reply(message: str) -> Reply:
    body = {"error": {"type": "callstream_mock_no_match", "message": message}, "message": message}
    headers = {
        "content-type": "application/json",
        "x-amzn-errortype": "ResourceNotFoundException",  # botocore names the error by it
    }
    return Reply(404, headers, (dumps_bounded(body, max_depth=None, ensure_ascii=True).encode(),))


def _turn_reply(turn: Turn, format: str) -> Reply:
    """The reply a turn answers with: its stream's chunks, or its error."""
    if turn.stream is None:
        headers, body = _error_turn_reply(turn, format)
        return Reply(turn.status, headers, (body,))
    headers = {"content-type": CONTENT_TYPES[format]}
    return Reply(200, headers, _chunks(turn.stream), None, turn.stream.dropped)


def _chunks(stream: WireStream) -> tuple[bytes, ...]:
    items = stream.items
    if all(isinstance(item, bytes) for item in items):
        return tuple(items)
    if any(isinstance(item, str) for item in items):
        raise OptionValueError(
            "a stream of lines lost its chunk boundaries: serve payloads or bytes "
            "(stream_of's as_='payloads' or 'bytes')"
        )
    if stream.format not in BYTE_FORMATS:
        raise OptionValueError(f"{stream.format} has no wire to serve")
    return tuple(encode(items, stream.format, "bytes"))


_BODIES: dict[str, type] = {}


class _AsyncChunks:
    """A response body's chunks for an async client: a checkpoint (or the body's pace)
    before each, then the body's error, if it has one, raised once."""

    __slots__ = ("_body", "_next")

    def __init__(self, body: Any) -> None:
        self._body = body
        self._next = 0  # the next chunk; past the last one once the error was raised

    def __aiter__(self) -> _AsyncChunks:
        return self

    async def __anext__(self) -> bytes:
        import anyio
        import anyio.lowlevel

        body, n = self._body, self._next
        chunks: tuple[bytes, ...] = body.chunks
        if n >= len(chunks):
            self._next = len(chunks) + 1
            if n == len(chunks) and body.error is not None:
                raise body.error
            raise StopAsyncIteration
        self._next = n + 1
        if n and body.pace:
            await anyio.sleep(body.pace)
        else:
            await anyio.lowlevel.checkpoint()
        return chunks[n]


def _body_class(module: Any) -> type:
    """A response body class of ``module`` (httpx or httpx2), sync and async at once."""
    found = _BODIES.get(module.__name__)
    if found is not None:
        return found

    class Body(module.SyncByteStream, module.AsyncByteStream):  # type: ignore[misc]
        def __init__(
            self, chunks: tuple[bytes, ...], pace: float | None, error: Exception | None
        ) -> None:
            self.chunks = chunks
            self.pace = pace
            self.error = error
            self.closed = False

        def __iter__(self) -> Iterator[bytes]:
            for n, chunk in enumerate(self.chunks):
                if n and self.pace:
                    time.sleep(self.pace)
                yield chunk
            if self.error is not None:
                raise self.error

        def __aiter__(self) -> AsyncIterator[bytes]:
            # an iterator object, not an async generator: one a client drops part way
            # has nothing left to finalize (trio warns about unclosed async generators)
            return _AsyncChunks(self)

        def close(self) -> None:
            self.closed = True

        async def aclose(self) -> None:
            self.closed = True

    _BODIES[module.__name__] = Body
    return Body
