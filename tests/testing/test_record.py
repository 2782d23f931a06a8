"""``callstream.testing`` record and replay: a replay gives back the recorded response body
byte for byte and chunk for chunk, for httpx and httpx2, sync, asyncio and trio; the file
is the documented JSON Lines format and never holds a credential."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from callstream.testing import (
    Exchange,
    Recording,
    RecordingTransport,
    ReplayError,
    ReplayTransport,
    _record,
    load_recording,
    stream_of,
)
from tests.support.strict_json import strict_loads

httpx = pytest.importorskip("httpx")
httpx2 = pytest.importorskip("httpx2")
LIBRARIES = [pytest.param(httpx, id="httpx"), pytest.param(httpx2, id="httpx2")]

# An SSE body cut where networks cut: inside a line, inside a UTF-8 character (the euro
# sign's three bytes over two chunks), with event / id / comment lines, a multi-line
# data field, and bytes that are not UTF-8 at all.
PIECES = [
    # U+2028 and U+0085: line breaks to str.splitlines, not to JSON Lines
    b': keep-alive comment\n\nevent: message_start\nid: 7\ndata: {"a\xe2\x80\xa8\xc2\x85":',
    b' "first line"}\ndata: {"b": "second line"}\n\nevent: delta\nid: 8\ndata: {"t": "5 \xe2',
    b'\x82\xac"}\n\n',
    b"\xff\xfe not utf-8 \x80\n\n",
    b"",
    b"data: [DONE]\n\n",
]
READ = [piece for piece in PIECES if piece]  # what a client reads: it skips empty chunks


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def pieces_body(lib: ModuleType, pieces: list[bytes], error: Exception | None = None) -> Any:
    """A response body yielding ``pieces`` as its chunks (sync or async), then ``error``."""

    class Pieces(lib.SyncByteStream, lib.AsyncByteStream):  # type: ignore[misc,name-defined]
        def __iter__(self) -> Any:
            yield from pieces
            if error is not None:
                raise error

        async def __aiter__(self) -> Any:
            for piece in pieces:
                yield piece
            if error is not None:
                raise error

    return Pieces()


def server(lib: ModuleType, pieces: list[bytes], **response: Any) -> Any:
    """A mock transport answering every request with ``pieces`` as an SSE body."""
    headers = {"content-type": "text/event-stream", **response.pop("headers", {})}
    error = response.pop("error", None)

    def handle(request: Any) -> Any:
        return lib.Response(200, headers=headers, stream=pieces_body(lib, pieces, error))

    return lib.MockTransport(handle)


def read_sync(
    lib: ModuleType, transport: Any, url: str = "http://test/v1/chat", **kw: Any
) -> list[bytes]:
    with lib.Client(transport=transport) as client:
        with client.stream("POST", url, json={"stream": True}, **kw) as response:
            return list(response.iter_raw())


async def read_async(
    lib: ModuleType, transport: Any, url: str = "http://test/v1/chat"
) -> list[bytes]:
    async with lib.AsyncClient(transport=transport) as client:
        async with client.stream("POST", url, json={"stream": True}) as response:
            return [chunk async for chunk in response.aiter_raw()]


@pytest.mark.parametrize("lib", LIBRARIES)
def test_sync_round_trip_keeps_bytes_and_boundaries(lib: ModuleType, tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    recorder = RecordingTransport(server(lib, PIECES), path)
    assert read_sync(lib, recorder) == READ  # the client reads what the server sent
    [exchange] = load_recording(path).exchanges
    assert list(exchange.chunks) == PIECES  # the empty chunk too: what the transport gave
    assert exchange == recorder.exchanges[0]
    assert read_sync(lib, ReplayTransport(path)) == READ


@pytest.mark.parametrize("lib", LIBRARIES)
@pytest.mark.anyio
async def test_async_round_trip_keeps_bytes_and_boundaries(
    lib: ModuleType, tmp_path: Path, anyio_backend: str
) -> None:
    path = tmp_path / "run.jsonl"
    assert await read_async(lib, RecordingTransport(server(lib, PIECES), path)) == READ
    assert list(load_recording(path).exchanges[0].chunks) == PIECES
    assert await read_async(lib, ReplayTransport(path)) == READ
    assert await read_async(lib, ReplayTransport(path, pace="recorded")) == READ


@pytest.mark.parametrize(("recorded", "replayed"), [(httpx, httpx2), (httpx2, httpx)])
def test_a_recording_replays_to_the_other_library(
    recorded: ModuleType, replayed: ModuleType, tmp_path: Path
) -> None:
    path = tmp_path / "run.jsonl"
    read_sync(recorded, RecordingTransport(server(recorded, PIECES), path))
    assert read_sync(replayed, ReplayTransport(path)) == READ


def test_generated_streams_round_trip_for_every_wire_format(tmp_path: Path) -> None:
    calls = [{"name": "get_weather", "args": {"city": "Zürich", "note": "€ ☂"}, "id": "call_1"}]
    for fmt in ["openai-chat", "openai-responses", "anthropic", "gemini", "cohere", "ollama"]:
        raw = list(stream_of(calls, format=fmt, split="char", text="Grüße", as_="bytes"))
        # cut the joined bytes every 5 bytes: boundaries inside characters and lines
        joined = b"".join(raw)
        pieces = [joined[i : i + 5] for i in range(0, len(joined), 5)]
        path = tmp_path / f"{fmt}.jsonl"
        read_sync(httpx2, RecordingTransport(server(httpx2, pieces), path))
        assert read_sync(httpx2, ReplayTransport(path)) == pieces, fmt


def test_the_file_is_the_documented_json_lines(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    read_sync(
        httpx2, RecordingTransport(server(httpx2, PIECES), path), url="http://test/v1/chat?stream=1"
    )
    data = path.read_bytes()
    assert data.endswith(b"\n") and "\u2028".encode() in data  # as UTF-8, unescaped
    lines = [strict_loads(line) for line in data.decode("utf-8").split("\n")[:-1]]
    assert lines[0] == {"format": "callstream-recording", "version": 1}
    [line] = lines[1:]
    assert set(line) == {"request", "response", "chunks", "complete", "error"}
    assert line["request"] == {
        "method": "POST",
        "path": "/v1/chat?stream=1",
        "body": {"json": {"stream": True}},
    }
    assert line["response"]["status"] == 200
    assert ["content-type", "text/event-stream"] in line["response"]["headers"]
    assert line["complete"] is True and line["error"] is None
    kinds = [next(k for k in chunk if k != "at") for chunk in line["chunks"]]
    # the chunks cut inside the euro sign, and the one that is not UTF-8, are base64
    assert kinds == ["text", "base64", "base64", "base64", "text", "text"]
    assert base64.b64decode(line["chunks"][3]["base64"]) == PIECES[3]
    assert line["chunks"][0]["text"].startswith(
        ": keep-alive comment\n\nevent: message_start\nid: 7"
    )
    offsets = [chunk["at"] for chunk in line["chunks"]]
    assert offsets == sorted(offsets) and offsets[0] >= line["response"]["at"] >= 0


def test_request_bodies_json_text_and_binary(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    with httpx2.Client(transport=RecordingTransport(server(httpx2, [b"ok"]), path)) as client:
        client.post("http://test/a", json={"messages": [{"role": "user", "content": "é"}]})
        client.post("http://test/b", content=b"plain words")
        client.post("http://test/c", content=b"\x00\xff")
        client.get("http://test/d")
    bodies = [
        json.loads(line)["request"]["body"] for line in path.read_text("utf-8").split("\n")[1:-1]
    ]
    assert bodies == [
        {"json": {"messages": [{"role": "user", "content": "é"}]}},
        {"text": "plain words"},
        {"base64": base64.b64encode(b"\x00\xff").decode()},
        None,
    ]
    exchanges = load_recording(path).exchanges
    assert exchanges[0].json() == {"messages": [{"role": "user", "content": "é"}]}
    assert [e.body for e in exchanges[1:]] == [b"plain words", b"\x00\xff", b""]
    assert [e.method for e in exchanges] == ["POST", "POST", "POST", "GET"]


def test_credentials_are_never_written(tmp_path: Path) -> None:
    secret = "sk-SECRET-123"
    path = tmp_path / "run.jsonl"
    leaky = {
        "set-cookie": f"session={secret}",
        "x-amz-security-token": secret,
        "x-request-token": secret,
        "authorization": f"Bearer {secret}",
        "x-ratelimit-remaining-tokens": "99",
    }
    recorder = RecordingTransport(server(httpx2, [b"data: {}\n\n"], headers=leaky), path)
    credentials = {
        "authorization": f"Bearer {secret}",
        "x-api-key": secret,
        "api-key": secret,
        "x-goog-api-key": secret,
        "cookie": f"c={secret}",
        "x-amz-security-token": secret,
    }
    url = f"http://test/v1beta/models/m:streamGenerateContent?alt=sse&key={secret}&X-Amz-Signature={secret}"
    assert read_sync(httpx2, recorder, url=url, headers=credentials) == [b"data: {}\n\n"]
    data = path.read_bytes()
    assert secret.encode() not in data and b"SECRET" not in data
    [exchange] = load_recording(path).exchanges
    assert exchange.path == "/v1beta/models/m:streamGenerateContent?alt=sse"
    assert dict(exchange.headers) == {
        "content-type": "text/event-stream",
        "x-ratelimit-remaining-tokens": "99",
    }
    # a replay matches the request with its credentials, stripped the same way
    assert read_sync(httpx2, ReplayTransport(path), url=url) == [b"data: {}\n\n"]


@pytest.mark.parametrize("lib", LIBRARIES)
def test_a_body_closed_early_is_written_incomplete(lib: ModuleType, tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    with lib.Client(transport=RecordingTransport(server(lib, PIECES), path)) as client:
        with client.stream("POST", "http://test/v1/chat") as response:
            first = next(response.iter_raw())
    [exchange] = load_recording(path).exchanges
    assert (exchange.chunks, exchange.complete, exchange.error) == ((first,), False, None)
    with lib.Client(transport=ReplayTransport(path)) as client:
        with client.stream("POST", "http://test/v1/chat") as response:
            chunks = response.iter_raw()
            assert next(chunks) == first
            with pytest.raises(ReplayError, match="ends after 1 chunks"):
                next(chunks)


@pytest.mark.parametrize("lib", LIBRARIES)
def test_a_read_error_is_recorded_and_raised_again(lib: ModuleType, tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    dropped = lib.RemoteProtocolError(
        "peer closed connection without sending complete message body"
    )
    recorder = RecordingTransport(server(lib, PIECES[:2], error=dropped), path)
    got: list[bytes] = []
    with pytest.raises(lib.RemoteProtocolError), lib.Client(transport=recorder) as client:
        with client.stream("POST", "http://test/v1/chat") as response:
            got.extend(response.iter_raw())
    assert got == PIECES[:2]
    [exchange] = load_recording(path).exchanges
    assert exchange.complete is False
    assert exchange.error == ("RemoteProtocolError", str(dropped))
    replayed: list[bytes] = []
    with (
        pytest.raises(lib.RemoteProtocolError, match="peer closed"),
        lib.Client(transport=ReplayTransport(path)) as client,
    ):
        with client.stream("POST", "http://test/v1/chat") as response:
            replayed.extend(response.iter_raw())
    assert replayed == PIECES[:2]


def test_an_error_of_another_library_is_replayed_as_a_read_error(tmp_path: Path) -> None:
    exchange = Exchange("POST", "/", b"", 200, (), 0.0, (b"x",), (0.0,), False, ("OSError", "boom"))
    with pytest.raises(httpx.ReadError, match="OSError: boom"):
        read_sync(httpx, ReplayTransport(Recording((exchange,))), url="http://test/")


def chat(path: str, chunks: tuple[bytes, ...] = (b"x",), method: str = "POST") -> Exchange:
    return Exchange(method, path, b"", 200, (), 0.0, chunks, tuple(0.0 for _ in chunks))


def test_requests_are_answered_in_order_and_a_mismatch_names_both() -> None:
    replay = ReplayTransport(Recording((chat("/v1/a", (b"A",)), chat("/v1/b", (b"B",)))))
    with httpx2.Client(transport=replay) as client:
        assert client.post("http://test/v1/a").content == b"A"
        with pytest.raises(ReplayError, match=r"request 2: expected POST /v1/b, got GET /v1/c"):
            client.get("http://test/v1/c")
    replay = ReplayTransport(Recording((chat("/v1/a"),)))
    with httpx2.Client(transport=replay) as client:
        client.post("http://test/v1/a")
        with pytest.raises(
            ReplayError, match=r"request 2 \(POST /v1/a\): the recording holds only 1"
        ):
            client.post("http://test/v1/a")
    assert replay.served == [chat("/v1/a")]


def test_match_by_request_answers_in_any_order() -> None:
    recording = Recording((chat("/v1/a", (b"A",)), chat("/v1/b", (b"B",)), chat("/v1/a", (b"A2",))))
    replay = ReplayTransport(recording, match="request")
    with httpx2.Client(transport=replay) as client:
        assert [client.post(f"http://test/v1/{p}").content for p in ["b", "a", "a"]] == [
            b"B",
            b"A",
            b"A2",
        ]
        with pytest.raises(
            ReplayError, match=r"no unused recorded exchange for POST /v1/b; unused: none"
        ):
            client.post("http://test/v1/b")


class FakeClock:
    """A clock that moves only when slept on: what a paced replay waits for, with no
    wall-clock time in the test."""

    def __init__(self) -> None:
        self.now = 100.0
        self.sleeps: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds

    async def asleep(self, seconds: float) -> None:
        self.sleep(seconds)


PACED = Exchange("POST", "/v1/chat", b"", 200, (), 0.25, (b"a", b"b", b"c"), (0.5, 0.5, 1.75))


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    fake = FakeClock()
    monkeypatch.setattr(_record, "_now", fake.monotonic)
    monkeypatch.setattr(_record, "_sleep", fake.sleep)
    monkeypatch.setattr(_record, "_asleep", fake.asleep)
    return fake


def test_recorded_pace_waits_for_each_recorded_offset(clock: FakeClock) -> None:
    seen = []
    with httpx2.Client(transport=ReplayTransport(Recording((PACED,)), pace="recorded")) as client:
        with client.stream("POST", "http://test/v1/chat") as response:
            seen.append(clock.now - 100.0)  # the headers
            for chunk in response.iter_raw():
                seen.append(clock.now - 100.0)
                assert chunk == PACED.chunks[len(seen) - 2]
    assert seen == [0.25, 0.5, 0.5, 1.75]
    assert clock.sleeps == [0.25, 0.25, 1.25]  # a chunk due at once is not slept for


def test_zero_pace_never_sleeps(clock: FakeClock) -> None:
    with httpx2.Client(transport=ReplayTransport(Recording((PACED,)))) as client:
        assert client.post("http://test/v1/chat").content == b"abc"
    assert clock.sleeps == []


@pytest.mark.anyio
async def test_async_recorded_pace_waits_for_each_recorded_offset(
    clock: FakeClock, anyio_backend: str
) -> None:
    seen = []
    replay = ReplayTransport(Recording((PACED,)), pace="recorded")
    async with httpx2.AsyncClient(transport=replay) as client:
        async with client.stream("POST", "http://test/v1/chat") as response:
            async for chunk in response.aiter_raw():
                seen.append((chunk, clock.now - 100.0))
    assert seen == [(b"a", 0.5), (b"b", 0.5), (b"c", 1.75)]


def test_recording_records_offsets_from_its_clock(clock: FakeClock, tmp_path: Path) -> None:
    class Slow(httpx2.SyncByteStream):
        def __iter__(self) -> Any:
            for piece in (b"one", b"two"):
                clock.now += 0.125
                yield piece

    def handle(request: Any) -> Any:
        clock.now += 0.5
        return httpx2.Response(200, stream=Slow())

    path = tmp_path / "run.jsonl"
    read_sync(httpx2, RecordingTransport(httpx2.MockTransport(handle), path))
    [exchange] = load_recording(path).exchanges
    assert (exchange.at, exchange.offsets) == (0.5, (0.625, 0.75))


def test_several_exchanges_in_one_file_replay_in_order(tmp_path: Path) -> None:
    path = tmp_path / "turns.jsonl"
    turns = iter([[b"data: 1\n\n"], [b"data: 2", b"\n\n"]])

    def handle(request: Any) -> Any:
        return httpx2.Response(200, stream=pieces_body(httpx2, next(turns)))

    recorder = RecordingTransport(httpx2.MockTransport(handle), path)
    first, second = read_sync(httpx2, recorder), read_sync(httpx2, recorder)
    replay = ReplayTransport(path)
    assert [read_sync(httpx2, replay), read_sync(httpx2, replay)] == [first, second]
    assert second == [b"data: 2", b"\n\n"]
    assert Recording(tuple(recorder.exchanges)).dumps() == path.read_text("utf-8")


def test_misuse_is_refused_precisely(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="expected an httpx or httpx2 transport, got object"):
        RecordingTransport(object(), tmp_path / "x.jsonl")
    with pytest.raises(ValueError, match="pace must be 'recorded' or 'zero', not 'fast'"):
        ReplayTransport(Recording(), pace="fast")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="match must be"):
        ReplayTransport(Recording(), match="path")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="chunks but"):
        Exchange("GET", "/", b"", 200, (), 0.0, (b"a",), ())


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty file"),
        ('{"format": "other", "version": 1}\n', r":1: not a callstream-recording version 1"),
        (
            '{"format": "callstream-recording", "version": 1}\n{"request": 1}\n',
            r":2: malformed exchange",
        ),
        ('{"format": "callstream-recording", "version": 1}\nnot json\n', r":2: not JSON"),
    ],
)
def test_a_bad_file_names_its_line(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        load_recording(path)


def test_a_bad_field_is_refused(tmp_path: Path) -> None:
    good = json.loads(chat("/").dumps())
    bad_lines = [
        {**good, "request": {**good["request"], "body": "not an object"}},
        {**good, "request": {**good["request"], "body": {"yaml": "x"}}},
        {**good, "response": {**good["response"], "headers": [["a", 1]]}},
        {**good, "response": {**good["response"], "status": "200"}},
        {**good, "complete": "yes"},
    ]
    for line in bad_lines:
        path = tmp_path / "bad.jsonl"
        path.write_text(Recording().dumps() + json.dumps(line) + "\n", encoding="utf-8")
        with pytest.raises(ValueError, match=":2: malformed exchange"):
            load_recording(path)
    path.write_bytes(b"\xff\n")
    with pytest.raises(ValueError, match="not UTF-8"):
        load_recording(path)


def test_a_bad_chunk_is_refused(tmp_path: Path) -> None:
    good = json.loads(chat("/").dumps())
    for chunk in [
        {"at": -1, "text": "x"},
        {"at": 0, "text": "x", "base64": "eA=="},
        {"at": 0, "base64": "!"},
    ]:
        path = tmp_path / "bad.jsonl"
        line = json.dumps({**good, "chunks": [chunk]})
        path.write_text(Recording().dumps() + line + "\n", encoding="utf-8")
        with pytest.raises(ValueError, match=":2: malformed exchange"):
            load_recording(path)
