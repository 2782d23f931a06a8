"""JSON tools parser, closed-value trees and parse sessions (sync and async)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from callstream._assembly import (
    ArgumentsDelta,
    AssemblyEvent,
    CallStarted,
    StreamEnd,
    StreamFinished,
    ToolCallAssembler,
)
from callstream._errors import ParserStateError, UsageError
from callstream._json import PartialJSONParser
from callstream._pipeline import Pipeline
from callstream._types import MISSING
from callstream.examples import read_example
from callstream.parsers import JsonToolsParser, ParsedCall
from callstream.parsers._tree import ClosedValueTree
from tests.support.corpus import RECORDED_STREAMS
from tests.support.strategies import json_objects, serializations, split_every, splits

# --- helpers -------------------------------------------------------------------------------


def chunks_for(calls: list[tuple[str, str | None, list[str]]]) -> list[dict[str, Any]]:
    """Chunks of calls streamed one after another: (name, id, argument fragments)."""
    out: list[dict[str, Any]] = []
    for index, (name, id_, fragments) in enumerate(calls):
        out.append({"index": index, "id": id_, "name": name, "args": ""})
        out.extend({"index": index, "id": None, "name": None, "args": f} for f in fragments)
    return out


def consistent(partial: Any, final: Any) -> bool:
    """Whether ``partial`` shows only values the final value has (a prefix for arrays)."""
    if isinstance(partial, dict):
        return isinstance(final, dict) and all(
            k in final and consistent(v, final[k]) for k, v in partial.items()
        )
    if isinstance(partial, list):
        return (
            isinstance(final, list)
            and len(partial) <= len(final)
            and all(consistent(a, b) for a, b in zip(partial, final))
        )
    return type(partial) is type(final) and partial == final


def updates_for(example: str) -> list[Any]:
    """StreamUpdates of a bundled example stream, through the drivers' pipeline."""
    pipeline = Pipeline()
    text = read_example(example)
    updates = []
    if example.endswith(("_tokens", "sse")) or text.startswith(("event:", "data:")):
        updates.extend(pipeline.feed(text))
    else:
        for line in text.splitlines():
            if line.strip():
                updates.extend(pipeline.feed(json.loads(line)))
    updates.extend(pipeline.close())
    return updates


WEATHER = '{"city": "Paris", "days": 3, "units": ["c", "f"], "opts": {"rain": true, "n": null}}'
WEATHER_ARGS = json.loads(WEATHER)


# --- the closed-value tree -----------------------------------------------------------------


def tree_of(text: str, fragments: Iterable[str] | None = None) -> tuple[ClosedValueTree, list[Any]]:
    parser = PartialJSONParser()
    tree = ClosedValueTree()
    views = []
    for fragment in fragments if fragments is not None else [text]:
        if tree.apply(parser.feed(fragment)):
            views.append(tree.snapshot())
    return tree, views


def test_tree_shows_only_complete_values() -> None:
    parser = PartialJSONParser()
    tree = ClosedValueTree()
    assert tree.snapshot() is MISSING
    assert not tree.apply(parser.feed('{"a": 12'))  # the number may go on
    assert tree.snapshot() == {}
    assert tree.apply(parser.feed('3, "b": "hel'))  # the number is complete now
    assert tree.snapshot() == {"a": 123}  # no partial string
    assert tree.apply(parser.feed('lo", "c": [tr'))
    assert tree.snapshot() == {"a": 123, "b": "hello", "c": []}
    assert tree.apply(parser.feed('ue, {"d": "x"}'))
    assert tree.snapshot() == {"a": 123, "b": "hello", "c": [True, {"d": "x"}]}
    assert not tree.apply(parser.feed("]}"))  # closing containers shows nothing new
    assert tree.root == {"a": 123, "b": "hello", "c": [True, {"d": "x"}]}


