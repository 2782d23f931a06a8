"""Hostile input to the assembler: deep objects, many calls, long invalid text, junk.

Bounded memory and only our errors on every path; the cost side (linear time) is checked
by ``tests/growth/test_growth_assembly.py``. The limits themselves (``max_calls``,
``max_chars``, the name cap, ...) are tested in ``tests/assembly/test_options.py``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from callstream._assembly import (
    CallDone,
    CallEnd,
    CallFailure,
    CallInvalid,
    CallStarted,
    ServerToolUse,
    ToolCallAssembler,
)
from callstream._errors import CallstreamError, ChunkValidationError
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


# max_calls here only makes calls overflow; the limit itself: tests/assembly/test_options.py
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


# --- 4. wrong-typed index --------------------------------------------------------------------


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


# --- 5. only our errors -----------------------------------------------------------------------

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
def test_junk_signals_raise_only_our_errors(  # max_calls: a bound here, tested in test_options
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
