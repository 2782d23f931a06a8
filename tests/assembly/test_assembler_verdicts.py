"""ToolCallAssembler verdicts (finish, end_call, fail_call), misuse.

The limits and options: ``tests/assembly/test_options.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from callstream._assembly import (
    ArgumentsDelta,
    CallDone,
    CallEnd,
    CallFailure,
    CallInvalid,
    CallStarted,
    StreamEnd,
    StreamFinished,
    ToolCallAssembler,
)
from callstream._errors import AssemblerStateError, ChunkValidationError, UsageError
from tests.support.strategies_assembly import (
    calls,
    check_event_order,
    chunk,
    error_of,
    invalid,
    one_call,
    run,
)

# --- finish verdicts ------------------------------------------------------------------------


def test_valid_object() -> None:
    asm = one_call('{"a": [1, 2.5, "x", null, true]}')
    assert calls(asm) == [("f", "c", {"a": [1, 2.5, "x", None, True]})]
    assert asm.invalid_tool_calls == []


@pytest.mark.parametrize("args", [None, "", "   \n\t"])
def test_empty_arguments_mean_empty_object(args: str | None) -> None:
    asm = one_call(args)
    assert calls(asm) == [("f", "c", {})]


@pytest.mark.parametrize("args", [None, "", "  "])
def test_empty_arguments_invalid_when_asked(args: str | None) -> None:
    asm = one_call(args, empty_args="invalid")
    assert calls(asm) == []
    assert error_of(asm) == "tool call has empty arguments"


@pytest.mark.parametrize(
    ("args", "kind"),
    [("[1]", "array"), ("3", "number"), ('"x"', "string"), ("true", "boolean"), ("null", "null")],
)
def test_non_object_json_is_invalid(args: str, kind: str) -> None:
    asm = one_call(args)
    assert calls(asm) == []
    assert error_of(asm) == f"arguments must be a JSON object, got {kind}"
    assert asm.invalid_tool_calls[0]["args"] == args


@pytest.mark.parametrize(
    ("args", "position"),
    [('{"a" 1}', 5), ('{"unit": celsius}', 9), ("{]", 1), ('{"a": 1}}', 8), ("{'a': 1}", 1)],
)
def test_malformed_is_invalid_with_position_and_reason(args: str, position: int) -> None:
    asm = one_call(args)
    error = error_of(asm)
    assert error.startswith("malformed arguments: ")
    assert error.endswith(f" at position {position}")
    assert asm.invalid_tool_calls[0]["args"] == args


def test_incomplete_at_end_is_cut_off() -> None:
    asm = one_call('{"a": "b')
    error = error_of(asm)
    assert "cut off" in error
    assert "the stream ended before they were complete" in error
    assert "unterminated string at position 8" in error
    assert asm.invalid_tool_calls[0] == {
        "name": "f",
        "args": '{"a": "b',
        "id": "c",
        "error": error,
        "type": "invalid_tool_call",
    }


@pytest.mark.parametrize("reason", ["length", "max_tokens", "MAX_TOKENS", "Length"])
def test_truncation_reason_is_named(reason: str) -> None:
    asm = one_call('{"a": [1, 2', reason=reason)
    error = error_of(asm)
    assert "cut off by the token limit" in error
    assert repr(reason) in error


def test_truncation_with_no_arguments_is_cut_off() -> None:
    asm = one_call("", reason="length")
    assert "cut off before its arguments began" in error_of(asm)


def test_complete_arguments_stay_valid_under_truncation_reason() -> None:
    asm, _ = run(
        [
            chunk(index=0, id="a", name="f", args='{"x": 1}'),
            chunk(index=1, id="b", name="g", args='{"y": '),
        ],
        reason="length",
    )
    assert calls(asm) == [("f", "a", {"x": 1})]
    assert invalid(asm) == [("g", "b")]


def test_no_name_is_invalid_and_never_announced() -> None:
    asm, events = run([chunk(index=0, id="c", args='{"a": 1}')])
    assert invalid(asm) == [(None, "c")]
    assert error_of(asm) == "tool call has no name"
    assert not any(isinstance(e, (CallStarted, ArgumentsDelta)) for e in events)
    assert [type(e) for e in events] == [CallInvalid, StreamFinished]


def test_finish_verdict_events_in_call_order_then_stream_finished() -> None:
    asm = ToolCallAssembler()
    asm.feed([chunk(index=0, id="a", name="f", args="{}"), chunk(index=1, id="b", name="g")])
    events = asm.finish("tool_calls")
    assert events == [
        CallDone(index=0, tool_call={"name": "f", "args": {}, "id": "a", "type": "tool_call"}),
        CallStarted(index=1, key=1, id="b", name="g"),
        CallDone(index=1, tool_call={"name": "g", "args": {}, "id": "b", "type": "tool_call"}),
        StreamFinished(reason="tool_calls"),
    ]
    assert asm.finished
    assert asm.finish_reason == "tool_calls"


def test_not_final_because_it_parses() -> None:
    asm = ToolCallAssembler()
    events = asm.feed(chunk(index=0, id="a", name="f", args='{"a": 1}'))
    assert not any(isinstance(e, (CallDone, CallInvalid)) for e in events)
    assert asm.feed(chunk(index=0, args="  ")) != []  # still takes text


# --- malformed mid-stream ------------------------------------------------------------------


def test_malformed_reported_at_once_and_others_carry_on() -> None:
    asm = ToolCallAssembler()
    asm.feed(
        [chunk(index=0, id="a", name="f", args="{"), chunk(index=1, id="b", name="g", args="{")]
    )
    events = asm.feed(chunk(index=0, args='"x" 1'))
    assert len(events) == 1
    [bad] = events
    assert isinstance(bad, CallInvalid)
    assert bad.index == 0
    error = bad.invalid_tool_call["error"]
    assert error is not None
    assert error.startswith("malformed arguments: expected ':'")
    assert error.endswith(" at position 5")
    assert bad.invalid_tool_call["args"] == '{"x" 1'
    assert invalid(asm) == [("f", "a")]
    assert [c["name"] for c in asm.tool_calls] == ["g"]
    # the invalid call keeps accumulating raw text, silently; the other streams on
    assert asm.feed(chunk(index=0, args="}")) == []
    assert asm.invalid_tool_calls[0]["args"] == '{"x" 1}'
    assert asm.feed(chunk(index=1, args='"y": 2}')) != []
    events = asm.finish()
    assert events == [
        CallDone(
            index=1, tool_call={"name": "g", "args": {"y": 2}, "id": "b", "type": "tool_call"}
        ),
        StreamFinished(reason=None),
    ]
    assert invalid(asm) == [("f", "a")]
    assert asm.invalid_tool_calls[0]["error"] == error


def test_malformed_before_name_is_reported_without_announcement() -> None:
    asm = ToolCallAssembler()
    events = asm.feed(chunk(index=0, args="{x"))
    assert [type(e) for e in events] == [CallInvalid]
    assert asm.invalid_tool_calls[0]["name"] is None
    # the name arriving later shows in the views, but no CallStarted follows
    assert asm.feed(chunk(index=0, name="f")) == []
    assert invalid(asm) == [("f", None)]


def test_malformed_first_text_of_named_call_announces_then_invalid() -> None:
    asm = ToolCallAssembler()
    events = asm.feed(chunk(index=0, id="a", name="f", args="x"))
    assert [type(e) for e in events] == [CallStarted, CallInvalid]


# --- end_call --------------------------------------------------------------------------------


def test_end_call_gives_verdict_now() -> None:
    asm = ToolCallAssembler()
    asm.feed(chunk(index=0, id="a", name="f", args='{"x": 1}'))
    events = asm.end_call(index=0)
    assert events == [
        CallDone(index=0, tool_call={"name": "f", "args": {"x": 1}, "id": "a", "type": "tool_call"})
    ]
    assert calls(asm) == [("f", "a", {"x": 1})]
    assert asm.end_call(index=0) == []  # already ended
    assert asm.finish() == [StreamFinished(reason=None)]


def test_end_call_incomplete_is_cut_off_at_the_call() -> None:
    asm = ToolCallAssembler()
    asm.feed(chunk(index=0, id="a", name="f", args='{"x": '))
    [event] = asm.end_call(id="a")
    assert isinstance(event, CallInvalid)
    assert "the call ended before they were complete" in str(event.invalid_tool_call["error"])


def test_end_call_by_id_and_current() -> None:
    asm = ToolCallAssembler()
    asm.feed([chunk(id="a", name="f", args="{}"), chunk(id="b", name="g", args="{}")])
    assert [e.index for e in asm.end_call(id="a") if isinstance(e, CallDone)] == [0]
    assert [e.index for e in asm.end_call() if isinstance(e, CallDone)] == [1]
    assert asm.end_call() == []
    assert asm.end_call(index=7) == []
    assert asm.end_call(id="nope") == []


def test_end_call_args_fill_a_call_without_text() -> None:
    asm = ToolCallAssembler()
    asm.feed(chunk(index=0, id="a", name="weather"))
    events = asm.end_call(index=0, args='{"location": "SF"}')
    assert [type(e) for e in events] == [CallStarted, ArgumentsDelta, CallDone]
    assert calls(asm) == [("weather", "a", {"location": "SF"})]


def test_end_call_same_args_keep_stream() -> None:
    asm = ToolCallAssembler()
    asm.feed(chunk(index=0, id="a", name="f", args='{"x": 1}'))
    events = asm.end_call(index=0, args='{"x": 1}')
    assert [type(e) for e in events] == [CallDone]
    asm2 = ToolCallAssembler()
    asm2.feed(chunk(index=0, id="a", name="f", args='{"x":1}'))
    assert [type(e) for e in asm2.end_call(index=0, args={"x": 1})] == [CallDone]
    assert asm2.tool_call_chunks[0]["args"] == '{"x":1}'


def test_end_call_different_args_are_the_authority() -> None:
    asm = ToolCallAssembler()
    asm.feed(chunk(index=0, id="a", name="f", args='{"x": 1, "y'))
    events = asm.end_call(index=0, args='{"x": 1, "y": 2}')
    assert events == [
        CallDone(
            index=0,
            tool_call={"name": "f", "args": {"x": 1, "y": 2}, "id": "a", "type": "tool_call"},
        )
    ]
    assert asm.tool_call_chunks[0]["args"] == '{"x": 1, "y": 2}'
    asm = ToolCallAssembler()
    asm.feed(chunk(index=0, id="a", name="f", args='{"x": 1}'))
    asm.end_call(index=0, args={"x": 2})
    assert calls(asm) == [("f", "a", {"x": 2})]


def test_end_call_authority_does_not_revive_an_invalid_call() -> None:
    asm = ToolCallAssembler()
    asm.feed(chunk(index=0, id="a", name="f", args="{x"))
    assert asm.end_call(index=0, args="{}") == []
    asm.finish()
    assert invalid(asm) == [("f", "a")]


# --- fail_call -------------------------------------------------------------------------------


def test_fail_call_matching_open_call() -> None:
    asm = ToolCallAssembler()
    asm.feed(chunk(index=0, id="a", name="f", args='{"x": 1}'))
    events = asm.fail_call("tool_use_failed: did not match schema", index=0)
    assert [type(e) for e in events] == [CallInvalid]
    assert asm.invalid_tool_calls == [
        {
            "name": "f",
            "args": '{"x": 1}',
            "id": "a",
            "error": "tool_use_failed: did not match schema",
            "type": "invalid_tool_call",
        }
    ]
    assert asm.finish() == [StreamFinished(reason=None)]
    assert asm.tool_calls == []


def test_fail_call_without_match_records_new_invalid_call() -> None:
    asm = ToolCallAssembler()
    asm.feed(chunk(index=0, id="a", name="f", args="{}"))
    raw = '{"name": "g", "arguments": {"p": 1}}'
    events = asm.fail_call("validation failed", name="g", args=raw)
    assert [type(e) for e in events] == [CallStarted, CallInvalid]
    asm.finish()
    assert calls(asm) == [("f", "a", {})]
    assert asm.invalid_tool_calls == [
        {
            "name": "g",
            "args": raw,
            "id": None,
            "error": "validation failed",
            "type": "invalid_tool_call",
        }
    ]


def test_fail_call_on_invalid_call_appends_error_and_on_ended_call_records_new() -> None:
    asm = ToolCallAssembler()
    asm.feed(chunk(index=0, id="a", name="f", args="{x"))
    assert asm.fail_call("provider says no", id="a") == []
    error = str(asm.invalid_tool_calls[0]["error"])
    assert error.startswith("malformed arguments: ")
    assert error.endswith(" at position 1; provider says no")
    asm.feed(chunk(index=1, id="b", name="g", args="{}"))
    asm.end_call(index=1)
    events = asm.fail_call("late failure", index=1)
    assert [type(e) for e in events] == [CallInvalid]
    asm.finish()
    assert calls(asm) == [("g", "b", {})]
    assert invalid(asm) == [("f", "a"), (None, None)]


def test_apply_dispatches_signals() -> None:
    asm = ToolCallAssembler()
    events = asm.apply(
        [
            chunk(index=0, id="a", name="f", args="{"),
            chunk(index=0, args="}"),
            CallEnd(index=0),
            chunk(index=1, id="b", name="g", args="{"),
            CallFailure(error="boom", index=1),
            StreamEnd(reason="stop"),
        ]
    )
    check_event_order(events)
    assert [type(e) for e in events] == [
        CallStarted,
        ArgumentsDelta,
        ArgumentsDelta,
        CallDone,
        CallStarted,
        ArgumentsDelta,
        CallInvalid,
        StreamFinished,
    ]
    assert asm.finish_reason == "stop"
    with pytest.raises(ChunkValidationError, match="apply"):
        ToolCallAssembler().apply(42)  # type: ignore[arg-type]


# --- misuse ----------------------------------------------------------------------------------


def test_after_finish_everything_raises() -> None:
    asm = ToolCallAssembler()
    asm.finish()
    with pytest.raises(AssemblerStateError):
        asm.finish()
    with pytest.raises(AssemblerStateError):
        asm.feed(chunk(index=0, name="f"))
    with pytest.raises(AssemblerStateError):
        asm.end_call(index=0)
    with pytest.raises(AssemblerStateError):
        asm.fail_call("x")
    assert issubclass(AssemblerStateError, UsageError)


@pytest.mark.parametrize(
    ("bad", "field", "shown"),
    [
        ({"index": "lc_0"}, "index", "'lc_0' (str)"),
        ({"index": True}, "index", "True (bool)"),
        ({"index": 1.0}, "index", "1.0 (float)"),
        ({"index": "-1"}, "index", "'-1' (str)"),
        ({"index": "٣"}, "index", "(str)"),
        ({"name": 7}, "name", "7 (int)"),
        ({"id": b"x"}, "id", "b'x' (bytes)"),
        ({"args": 5}, "args", "5 (int)"),
        ({"args": ["a"]}, "args", "['a'] (list)"),
        ({"args": {"x": object()}}, "args", "not JSON-serializable"),
    ],
)
def test_chunk_validation_names_field_and_value(
    bad: dict[str, Any], field: str, shown: str
) -> None:
    asm = ToolCallAssembler()
    with pytest.raises(ChunkValidationError) as info:
        asm.feed({**chunk(index=0, name="f"), **bad})
    assert f"'{field}'" in str(info.value)
    assert shown in str(info.value)
    assert isinstance(info.value, TypeError)
    assert asm.tool_call_chunks == []


@pytest.mark.parametrize("bad", ["not a chunk", b"bytes", 42, None, ["x"]])
def test_non_mapping_chunk_rejected(bad: Any) -> None:
    with pytest.raises(ChunkValidationError):
        ToolCallAssembler().feed(bad)


def test_sequence_checked_whole_before_applying() -> None:
    asm = ToolCallAssembler()
    with pytest.raises(ChunkValidationError, match=r"^chunk 1: field 'index'"):
        asm.feed([chunk(index=0, name="f", args="{}"), chunk(index="x")])
    assert asm.tool_call_chunks == []


def test_index_coercions_accepted() -> None:
    class Key(int):
        pass

    asm, _ = run(
        [
            chunk(index=Key(2), name="f", args="{"),
            chunk(index="2", args="}"),
            chunk(index=2, args=" "),
        ]
    )
    assert calls(asm) == [("f", None, {})]


def test_mapping_chunk_and_mapping_args_accepted() -> None:
    class Chunk(Mapping[str, Any]):
        def __init__(self, **data: Any) -> None:
            self._data = data

        def __getitem__(self, key: str) -> Any:
            return self._data[key]

        def __iter__(self) -> Any:
            return iter(self._data)

        def __len__(self) -> int:
            return len(self._data)

    asm = ToolCallAssembler()
    asm.feed(Chunk(index=0, name="f", args=Chunk(x=1)))
    asm.finish()
    assert calls(asm) == [("f", None, {"x": 1})]


def test_signal_argument_validation() -> None:
    asm = ToolCallAssembler()
    with pytest.raises(ChunkValidationError, match="index"):
        asm.end_call(index="lc_0")
    with pytest.raises(ChunkValidationError, match="'id'"):
        asm.end_call(id=3)  # type: ignore[arg-type]
    with pytest.raises(ChunkValidationError, match="args"):
        asm.end_call(args=3)  # type: ignore[arg-type]
    with pytest.raises(ChunkValidationError, match="error"):
        asm.fail_call(None)  # type: ignore[arg-type]
    with pytest.raises(ChunkValidationError, match="reason"):
        asm.finish(3)  # type: ignore[arg-type]
    assert not asm.finished


def test_repr() -> None:
    asm = ToolCallAssembler()
    asm.feed(chunk(index=0, name="f"))
    assert repr(asm) == "<ToolCallAssembler calls=1 open>"
    asm.finish("stop")
    assert repr(asm) == "<ToolCallAssembler calls=1 finished ('stop')>"
