"""Hostile input through the output parsers: deep arguments, many calls, long open
arrays, junk. Never RecursionError / IndexError / KeyError; results stay honest."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from callstream import ServerToolUse, ToolCallAssembler
from callstream._assembly import CallEnd, CallFailure, StreamEnd
from callstream._errors import CallstreamError
from callstream._json import PartialJSONParser
from callstream.parsers import JsonToolsParser, PydanticToolsParser
from callstream.parsers.json_tools import SNAPSHOT_COPY_FACTOR
from callstream.parsers.pydantic_tools import MAX_VALIDATION_DEPTH, PREVIEW_WORK_FACTOR
from callstream.partial import VALIDATION_WORK_FACTOR, VALIDATION_WORK_SLACK
from callstream.partial._builder import PartialBuilder
from callstream.partial._shapes import Shape
from tests.parsers.test_parsers import chunks_for, consistent
from tests.support.strategies import json_objects, split_every, splits

DEPTH = 999  # the arguments object plus 998 arrays: within the JSON parser's max_depth 1000
DEEP = '{"x": ' + "[" * (DEPTH - 1) + "]" * (DEPTH - 1) + "}"


def decode(text: str) -> Any:
    """json.loads without recursion (the project's parser)."""
    parser = PartialJSONParser()
    parser.feed(text)
    return parser.close()


class Deep(BaseModel):
    x: Any


def deep_chunks(size: int) -> list[dict[str, Any]]:
    return chunks_for([("Deep", "d", split_every(DEEP, size))])


@pytest.mark.parametrize("size", [7, 100, len(DEEP)])
def test_deep_arguments_json_parser_accepts_them(size: int) -> None:
    final = list(JsonToolsParser().stream(deep_chunks(size)))[-1]
    assert final[0].status == "valid"
    assert final[0].to_dict()["type"] == "tool_call"


@pytest.mark.parametrize("growth", [0, 0.05])
@pytest.mark.parametrize("size", [7, 100, len(DEEP)])
def test_deep_arguments_pydantic_says_the_depth_not_recursion_error(
    growth: float, size: int
) -> None:
    parser = PydanticToolsParser([Deep], min_preview_growth=growth)
    final = list(parser.stream(deep_chunks(size)))[-1]
    (call,) = final
    assert call.status == "invalid"
    assert call.error is not None
    assert "RecursionError" not in call.error
    assert f"{DEPTH} levels" in call.error and str(MAX_VALIDATION_DEPTH) in call.error
    assert call.raw_args == DEEP
    assert call.to_dict()["type"] == "invalid_tool_call"
    # the same verdict from a finished result
    again = parser.parse([{"name": "Deep", "args": decode(DEEP), "id": "d"}])
    assert again[0].error == call.error


def test_depth_limit_is_exact() -> None:
    """MAX_VALIDATION_DEPTH levels are validated; one more is refused with the depth."""
    parser = PydanticToolsParser([Deep])
    ok = '{"x": ' + "[" * (MAX_VALIDATION_DEPTH - 1) + "]" * (MAX_VALIDATION_DEPTH - 1) + "}"
    too = '{"x": ' + "[" * MAX_VALIDATION_DEPTH + "]" * MAX_VALIDATION_DEPTH + "}"
    assert parser.parse([{"name": "Deep", "args": json.loads(ok), "id": None}])[0].valid
    refused = parser.parse([{"name": "Deep", "args": json.loads(too), "id": None}])[0]
    assert f"{MAX_VALIDATION_DEPTH + 1} levels" in (refused.error or "")


lc = pytest.importorskip("langchain_core")


@pytest.mark.parametrize("output", ["dicts", "calls"])
@pytest.mark.parametrize("size", [50, len(DEEP)])
def test_deep_arguments_langchain_parser_never_compares_deeply(output: Any, size: int) -> None:
    from langchain_core.messages import AIMessageChunk

    from callstream.parsers.langchain import ToolCallsOutputParser

    messages = [AIMessageChunk(content="", tool_call_chunks=[c]) for c in deep_chunks(size)]
    # the root closes before the stream ends: a partial result with the full arguments,
    # then the valid one (the same dict): compared without recursion
    messages.append(AIMessageChunk(content="", response_metadata={"finish_reason": "stop"}))
    results = list(ToolCallsOutputParser(output=output).transform(iter(messages)))
    final = results[-1][0]
    assert (final["type"] if output == "dicts" else final.status) in ("tool_call", "valid")
    tools = list(ToolCallsOutputParser(tools=[Deep]).transform(iter(messages)))[-1]
    assert tools[0]["type"] == "invalid_tool_call" and f"{DEPTH} levels" in tools[0]["error"]


# --- many calls, long open arrays: results stay right while the work is bounded -------------


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_many_interleaved_calls_match_a_fresh_parse(data: st.DataObject) -> None:
    """Results updated call by call equal a parse of the finished stream, for any
    interleaving, selection and server marks; every result is ordered by index."""
    values = data.draw(st.lists(json_objects(max_leaves=4), min_size=1, max_size=8))
    server = data.draw(st.lists(st.booleans(), min_size=len(values), max_size=len(values)))
    options = data.draw(
        st.sampled_from([{}, {"first_tool_only": True}, {"key_name": "t1"}, {"key_name": "x"}])
    )
    pending: list[list[Any]] = []
    for number, value in enumerate(values):
        pieces = data.draw(splits(json.dumps(value)))
        items: list[Any] = [{"index": number, "id": f"c{number}", "name": f"t{number % 2}"}]
        if server[number]:
            items.append(ServerToolUse(index=number))
        items += [{"index": number, "args": p} for p in pieces]
        pending.append(items)
    order = []
    while any(pending):
        live = [p for p in pending if p]
        chosen = data.draw(st.sampled_from(live))
        order.append(chosen.pop(0))
    order.append(StreamEnd(reason=None))
    parser = JsonToolsParser(**options)
    session = parser.session()
    for item in order:
        result = session.feed(item)
        if result is not None:
            assert [c.index for c in result] == sorted(c.index for c in result)
            assert not any(c.server for c in result)
    final = session.close() or session.result
    assembler = ToolCallAssembler()
    assembler.apply(order)
    expected = [
        (c["id"], c["args"])
        for c in assembler.tool_calls
        if options.get("key_name") in (None, c["name"])
    ]
    if options.get("first_tool_only"):  # the first call announced (not always index 0)
        assert len(final) == min(1, len(expected))
        assert all((c.id, c.args) in expected for c in final)
    else:
        assert [(c.id, c.args) for c in final] == expected
    assert [c.id for c in session.server_calls] == [c["id"] for c in assembler.server_tool_calls]


def test_long_open_array_is_shown_within_the_copy_bound() -> None:
    """An open array of n items: partial results keep coming, honest, and all their
    copies together stay within SNAPSHOT_COPY_FACTOR entries per value (O(n))."""
    items = [{"n": i} for i in range(3000)]
    text = json.dumps({"items": items})
    chunks = chunks_for([("f", "a", split_every(text, 4))])
    copied = 0
    results = list(JsonToolsParser().stream(chunks))
    for result in results[:-1]:
        args = result[0].args
        assert consistent(args, {"items": items})
        copied += len(args.get("items", [])) + 1
    assert results[-1][0].args == {"items": items}
    assert len(results) > 100  # still a live view, not one result at the end
    # 2 values per item; the last partial result shares the closed list (counted here)
    assert copied <= SNAPSHOT_COPY_FACTOR * 2 * 3000 + 3000 + 100


def test_pydantic_preview_work_is_bounded_with_min_preview_growth_zero(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """min_preview_growth=0: the preview copies copy at most PREVIEW_WORK_FACTOR entries
    per character of the final text, plus the last copy (each copy holds the open list:
    one per closing value would be quadratic), and the values closing are validated
    within the builder's own bound."""

    class Plan(BaseModel):
        steps: list[dict[str, int]]

    text = json.dumps({"steps": [{"n": i} for i in range(2000)]})
    parser = PydanticToolsParser([Plan], min_preview_growth=0)
    copied: list[int] = []
    validated: list[int] = []
    snapshot, validate = PartialBuilder.snapshot, Shape.validate

    def counting_snapshot(builder: PartialBuilder) -> tuple[Any, int]:
        value, count = snapshot(builder)
        copied.append(count)
        return value, count

    def counting_validate(shape: Shape, payload: str) -> Any:
        validated.append(len(payload))
        return validate(shape, payload)

    monkeypatch.setattr(PartialBuilder, "snapshot", counting_snapshot)
    monkeypatch.setattr(Shape, "validate", counting_validate)
    final = list(parser.stream(chunks_for([("Plan", "p", split_every(text, 4))])))[-1]
    assert final[0].valid
    assert sum(copied) <= PREVIEW_WORK_FACTOR * len(text) + 2000 + 10
    assert len(copied) > 20  # previews keep coming
    assert sum(validated) <= VALIDATION_WORK_FACTOR * len(text) + VALIDATION_WORK_SLACK


# --- junk ------------------------------------------------------------------------------------

JUNK = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)
CHUNK_VALUES = {
    "name": st.none() | st.sampled_from(["f", "g", "", "Deep"]) | JUNK,
    "args": st.none() | st.text(alphabet='{}[]":, 0a\\', max_size=8) | JUNK,
    "id": st.none() | st.sampled_from(["a", "srvtoolu_1", ""]) | JUNK,
    "index": st.none() | st.integers(-2, 3) | st.sampled_from(["0", "x"]) | JUNK,
}
SIGNALS = st.one_of(
    st.fixed_dictionaries({}, optional=CHUNK_VALUES),
    st.builds(ServerToolUse, index=st.none() | st.integers(-1, 3), id=st.none() | st.just("a")),
    st.builds(CallEnd, index=st.none() | st.integers(0, 3), args=st.none() | st.just("{}")),
    st.builds(CallFailure, error=st.just("bad"), index=st.none() | st.integers(0, 3)),
    st.builds(StreamEnd, reason=st.sampled_from([None, "length", "stop"])),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(SIGNALS, max_size=12), st.sampled_from(["json", "pydantic"]))
def test_junk_signals_raise_only_our_errors(signals: list[Any], kind: str) -> None:
    parser: Any = JsonToolsParser() if kind == "json" else PydanticToolsParser([Deep])
    session = parser.session()
    try:
        for signal in signals:
            session.feed(signal)
        session.close()
    except CallstreamError:
        return
    assert isinstance(session.server_calls, list)


BLOCK = st.fixed_dictionaries(
    {
        "type": st.sampled_from(
            [
                "server_tool_use",
                "server_tool_call_chunk",
                "server_tool_call",
                "input_json_delta",
                "tool_use",
                "text",
            ]
        )
    },
    optional={
        "index": st.none() | st.integers(-1, 3) | JUNK,
        "id": st.none() | st.sampled_from(["srvtoolu_1", "x"]) | JUNK,
        "name": st.none() | st.just("web_search") | JUNK,
        "args": JUNK,
        "input": JUNK,
        "partial_json": st.text(alphabet='{}[]":, 0a', max_size=6) | JUNK,
    },
)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.lists(BLOCK, max_size=3),
            st.lists(st.fixed_dictionaries({}, optional=CHUNK_VALUES), max_size=2),
            st.sampled_from([{}, {"stop_reason": "max_tokens"}, {"finish_reason": 3}]),
        ),
        max_size=6,
    )
)
def test_junk_messages_raise_only_our_errors(parts: list[Any]) -> None:
    from langchain_core.messages import AIMessage, AIMessageChunk

    from callstream.parsers.langchain import ToolCallsOutputParser

    messages: list[Any] = []
    for blocks, chunks, metadata in parts:
        try:
            messages.append(
                AIMessageChunk(content=blocks, tool_call_chunks=chunks, response_metadata=metadata)
            )
        except Exception:  # LangChain refuses it itself: not our input
            continue
    for parser in (ToolCallsOutputParser(), ToolCallsOutputParser(tools=[Deep])):
        try:
            list(parser.transform(iter(messages)))
        except CallstreamError:
            pass
        for message in messages:
            try:
                whole = AIMessage(
                    content=message.content,
                    tool_calls=message.tool_calls,
                    invalid_tool_calls=message.invalid_tool_calls,
                    response_metadata=message.response_metadata,
                )
            except Exception:
                continue
            try:
                parser.invoke(whole)
            except CallstreamError:
                pass
