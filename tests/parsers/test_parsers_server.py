"""Server-side tools (run by the provider) through the output parsers: never tool calls,
never "unknown tool", listed apart (``ParseSession.server_calls``, ``server_tool_call``
blocks in the LangChain output parser), the same way through every input form."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from callstream import CallChunk, CallEnd, ServerToolUse, ToolCallAssembler
from callstream._assembly import StreamEnd
from callstream._pipeline import StreamUpdate
from callstream.parsers import JsonToolsParser, ParsedCall, PydanticToolsParser
from tests.support.strategies import split_every, splits


class Weather(BaseModel):
    city: str


SERVER_ARGS = '{"query": "weather in Oslo"}'
CLIENT_ARGS = '{"city": "Oslo"}'


def signals(
    server_parts: list[str], client_parts: list[str], reason: str = "tool_use"
) -> list[Any]:
    """An Anthropic-like stream: a web search the provider runs, then a client tool."""
    out: list[Any] = [
        {"index": 0, "id": "srvtoolu_1", "name": "web_search", "args": ""},
        ServerToolUse(index=0),
    ]
    out += [{"index": 0, "id": None, "name": None, "args": p} for p in server_parts]
    out.append({"index": 1, "id": "toolu_2", "name": "Weather", "args": ""})
    out += [{"index": 1, "id": None, "name": None, "args": p} for p in client_parts]
    out.append(StreamEnd(reason=reason))
    return out


def check_session(parser: Any, items: list[Any]) -> tuple[list[Any], list[ParsedCall[Any]]]:
    session = parser.session()
    results = []
    for item in items:
        result = session.feed(item)
        if result is not None:
            results.append(result)
    final = session.close()
    if final is not None:
        results.append(final)
    for result in results:  # never shown as a tool call, not even while streaming
        assert all(call.name == "Weather" for call in result)
    return results[-1], session.server_calls


def assert_final(final: list[ParsedCall[Any]], server: list[ParsedCall[Any]]) -> None:
    assert [(c.name, c.status, c.id) for c in final] == [("Weather", "valid", "toolu_2")]
    assert [(c.name, c.status, c.id, c.server) for c in server] == [
        ("web_search", "valid", "srvtoolu_1", True)
    ]
    assert server[0].args == {"query": "weather in Oslo"}
    assert server[0].value is None and server[0].error is None
    assert server[0].to_dict() == {
        "type": "server_tool_call",
        "name": "web_search",
        "args": {"query": "weather in Oslo"},
        "id": "srvtoolu_1",
    }


@pytest.mark.parametrize("make", [JsonToolsParser, lambda: PydanticToolsParser([Weather])])
@pytest.mark.parametrize("size", [1, 4, 1000])
def test_server_calls_are_listed_apart_raw_chunks(make: Any, size: int) -> None:
    items = signals(split_every(SERVER_ARGS, size), split_every(CLIENT_ARGS, size))
    final, server = check_session(make(), items)
    assert_final(final, server)
    if isinstance(final[0].value, Weather):
        assert final[0].value == Weather(city="Oslo")
    # fed as one list too
    final, server = check_session(make(), [items])
    assert_final(final, server)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_server_calls_any_split(data: st.DataObject) -> None:
    items = signals(data.draw(splits(SERVER_ARGS)), data.draw(splits(CLIENT_ARGS)))
    final, server = check_session(PydanticToolsParser([Weather], min_preview_growth=0), items)
    assert_final(final, server)


def test_server_call_previews_grow_while_streaming() -> None:
    session = JsonToolsParser().session()
    for item in signals(split_every(SERVER_ARGS, 3), [])[:-3]:
        session.feed(item)
    seen = session.server_calls
    assert seen[0].status == "partial" and seen[0].args == {"query": "weather in Oslo"}
    assert session.result == []
    version = session.server_version
    assert session.server_calls is seen and session.server_version == version  # no change


def updates_of(items: list[Any]) -> list[StreamUpdate]:
    """StreamUpdates as the drivers make them (events plus the server_tool_calls view)."""
    assembler = ToolCallAssembler()
    out = []
    for item in items:
        events = assembler.apply(item)
        out.append(
            StreamUpdate(
                events=tuple(events),
                tool_calls=assembler.tool_calls,
                invalid_tool_calls=assembler.invalid_tool_calls,
                finish_reason=None,
                server_tool_calls=assembler.server_tool_calls,
            )
        )
    return out


@pytest.mark.parametrize("make", [JsonToolsParser, lambda: PydanticToolsParser([Weather])])
def test_server_calls_through_stream_updates(make: Any) -> None:
    """A session reading events learns server calls from the updates' server_tool_calls;
    the pydantic parser never reports them as unknown tools."""
    items = signals(split_every(SERVER_ARGS, 5), split_every(CLIENT_ARGS, 5))
    # The start chunk and its ServerToolUse arrive in one payload (one update).
    items = [[items[0], items[1]], *items[2:]]
    final, server = check_session(make(), updates_of(items))
    assert_final(final, server)


def test_server_calls_in_finished_results() -> None:
    calls = [
        {"name": "web_search", "args": {"q": "x"}, "id": "srvtoolu_9", "type": "tool_call"},
        {"type": "server_tool_call", "name": "code_execution", "args": {}, "id": "srv_2"},
        {"name": "Weather", "args": {"city": "Oslo"}, "id": "toolu_1", "type": "tool_call"},
    ]
    parser = PydanticToolsParser([Weather])
    assert [(c.name, c.status) for c in parser.parse(calls)] == [("Weather", "valid")]
    session = parser.parse_session(calls)
    assert [(c.name, c.server, c.status) for c in session.server_calls] == [
        ("web_search", True, "valid"),
        ("code_execution", True, "valid"),
    ]
    assembler = ToolCallAssembler()
    for item in signals([SERVER_ARGS], [CLIENT_ARGS]):
        assembler.apply(item)
    session = parser.parse_session(assembler)
    assert [c.name for c in session.result] == ["Weather"]
    assert [c.args for c in session.server_calls] == [json.loads(SERVER_ARGS)]


def test_first_tool_only_skips_server_calls() -> None:
    items = signals([SERVER_ARGS], [CLIENT_ARGS])
    results = list(JsonToolsParser(first_tool_only=True).stream(items))
    assert all(len(r) <= 1 and all(c.name == "Weather" for c in r) for r in results)
    assert results[-1][0].args == {"city": "Oslo"}


# --- the LangChain output parser ---------------------------------------------------------------

lc = pytest.importorskip("langchain_core")


def anthropic_chunks(server_size: int, client_size: int) -> list[Any]:
    """langchain-anthropic's chunks: server blocks only in ``content``."""
    from langchain_core.messages import AIMessageChunk

    out = [
        AIMessageChunk(
            content=[
                {
                    "type": "server_tool_use",
                    "id": "srvtoolu_1",
                    "name": "web_search",
                    "input": {},
                    "index": 0,
                }
            ]
        )
    ]
    for part in split_every(SERVER_ARGS, server_size):
        out.append(
            AIMessageChunk(content=[{"type": "input_json_delta", "partial_json": part, "index": 0}])
        )
    out.append(
        AIMessageChunk(
            content=[
                {"type": "tool_use", "id": "toolu_2", "name": "Weather", "input": {}, "index": 1}
            ],
            tool_call_chunks=[{"name": "Weather", "args": "", "id": "toolu_2", "index": 1}],
        )
    )
    for part in split_every(CLIENT_ARGS, client_size):
        out.append(
            AIMessageChunk(
                content=[{"type": "input_json_delta", "partial_json": part, "index": 1}],
                tool_call_chunks=[{"name": None, "args": part, "id": None, "index": 1}],
            )
        )
    out.append(AIMessageChunk(content=[], response_metadata={"stop_reason": "tool_use"}))
    return out


