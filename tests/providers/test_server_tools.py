"""Server-side tools (run by the provider) are reported in ``server_tool_calls``, never in
``tool_calls``, the same way through every path: plain dicts, the real Anthropic SDK client
(sync, asyncio, trio) over a replayed SSE body, raw SSE bytes cut anywhere, Claude-on-Bedrock
wrappers, Bedrock ConverseStream events and LangChain ``AIMessageChunk`` objects.

The streams are our own, written in the real wire shapes (event order, field names, ids).
"""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator
from typing import Any

import anyio.lowlevel
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from callstream._assembly.types import ServerToolUse, Signal
from callstream._async import acollect
from callstream._pipeline import StreamResult
from callstream._sync import collect, stream
from callstream.providers.anthropic import AnthropicTranslator
from callstream.providers.bedrock import BedrockTranslator
from callstream.providers.langchain import LangChainTranslator
from callstream.testing import MockProvider, WireStream
from tests.support.strategies import json_objects, splits

SEARCH_ARGS = '{"query": "weather in Oslo today"}'
BASH_ARGS = '{"command": "echo \\"6 * 7\\" | bc -l"}'
CLIENT_ARGS = '{"city": "Oslo", "units": "metric"}'

# --- an Anthropic stream in the real event shapes ----------------------------------------


def anthropic_events(search_args: str = SEARCH_ARGS, pieces: list[str] | None = None) -> list[Any]:
    """A Messages stream: thinking, a web search (server), its result, a bash code execution
    (server), its result, an MCP tool call (server), a client tool call, a programmatic
    client call whose input is complete in ``content_block_start``."""
    pieces = pieces if pieces is not None else [search_args[:9], search_args[9:]]

    def start(index: int, block: dict[str, Any]) -> dict[str, Any]:
        return {"type": "content_block_start", "index": index, "content_block": block}

    def delta(index: int, text: str) -> dict[str, Any]:
        return {
            "type": "content_block_delta",
            "index": index,
            "delta": {"type": "input_json_delta", "partial_json": text},
        }

    def stop(index: int) -> dict[str, Any]:
        return {"type": "content_block_stop", "index": index}

    return [
        {
            "type": "message_start",
            "message": {
                "id": "msg_01",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-6",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 10, "output_tokens": 1},
            },
        },
        start(0, {"type": "thinking", "thinking": "", "signature": ""}),
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "thinking_delta", "thinking": "Search."},
        },
        stop(0),
        start(
            1, {"type": "server_tool_use", "id": "srvtoolu_01A", "name": "web_search", "input": {}}
        ),
        delta(1, ""),
        *[delta(1, p) for p in pieces],
        stop(1),
        start(
            2,
            {
                "type": "web_search_tool_result",
                "tool_use_id": "srvtoolu_01A",
                "content": [
                    {
                        "type": "web_search_result",
                        "title": "Oslo",
                        "url": "https://example.com/oslo",
                        "encrypted_content": "abc",
                        "page_age": None,
                    }
                ],
            },
        ),
        stop(2),
        start(
            3,
            {
                "type": "server_tool_use",
                "id": "srvtoolu_01B",
                "name": "bash_code_execution",
                "input": {},
            },
        ),
        delta(3, BASH_ARGS),
        stop(3),
        start(
            4,
            {
                "type": "bash_code_execution_tool_result",
                "tool_use_id": "srvtoolu_01B",
                "content": {
                    "type": "bash_code_execution_result",
                    "stdout": "42\n",
                    "stderr": "",
                    "return_code": 0,
                    "content": [],
                },
            },
        ),
        stop(4),
        start(5, {"type": "text", "text": ""}),
        {
            "type": "content_block_delta",
            "index": 5,
            "delta": {"type": "text_delta", "text": "Now."},
        },
        stop(5),
        start(6, {"type": "tool_use", "id": "toolu_01C", "name": "get_weather", "input": {}}),
        delta(6, CLIENT_ARGS[:5]),
        delta(6, CLIENT_ARGS[5:]),
        stop(6),
        start(
            7,
            {
                "type": "tool_use",
                "id": "toolu_01D",
                "name": "rollDie",
                "input": {"player": "p1"},
                "caller": {"type": "code_execution_20250825", "tool_id": "srvtoolu_01B"},
            },
        ),
        stop(7),
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use", "stop_sequence": None},
            "usage": {"output_tokens": 90},
        },
        {"type": "message_stop"},
    ]


