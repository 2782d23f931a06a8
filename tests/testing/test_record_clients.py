"""Record and replay under real clients: the openai SDK (over httpx2, its default) parses a
replay as it parsed the recording, and over a real loopback socket what is recorded is
what the network reads gave."""

from __future__ import annotations

import contextlib
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

import callstream
from callstream.testing import RecordingTransport, ReplayTransport, load_recording, stream_of

httpx = pytest.importorskip("httpx")
httpx2 = pytest.importorskip("httpx2")

CALLS = [
    {"name": "get_weather", "args": {"city": "Zürich", "unit": "°C"}, "id": "call_1"},
    {"name": "search", "args": {"q": "umbrellas €20"}, "id": "call_2"},
]


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def chat_pieces() -> list[bytes]:
    """An OpenAI Chat stream's bytes, cut every 11 bytes (inside lines and characters)."""
    raw = b"".join(stream_of(CALLS, format="openai-chat", text="Checking…", as_="bytes"))
    return [raw[i : i + 11] for i in range(0, len(raw), 11)]


class Pieces(httpx2.SyncByteStream, httpx2.AsyncByteStream):
    def __init__(self, pieces: list[bytes]) -> None:
        self.pieces = pieces

    def __iter__(self) -> Iterator[bytes]:
        yield from self.pieces

    async def __aiter__(self) -> Any:
        for piece in self.pieces:
            yield piece


def openai_server() -> Any:
    def handle(request: Any) -> Any:
        headers = {"content-type": "text/event-stream"}
        return httpx2.Response(200, headers=headers, stream=Pieces(chat_pieces()))

    return httpx2.MockTransport(handle)


def summary(result: Any) -> list[Any]:
    return [(c["name"], c["args"], c["id"]) for c in result.tool_calls] + [result.text]


def test_the_openai_sdk_reads_a_replay_as_it_read_the_recording(tmp_path: Path) -> None:
    openai = pytest.importorskip("openai")
    path = tmp_path / "chat.jsonl"

    def run(transport: Any) -> tuple[list[Any], list[Any]]:
        sdk = openai.OpenAI(
            api_key="sk-live-SECRET",
            base_url="http://test/v1",
            http_client=httpx2.Client(transport=transport),
            max_retries=0,
        )
        messages = [{"role": "user", "content": "weather?"}]
        chunks = list(sdk.chat.completions.create(model="m", messages=messages, stream=True))
        dumped = [c.model_dump() for c in chunks]
        return dumped, summary(callstream.collect(iter(chunks), provider="openai-chat"))

    recorded = run(RecordingTransport(openai_server(), path))
    assert recorded[1] == [*((c["name"], c["args"], c["id"]) for c in CALLS), "Checking…"]
    assert run(ReplayTransport(path)) == recorded
    assert b"SECRET" not in path.read_bytes()
    [exchange] = load_recording(path).exchanges
    assert (exchange.method, exchange.path) == ("POST", "/v1/chat/completions")
    assert exchange.json()["messages"] == [{"role": "user", "content": "weather?"}]
    assert list(exchange.chunks) == chat_pieces()


@pytest.mark.anyio
async def test_the_async_openai_sdk_reads_a_replay_as_it_read_the_recording(
    tmp_path: Path, anyio_backend: str
) -> None:
    openai = pytest.importorskip("openai")
    path = tmp_path / "chat.jsonl"

    async def run(transport: Any) -> list[Any]:
        sdk = openai.AsyncOpenAI(
            api_key="test",
            base_url="http://test/v1",
            http_client=httpx2.AsyncClient(transport=transport),
            max_retries=0,
        )
        messages = [{"role": "user", "content": "weather?"}]
        source = await sdk.chat.completions.create(model="m", messages=messages, stream=True)
        return summary(await callstream.acollect(source))

    recorded = await run(RecordingTransport(openai_server(), path))
    assert recorded == [*((c["name"], c["args"], c["id"]) for c in CALLS), "Checking…"]
    assert await run(ReplayTransport(path, pace="recorded")) == recorded


class _Handler(http.server.BaseHTTPRequestHandler):
    """Writes each of the server's pieces as one HTTP chunk, flushed, and waits for the
    client to have read it before the next (so no two pieces share a network read)."""

    protocol_version = "HTTP/1.1"
    pieces: ClassVar[list[bytes]] = []
    read: threading.Semaphore

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", 0)))
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        for piece in self.pieces:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            self.wfile.flush()
            if not self.read.acquire(timeout=10):
                return
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def log_message(self, *args: Any) -> None:
        return None


SOCKET_PIECES = [
    b"event: ping\n: comment\n",
    b'data: {"a": \xe2\x82',
    b"\xac}\n\n",
    b"data: [DONE]\n\n",
]


@contextlib.contextmanager
def loopback(pieces: list[bytes]) -> Iterator[tuple[str, threading.Semaphore]]:
    """A server on 127.0.0.1 streaming ``pieces``: its URL, and the semaphore the client
    releases after reading each piece."""
    read = threading.Semaphore(0)
    handler = type("Handler", (_Handler,), {"pieces": pieces, "read": read})
    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler) as server:
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield f"http://127.0.0.1:{server.server_address[1]}/v1/chat", read
        finally:
            server.shutdown()
            thread.join()


def check_recording(path: Path) -> None:
    [exchange] = load_recording(path).exchanges
    assert list(exchange.chunks) == SOCKET_PIECES and exchange.complete
    with httpx2.Client(transport=ReplayTransport(path)) as client:
        with client.stream("POST", "http://elsewhere/v1/chat", json={"stream": True}) as response:
            assert list(response.iter_raw()) == SOCKET_PIECES


def test_over_a_loopback_socket_the_network_reads_are_recorded(tmp_path: Path) -> None:
    path = tmp_path / "socket.jsonl"
    got = []
    with loopback(SOCKET_PIECES) as (url, read):
        with httpx.Client(transport=RecordingTransport(httpx.HTTPTransport(), path)) as client:
            with client.stream("POST", url, json={"stream": True}) as response:
                for chunk in response.iter_raw():
                    got.append(chunk)
                    read.release()
    assert got == SOCKET_PIECES
    check_recording(path)


@pytest.mark.anyio
async def test_async_over_a_loopback_socket_the_network_reads_are_recorded(
    tmp_path: Path, anyio_backend: str
) -> None:
    path = tmp_path / "socket.jsonl"
    got = []
    with loopback(SOCKET_PIECES) as (url, read):
        recorder = RecordingTransport(httpx2.AsyncHTTPTransport(), path)
        async with httpx2.AsyncClient(transport=recorder) as client:
            async with client.stream("POST", url, json={"stream": True}) as response:
                async for chunk in response.aiter_raw():
                    got.append(chunk)
                    read.release()
    assert got == SOCKET_PIECES
    check_recording(path)
