"""Line iterators (httpx, requests, aiohttp) and raw text that holds no payload.

httpx's ``iter_lines()`` yields ``str`` lines without their line ends and ``""`` for a blank
line; ``requests``' ``iter_lines()`` the same as ``bytes``; aiohttp's ``response.content``
yields ``bytes`` lines that keep ``b"\\n"``. Every shape must give the same calls as the
decoded payloads, and chunk iterators cut anywhere must keep working identically.
"""

from __future__ import annotations

import io
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
import requests
import requests.adapters
from hypothesis import given, settings
from hypothesis import strategies as st

import callstream
from callstream import StreamResult, UnknownFormatError
from callstream.providers.transport import SSEDecoder, TransportDecoder, TransportMessage
from tests.support.strategies import splits


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


# --- our own streams, in the providers' wire shapes ---------------------------------------


def _chat(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-9",
        "object": "chat.completion.chunk",
        "model": "gpt-4o",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def _call(index: int, id_: str | None, name: str | None, args: str) -> dict[str, Any]:
    entry: dict[str, Any] = {"index": index, "function": {"arguments": args}}
    if id_ is not None:
        entry.update(id=id_, type="function")
        entry["function"]["name"] = name
    return {"tool_calls": [entry]}


OPENAI = [
    _chat({"role": "assistant", "content": None}),
    _chat(_call(0, "call_a", "get_weather", "")),
    _chat(_call(0, None, None, '{"city": "Par')),
    _chat(_call(0, None, None, 'is"}')),
    _chat(_call(1, "call_b", "get_time", '{"tz": "CET"}')),
    _chat({}, finish="tool_calls"),
]

ANTHROPIC = [
    {"type": "message_start", "message": {"id": "msg_1", "role": "assistant", "content": []}},
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi"}},
    {"type": "content_block_stop", "index": 0},
    {"type": "ping"},
    {
        "type": "content_block_start",
        "index": 1,
        "content_block": {"type": "tool_use", "id": "toolu_1", "name": "search", "input": {}},
    },
    {
        "type": "content_block_delta",
        "index": 1,
        "delta": {"type": "input_json_delta", "partial_json": '{"q": "caf\u00e9'},
    },
    {
        "type": "content_block_delta",
        "index": 1,
        "delta": {"type": "input_json_delta", "partial_json": ' \U0001f600"}'},
    },
    {"type": "content_block_stop", "index": 1},
    {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {}},
    {"type": "message_stop"},
]

OLLAMA = [
    {"model": "llama3", "message": {"role": "assistant", "content": "ok"}, "done": False},
    {
        "model": "llama3",
        "message": {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"function": {"name": "add", "arguments": {"a": 1, "b": 2}}}],
        },
        "done": False,
    },
    {"model": "llama3", "message": {"role": "assistant", "content": ""}, "done": True},
]


def openai_sse(payloads: list[dict[str, Any]]) -> str:
    return "".join(f"data: {json.dumps(p)}\n\n" for p in payloads) + "data: [DONE]\n\n"


def anthropic_sse(payloads: list[dict[str, Any]]) -> str:
    return "".join(
        f"event: {p['type']}\ndata: {json.dumps(p, ensure_ascii=False)}\n\n" for p in payloads
    )


def ndjson(payloads: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(p) + "\n" for p in payloads)


STREAMS = {
    "openai": (openai_sse(OPENAI), OPENAI, "openai-chat"),
    "anthropic": (anthropic_sse(ANTHROPIC), ANTHROPIC, "anthropic"),
    "ollama": (ndjson(OLLAMA), OLLAMA, "ollama"),
}


def expected(name: str) -> StreamResult:
    _, payloads, provider = STREAMS[name]
    result = callstream.collect(payloads, provider=provider)
    assert result.tool_calls, "the stream must hold calls for the test to mean anything"
    return result


def same(result: StreamResult, name: str) -> None:
    want = expected(name)
    assert result.tool_calls == want.tool_calls
    assert result.invalid_tool_calls == want.invalid_tool_calls
    assert result.finish_reason == want.finish_reason
    assert result.provider == STREAMS[name][2]


def httpx_lines(text: str) -> list[str]:
    """What httpx's ``iter_lines`` yields: lines without ends, blank lines as ``""``."""
    return text.splitlines()


# --- line shapes, without a network library -----------------------------------------------


@pytest.mark.parametrize("name", sorted(STREAMS))
def test_str_lines_without_ends_give_the_same_calls(name: str) -> None:
    text = STREAMS[name][0]
    same(callstream.collect(httpx_lines(text)), name)
    same(callstream.collect(iter(httpx_lines(text.replace("\n", "\r\n")))), name)


@pytest.mark.parametrize("name", sorted(STREAMS))
def test_bytes_lines_without_ends_give_the_same_calls(name: str) -> None:
    """``requests.Response.iter_lines()`` yields bytes lines without their line ends."""
    text = STREAMS[name][0]
    same(callstream.collect([line.encode() for line in httpx_lines(text)]), name)