MCP_EVENTS: list[Any] = [
    {
        "type": "content_block_start",
        "index": 0,
        "content_block": {
            "type": "mcp_tool_use",
            "id": "mcptoolu_01E",
            "name": "echo",
            "server_name": "tools",
            "input": {},
        },
    },
    {
        "type": "content_block_delta",
        "index": 0,
        "delta": {"type": "input_json_delta", "partial_json": '{"text": "hi"}'},
    },
    {"type": "content_block_stop", "index": 0},
    {
        "type": "content_block_start",
        "index": 1,
        "content_block": {
            "type": "mcp_tool_result",
            "tool_use_id": "mcptoolu_01E",
            "is_error": False,
            "content": [{"type": "text", "text": "hi"}],
        },
    },
    {"type": "content_block_stop", "index": 1},
    {
        "type": "message_delta",
        "delta": {"stop_reason": "end_turn", "stop_sequence": None},
        "usage": {"output_tokens": 5},
    },
    {"type": "message_stop"},
]

WANT_TOOL_CALLS = [
    {
        "name": "get_weather",
        "args": json.loads(CLIENT_ARGS),
        "id": "toolu_01C",
        "type": "tool_call",
    },
    {"name": "rollDie", "args": {"player": "p1"}, "id": "toolu_01D", "type": "tool_call"},
]


def want_server(search_args: str = SEARCH_ARGS) -> list[dict[str, Any]]:
    return [
        {
            "type": "server_tool_call",
            "name": "web_search",
            "args": json.loads(search_args),
            "id": "srvtoolu_01A",
        },
        {
            "type": "server_tool_call",
            "name": "bash_code_execution",
            "args": json.loads(BASH_ARGS),
            "id": "srvtoolu_01B",
        },
    ]


def check(result: StreamResult, search_args: str = SEARCH_ARGS) -> None:
    assert result.tool_calls == WANT_TOOL_CALLS
    assert result.server_tool_calls == want_server(search_args)
    assert result.invalid_tool_calls == []
    assert result.finish_reason == "tool_use"


def sse_body(events: list[Any]) -> bytes:
    """The events as the API sends them: ``event: <type>`` and ``data: <json>`` lines."""
    return "".join(
        f"event: {e['type']}\ndata: {json.dumps(e, ensure_ascii=False)}\n\n" for e in events
    ).encode()


def marked_before_text(signals: list[Signal]) -> set[int | None]:
    """The keys marked with ServerToolUse; asserts each mark precedes any text of its key."""
    marked: set[int | None] = set()
    texted: set[int | None] = set()
    for signal in signals:
        if isinstance(signal, ServerToolUse):
            assert signal.index not in texted, "a server call got text before its marker"
            marked.add(signal.index)
        elif isinstance(signal, dict) and signal.get("args"):
            texted.add(signal["index"])
    return marked


# --- plain dicts, raw bytes, Bedrock wrappers ----------------------------------------------


def test_anthropic_dicts_report_server_calls_apart() -> None:
    events = anthropic_events()
    check(collect(events))
    translator = AnthropicTranslator()
    signals = [s for e in events for s in translator.translate(e)]
    assert marked_before_text(signals) == {1, 3}
    last = list(stream(events))[-1]
    assert last.server_tool_calls == want_server()
    assert last.tool_calls == WANT_TOOL_CALLS


def test_server_preview_grows_while_streaming() -> None:
    # snapshots: the live views' entries are updated in place until the call is final
    previews = [
        u.snapshot().server_tool_calls for u in stream(anthropic_events(pieces=list(SEARCH_ARGS)))
    ]
    search = [p[0]["args"] for p in previews if p]
    assert search[0] == {}
    assert {"query": "weather in Oslo today"} in search
    assert all(
        not u.tool_calls or u.tool_calls[0]["name"] != "web_search"
        for u in stream(anthropic_events())
    )


def test_mcp_tool_use_is_a_server_call() -> None:
    result = collect(MCP_EVENTS)
    assert result.tool_calls == []
    assert result.server_tool_calls == [
        {"type": "server_tool_call", "name": "echo", "args": {"text": "hi"}, "id": "mcptoolu_01E"}
    ]


