"""``callstream.testing.serve``: a ``MockProvider`` behind a loopback HTTP server. The
chunked framing read off the socket byte by byte (one HTTP chunk per stream chunk), the
AWS eventstream messages checked by botocore's own decoder, a dropped stream as a cut
connection, and the error reply."""

from __future__ import annotations

import json
import socket
import struct
from typing import Any

import pytest

from callstream.testing import MockProvider, encode, eventstream_message, serve, stream_of

CALLS = [
    {"name": "get_weather", "args": {"city": "Paris"}, "id": "call_1"},
    {"name": "search", "args": {"q": 'é ☃ "x"', "n": [1, 2]}, "id": "call_2"},
]


def exchange(base_url: str, path: str, body: Any) -> tuple[bytes, list[bytes], bool]:
    """POST ``body`` over a raw socket; the response head, its HTTP chunks as framed,
    and whether the last (empty) chunk arrived."""
    host, port = base_url.removeprefix("http://").split(":")
    data = json.dumps(body).encode()
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        head = (
            f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\nAuthorization: Bearer sk-secret\r\n\r\n"
        )
        sock.sendall(head.encode() + data)
        reader = sock.makefile("rb")
        lines = []
        while (line := reader.readline()) not in (b"\r\n", b""):
            lines.append(line)
        chunks = []
        while size_line := reader.readline():
            size = int(size_line.strip(), 16)
            if size == 0:
                return b"".join(lines), chunks, reader.readline() == b"\r\n"
            chunks.append(reader.read(size))
            assert reader.read(2) == b"\r\n"
        return b"".join(lines), chunks, False


def test_each_stream_chunk_is_one_http_chunk() -> None:
    stream = stream_of(CALLS, format="openai-chat", split="char")
    mock = MockProvider(stream)
    with serve(mock) as base_url:
        assert base_url.startswith("http://127.0.0.1:")
        head, chunks, ended = exchange(base_url, "/v1/chat/completions", {"messages": []})
    assert head.startswith(b"HTTP/1.1 200")
    assert b"content-type: text/event-stream" in head.lower()
    assert b"transfer-encoding: chunked" in head.lower()
    assert chunks == encode(stream, "openai-chat") and ended
    (seen,) = mock.requests
    assert seen.path == "/v1/chat/completions" and "authorization" not in seen.headers


def test_pace_pauses_between_http_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    slept: list[float] = []
    monkeypatch.setattr("time.sleep", slept.append)
    stream = stream_of(CALLS, format="cohere", split="whole")
    with serve(MockProvider(stream, pace=0.5)) as base_url:
        _, chunks, ended = exchange(base_url, "/v2/chat", {"messages": []})
    assert chunks == encode(stream, "cohere") and ended
    assert slept == [0.5] * (len(chunks) - 1)


def test_bedrock_is_served_as_aws_eventstream_messages_botocore_decodes() -> None:
    eventstream = pytest.importorskip("botocore.eventstream")
    stream = stream_of(CALLS, format="bedrock", text="Let me look.")
    with serve(MockProvider(stream)) as base_url:
        head, chunks, ended = exchange(base_url, "/model/m/converse-stream", {"messages": []})
    assert b"application/vnd.amazon.eventstream" in head and ended
    assert chunks == encode(stream, "bedrock")
    assert (
        tuple(chunks) == stream_of(CALLS, format="bedrock", text="Let me look.", as_="bytes").items
    )
    decoder = eventstream.EventStreamBuffer()  # checks both CRCs and every length
    for chunk in chunks:
        decoder.add_data(chunk)
    messages = list(decoder)
    assert len(messages) == len(stream)
    for message, payload in zip(messages, stream, strict=True):
        ((kind, body),) = payload.items()
        assert message.headers == {
            ":event-type": kind,
            ":content-type": "application/json",
            ":message-type": "event",
        }
        assert json.loads(message.payload) == body