@pytest.mark.parametrize("name", sorted(STREAMS))
def test_bytes_lines_with_ends_give_the_same_calls(name: str) -> None:
    """aiohttp's ``async for line in response.content`` keeps ``b"\\n"`` on each line."""
    text = STREAMS[name][0]
    same(callstream.collect(text.encode().splitlines(keepends=True)), name)


@pytest.mark.parametrize("name", sorted(STREAMS))
def test_whole_and_one_character_at_a_time(name: str) -> None:
    text = STREAMS[name][0]
    same(callstream.collect([text]), name)
    same(callstream.collect(list(text)), name)
    data = text.encode()
    same(callstream.collect([data[i : i + 1] for i in range(len(data))]), name)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(STREAMS)), st.data())
def test_chunks_cut_anywhere_still_read_as_chunks(name: str, data: st.DataObject) -> None:
    """Random cuts (empty chunks and cuts at line ends included) give the same calls."""
    text = STREAMS[name][0]
    same(callstream.collect(data.draw(splits(text, max_cuts=40))), name)
    pieces = data.draw(splits(text, max_cuts=40))
    same(callstream.collect([p.encode() for p in pieces]), name)


def test_chunks_cut_exactly_at_line_ends_read_as_chunks() -> None:
    """Chunks that end right before, at or after each line end stay chunks."""
    text = STREAMS["anthropic"][0]
    before = text.replace("\n", "\x00\n").split("\x00")  # every chunk starts with its "\n"
    same(callstream.collect(before), "anthropic")
    after = text.splitlines(keepends=True)
    same(callstream.collect(after), "anthropic")


def test_line_mode_is_chosen_only_for_a_whole_first_line() -> None:
    # A first item that is not a whole field line keeps the chunk reading.
    decoder = SSEDecoder()
    events = [*decoder.feed('data: {"a": '), *decoder.feed("data: 1}\n\n"), *decoder.close()]
    assert [e.data for e in events] == ['{"a": data: 1}']
    # Lines: an event per blank item, dispatched as soon as the blank line arrives.
    decoder = SSEDecoder()
    assert decoder.feed("event: x") == []
    assert decoder.feed('data: {"a": 1}') == []
    assert [e.data for e in decoder.feed("")] == ['{"a": 1}']
    assert [e.data for e in decoder.feed('data: {"b": 2}')] == []
    assert [e.data for e in decoder.feed(b"")] == ['{"b": 2}']


def test_lines_then_a_chunk_with_line_ends_switch_to_chunks() -> None:
    decoder = SSEDecoder()
    events = [
        *decoder.feed('data: {"a": 1}'),
        *decoder.feed(""),
        *decoder.feed('\n\ndata: {"b'),
        *decoder.feed('": 2}'),
        *decoder.feed("\n\n"),
        *decoder.close(),
    ]
    assert [e.data for e in events] == ['{"a": 1}', '{"b": 2}']


# --- raw text with no payload ---------------------------------------------------------------


@pytest.mark.parametrize(
    "source",
    [
        ["hello world\n"],
        ["data: not json\n\n"],
        [b"<html><body>502 Bad Gateway</body></html>"],
        ['{"a": 1'],  # an object cut off
        ['data: {"a": 1}data: {"b": 2}'],  # two lines run together
    ],
)
def test_raw_text_without_payload_raises(source: list[Any]) -> None:
    with pytest.raises(UnknownFormatError, match="decoded to no payload"):
        callstream.collect(source)


@pytest.mark.parametrize(
    "source", [[], [""], [b"", "  \n"], [": keep-alive\n\n", "data: [DONE]\n\n"]]
)
def test_empty_raw_streams_stay_empty(source: list[Any]) -> None:
    result = callstream.collect(source)
    assert result.tool_calls == [] and result.provider is None


def test_raw_text_without_payload_raises_with_an_explicit_provider_too() -> None:
    with pytest.raises(UnknownFormatError, match="decoded to no payload"):
        callstream.collect(["hello\n"], provider="openai-chat")
    empty = [": keep-alive\n\n", "data: [DONE]\n\n"]
    assert callstream.collect(empty, provider="openai-chat").tool_calls == []


# --- the real httpx client ------------------------------------------------------------------


def _client(body: bytes) -> httpx.Client:
    def chunks() -> Iterator[bytes]:
        for i in range(0, len(body), 7):  # the network's cuts
            yield body[i : i + 7]

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=chunks(), headers={"content-type": "text/event-stream"})

    return httpx.Client(transport=httpx.MockTransport(handler))


def _async_client(body: bytes) -> httpx.AsyncClient:
    async def chunks() -> AsyncIterator[bytes]:
        for i in range(0, len(body), 7):  # the network's cuts
            yield body[i : i + 7]

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=chunks(), headers={"content-type": "text/event-stream"})

    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