@pytest.mark.parametrize("size", [1, 7, 64, 100_000])
def test_raw_sse_bytes_cut_anywhere(size: int) -> None:
    body = sse_body(anthropic_events())
    check(collect(body[i : i + size] for i in range(0, len(body), size)))


def test_claude_on_bedrock_wrappers_raw_and_base64() -> None:
    events = anthropic_events()
    check(collect({"chunk": {"bytes": json.dumps(e).encode()}} for e in events))
    check(
        collect(
            {"chunk": {"bytes": base64.b64encode(json.dumps(e).encode()).decode()}} for e in events
        )
    )


# --- the real Anthropic SDK over a replayed body ----------------------------------------


def _client_kwargs() -> dict[str, Any]:
    return {
        "model": "claude-sonnet-4-6",
        "max_tokens": 1024,
        "messages": [{"role": "user", "content": "Weather in Oslo?"}],
        "stream": True,
    }


def _transport(events: list[Any], times: int = 1) -> Any:
    """An ``httpx2.MockTransport`` whose ``MockProvider`` streams ``events`` (as SSE) to
    ``times`` Messages requests."""
    httpx2 = pytest.importorskip("httpx2")
    stream = WireStream([sse_body(events)], "anthropic")
    return httpx2.MockTransport(MockProvider(*[stream] * times))


def test_real_anthropic_client_sync() -> None:
    anthropic = pytest.importorskip("anthropic")
    httpx2 = pytest.importorskip("httpx2")
    http = httpx2.Client(transport=_transport(anthropic_events(), times=2))
    client = anthropic.Anthropic(api_key="test-key", http_client=http, max_retries=0)
    events = client.messages.create(**_client_kwargs())
    result = collect(events)
    check(result)
    assert result.provider == "anthropic"
    # the SDK's own objects, once more, through the translator alone
    objects = list(client.messages.create(**_client_kwargs()))
    assert type(objects[4]).__name__ == "RawContentBlockStartEvent"
    assert type(objects[4].content_block).__name__ == "ServerToolUseBlock"
    check(collect(objects))


def test_real_anthropic_beta_client_mcp_tool_use() -> None:
    anthropic = pytest.importorskip("anthropic")
    httpx2 = pytest.importorskip("httpx2")
    http = httpx2.Client(transport=_transport(MCP_EVENTS))
    client = anthropic.Anthropic(api_key="test-key", http_client=http, max_retries=0)
    objects = list(client.beta.messages.create(**_client_kwargs()))
    assert type(objects[0].content_block).__name__ == "BetaMCPToolUseBlock"
    result = collect(objects)
    assert result.tool_calls == []
    assert [c["id"] for c in result.server_tool_calls] == ["mcptoolu_01E"]


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.mark.anyio
async def test_real_anthropic_client_async() -> None:
    anthropic = pytest.importorskip("anthropic")
    httpx2 = pytest.importorskip("httpx2")
    http = httpx2.AsyncClient(transport=_transport(anthropic_events()))
    client = anthropic.AsyncAnthropic(api_key="test-key", http_client=http, max_retries=0)
    events = await client.messages.create(**_client_kwargs())
    check(await acollect(events))
    await http.aclose()


# --- random splits of the server call's argument text -----------------------------------


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(args=json_objects(max_leaves=8), data=st.data())
def test_any_split_of_the_server_input_gives_the_same_calls(
    args: dict[str, Any], data: st.DataObject
) -> None:
    text = json.dumps(args, ensure_ascii=False)
    pieces = data.draw(splits(text, max_cuts=10))
    events = anthropic_events(text, pieces)
    check(collect(events), text)
    check(collect(anthropic_events(text, list(text))), text)  # one character at a time
    body = sse_body(events)
    size = data.draw(st.integers(1, 40))
    check(collect(body[i : i + size] for i in range(0, len(body), size)), text)
    lc = langchain_chunks(events)
    if lc is not None:
        check(collect(lc), text)


# --- LangChain AIMessageChunk objects ---------------------------------------------------