def test_tree_snapshots_are_not_changed_by_later_changes() -> None:
    parser = PartialJSONParser()
    tree = ClosedValueTree()
    tree.apply(parser.feed('{"list": [1, [2, '))
    first = tree.snapshot()
    tree.apply(parser.feed('3], 4], "x": {"y": 5, '))
    second = tree.snapshot()
    tree.apply(parser.feed('"z": 6}}'))
    assert first == {"list": [1, [2]]}
    assert second == {"list": [1, [2, 3], 4], "x": {"y": 5}}
    assert tree.snapshot() == tree.root == {"list": [1, [2, 3], 4], "x": {"y": 5, "z": 6}}


def test_tree_containers_stay_the_same_objects_and_are_complete_once_closed() -> None:
    """What the pydantic parser's partial-object builder reads from the tree: a container
    is one object from its opening on, and holds complete values only."""
    parser = PartialJSONParser()
    tree = ClosedValueTree()
    tree.apply(parser.feed('{"a": {"b": 1, "c": [1, {"d": "x'))
    root = tree.root
    inner = root["a"]["c"]
    assert inner == [1, {}]  # the open string is not there
    tree.apply(parser.feed('y"}, 2]}, "e": 3}'))
    assert tree.root is root and root["a"]["c"] is inner
    assert inner == [1, {"d": "xy"}, 2]
    assert root == {"a": {"b": 1, "c": [1, {"d": "xy"}, 2]}, "e": 3}


def test_tree_duplicate_key_hides_the_replaced_value_until_the_new_one_closes() -> None:
    parser = PartialJSONParser()
    tree = ClosedValueTree()
    tree.apply(parser.feed('{"a": "old", "b": 1, "a": "ne'))
    assert tree.snapshot() == {"b": 1}
    tree.apply(parser.feed('w"}'))
    assert tree.snapshot() == json.loads('{"a": "old", "b": 1, "a": "new"}')


def test_tree_scalar_roots_and_empty_values() -> None:
    assert tree_of("42 ")[0].root == 42
    assert tree_of('""')[0].root == ""
    assert tree_of('{"e": {}, "l": [], "s": ""}')[0].root == {"e": {}, "l": [], "s": ""}


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_tree_views_are_consistent_and_end_at_json_loads(data: st.DataObject) -> None:
    text = data.draw(serializations(json_objects()))
    fragments = data.draw(splits(text))
    tree, views = tree_of(text, fragments)
    final = json.loads(text)
    assert tree.snapshot() == final
    for view in views:
        assert consistent(view, final)


# --- the JSON tools parser: streaming -------------------------------------------------------


def test_stream_yields_as_values_close_not_per_fragment() -> None:
    chunks = chunks_for([("get_weather", "call_1", split_every(WEATHER, 1))])
    results = list(JsonToolsParser().stream(chunks))
    args_seen = [r[0].args for r in results]
    # one result at the start, one per complete value, one at the end; never per fragment
    assert args_seen == [
        {},
        {"city": "Paris"},
        {"city": "Paris", "days": 3},
        {"city": "Paris", "days": 3, "units": ["c"]},
        {"city": "Paris", "days": 3, "units": ["c", "f"]},
        {"city": "Paris", "days": 3, "units": ["c", "f"], "opts": {"rain": True}},
        WEATHER_ARGS,
        WEATHER_ARGS,
    ]
    assert [r[0].status for r in results] == ["partial"] * 7 + ["valid"]
    final = results[-1][0]
    assert final == ParsedCall(
        index=0,
        name="get_weather",
        id="call_1",
        status="valid",
        args=WEATHER_ARGS,
        value=WEATHER_ARGS,
    )
    assert final.done and final.valid
    assert final.to_dict() == {
        "name": "get_weather",
        "args": WEATHER_ARGS,
        "id": "call_1",
        "type": "tool_call",
    }


