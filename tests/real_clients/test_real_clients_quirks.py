"""The quirk streams of ``tests/support/quirk_streams.py`` through the real clients: anthropic 2.x
(``Anthropic`` / ``AsyncAnthropic``, plain and beta Messages, and the ``messages.stream()``
helper) and openai 3.x (Chat Completions, for the OpenAI-compatible servers, and the
Responses API's WebSocket mode), sync, asyncio and trio. Both SDKs talk HTTP through
``httpx2`` (``callstream.testing.MockProvider`` serves our bytes through
``httpx2.MockTransport``, see ``tests/support/real_clients.py``);
the WebSocket mode talks to a server of ours on loopback."""

from __future__ import annotations

import json
import threading
from typing import Any

import anthropic
import openai
import pytest

import callstream
from callstream import StreamResult
from tests.support.quirk_streams import (
    ANTHROPIC_UNKNOWN,
    KIMI_REPEATED_ID,
    KIMI_TURN_1,
    MISTRAL_WHOLE,
    OLLAMA_V1,
    QWEN_PREFIXES,
    RESPONSES_WS,
    RESPONSES_WS_ERROR,
    anthropic_eager,
    anthropic_sse,
    chat_sse,
    vllm_chat_cut,
    ws_frames,
)
from tests.support.real_clients import Replay


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


MAKE_FILE = {
    "name": "make_file",
    "description": "Write lines of text to a file",
    "eager_input_streaming": True,
    "input_schema": {
        "type": "object",
        "properties": {
            "filename": {"type": "string"},
            "lines_of_text": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["filename", "lines_of_text"],
    },
}
REQUEST: dict[str, Any] = {
    "model": "claude-opus-4-6",
    "max_tokens": 64,
    "messages": [{"role": "user", "content": "Write a poem to poem.txt"}],
    "tools": [MAKE_FILE],
}

ANTHROPIC_CASES: dict[str, list[dict[str, Any]]] = {
    "eager-cut": anthropic_eager(),
    "eager-cut-block-stop": anthropic_eager(block_stop=True),
    "eager-invalid": anthropic_eager(invalid=True),
    "unknown-events": ANTHROPIC_UNKNOWN,
}
APIS = ["messages", "beta.messages"]


def _messages(client: Any, api: str) -> Any:
    return client.beta.messages if api == "beta.messages" else client.messages


def _anthropic(replay: Replay) -> anthropic.Anthropic:
    return anthropic.Anthropic(
        api_key="test", base_url="http://test", http_client=replay.client(), max_retries=0
    )


def _async_anthropic(replay: Replay) -> anthropic.AsyncAnthropic:
    return anthropic.AsyncAnthropic(
        api_key="test", base_url="http://test", http_client=replay.async_client(), max_retries=0
    )


def _check_previews(updates: list[callstream.StreamUpdate], name: str) -> None:
    """The cut call's trailing string is shown growing (the eager cases)."""
    if not name.startswith("eager-cut"):
        return
    shown = [
        c["args"]["lines_of_text"][-1]
        for u in updates
        for c in u.tool_calls
        if c["name"] == "make_file" and "lines_of_text" in c["args"]
    ]
    assert shown[-1] == "and so do yo" and "Vio" in shown


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("name", sorted(ANTHROPIC_CASES))
def test_anthropic_sdk_events_give_the_dict_result(name: str, api: str) -> None:
    events = ANTHROPIC_CASES[name]
    replay = Replay(anthropic_sse(events), "anthropic", times=2)
    client = _anthropic(replay)
    source = _messages(client, api).create(**REQUEST, stream=True)
    result = callstream.collect(source)
    assert result == callstream.collect(events)
    assert source.response.is_closed
    assert replay.requests[0].body["tools"][0]["eager_input_streaming"] is True
    updates = [
        u.snapshot()
        for u in callstream.stream(_messages(client, api).create(**REQUEST, stream=True))
    ]
    _check_previews(updates, name)
    assert updates[-1].tool_calls == result.tool_calls


@pytest.mark.anyio
@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("name", sorted(ANTHROPIC_CASES))
async def test_async_anthropic_sdk_events_give_the_dict_result(name: str, api: str) -> None:
    events = ANTHROPIC_CASES[name]
    client = _async_anthropic(Replay(anthropic_sse(events), "anthropic", times=2))
    source = await _messages(client, api).create(**REQUEST, stream=True)
    assert await callstream.acollect(source) == callstream.collect(events)
    assert source.response.is_closed
    updates = [
        u.snapshot()
        async for u in callstream.astream(
            await _messages(client, api).create(**REQUEST, stream=True)
        )
    ]
    _check_previews(updates, name)


@pytest.mark.parametrize("name", ["eager-cut", "eager-cut-block-stop", "unknown-events"])
def test_the_anthropic_stream_helper_gives_the_same_calls(name: str) -> None:
    # messages.stream() adds events of its own (text, input_json, ...): they are ignored.
    events = ANTHROPIC_CASES[name]
    client = _anthropic(Replay(anthropic_sse(events), "anthropic"))
    with client.messages.stream(**REQUEST) as helper:
        assert callstream.collect(helper) == callstream.collect(events)


def test_the_anthropic_stream_helper_raises_on_eager_input_that_is_not_json() -> None:
    # The helper parses the input itself and raises ValueError on invalid JSON, which
    # fine-grained streaming may send: callstream re-raises the source's exception with
    # the partial result (the SDK's code failed: not an interruption, no note).
    # messages.create(stream=True) reads the same stream to its end.
    events = ANTHROPIC_CASES["eager-invalid"]
    client = _anthropic(Replay(anthropic_sse(events), "anthropic"))
    with pytest.raises(ValueError, match="Unable to parse tool parameter JSON") as info:
        with client.messages.stream(**REQUEST) as helper:
            callstream.collect(helper)
    partial: StreamResult = info.value.callstream_result  # type: ignore[attr-defined]
    assert [c["name"] for c in partial.tool_calls] == ["get_weather"]
    assert [c["name"] for c in partial.invalid_tool_calls] == ["make_file"]
    assert not partial.interrupted and not partial.finished
    assert not getattr(info.value, "__notes__", None)


@pytest.mark.anyio
async def test_the_async_anthropic_stream_helper(anyio_backend: str) -> None:
    events = ANTHROPIC_CASES["unknown-events"]
    client = _async_anthropic(Replay(anthropic_sse(events), "anthropic"))
    async with client.messages.stream(**REQUEST) as helper:
        assert await callstream.acollect(helper) == callstream.collect(events)


# --- OpenAI-compatible servers through the openai client ------------------------------------

CHAT_CASES: dict[str, list[dict[str, Any]]] = {
    "kimi": KIMI_TURN_1,
    "kimi-repeated-id": KIMI_REPEATED_ID,
    "mistral": MISTRAL_WHOLE,
    "ollama-v1": OLLAMA_V1,
    "vllm-cut": vllm_chat_cut(QWEN_PREFIXES["leaked-key"], None),
    "vllm-cut-tool-calls": vllm_chat_cut(QWEN_PREFIXES["mid-string"], "tool_calls"),
}
CHAT_REQUEST: dict[str, Any] = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}