def langchain_chunks(events: list[Any], *, v1: bool = False) -> list[Any] | None:
    """The chunks langchain-anthropic streams for ``events`` (its ``v0`` shape: the
    Anthropic blocks as content, tool-call chunks only for client ``tool_use`` blocks),
    or LangChain's standard ``v1`` blocks made from them by langchain-core itself."""
    try:
        from langchain_core.messages import AIMessageChunk
    except ImportError:
        return None
    meta = {"model_provider": "anthropic"}
    out: list[Any] = []
    kinds: dict[int, str] = {}
    for e in events:
        if e["type"] == "content_block_start":
            block = dict(e["content_block"], index=e["index"])
            kinds[e["index"]] = block["type"]
            tcc = []
            if block["type"] == "tool_use":
                tcc = [
                    {
                        "name": block["name"],
                        "id": block["id"],
                        "args": "",
                        "index": e["index"],
                        "type": "tool_call_chunk",
                    }
                ]
                if block["input"]:
                    tcc[0]["args"] = json.dumps(block["input"])
            if block["type"] in ("text", "thinking"):
                continue
            out.append(
                AIMessageChunk(content=[block], tool_call_chunks=tcc, response_metadata=meta)
            )
        elif e["type"] == "content_block_delta" and e["delta"]["type"] == "input_json_delta":
            block = dict(e["delta"], index=e["index"])
            tcc = []
            if kinds[e["index"]] == "tool_use":
                tcc = [
                    {
                        "name": None,
                        "id": None,
                        "args": e["delta"]["partial_json"],
                        "index": e["index"],
                        "type": "tool_call_chunk",
                    }
                ]
            out.append(
                AIMessageChunk(content=[block], tool_call_chunks=tcc, response_metadata=meta)
            )
        elif e["type"] == "message_delta":
            out.append(
                AIMessageChunk(
                    content=[],
                    response_metadata={**meta, "stop_reason": e["delta"]["stop_reason"]},
                    chunk_position="last",
                )
            )
    if v1:
        out = [
            AIMessageChunk(
                content=m.content_blocks,
                tool_call_chunks=m.tool_call_chunks,
                response_metadata={**m.response_metadata, "output_version": "v1"},
                chunk_position=m.chunk_position,
            )
            for m in out
        ]
    return out


def test_langchain_anthropic_native_blocks() -> None:
    chunks = langchain_chunks(anthropic_events())
    if chunks is None:
        pytest.skip("langchain-core not installed")
    check(collect(chunks))
    check(collect(c.model_dump() for c in chunks))
    translator = LangChainTranslator()
    signals = [s for c in chunks for s in translator.translate(c)]
    assert marked_before_text(signals) == {1, 3}
    gathered = chunks[0]
    for c in chunks[1:]:
        gathered = gathered + c
    check(collect([gathered]))  # one gathered message: server blocks hold their partial_json


def test_langchain_standard_v1_blocks() -> None:
    chunks = langchain_chunks(anthropic_events(), v1=True)
    if chunks is None:
        pytest.skip("langchain-core not installed")
    kinds = {b["type"] for c in chunks for b in c.content}
    assert "server_tool_call_chunk" in kinds
    result = collect(chunks)
    assert result.tool_calls == WANT_TOOL_CALLS
    # langchain-core names Anthropic's code_execution tools "code_interpreter"; other
    # server tools keep their names
    assert [(c["name"], c["id"], c["args"]) for c in result.server_tool_calls] == [
        (c["name"], c["id"], c["args"]) for c in want_server()
    ]
    gathered = chunks[0]
    for c in chunks[1:]:
        gathered = gathered + c
    assert {b["type"] for b in gathered.content} >= {"server_tool_call"}
    result = collect([gathered])
    assert result.tool_calls == WANT_TOOL_CALLS
    assert [c["id"] for c in result.server_tool_calls] == ["srvtoolu_01A", "srvtoolu_01B"]


def test_langchain_server_blocks_with_string_indexes_and_no_index() -> None:
    t = LangChainTranslator()
    payloads: list[Any] = [
        {
            "type": "server_tool_call_chunk",
            "name": "web_search",
            "args": "",
            "id": "ws_1",
            "index": "lc_ws_1",
        },
        {"type": "server_tool_call_chunk", "args": '{"query": "a', "index": "lc_ws_1"},
        [
            {"type": "server_tool_call_chunk", "args": 'b"}', "index": "lc_ws_1"},
            {
                "type": "tool_call_chunk",
                "name": "f",
                "args": '{"x": 1}',
                "id": "call_1",
                "index": 0,
            },
        ],
        {"type": "server_tool_call", "name": "file_search", "args": {"q": "z"}, "id": "fs_1"},
    ]
    signals = [s for p in payloads for s in t.translate(p)]
    assert len(marked_before_text(signals)) == 2
    result = collect(payloads, provider="langchain")
    assert result.tool_calls == [
        {"name": "f", "args": {"x": 1}, "id": "call_1", "type": "tool_call"}
    ]
    assert result.server_tool_calls == [
        {"type": "server_tool_call", "name": "web_search", "args": {"query": "ab"}, "id": "ws_1"},
        {"type": "server_tool_call", "name": "file_search", "args": {"q": "z"}, "id": "fs_1"},
    ]


