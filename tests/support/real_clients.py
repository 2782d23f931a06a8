"""The real openai and anthropic clients, talking to ``callstream.testing.MockProvider``
(as an ``httpx2.MockTransport`` handler) serving bodies of our own in the providers' wire
shapes (no network).

Both SDKs send their requests through ``httpx2`` (anthropic 2.x, openai 3.x), so the
clients get an ``httpx2.Client`` / ``httpx2.AsyncClient`` over a :class:`Replay`: the
mock, fed a hand-written body cut in small pieces (optionally dropped after them), which
records each request and whether each response body was closed.
"""

from __future__ import annotations

from typing import Any

import anthropic
import httpx2
import openai

from callstream.testing import MockProvider, WireStream, sse_event

__all__ = (
    "FORMATS",
    "Replay",
    "anthropic_event",
    "anthropic_sse",
    "async_sdk_stream",
    "byte_pieces",
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


def byte_pieces(data: bytes, size: int = 7) -> list[bytes]:
    """``data`` in ``size``-byte pieces (the raw-bytes path's source, cut small)."""
    return [data[i : i + size] for i in range(0, len(data), size)]


class Replay(MockProvider):
    """A :class:`~callstream.testing.MockProvider` answering ``times`` requests with
    ``data`` (a streamed body in ``format``'s wire shape) in ``size``-byte chunks; with
    ``dropped`` the connection drops after them (the client's ``RemoteProtocolError``).

    ``client()`` / ``async_client()`` are ``httpx2`` clients over it (what the SDKs and
    LangChain's models take); ``requests`` and ``closed`` are the mock's own.
    """

    def __init__(
        self,
        data: bytes,
        format: str,
        *,
        size: int = 7,
        times: int = 1,
        dropped: bool = False,
    ) -> None:
        stream = WireStream(byte_pieces(data, size), format, dropped=dropped)
        super().__init__(*[stream] * times)

    def client(self) -> httpx2.Client:
        return httpx2.Client(transport=httpx2.MockTransport(self))

    def async_client(self) -> httpx2.AsyncClient:
        return httpx2.AsyncClient(transport=httpx2.MockTransport(self))


#: the wire format each SDK kind streams
FORMATS = {"openai": "openai-chat", "anthropic": "anthropic"}


def _replay(kind: str, source: bytes | Replay) -> Replay:
    return source if isinstance(source, Replay) else Replay(source, FORMATS[kind])


def sdk_stream(kind: str, source: bytes | Replay) -> Any:
    """A real sync SDK ``Stream`` (``kind``: ``"openai"`` or ``"anthropic"``) over
    ``source`` (a :class:`Replay`, or the body for one)."""
    http = _replay(kind, source).client()
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


async def async_sdk_stream(kind: str, source: bytes | Replay) -> Any:
    """A real ``AsyncStream`` (``kind``: ``"openai"`` or ``"anthropic"``) over ``source``
    (a :class:`Replay`, or the body for one)."""
    http = _replay(kind, source).async_client()
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