@pytest.mark.parametrize("name", sorted(CHAT_CASES))
def test_openai_client_chunks_give_the_dict_result(name: str) -> None:
    chunks = CHAT_CASES[name]
    replay = Replay(chat_sse(chunks), "openai-chat")
    client = openai.OpenAI(
        api_key="test", base_url="http://test/v1", http_client=replay.client(), max_retries=0
    )
    result = callstream.collect(client.chat.completions.create(**CHAT_REQUEST, stream=True))
    assert result == callstream.collect(chunks)


@pytest.mark.anyio
@pytest.mark.parametrize("name", sorted(CHAT_CASES))
async def test_async_openai_client_chunks_give_the_dict_result(name: str) -> None:
    chunks = CHAT_CASES[name]
    replay = Replay(chat_sse(chunks), "openai-chat")
    client = openai.AsyncOpenAI(
        api_key="test", base_url="http://test/v1", http_client=replay.async_client(), max_retries=0
    )
    source = await client.chat.completions.create(**CHAT_REQUEST, stream=True)
    assert await callstream.acollect(source) == callstream.collect(chunks)


# --- the Responses API's WebSocket mode through the openai client ----------------------------

_ENDS = frozenset({"response.completed", "response.incomplete", "response.failed", "error"})


class ResponsesServer:
    """A Responses WebSocket server on loopback: each ``response.create`` it receives is
    answered with the frames of one response; the connection stays open for the next."""

    def __init__(self, events: list[dict[str, Any]]) -> None:
        from websockets.sync.server import serve

        self.received: list[Any] = []

        def handler(connection: Any) -> None:
            for message in connection:
                self.received.append(json.loads(message))
                for frame in ws_frames(events):
                    connection.send(frame)

        self._server = serve(handler, "127.0.0.1", 0)
        self.base_url = f"http://127.0.0.1:{self._server.socket.getsockname()[1]}/v1"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> ResponsesServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._thread.join(5)


@pytest.mark.parametrize("events", [RESPONSES_WS, RESPONSES_WS_ERROR], ids=["calls", "error"])
def test_the_responses_websocket_mode_one_response_after_another(
    events: list[dict[str, Any]],
) -> None:
    pytest.importorskip("websockets")
    expected = callstream.collect(events)

    def one_response(connection: Any) -> Any:
        """The connection's events up to the end of one response (the connection itself
        goes on, for the next response.create)."""
        for event in connection:
            yield event
            if event.type in _ENDS:
                return

    with ResponsesServer(events) as server:
        client = openai.OpenAI(api_key="test", base_url=server.base_url, max_retries=0)
        with client.responses.connect(max_retries=0) as connection:
            for _ in range(2):  # two turns on one connection
                connection.response.create(model="gpt-5.2", input="Weather in Oslo and Bergen?")
                assert callstream.collect(one_response(connection)) == expected
            # the raw frames the SDK reads (recv_bytes) are read alike
            connection.response.create(model="gpt-5.2", input="again")
            frames = [connection.recv_bytes() for _ in events]
            assert callstream.collect(frames) == expected
        assert [m["type"] for m in server.received] == ["response.create"] * 3


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])  # the client's WebSocket mode: asyncio
async def test_the_async_responses_websocket_mode(anyio_backend: str) -> None:
    pytest.importorskip("websockets")
    expected = callstream.collect(RESPONSES_WS)
    with ResponsesServer(RESPONSES_WS) as server:
        client = openai.AsyncOpenAI(api_key="test", base_url=server.base_url, max_retries=0)
        async with client.responses.connect(max_retries=0) as connection:
            await connection.response.create(model="gpt-5.2", input="Weather?")

            async def one_response() -> Any:
                async for event in connection:
                    yield event
                    if event.type in _ENDS:
                        return

            assert await callstream.acollect(one_response()) == expected