def test_long_string_is_one_result_not_thousands() -> None:
    text = json.dumps({"body": "x" * 5000})
    chunks = chunks_for([("write", "c", split_every(text, 3))])
    results = list(JsonToolsParser().stream(chunks))
    assert len(results) == 3  # started, the string closed, final
    assert results[1][0].args == {"body": "x" * 5000}


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_any_split_gives_the_same_final_and_honest_previews(data: st.DataObject) -> None:
    texts = [data.draw(serializations(json_objects())) for _ in range(2)]
    pieces = [data.draw(splits(t)) for t in texts]
    chunks = chunks_for([("a", "id_a", pieces[0]), ("b", None, pieces[1])])
    results = list(JsonToolsParser().stream(chunks))
    finals = [json.loads(t) for t in texts]
    assert [(c.name, c.status, c.args) for c in results[-1]] == [
        ("a", "valid", finals[0]),
        ("b", "valid", finals[1]),
    ]
    for result in results:
        for call in result:
            assert consistent(call.args, finals[call.index])


def test_results_are_snapshots() -> None:
    chunks = chunks_for([("f", "c", ['{"a": [1, ', '2], "b": {"c": 3', ', "d": 4}}'])])
    results = list(JsonToolsParser().stream(chunks))
    assert [r[0].args for r in results] == [
        {"a": [1]},  # announced with its first argument text
        {"a": [1, 2], "b": {}},  # 3 may go on: not shown yet
        {"a": [1, 2], "b": {"c": 3, "d": 4}},
        {"a": [1, 2], "b": {"c": 3, "d": 4}},  # final
    ]
    assert [r[0].status for r in results] == ["partial"] * 3 + ["valid"]


def test_key_name_and_first_tool_only() -> None:
    chunks = chunks_for(
        [
            ("search", "s1", ['{"q": "a"}']),
            ("get_weather", "w1", [WEATHER]),
            ("search", "s2", ['{"q": "b"}']),
        ]
    )
    only_search = list(JsonToolsParser(key_name="search").stream(chunks))[-1]
    assert [(c.index, c.id, c.args) for c in only_search] == [
        (0, "s1", {"q": "a"}),
        (2, "s2", {"q": "b"}),
    ]
    first = list(JsonToolsParser(first_tool_only=True).stream(chunks))
    assert all(len(r) == 1 and r[0].id == "s1" for r in first)
    first_weather = list(
        JsonToolsParser(key_name="get_weather", first_tool_only=True).stream(chunks)
    )
    assert first_weather[-1][0].args == WEATHER_ARGS
    nothing = list(JsonToolsParser(key_name="missing").stream(chunks))
    assert nothing == [[]]  # one (empty, final) result even when nothing matches


def test_calls_without_ids() -> None:
    chunks = chunks_for([("a", None, ['{"x": 1}']), ("a", None, ['{"x": 2}'])])
    final = list(JsonToolsParser().stream(chunks))[-1]
    assert [(c.index, c.id, c.args) for c in final] == [(0, None, {"x": 1}), (1, None, {"x": 2})]
    assert final[0].to_dict()["id"] is None


def test_truncated_call_is_invalid_with_the_reason() -> None:
    chunks: list[Any] = chunks_for([("f", "c", ['{"a": 1, "b": "cut o'])])
    session = JsonToolsParser().session()
    for chunk in chunks:
        session.feed(chunk)
    result = session.feed(StreamEnd(reason="length"))
    assert result is not None
    (call,) = result
    assert call.status == "invalid"
    assert call.error is not None and "cut off" in call.error
    assert call.args == {"a": 1}  # the best arguments known
    assert call.raw_args == '{"a": 1, "b": "cut o'
    assert call.value is None
    assert call.to_dict() == {
        "name": "f",
        "args": '{"a": 1, "b": "cut o',
        "id": "c",
        "error": call.error,
        "type": "invalid_tool_call",
    }


def test_malformed_call_is_invalid_mid_stream_and_others_carry_on() -> None:
    chunks = chunks_for([("bad", "b", ['{"a" 1}']), ("good", "g", ['{"a": 1}'])])
    results = list(JsonToolsParser().stream(chunks))
    assert results[1][0].status == "invalid"  # reported at the fragment, before the end
    final = results[-1]
    assert [(c.name, c.status) for c in final] == [("bad", "invalid"), ("good", "valid")]
    assert "malformed" in (final[0].error or "")