SERVER_BLOCK = {
    "type": "server_tool_call",
    "name": "web_search",
    "args": {"query": "weather in Oslo"},
    "id": "srvtoolu_1",
}
WEATHER_CALL = {"name": "Weather", "args": {"city": "Oslo"}, "id": "toolu_2", "type": "tool_call"}


@pytest.mark.parametrize("sizes", [(1, 1), (4, 3), (100, 100)])
@pytest.mark.parametrize("tools", [None, [Weather]])
def test_langchain_parser_surfaces_server_blocks(sizes: tuple[int, int], tools: Any) -> None:
    from langchain_core.messages.utils import message_chunk_to_message

    from callstream.parsers.langchain import ToolCallsOutputParser

    chunks = anthropic_chunks(*sizes)
    merged = chunks[0]
    for chunk in chunks[1:]:
        merged = merged + chunk
    message = message_chunk_to_message(merged)
    parser = ToolCallsOutputParser(tools=tools, server_calls=True)
    results = list(parser.transform(iter(chunks)))
    assert results[-1] == [SERVER_BLOCK, WEATHER_CALL]
    assert all(c["type"] != "invalid_tool_call" for r in results for c in r)
    assert parser.invoke(message) == results[-1]  # invoke == stream
    # by default they are left out: every result is a call the client runs, also while
    # streaming, and invoke agrees
    for without in (
        ToolCallsOutputParser(tools=tools),
        ToolCallsOutputParser(tools=tools, server_calls=False),
    ):
        streamed = list(without.transform(iter(chunks)))
        assert streamed[-1] == [WEATHER_CALL]
        assert all(c["type"] == "tool_call" and c["name"] == "Weather" for r in streamed for c in r)
        assert without.invoke(message) == [WEATHER_CALL]
    calls = list(
        ToolCallsOutputParser(tools=tools, output="calls", server_calls=True).transform(
            iter(chunks)
        )
    )[-1]
    assert [c.server for c in calls] == [True, False]
    default = list(ToolCallsOutputParser(tools=tools, output="calls").transform(iter(chunks)))
    assert [c.server for c in default[-1]] == [False]