@pytest.mark.parametrize("name", sorted(STREAMS))
def test_httpx_iter_lines_bytes_and_text(name: str) -> None:
    body = STREAMS[name][0].encode()
    with _client(body) as client:
        for read in ("iter_lines", "iter_bytes", "iter_text", "iter_raw"):
            with client.stream("POST", "https://api.example.test/v1/stream") as response:
                same(callstream.collect(getattr(response, read)()), name)
        with client.stream("POST", "https://api.example.test/v1/stream") as response:
            updates = list(callstream.stream(response.iter_lines()))
        assert updates[-1].tool_calls == expected(name).tool_calls


@pytest.mark.anyio
@pytest.mark.parametrize("name", sorted(STREAMS))
async def test_httpx_async_aiter_lines(name: str) -> None:
    body = STREAMS[name][0].encode()
    async with _async_client(body) as client:
        for read in ("aiter_lines", "aiter_bytes", "aiter_text"):
            async with client.stream("POST", "https://api.example.test/v1/stream") as response:
                same(await callstream.acollect(getattr(response, read)()), name)


# --- requests, through a mocked adapter -------------------------------------------------------


class _Adapter(requests.adapters.BaseAdapter):
    def __init__(self, body: bytes) -> None:
        super().__init__()
        self._body = body

    def send(self, request: requests.PreparedRequest, **kwargs: Any) -> requests.Response:
        response = requests.Response()
        response.status_code = 200
        response.raw = io.BytesIO(self._body)
        response.request = request
        response.url = str(request.url)
        return response

    def close(self) -> None:
        pass


@pytest.mark.parametrize("name", sorted(STREAMS))
def test_requests_iter_lines_and_iter_content(name: str) -> None:
    session = requests.Session()
    session.mount("https://", _Adapter(STREAMS[name][0].encode()))
    response = session.post("https://api.example.test/v1/stream", stream=True)
    same(callstream.collect(response.iter_lines()), name)
    response = session.post("https://api.example.test/v1/stream", stream=True)
    same(callstream.collect(response.iter_content(chunk_size=5)), name)


# --- aiohttp's line shape (aiohttp is not installed: its StreamReader lines simulated) -------


async def _aiohttp_content(body: bytes) -> AsyncIterator[bytes]:
    """``async for line in response.content``: bytes lines that keep ``b"\\n"``."""
    for line in body.splitlines(keepends=True):
        yield line


@pytest.mark.anyio
@pytest.mark.parametrize("name", sorted(STREAMS))
async def test_aiohttp_content_lines(name: str) -> None:
    same(await callstream.acollect(_aiohttp_content(STREAMS[name][0].encode())), name)


def _lines(text: str) -> Iterator[str]:
    yield from httpx_lines(text)


def test_stream_updates_arrive_line_by_line() -> None:
    """In line mode an event is dispatched by its blank line, not by the next event."""
    text = STREAMS["openai"][0]
    seen: list[int] = []
    pulled = 0

    def source() -> Iterator[str]:
        nonlocal pulled
        for line in _lines(text):
            pulled += 1
            yield line

    for update in callstream.stream(source(), provider="openai-chat"):
        if update.payload is not None:
            seen.append(pulled)
    # payload k is complete at line 2k (its data line, then its blank line)
    assert seen == [2 * (k + 1) for k in range(len(OPENAI))]


@pytest.mark.parametrize(
    ("items", "want"),
    [
        # a chunk iterator's empty read after a field without data is not a blank line
        ([b"event:", b"", b" e0\ndata: {}\n\n"], [TransportMessage({}, "e0")]),
        ([b"id: 7", b"", b"", b"\nevent: e\ndata: {}\n\n"], [TransportMessage({}, "e")]),
        # ... even when the next read goes on with that field without ending the line
        ([b"event:", b"", b" ", b"e0\ndata: {}\n\n"], [TransportMessage({}, "e0")]),
        ([b"event: e", b"", b"", b"0\ndata: {}\n\n"], [TransportMessage({}, "e0")]),
        # a line iterator's blank line after a field without data still ends the event
        (["event: x", "", 'data: {"a": 1}', ""], [TransportMessage({"a": 1}, None)]),
        (["event: x", "", ": ping", 'data: {"a": 1}', ""], [TransportMessage({"a": 1}, None)]),
        (
            ["event: x", 'data: {"a": 1}', "", "", 'data: {"b": 2}', ""],
            [TransportMessage({"a": 1}, "x"), TransportMessage({"b": 2}, None)],
        ),
    ],
)
def test_empty_items_are_settled_by_the_next_item(
    items: list[str | bytes], want: list[TransportMessage]
) -> None:
    decoder = TransportDecoder()
    got = [m for item in items for m in decoder.feed(item)] + decoder.close()
    assert got == want