def test_nameless_call_is_invalid() -> None:
    chunks = [{"index": 0, "id": "x", "name": None, "args": '{"a": 1}'}]
    (call,) = list(JsonToolsParser().stream(chunks))[-1]
    assert (call.name, call.status) == (None, "invalid")
    assert call.error == "tool call has no name"
    assert JsonToolsParser(key_name="f").parse([]) == []


def test_events_without_stream_finished_leave_no_call_open() -> None:
    assembler = ToolCallAssembler()
    events = assembler.feed(chunks_for([("f", "c", ['{"a": 1'])]))
    results = list(JsonToolsParser().stream([events]))
    (call,) = results[-1]
    assert call.status == "invalid"
    assert "ended before this call was final" in (call.error or "")


# --- inputs ----------------------------------------------------------------------------------


def test_reads_events_lists_of_events_and_updates_alike() -> None:
    chunks = chunks_for([("get_weather", "c", split_every(WEATHER, 7))])
    assembler = ToolCallAssembler()
    batches = [assembler.feed(c) for c in chunks] + [assembler.finish()]
    flat: list[AssemblyEvent] = [e for batch in batches for e in batch]

    @dataclass
    class Update:
        events: tuple[AssemblyEvent, ...]

    from_chunks = list(JsonToolsParser().stream(chunks))
    from_batches = list(JsonToolsParser().stream(batches))
    from_updates = list(JsonToolsParser().stream(Update(tuple(b)) for b in batches))
    from_flat = list(JsonToolsParser().stream(flat))
    assert from_chunks == from_batches == from_updates
    assert from_flat[-1] == from_chunks[-1]


def test_reads_the_drivers_updates_on_bundled_examples() -> None:
    final = list(JsonToolsParser().stream(updates_for("openai_chat_parallel")))[-1]
    assert [c.status for c in final] == ["valid", "valid"]
    assert final[0].name == "get_weather"
    invalid = list(JsonToolsParser().stream(updates_for("openai_chat_invalid")))[-1]
    assert sorted(c.status for c in invalid) == ["invalid", "valid"]
    gemini = list(JsonToolsParser().stream(updates_for("gemini")))[-1]
    assert [c.id for c in gemini] == [None, None]


def test_usage_errors() -> None:
    parser = JsonToolsParser()
    with pytest.raises(UsageError, match="cannot read a int item"):
        list(parser.stream([3]))
    with pytest.raises(UsageError, match="not a ToolCallChunk"):
        list(parser.stream([{"choices": []}]))
    with pytest.raises(UsageError, match="not a mix"):
        list(parser.stream([[StreamFinished(reason=None), {"index": 0}]]))
    session = parser.session()
    session.feed([CallStarted(index=0, key=0, id=None, name="f")])
    with pytest.raises(UsageError, match="raw chunks fed to a session"):
        session.feed({"index": 0, "args": "{}"})
    session.feed(StreamFinished(reason=None))
    with pytest.raises(ParserStateError, match="after the stream finished"):
        session.feed(ArgumentsDelta(index=0, text="x"))
    session.close()
    with pytest.raises(ParserStateError):
        session.feed([])
    with pytest.raises(ParserStateError):
        session.close()
    chunk_session = parser.session()
    chunk_session.feed({"index": 0, "name": "f", "args": "{}"})
    with pytest.raises(UsageError, match="assembly events fed to a session"):
        chunk_session.feed(StreamFinished(reason=None))


def test_session_result_is_a_copy() -> None:
    session = JsonToolsParser().session()
    session.feed(chunks_for([("f", "c", ['{"a": 1}'])]))
    session.result.clear()
    assert len(session.result) == 1
    assert not session.finished
    session.close()
    assert session.result[0].status == "valid"


# --- finished results --------------------------------------------------------------------------