# --- Bedrock ConverseStream -----------------------------------------------------------------


def bedrock_events(server_pieces: list[str]) -> list[Any]:
    def start(index: int, tool: dict[str, Any]) -> dict[str, Any]:
        return {
            "contentBlockStart": {
                "contentBlockIndex": index,
                "start": {"toolUse": tool},
                "p": "abc",
            }
        }

    def delta(index: int, text: str) -> dict[str, Any]:
        return {
            "contentBlockDelta": {
                "contentBlockIndex": index,
                "delta": {"toolUse": {"input": text}},
                "p": "ab",
            }
        }

    return [
        {"messageStart": {"role": "assistant", "p": "abcd"}},
        start(
            0,
            {"name": "nova_code_interpreter", "toolUseId": "tooluse_S1", "type": "server_tool_use"},
        ),
        *[delta(0, p) for p in server_pieces],
        {"contentBlockStop": {"contentBlockIndex": 0}},
        {
            "contentBlockStart": {
                "contentBlockIndex": 1,
                "start": {
                    "toolResult": {
                        "status": "success",
                        "toolUseId": "tooluse_S1",
                        "type": "nova_code_interpreter_result",
                    }
                },
            }
        },
        {
            "contentBlockDelta": {
                "contentBlockIndex": 1,
                "delta": {"toolResult": [{"json": {"stdOut": "42"}}]},
            }
        },
        {"contentBlockStop": {"contentBlockIndex": 1}},
        start(2, {"name": "final_result", "toolUseId": "tooluse_C2", "type": "tool_use"}),
        delta(2, '{"result": 42}'),
        {"contentBlockStop": {"contentBlockIndex": 2}},
        {"messageStop": {"stopReason": "tool_use"}},
        {"metadata": {"usage": {"inputTokens": 1, "outputTokens": 2, "serverToolUsage": {}}}},
    ]


@settings(max_examples=30, deadline=None)
@given(args=json_objects(max_leaves=8), data=st.data())
def test_bedrock_server_tool_use_any_split(args: dict[str, Any], data: st.DataObject) -> None:
    text = json.dumps(args)
    events = bedrock_events(data.draw(splits(text, max_cuts=8)))
    for result in (collect(events), collect(bedrock_events(list(text) or [""]))):
        assert result.tool_calls == [
            {
                "name": "final_result",
                "args": {"result": 42},
                "id": "tooluse_C2",
                "type": "tool_call",
            }
        ]
        assert result.server_tool_calls == [
            {
                "type": "server_tool_call",
                "name": "nova_code_interpreter",
                "args": args,
                "id": "tooluse_S1",
            }
        ]
    translator = BedrockTranslator()
    assert marked_before_text([s for e in events for s in translator.translate(e)]) == {0}
    lines = "".join(json.dumps(e) + "\n" for e in events).encode()
    assert collect(lines[i : i + 5] for i in range(0, len(lines), 5)).server_tool_calls == [
        {
            "type": "server_tool_call",
            "name": "nova_code_interpreter",
            "args": args,
            "id": "tooluse_S1",
        }
    ]


async def _agen(items: list[Any]) -> AsyncIterator[Any]:
    for item in items:
        await anyio.lowlevel.checkpoint()
        yield item


@pytest.mark.anyio
async def test_async_drivers_agree_on_server_calls() -> None:
    for events in (anthropic_events(), bedrock_events(['{"snippet": "6*7"}'])):
        sync = collect(events)
        result = await acollect(_agen(events))
        assert result.server_tool_calls == sync.server_tool_calls
        assert result.tool_calls == sync.tool_calls
        assert sync.server_tool_calls
