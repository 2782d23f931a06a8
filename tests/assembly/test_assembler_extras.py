"""A call's extras record (CallExtras): merged per call, never changed once handed out,
read by call id, on the call's events and in its server_tool_calls entry; the
LangChain-shaped dicts of tool_calls / invalid_tool_calls never carry it."""

from __future__ import annotations

import math
from typing import Any

import pytest

from callstream import (
    CallChunk,
    CallDone,
    CallEnd,
    CallExtras,
    CallInvalid,
    CallStarted,
    ChunkValidationError,
    ServerToolUse,
    StreamEnd,
    ToolCallAssembler,
)


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth - 1):
        value = [value]
    return value


def started(assembler: ToolCallAssembler, signals: list[Any]) -> list[Any]:
    events: list[Any] = []
    for signal in signals:
        events.extend(assembler.apply(signal))
    return events


def test_extras_sent_before_the_text_ride_on_call_started_and_call_done() -> None:
    assembler = ToolCallAssembler()
    events = started(
        assembler,
        [
            CallChunk(index=3, id="call_1", name="apply_patch"),
            CallExtras(index=3, extras={"item_type": "custom_tool_call"}),
            CallChunk(index=3, args='{"__arg1": "x"}'),
            CallExtras(index=3, extras={"input": "x"}),
            CallEnd(index=3),
        ],
    )
    [start] = [e for e in events if isinstance(e, CallStarted)]
    [done] = [e for e in events if isinstance(e, CallDone)]
    assert start.extras == {"item_type": "custom_tool_call"}
    assert done.extras == {"item_type": "custom_tool_call", "input": "x"}
    assert assembler.call_extras == {"call_1": done.extras}


def test_a_record_handed_out_never_changes_a_merge_replaces_it() -> None:
    assembler = ToolCallAssembler()
    assembler.apply([CallChunk(index=0, id="ws_1", name="web_search"), ServerToolUse(index=0)])
    assembler.apply(CallExtras(index=0, extras={"status": "in_progress", "item_type": "w"}))
    first = assembler.call_extras["ws_1"]
    entry = assembler.server_tool_calls[0]
    assert entry["extras"] is first
    assembler.apply(CallExtras(index=0, extras={"status": "completed"}))
    assert first == {"status": "in_progress", "item_type": "w"}  # unchanged
    assert assembler.call_extras["ws_1"] == {"status": "completed", "item_type": "w"}
    assert entry["extras"] == {"status": "completed", "item_type": "w"}  # the entry follows


def test_extras_after_the_call_ended_still_update_the_record() -> None:
    assembler = ToolCallAssembler()
    events = started(
        assembler,
        [
            CallChunk(index=0, id="mcp_1", name="create_issue"),
            ServerToolUse(index=0),
            CallEnd(index=0, args='{"title": "x"}'),
            CallExtras(index=0, extras={"status": "failed"}),
        ],
    )
    [done] = [e for e in events if isinstance(e, CallDone)]
    assert done.server and done.extras is None
    assembler.finish()
    assert assembler.server_tool_calls[0]["extras"] == {"status": "failed"}


def test_client_entries_never_carry_extras_and_stay_langchain_shaped() -> None:
    langchain = pytest.importorskip("langchain_core.messages")
    assembler = ToolCallAssembler()
    assembler.apply(
        [
            CallChunk(index=0, id="call_1", name="f"),
            CallExtras(index=0, extras={"namespace": "crm"}),
            CallChunk(index=0, args='{"a": 1}'),
            CallChunk(index=1, id="call_2", name="g"),
            CallExtras(index=1, extras={"namespace": "crm"}),
            CallChunk(index=1, args='{"a": '),
            StreamEnd(reason="stop"),
        ]
    )
    assert [set(c) for c in assembler.tool_calls] == [{"name", "args", "id", "type"}]
    assert [set(c) for c in assembler.invalid_tool_calls] == [
        {"name", "args", "id", "error", "type"}
    ]
    assert all("extras" not in c for c in assembler.tool_call_chunks)
    # LangChain takes them as they are (a ToolCallChunk / InvalidToolCall with an
    # ``extras`` key makes AIMessage raise)
    langchain.AIMessage(
        content="",
        tool_calls=assembler.tool_calls,
        invalid_tool_calls=assembler.invalid_tool_calls,
    )
    langchain.AIMessageChunk(content="", tool_call_chunks=assembler.tool_call_chunks)
    assert assembler.call_extras == {"call_1": {"namespace": "crm"}, "call_2": {"namespace": "crm"}}


def test_extras_of_an_invalid_call_ride_on_call_invalid() -> None:
    assembler = ToolCallAssembler()
    events = started(
        assembler,
        [
            CallChunk(index=0, id="c", name="f"),
            CallExtras(index=0, extras={"item_type": "shell_call"}),
            CallChunk(index=0, args='{"a": '),
            StreamEnd(reason="length"),
        ],
    )
    [bad] = [e for e in events if isinstance(e, CallInvalid)]
    assert bad.extras == {"item_type": "shell_call"}


def test_unknown_calls_empty_extras_and_calls_without_id() -> None:
    assembler = ToolCallAssembler()
    assert assembler.apply(CallExtras(index=9, extras={"a": 1})) == []
    assembler.apply([CallChunk(index=0, name="f"), CallExtras(index=0, extras={})])
    assert assembler.call_extras == {}
    assembler.apply(CallExtras(index=0, extras={"a": 1}))
    assert assembler.call_extras == {}  # no id: only its events carry the record
    assembler.apply([CallChunk(index=1, id="x", name="g"), CallExtras(id="x", extras={"b": 2})])
    assert assembler.call_extras == {"x": {"b": 2}}


def test_signals_after_the_finish_are_ignored_the_direct_method_checks() -> None:
    assembler = ToolCallAssembler()
    assembler.apply([CallChunk(index=0, id="c", name="f"), StreamEnd(reason="stop")])
    assert assembler.apply(CallExtras(index=0, extras={"late": True})) == []
    assert assembler.call_extras == {}


@pytest.mark.parametrize(
    ("extras", "message"),
    [
        (["a"], "extras must be a mapping"),
        ({1: "a"}, "extras keys must be str"),
        ({"a": object()}, "extras are not JSON data"),
        ({"a": _nested(1001)}, "extras are not JSON data"),
    ],
)
def test_bad_extras_raise_a_precise_error(extras: Any, message: str) -> None:
    assembler = ToolCallAssembler(max_depth=3)  # extras are bounded by the default depth
    assembler.apply(CallChunk(index=0, id="c", name="f"))
    with pytest.raises(ChunkValidationError, match=message):
        assembler.add_extras(extras, index=0)
    with pytest.raises(ChunkValidationError, match=message):
        assembler.apply(CallExtras(index=0, extras=extras))
    assert assembler.call_extras == {}


def test_extras_as_deep_as_translators_copy_are_taken_whatever_max_depth() -> None:
    assembler = ToolCallAssembler(max_depth=3)
    assembler.apply(
        [CallChunk(index=0, id="c", name="f"), CallExtras(index=0, extras={"a": _nested(999)})]
    )
    assert "a" in assembler.call_extras["c"]


def test_float_values_are_json_data() -> None:
    assembler = ToolCallAssembler()
    assembler.apply(
        [CallChunk(index=0, id="c", name="f"), CallExtras(index=0, extras={"k": math.pi})]
    )
    assert assembler.call_extras == {"c": {"k": math.pi}}
