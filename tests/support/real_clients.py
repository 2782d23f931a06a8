"""The real openai and anthropic clients, talking to an in-process transport that replays
streams of our own in the providers' wire shapes (no network).

Both SDKs send their requests through ``httpx2`` (anthropic 2.x, openai 3.x), so the
clients get an ``httpx2.Client`` / ``httpx2.AsyncClient`` with an ``httpx2.MockTransport``.
A :class:`Body` is the response body: it yields the bytes in small pieces, may raise an
exception part way (a dropped connection), and records whether it was closed.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import anthropic
import anyio.lowlevel
import httpx2
import openai

from callstream.testing import sse_event

__all__ = (
    "Body",
    "Replay",
    "anthropic_event",
    "anthropic_sse",
    "async_sdk_stream",
    "chat_chunk",
    "chat_sse",
    "dropped_connection_errors",
    "from_dropped_connection",
    "sdk_stream",
)


def dropped_connection_errors(kind: str) -> tuple[type[BaseException], ...]:
    """What the ``kind`` client ("openai" or "anthropic") raises when the connection drops
    mid-stream. openai wraps the transport's error in its ``APIConnectionError``; anthropic
    did the same from its 2.17 releases on and let the transport's error through before,
    so either is the dropped connection there (:func:`from_dropped_connection` checks the
    transport's error is the one raised or its cause)."""
    if kind == "openai":
        return (openai.APIConnectionError,)
    return (anthropic.APIConnectionError, httpx2.RemoteProtocolError)


def from_dropped_connection(error: BaseException) -> bool:
    """Whether ``error`` is the transport's dropped connection or was raised from it."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, httpx2.RemoteProtocolError):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def chat_chunk(
    delta: dict[str, Any], finish: str | None = None, *, usage: bool = False
) -> dict[str, Any]:
    """A Chat Completions chunk as the API sends it."""
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1_700_000_000,
        "model": "gpt-test",
        "choices": [] if usage else [{"index": 0, "delta": delta, "finish_reason": finish}],
        **(
            {"usage": {"prompt_tokens": 5, "completion_tokens": 9, "total_tokens": 14}}
            if usage
            else {}
        ),
    }


def chat_sse(chunks: list[dict[str, Any]], *, done: bool = True, tail: str = "") -> bytes:
    """``data: {chunk}`` events, ``data: [DONE]`` and any extra raw text."""
    text = "".join(sse_event(c) for c in chunks)
    return (text + tail + ("data: [DONE]\n\n" if done else "")).encode()


def anthropic_event(payload: dict[str, Any]) -> str:
    return sse_event(payload, payload["type"])


def anthropic_sse(events: list[dict[str, Any]]) -> bytes:
    return "".join(anthropic_event(e) for e in events).encode()


class Body(httpx2.SyncByteStream, httpx2.AsyncByteStream):
    """A response body in ``size``-byte pieces; raises ``error`` after ``cut`` bytes."""

    def __init__(
        self, data: bytes, *, size: int = 7, cut: int | None = None, error: Exception | None = None
    ) -> None:
        self.data = data if cut is None else data[:cut]
        self.size = size
        self.error = error
        self.closed = False

    def _pieces(self) -> Iterator[bytes]:
        for i in range(0, len(self.data), self.size):
            yield self.data[i : i + self.size]

    def __iter__(self) -> Iterator[bytes]:
        yield from self._pieces()
        if self.error is not None:
            raise self.error

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for piece in self._pieces():
            await anyio.lowlevel.checkpoint()
            yield piece
        if self.error is not None:
            raise self.error

    def close(self) -> None:
        self.closed = True

    async def aclose(self) -> None:
        self.closed = True


def _handler(body: Body) -> Any:
    def handle(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, stream=body)

    return handle


class Replay:
    """A server replaying ``data`` as a fresh :class:`Body` for every request (an SSE
    stream unless ``content_type`` says otherwise: a whole JSON response, say).

    ``client()`` / ``async_client()`` are ``httpx2`` clients over it (what the SDKs and
    LangChain's models take); ``requests`` holds each request's JSON body and ``bodies``
    each response body served (to check it was closed), in order.
    """

    def __init__(
        self, data: bytes, *, content_type: str = "text/event-stream", **body_options: Any
    ) -> None:
        self.data = data
        self.content_type = content_type
        self.body_options = body_options
        self.requests: list[Any] = []
        self.bodies: list[Body] = []

    def _handle(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(json.loads(request.content))
        body = Body(self.data, **self.body_options)
        self.bodies.append(body)
        return httpx2.Response(200, headers={"content-type": self.content_type}, stream=body)

    def client(self) -> httpx2.Client:
        return httpx2.Client(transport=httpx2.MockTransport(self._handle))

    def async_client(self) -> httpx2.AsyncClient:
        return httpx2.AsyncClient(transport=httpx2.MockTransport(self._handle))


def sdk_stream(kind: str, body: Body) -> Any:
    """A real sync SDK ``Stream`` (``kind``: ``"openai"`` or ``"anthropic"``) over ``body``."""
    http = httpx2.Client(transport=httpx2.MockTransport(_handler(body)))
    if kind == "openai":
        client = openai.OpenAI(
            api_key="test", base_url="http://test/v1", http_client=http, max_retries=0
        )
        return client.chat.completions.create(
            model="gpt-test", messages=[{"role": "user", "content": "hi"}], stream=True
        )
    aclient = anthropic.Anthropic(
        api_key="test", base_url="http://test", http_client=http, max_retries=0
    )
    return aclient.messages.create(
        model="claude-test",
        max_tokens=100,
        messages=[{"role": "user", "content": "hi"}],
        stream=True,
    )


async def async_sdk_stream(kind: str, body: Body) -> Any:
    """A real ``AsyncStream`` (``kind``: ``"openai"`` or ``"anthropic"``) over ``body``."""
    http = httpx2.AsyncClient(transport=httpx2.MockTransport(_handler(body)))
    if kind == "openai":
        client = openai.AsyncOpenAI(
            api_key="test", base_url="http://test/v1", http_client=http, max_retries=0
        )
        return await client.chat.completions.create(
            model="gpt-test", messages=[{"role": "user", "content": "hi"}], stream=True
        )
    aclient = anthropic.AsyncAnthropic(
        api_key="test", base_url="http://test", http_client=http, max_retries=0
    )
    return await aclient.messages.create(
        model="claude-test",
        max_tokens=100,
        messages=[{"role": "user", "content": "hi"}],
        stream=True,
    )
