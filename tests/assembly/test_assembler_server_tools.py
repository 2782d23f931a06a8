"""Server-side tools (run by the provider) are reported apart from the client's tool calls."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from callstream import ServerToolUse, ToolCallAssembler

SERVER_ARGS = '{"query": "weather in Oslo"}'
CLIENT_ARGS = '{"city": "Oslo"}'


def _feed_split(assembler: ToolCallAssembler, index: int, text: str, cuts: list[int]) -> None:
    points = sorted({c % (len(text) + 1) for c in cuts} | {0, len(text)})
    for a, b in zip(points, points[1:]):
        assembler.feed({"index": index, "id": None, "name": None, "args": text[a:b]})


@given(
    st.lists(st.integers(min_value=0), max_size=6), st.lists(st.integers(min_value=0), max_size=6)
)
def test_server_call_is_kept_out_of_tool_calls(cuts_a: list[int], cuts_b: list[int]) -> None:
    assembler = ToolCallAssembler()
    assembler.feed({"index": 0, "id": "srvtoolu_1", "name": "web_search", "args": None})
    assembler.apply(ServerToolUse(index=0))
    _feed_split(assembler, 0, SERVER_ARGS, cuts_a)
    assembler.feed({"index": 1, "id": "toolu_2", "name": "weather", "args": None})
    _feed_split(assembler, 1, CLIENT_ARGS, cuts_b)
    assert [c["name"] for c in assembler.tool_calls] == ["weather"]
    assembler.finish("tool_use")
    assert assembler.tool_calls == [
        {"name": "weather", "args": {"city": "Oslo"}, "id": "toolu_2", "type": "tool_call"}
    ]
    assert assembler.invalid_tool_calls == []
    assert assembler.server_tool_calls == [
        {
            "type": "server_tool_call",
            "name": "web_search",
            "args": {"query": "weather in Oslo"},
            "id": "srvtoolu_1",
        }
    ]


def test_server_call_preview_grows_while_streaming() -> None:
    assembler = ToolCallAssembler()
    assembler.feed({"index": 0, "id": "srvtoolu_1", "name": "code_execution", "args": '{"co'})
    assembler.apply(ServerToolUse(id="srvtoolu_1"))
    assert assembler.server_tool_calls[0]["args"] == {}
    assembler.feed({"index": 0, "id": None, "name": None, "args": 'de": "print(1)'})
    assert assembler.server_tool_calls[0]["args"] == {"code": "print(1)"}
    assert assembler.tool_calls == []


def test_invalid_server_call_is_not_an_invalid_tool_call() -> None:
    assembler = ToolCallAssembler()
    assembler.feed({"index": 0, "id": "srvtoolu_1", "name": "web_search", "args": "[1, 2]"})
    assembler.apply(ServerToolUse(index=0))
    assembler.finish(None)
    assert assembler.invalid_tool_calls == []
    assert assembler.server_tool_calls == [
        {"type": "server_tool_call", "name": "web_search", "args": {}, "id": "srvtoolu_1"}
    ]


def test_unknown_server_marker_is_ignored() -> None:
    assembler = ToolCallAssembler()
    assert assembler.apply(ServerToolUse(index=7)) == []
    assert assembler.server_tool_calls == []
