"""Hostile input to the assembler: deep objects, many calls, long invalid text, limits.

Bounded memory and only our errors on every path; the cost side (linear time) is checked
by ``benchmarks/bench_growth_assembly.py``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from callstream import collect
from callstream._assembly import (
    CallDone,
    CallEnd,
    CallFailure,
    CallInvalid,
    CallStarted,
    ServerToolUse,
    ToolCallAssembler,
)
from callstream._assembly.assembler import (
    DEFAULT_MAX_ARGUMENT_CHARS,
    DEFAULT_MAX_CALLS,
    DEFAULT_MAX_CHARS,
    MAX_NAME_CHARS,
)
from callstream._errors import (
    CallstreamError,
    ChunkValidationError,
    OptionTypeError,
    OptionValueError,
    UsageError,
)
from tests.support.strategies import splits
from tests.support.strategies_assembly import check_event_order, chunk

DEEP = 3000  # well past max_depth (1000) and Python's recursion limit


def deep_object(depth: int) -> dict[str, Any]:
    value: Any = 1
    for _ in range(depth):
        value = {"a": [value]}
    return {"x": value}


def feed_split(asm: ToolCallAssembler, index: int, text: str, parts: list[str]) -> list[Any]:
    events: list[Any] = []
    for part in parts:
        events += asm.feed(chunk(index=index, args=part))
    return events


GOOD = '{"city": "Oslo", "days": [1, 2]}'


def cuts(text: str) -> st.SearchStrategy[list[str]]:
    return splits(text)


# --- 1. deep decoded objects -----------------------------------------------------------------


@given(st.data())
def test_deep_object_args_make_that_call_invalid_others_carry_on(data: st.DataObject) -> None:
    asm = ToolCallAssembler()
    asm.feed(chunk(index=0, id="a", name="good"))
    parts = data.draw(splits(GOOD))
    half = len(parts) // 2
    feed_split(asm, 0, GOOD, parts[:half])
    events = asm.feed(chunk(index=1, id="b", name="deep", args=deep_object(DEEP)))
    assert [type(e) for e in events] == [CallStarted, CallInvalid]
    error = events[1].invalid_tool_call["error"]
    assert error.startswith("arguments exceed a limit: nesting deeper than max_depth=1000")
    feed_split(asm, 0, GOOD, parts[half:])
    asm.finish()
    assert asm.tool_calls == [
        {"name": "good", "args": json.loads(GOOD), "id": "a", "type": "tool_call"}
    ]
    [bad] = asm.invalid_tool_calls
    assert (bad["name"], bad["id"], bad["args"]) == ("deep", "b", None)


def test_deep_object_after_streamed_text_replaces_it_and_is_refused() -> None:
    asm = ToolCallAssembler()
    asm.feed(chunk(index=0, id="a", name="f", args='{"x": '))
    [bad] = asm.feed(chunk(index=0, args=deep_object(DEEP)))
    assert isinstance(bad, CallInvalid)
    assert "max_depth" in str(bad.invalid_tool_call["error"])


def test_deep_object_within_max_depth_is_taken() -> None:
    value = deep_object(400)  # deeper than json.dumps's own recursion would like
    asm = ToolCallAssembler()
    asm.feed(chunk(index=0, id="a", name="f", args=value))
    asm.finish()
    assert asm.tool_calls[0]["args"] == value


def test_deep_object_in_end_call_and_fail_call_and_mapping_types() -> None:
    class Sdk(Mapping[str, Any]):  # an SDK object that is a mapping
        def __init__(self, data: dict[str, Any]) -> None:
            self._data = data

        def __getitem__(self, key: str) -> Any:
            return self._data[key]

        def __iter__(self) -> Iterator[str]:
            return iter(self._data)

        def __len__(self) -> int:
            return len(self._data)

    asm = ToolCallAssembler(max_depth=50)
    asm.feed(chunk(index=0, id="a", name="f", args='{"x": 1'))
    events = asm.apply(CallEnd(index=0, args=Sdk(deep_object(60))))
    assert [type(e) for e in events] == [CallInvalid]
    assert "max_depth=50" in str(events[0].invalid_tool_call["error"])
    events = asm.apply(CallFailure(error="boom", id="zz", name="g", args=deep_object(60)))  # type: ignore[arg-type]
    assert [type(e) for e in events] == [CallStarted, CallInvalid]
    failed = events[1]
    assert isinstance(failed, CallInvalid)
    assert str(failed.invalid_tool_call["error"]).startswith("boom; arguments exceed a limit")
    asm.feed(chunk(index=2, id="c", name="h", args=Sdk(deep_object(60))))
    cyclic: dict[str, Any] = {}
    cyclic["self"] = cyclic
    asm.feed(chunk(index=3, id="d", name="k", args=cyclic))
    asm.finish()
    assert asm.tool_calls == []
    assert [c["id"] for c in asm.invalid_tool_calls] == ["a", "zz", "c", "d"]
    for bad in asm.invalid_tool_calls:
        assert "max_depth=50" in str(bad["error"])


# --- 2. many calls ---------------------------------------------------------------------------


def test_calls_past_max_calls_are_counted_not_stored() -> None:
    asm = ToolCallAssembler(max_calls=3)
    events: list[Any] = []
    for i in range(50):
        events += asm.feed(chunk(index=i, id=f"c{i}", name="f", args="{"))
        events += asm.feed(chunk(index=i, args=f'"i": {i}}}'))
    events += asm.finish()
    check_event_order(events)
    assert [c["id"] for c in asm.tool_calls] == ["c0", "c1", "c2"]
    [over] = asm.invalid_tool_calls
    assert over["id"] == "c3"
    assert over["args"] is None
    assert "max_calls=3" in str(over["error"])
    assert "and 46 later call(s)" in str(over["error"])
    assert len(asm.tool_call_chunks) == 4  # 3 calls and the overflow entry, nothing more
    assert len([e for e in events if isinstance(e, CallInvalid)]) == 1


def test_refused_call_on_a_reused_index_never_reaches_the_older_call() -> None:
    asm = ToolCallAssembler(max_calls=1)
    asm.feed(chunk(index=0, id="a", name="f", args='{"x": 1'))
    asm.feed(chunk(index=0, id="b", name="g", args="{"))  # new call on index 0: refused
    asm.feed(chunk(index=0, args='"y": 2}'))  # its continuation: dropped
    asm.end_call(id="a")
    asm.finish()
    assert [c["id"] for c in asm.invalid_tool_calls] == ["a", "b"]
    # call a never received the refused call's text: it was cut off (still '{"x": 1')
    assert asm.invalid_tool_calls[0]["args"] == '{"x": 1'
    assert "cut off" in str(asm.invalid_tool_calls[0]["error"])


def test_keyless_calls_past_the_limit_are_counted() -> None:
    asm = ToolCallAssembler(max_calls=2)
    for _ in range(10):
        asm.feed({"name": "f", "args": {"x": 1}})
    asm.finish()
    assert len(asm.tool_calls) == 2
    [over] = asm.invalid_tool_calls
    assert "and 7 later call(s)" in str(over["error"])


def test_refused_server_marker_and_failure_are_harmless() -> None:
    asm = ToolCallAssembler(max_calls=1)
    asm.feed(chunk(index=0, id="a", name="f", args="{}"))
    asm.feed(chunk(index=1, id="b", name="web_search"))
    assert asm.apply(ServerToolUse(index=1)) == []
    asm.apply(CallFailure(error="x", id="q"))
    asm.finish()
    assert asm.server_tool_calls == []
    assert "and 1 later call(s)" in str(asm.invalid_tool_calls[0]["error"])


@given(st.data())
def test_held_view_lists_never_change(data: st.DataObject) -> None:
    """A list handed out keeps its length and entries whatever comes after."""
    text = '{"q": "abc", "n": [1, 2]}'
    asm = ToolCallAssembler(max_calls=4)
    held: list[tuple[list[Any], list[int]]] = []
    for i in range(6):
        asm.feed(chunk(index=i, id=f"c{i}", name="f"))
        parts = data.draw(splits(text if i % 2 else text.replace(":", " ")))
        for part in parts:
            asm.feed(chunk(index=i, args=part))
            for view in (asm.tool_calls, asm.invalid_tool_calls, asm.tool_call_chunks):
                held.append((view, [id(e) for e in view]))
    asm.finish()
    for view, ids in held:
        assert [id(e) for e in view] == ids


# --- 3. an invalid call that keeps streaming ---------------------------------------------------


@given(st.data())
def test_invalid_call_text_is_a_prefix_while_streaming_and_complete_at_the_end(
    data: st.DataObject,
) -> None:
    text = "{x" + "abcdefgh" * 1500  # 12 KB, invalid from the second character
    asm = ToolCallAssembler()
    asm.feed(chunk(index=0, id="a", name="f"))
    sent = ""
    for part in data.draw(splits(text)):
        asm.feed(chunk(index=0, args=part))
        sent += part
        if len(sent) < 2:
            continue  # not known invalid yet
        shown = asm.invalid_tool_calls[0]["args"] or ""
        assert sent.startswith(shown)
        assert 2 * len(shown) >= len(sent) or len(sent) <= 4096
        chunk_text = asm.tool_call_chunks[0]["args"] or ""
        assert sent.startswith(chunk_text)
    asm.finish()
    assert asm.invalid_tool_calls[0]["args"] == text
    assert asm.tool_call_chunks[0]["args"] == text


# --- 4. limits and options ---------------------------------------------------------------------


def test_defaults_are_bounded() -> None:
    asm = ToolCallAssembler()
    assert asm._state.call_cap == DEFAULT_MAX_CALLS == 1_000
    assert asm._state.budget.per_call == DEFAULT_MAX_ARGUMENT_CHARS == 8 << 20
    assert asm._state.budget.total == DEFAULT_MAX_CHARS == 32 << 20


@given(st.data())
def test_max_chars_bounds_the_whole_stream(data: st.DataObject) -> None:
    first = '{"a": "' + "x" * 20 + '"}'  # 29 characters
    asm = ToolCallAssembler(max_chars=40)
    asm.feed(chunk(index=0, id="a", name="f"))
    feed_split(asm, 0, first, data.draw(splits(first)))
    asm.end_call(index=0)
    asm.feed(chunk(index=1, id="b", name="g"))
    second = '{"b": "' + "y" * 20 + '"}'
    events = feed_split(asm, 1, second, data.draw(splits(second)))
    assert [type(e) for e in events if not isinstance(e, (CallStarted,))][-1:] == [CallInvalid]
    asm.feed(chunk(index=2, id="c", name="h", args="{}"))
    asm.finish()
    assert [c["id"] for c in asm.tool_calls] == ["a"]
    bad_b, bad_c = asm.invalid_tool_calls
    assert "max_chars=40" in str(bad_b["error"])
    assert bad_b["args"] == second[:11]  # kept up to the limit
    assert "max_chars=40" in str(bad_c["error"])


def test_max_chars_through_collect() -> None:
    payloads = [
        {
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": "call_1",
                                "type": "function",
                                "function": {"name": "f", "arguments": '{"a": "long text"}'},
                            }
                        ]
                    },
                }
            ]
        },
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    ]
    assert collect(payloads, provider="openai-chat").tool_calls[0]["args"] == {"a": "long text"}
    result = collect(payloads, provider="openai-chat", max_chars=5)
    assert result.tool_calls == []
    assert "max_chars=5" in str(result.invalid_tool_calls[0]["error"])


@pytest.mark.parametrize(
    ("options", "kind"),
    [
        ({"max_calls": -1}, OptionValueError),
        ({"max_calls": True}, OptionValueError),
        ({"max_chars": 2.5}, OptionValueError),
        ({"max_chars": "10"}, OptionTypeError),
        ({"max_argument_chars": [1]}, OptionTypeError),
        ({"empty_args": "null"}, OptionValueError),
        ({"max_depth": 0}, OptionValueError),
        ({"allow": "STR"}, OptionTypeError),
    ],
)
def test_bad_options_are_usage_errors(options: dict[str, Any], kind: type[Exception]) -> None:
    with pytest.raises(kind) as info:
        ToolCallAssembler(**options)
    assert isinstance(info.value, UsageError)
    assert isinstance(info.value, ValueError if kind is OptionValueError else TypeError)


def test_no_limit_options() -> None:
    asm = ToolCallAssembler(max_calls=None, max_argument_chars=None, max_chars=None)
    asm.feed(chunk(index=0, id="a", name="f", args="{}"))
    asm.finish()
    assert len(asm.tool_calls) == 1


# --- 5. wrong-typed index --------------------------------------------------------------------


@pytest.mark.parametrize("bad", ["1" * 5000, "9" * 19, " 1", "1.0", "true", 1.0, True, [0]])
def test_unusable_index_is_a_chunk_error_never_another_call(bad: Any) -> None:
    asm = ToolCallAssembler()
    asm.feed(chunk(index=0, id="a", name="f", args='{"x": '))
    with pytest.raises(ChunkValidationError):
        asm.feed(chunk(index=bad, args="1}"))
    asm.finish()
    assert asm.tool_call_chunks[0]["args"] == '{"x": '


def test_int_and_str_subclasses_are_taken_by_value() -> None:
    class Weird(int):
        def __int__(self) -> int:
            raise RuntimeError("not used")

        def __hash__(self) -> int:
            raise RuntimeError("not used")

    class Id(str):
        def __hash__(self) -> int:
            raise RuntimeError("not used")

    asm = ToolCallAssembler()
    asm.feed(chunk(index=Weird(0), id=Id("a"), name=Id("f"), args="{"))
    asm.feed(chunk(index=0, id="a", args="}"))
    asm.finish()
    assert asm.tool_calls == [{"name": "f", "args": {}, "id": "a", "type": "tool_call"}]
    assert type(asm.tool_calls[0]["id"]) is str


# --- 6. only our errors -----------------------------------------------------------------------

junk = st.one_of(
    st.none(),
    st.integers(-3, 3),
    st.sampled_from(["", "0", "1", "x", "{", "}", '"', "1" * 30, "[", "]", ",", ":"]),
    st.booleans(),
    st.floats(allow_nan=True),
    st.builds(deep_object, st.integers(0, 1500)),
    st.lists(st.integers(), max_size=2),
)


@given(
    st.lists(
        st.one_of(
            st.fixed_dictionaries(
                {}, optional={"index": junk, "id": junk, "name": junk, "args": junk}
            ),
            st.builds(CallEnd, index=st.integers(0, 3) | st.none(), args=junk),
            st.builds(CallFailure, error=st.just("e"), index=st.integers(0, 3) | st.none()),
            st.builds(ServerToolUse, index=st.integers(0, 3) | st.none()),
        ),
        max_size=16,
    ),
    st.sampled_from([None, "stop", "length"]),
    st.integers(0, 4),
    st.integers(0, 60),
)
def test_junk_signals_raise_only_our_errors(
    signals: list[Any], reason: str | None, max_calls: int, max_chars: int
) -> None:
    asm = ToolCallAssembler(max_calls=max_calls, max_chars=max_chars, max_depth=200)
    events: list[Any] = []
    for signal in signals:
        try:
            events.extend(asm.apply(signal))
        except CallstreamError:
            pass
        asm.tool_calls, asm.invalid_tool_calls, asm.server_tool_calls, asm.tool_call_chunks
    events.extend(asm.finish(reason))
    check_event_order(events)
    listed = len(asm.tool_calls) + len(asm.invalid_tool_calls) + len(asm.server_tool_calls)
    assert len(asm.tool_call_chunks) <= max_calls + 1
    assert listed <= len(asm.tool_call_chunks)
    for done in (e for e in events if isinstance(e, CallDone)):
        assert isinstance(done.tool_call["args"], dict)


# --- names and ids: bounded, so a flood of pieces costs O(1) each ---------------------------


@pytest.mark.parametrize("field", ["name", "id"])
@pytest.mark.parametrize("piece", [1, 7, 4096, 5000])
def test_name_or_id_past_the_cap_invalidates_only_that_call(field: str, piece: int) -> None:
    asm = ToolCallAssembler()
    asm.feed({"index": 1, "id": "other", "name": "g", "args": '{"ok": true}'})
    asm.feed({"index": 0, "id": "c0", "name": "f"} | {field: "x"})
    events: list[Any] = []
    for _ in range(MAX_NAME_CHARS // piece + 2):
        events += asm.feed({"index": 0, field: "y" * piece})
    events += asm.feed({"index": 0, "args": "{}"})
    asm.finish()
    [bad] = asm.invalid_tool_calls
    label = "tool name" if field == "name" else "call id"
    assert bad["error"] == f"{label} longer than {MAX_NAME_CHARS} characters"
    assert len(bad[field] or "") <= MAX_NAME_CHARS
    assert [c["args"] for c in asm.tool_calls] == [{"ok": True}]
    assert sum(isinstance(e, CallInvalid) for e in events) == 1


def test_names_up_to_the_cap_are_kept_whole() -> None:
    name = ("get_weather_" * MAX_NAME_CHARS)[:MAX_NAME_CHARS]  # no piece resends a prefix
    asm = ToolCallAssembler()
    for i in range(0, MAX_NAME_CHARS, 64):
        asm.feed({"index": 0, "name": name[i : i + 64]})
    asm.feed({"index": 0, "args": "{}"})
    asm.finish()
    assert [c["name"] for c in asm.tool_calls] == [name]