def test_parse_finished_results() -> None:
    tool_calls = [
        {"name": "a", "args": {"x": 1}, "id": "1", "type": "tool_call"},
        {"name": "b", "args": {}, "id": None},
    ]
    invalid = {
        "name": "c",
        "args": "{oops",
        "id": "3",
        "error": "malformed",
        "type": "invalid_tool_call",
    }
    parsed = JsonToolsParser().parse([*tool_calls, invalid])
    assert [(c.index, c.name, c.status, c.args, c.error) for c in parsed] == [
        (0, "a", "valid", {"x": 1}, None),
        (1, "b", "valid", {}, None),
        (2, "c", "invalid", {}, "malformed"),
    ]
    assert parsed[2].raw_args == "{oops"
    assert JsonToolsParser(key_name="b").parse(tool_calls)[0].name == "b"

    assembler = ToolCallAssembler()
    assembler.feed(chunks_for([("a", "1", ['{"x": 1}']), ("b", "2", ['{"y": '])]))
    with pytest.raises(UsageError, match="has not finished"):
        JsonToolsParser().parse(assembler)
    assembler.finish()
    from_assembler = JsonToolsParser().parse(assembler)
    assert [(c.name, c.status) for c in from_assembler] == [("a", "valid"), ("b", "invalid")]

    with pytest.raises(UsageError, match="cannot parse a int"):
        JsonToolsParser().parse(3)
    with pytest.raises(UsageError, match="takes ToolCall / InvalidToolCall dicts"):
        JsonToolsParser().parse([1])
    not_an_object = JsonToolsParser().parse([{"name": "a", "args": [1], "id": None}])
    assert not_an_object[0].status == "invalid"
    assert "must be a JSON object" in (not_an_object[0].error or "")


def test_parse_stream_result_object() -> None:
    @dataclass
    class Result:
        tool_calls: list[Any]
        invalid_tool_calls: list[Any]

    parsed = JsonToolsParser().parse(
        Result(
            [{"name": "a", "args": {}, "id": "1"}],
            [{"name": "b", "args": "{", "id": "2", "error": "cut off"}],
        )
    )
    assert [(c.name, c.status) for c in parsed] == [("a", "valid"), ("b", "invalid")]


# --- async --------------------------------------------------------------------------------------


def test_astream_matches_stream() -> None:
    chunks = chunks_for([("get_weather", "c", split_every(WEATHER, 5)), ("f", None, ['{"a": 1'])])

    async def source() -> AsyncIterator[Any]:
        for chunk in chunks:
            await asyncio.sleep(0)
            yield chunk

    async def collect(src: Any) -> list[list[ParsedCall[Any]]]:
        return [r async for r in JsonToolsParser().astream(src)]

    expected = list(JsonToolsParser().stream(chunks))
    assert asyncio.run(collect(source())) == expected
    assert asyncio.run(collect(chunks)) == expected  # a sync iterable works too
    assert expected[-1][1].status == "invalid"  # finishing the assembler cut the second call


# --- recorded real streams (read in place; skipped when absent) -------------------------------

RECORDED = RECORDED_STREAMS
RECORDINGS = sorted(RECORDED.glob("*.jsonl")) if RECORDED.is_dir() else []


@pytest.mark.skipif(not RECORDINGS, reason=f"no recorded streams in {RECORDED}")
def test_recorded_streams_parse_to_the_drivers_result() -> None:
    from callstream._sync import collect, stream

    for path in RECORDINGS:
        lines = path.read_text(encoding="utf-8").splitlines()
        payloads = [json.loads(line) for line in lines if line.strip()]
        expected = collect(payloads)
        final = list(JsonToolsParser().stream(stream(payloads)))[-1]
        valid = [c.to_dict() for c in final if c.valid]
        invalid = [c.to_dict() for c in final if c.status == "invalid"]
        assert [(c["name"], c["id"], c["args"]) for c in valid] == [
            (c["name"], c["id"], c["args"]) for c in expected.tool_calls
        ], path.name
        assert [(c["name"], c["id"], c["error"]) for c in invalid] == [
            (c["name"], c["id"], c["error"]) for c in expected.invalid_tool_calls
        ], path.name
        for result in list(JsonToolsParser().stream(stream(payloads))):
            for call in result:
                if call.status == "partial":
                    finals = {c.index: c.args for c in final}
                    assert consistent(call.args, finals[call.index]), path.name
