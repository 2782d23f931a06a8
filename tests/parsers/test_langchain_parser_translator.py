"""The LangChain output parser reads message chunks through the LangChain translator
(``providers.langchain``): one reader of LangChain messages, so what the translator
knows (server-side block kinds, the end of the stream), the parser knows too."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.strategies import split_every, splits

pytest.importorskip("langchain_core")

from langchain_core.messages import AIMessageChunk
from langchain_core.messages.utils import message_chunk_to_message

from callstream.parsers.langchain import ToolCallsOutputParser

MCP_ARGS = '{"query": "callstream", "limit": 3}'
CLIENT_ARGS = '{"city": "Oslo"}'
MCP_BLOCK = {
    "type": "server_tool_call",
    "name": "search_docs",
    "args": {"query": "callstream", "limit": 3},
    "id": "mcptoolu_1",
}
WEATHER_CALL = {"name": "Weather", "args": {"city": "Oslo"}, "id": "toolu_2", "type": "tool_call"}


def mcp_chunks(mcp_parts: list[str], client_parts: list[str]) -> list[Any]:
    """langchain-anthropic's chunks for an MCP tool the provider runs (an ``mcp_tool_use``
    block, its text in ``input_json_delta`` blocks), then a client tool."""
    start = {
        "type": "mcp_tool_use",
        "id": "mcptoolu_1",
        "name": "search_docs",
        "server_name": "docs",
        "input": {},
        "index": 0,
    }
    out = [AIMessageChunk(content=[start])]
    for part in mcp_parts:
        delta = {"type": "input_json_delta", "partial_json": part, "index": 0}
        out.append(AIMessageChunk(content=[delta]))
    tool = {"type": "tool_use", "id": "toolu_2", "name": "Weather", "input": {}, "index": 1}
    out.append(
        AIMessageChunk(
            content=[tool],
            tool_call_chunks=[{"name": "Weather", "args": "", "id": "toolu_2", "index": 1}],
        )
    )
    for part in client_parts:
        out.append(
            AIMessageChunk(
                content=[{"type": "input_json_delta", "partial_json": part, "index": 1}],
                tool_call_chunks=[{"name": None, "args": part, "id": None, "index": 1}],
            )
        )
    out.append(AIMessageChunk(content=[], response_metadata={"stop_reason": "tool_use"}))
    return out


def check_mcp(chunks: list[Any]) -> None:
    with_server = ToolCallsOutputParser(server_calls=True)
    results = list(with_server.transform(iter(chunks)))
    assert results[-1] == [MCP_BLOCK, WEATHER_CALL]
    assert all(c["type"] != "invalid_tool_call" for r in results for c in r)
    # never a tool call: by default the client call is the only one
    assert list(ToolCallsOutputParser().transform(iter(chunks)))[-1] == [WEATHER_CALL]
    merged = chunks[0]
    for chunk in chunks[1:]:
        merged = merged + chunk
    message = message_chunk_to_message(merged)
    assert with_server.invoke(message) == results[-1]
    assert ToolCallsOutputParser().invoke(message) == [WEATHER_CALL]


@pytest.mark.parametrize("size", [1, 4, 1000])
def test_mcp_tool_use_blocks_are_server_calls(size: int) -> None:
    """Before: the parser read server blocks itself and did not know ``mcp_tool_use``:
    the MCP call was missing from the results (stream and invoke)."""
    check_mcp(mcp_chunks(split_every(MCP_ARGS, size), split_every(CLIENT_ARGS, size)))


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_mcp_tool_use_blocks_in_random_splits(data: st.DataObject) -> None:
    check_mcp(mcp_chunks(data.draw(splits(MCP_ARGS)), data.draw(splits(CLIENT_ARGS))))


def test_the_finish_reason_is_read_as_the_translator_reads_it() -> None:
    """A camelCase ``finishReason`` (as some integrations pass Gemini's metadata on) ends
    the stream with its reason: a call cut off there names the token limit. Before, the
    parser read only the snake_case keys and the cut call was just incomplete."""
    chunks = [
        AIMessageChunk(
            content="",
            tool_call_chunks=[{"name": "f", "args": '{"a": "b', "id": "c1", "index": 0}],
        ),
        AIMessageChunk(content="", response_metadata={"finishReason": "MAX_TOKENS"}),
    ]
    streamed = list(ToolCallsOutputParser().transform(iter(chunks)))[-1]
    assert streamed[0]["type"] == "invalid_tool_call"
    assert "token limit (finish reason 'MAX_TOKENS')" in streamed[0]["error"]


def test_chunks_after_the_end_are_not_read() -> None:
    """The translator states the end once; the parser stops reading there (a usage chunk
    after the end, or a stray chunk, changes nothing)."""
    chunks = [
        AIMessageChunk(
            content="",
            tool_call_chunks=[{"name": "f", "args": '{"a": 1}', "id": "c1", "index": 0}],
        ),
        AIMessageChunk(content="", response_metadata={"finish_reason": "tool_calls"}),
        AIMessageChunk(
            content="",
            tool_call_chunks=[{"name": "g", "args": "{}", "id": "c2", "index": 1}],
        ),
    ]
    results = list(ToolCallsOutputParser().transform(iter(chunks)))
    assert results[-1] == [{"name": "f", "args": {"a": 1}, "id": "c1", "type": "tool_call"}]