def test_an_eventstream_message_is_framed_as_botocore_reads_it() -> None:
    eventstream = pytest.importorskip("botocore.eventstream")
    framed = encode([{"throttlingException": {"message": "slow down ☃"}}], "bedrock")[0]
    raw = eventstream_message({":message-type": "event", "x": "ü"}, b"")
    decoder = eventstream.EventStreamBuffer()
    decoder.add_data(framed + raw)
    error, empty = list(decoder)
    assert error.headers[":exception-type"] == "throttlingException"
    assert error.headers[":message-type"] == "exception"
    assert json.loads(error.payload) == {"message": "slow down ☃"}
    assert empty.headers == {":message-type": "event", "x": "ü"} and empty.payload == b""
    corrupt = bytearray(raw)
    corrupt[-1] ^= 1
    broken = eventstream.EventStreamBuffer()
    broken.add_data(bytes(corrupt))
    with pytest.raises(eventstream.ChecksumMismatch):
        list(broken)


def test_bedrock_payloads_that_are_not_one_event_are_refused() -> None:
    with pytest.raises(ValueError, match=r"one \{event type: body\} pair"):
        encode([{"messageStart": {}, "messageStop": {}}], "bedrock")
    with pytest.raises(ValueError, match="binary"):
        stream_of(CALLS, format="bedrock", as_="lines")


def test_a_dropped_stream_closes_the_socket_without_the_last_chunk() -> None:
    stream = stream_of(CALLS, format="anthropic", quirks=["dropped-connection"])
    with serve(MockProvider(stream)) as base_url:
        _, chunks, ended = exchange(base_url, "/v1/messages", {"messages": []})
    assert chunks == encode(stream.items, "anthropic") and not ended


def test_an_unmatched_request_gets_the_error_reply_over_the_socket() -> None:
    mock = MockProvider(stream_of(CALLS, format="ollama"))
    with serve(mock) as base_url:
        head, chunks, ended = exchange(base_url, "/v1/chat/completions", {})
    assert head.startswith(b"HTTP/1.1 404") and ended
    assert "a path ending /api/chat" in json.loads(b"".join(chunks))["error"]["message"]


def test_serve_takes_a_mock_provider() -> None:
    with pytest.raises(TypeError, match="serve takes a MockProvider"), serve("x"):  # type: ignore[arg-type]
        pass


def _let_go(base_url: str, path: str, how: str) -> None:
    """Ask for a stream, read the head and the first chunk, then let go: ``close`` (FIN),
    ``reset`` (RST, as a killed client), or ``early`` (before the request is whole)."""
    host, port = base_url.removeprefix("http://").split(":")
    data = json.dumps({"messages": []}).encode()
    head = (
        f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(data)}\r\n\r\n"
    ).encode()
    sock = socket.create_connection((host, int(port)), timeout=10)
    try:
        if how == "reset":  # close with SO_LINGER 0: the peer gets a reset, not a FIN
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        if how == "early":
            sock.sendall(head + data[:3])
            return
        sock.sendall(head + data)
        reader = sock.makefile("rb")
        while reader.readline() not in (b"\r\n", b""):
            pass  # the head
        size = int(reader.readline().strip(), 16)
        assert size and reader.read(size)  # the first chunk arrived: the reply is under way
        reader.close()
    finally:
        sock.close()


@pytest.mark.parametrize("how", ["close", "reset", "early"])
def test_a_client_that_lets_go_early_is_answered_quietly(
    how: str, capfd: pytest.CaptureFixture[str]
) -> None:
    stream = stream_of(CALLS, format="openai-chat", split="char")
    mock = MockProvider(*[stream] * 4, pace=0.001)  # still replying when the client goes
    with serve(mock) as base_url:
        for _ in range(3):
            _let_go(base_url, "/v1/chat/completions", how)
        head, chunks, ended = exchange(base_url, "/v1/chat/completions", {"messages": []})
    # the block's exit waited for every connection's thread: all it printed is here
    out, err = capfd.readouterr()
    assert (out, err) == ("", "")
    assert head.startswith(b"HTTP/1.1 200") and ended  # the server went on serving
    assert chunks == encode(stream, "openai-chat")