def test_langchain_parser_v1_server_blocks_and_srvtoolu_chunks() -> None:
    from langchain_core.messages import AIMessage, AIMessageChunk

    from callstream.parsers.langchain import ToolCallsOutputParser

    v1 = [
        AIMessageChunk(
            content=[
                {
                    "type": "server_tool_call_chunk",
                    "name": "web_search",
                    "args": '{"query": "weather',
                    "id": "srvtoolu_1",
                    "index": 0,
                }
            ]
        ),
        AIMessageChunk(
            content=[{"type": "server_tool_call_chunk", "args": ' in Oslo"}', "index": 0}]
        ),
        AIMessageChunk(content=[], chunk_position="last"),
    ]
    listed = ToolCallsOutputParser(server_calls=True)
    assert list(listed.transform(iter(v1)))[-1] == [SERVER_BLOCK]
    assert list(ToolCallsOutputParser().transform(iter(v1))) == [[]]  # default: left out
    # an older integration that put the server call among the tool call chunks
    old = [
        AIMessageChunk(
            content="",
            tool_call_chunks=[
                {"name": "web_search", "args": SERVER_ARGS, "id": "srvtoolu_1", "index": 0}
            ],
        ),
        AIMessageChunk(content="", response_metadata={"stop_reason": "end_turn"}),
    ]
    parser = ToolCallsOutputParser(tools=[Weather], server_calls=True)
    assert list(parser.transform(iter(old)))[-1] == [SERVER_BLOCK]
    whole = AIMessage(
        content=[
            {
                "type": "server_tool_use",
                "id": "srvtoolu_1",
                "name": "web_search",
                "input": {"query": "weather in Oslo"},
            },
            {"type": "tool_use", "id": "toolu_2", "name": "Weather", "input": {"city": "Oslo"}},
        ],
        tool_calls=[{"name": "Weather", "args": {"city": "Oslo"}, "id": "toolu_2"}],
    )
    assert parser.invoke(whole) == [SERVER_BLOCK, WEATHER_CALL]
    assert ToolCallsOutputParser(tools=[Weather]).invoke(whole) == [WEATHER_CALL]


def test_a_mark_sent_before_its_call_is_used_once() -> None:
    # A translator marks a server call before its first chunk; the session's note of that
    # mark is spent on the call it names, so a later client call on the same index (a new
    # call after the server call ended) stays the client's.
    session = JsonToolsParser().session()
    session.feed(
        [
            ServerToolUse(index=0),
            CallChunk(index=0, id="srvtoolu_1", name="web_search", args="{}"),
            CallEnd(index=0),
        ]
    )
    session.feed(
        [
            CallChunk(index=0, id="call_1", name="get_weather", args=CLIENT_ARGS),
            CallEnd(index=0),
            StreamEnd(reason="stop"),
        ]
    )
    session.close()
    assert [c.name for c in session.result] == ["get_weather"]
    assert [c.name for c in session.server_calls] == ["web_search"]
