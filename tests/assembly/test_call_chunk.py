"""CallChunk: the one chunk signal from translators to the assembler, checked once."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import callstream
import callstream._assembly.assembler
import callstream.providers.langchain
from callstream import (
    AssemblerStateError,
    CallChunk,
    ChunkValidationError,
    ToolCallAssembler,
    collect,
)
from callstream._assembly.types import CallEnd, CallFailure, ServerToolUse, StreamEnd


class Text(str):
    """A str subclass whose own hash must never take part in routing."""

    def __hash__(self) -> int:
        raise AssertionError("hashed a str subclass")


def test_the_public_constructor_checks_and_normalizes_each_field() -> None:
    chunk = CallChunk(index="3", id=Text("c1"), name=Text("f"), args=Text('{"a"'))  # type: ignore[arg-type]
    assert chunk == CallChunk(index=3, id="c1", name="f", args='{"a"')
    assert type(chunk.id) is str and type(chunk.name) is str and type(chunk.args) is str


@pytest.mark.parametrize(
    ("fields", "name"),
    [
        ({"index": "lc_0"}, "index"),
        ({"index": True}, "index"),
        ({"index": 1.5}, "index"),
        ({"id": 3}, "id"),
        ({"name": b"f"}, "name"),
        ({"args": [1, 2]}, "args"),
        ({"args": 5}, "args"),
    ],
)
def test_a_wrong_field_raises_a_precise_error(fields: dict[str, Any], name: str) -> None:
    with pytest.raises(ChunkValidationError) as info:
        CallChunk(**fields)
    text = str(info.value)
    assert text.startswith("CallChunk: ")
    assert repr(name) in text and repr(fields[name]) in text
    assert isinstance(info.value, TypeError)


def test_it_matches_by_keyword() -> None:
    chunk = CallChunk(index=0, name="f")
    match chunk:
        case CallChunk(index=0, name="f", args=None):
            pass
        case _:
            pytest.fail("no match")


@given(
    index=st.none() | st.integers(min_value=0, max_value=10**6),
    id_=st.none() | st.text(max_size=5),
    name=st.none() | st.text(max_size=5),
    args=st.none() | st.text(max_size=5) | st.dictionaries(st.text(max_size=3), st.integers()),
)
def test_the_translators_positional_build_equals_the_keyword_one(
    index: int | None, id_: str | None, name: str | None, args: Any
) -> None:
    built = CallChunk(index, id_, name, args)
    assert built == CallChunk(index=index, id=id_, name=name, args=args)
    assert repr(built) == repr(CallChunk(index=index, id=id_, name=name, args=args))
    assert hash(CallChunk(index, id_, name, None)) == hash(
        CallChunk(index=index, id=id_, name=name)
    )


def test_apply_merges_call_chunks_like_chunk_dicts() -> None:
    signals: list[Any] = [
        CallChunk(index=0, id="c1", name="f", args='{"a": '),
        CallChunk(index=0, args="1}"),
        CallChunk(index=1, id="c2", name="g", args={"b": [True]}),
    ]
    by_signal = ToolCallAssembler()
    by_dict = ToolCallAssembler()
    for signal in signals:
        events = by_signal.apply(signal)
        as_dict = {"index": signal.index, "id": signal.id, "name": signal.name}
        assert events == by_dict.feed({**as_dict, "args": signal.args})
    assert by_signal.finish("tool_calls") == by_dict.finish("tool_calls")
    assert by_signal.tool_calls == [
        {"name": "f", "args": {"a": 1}, "id": "c1", "type": "tool_call"},
        {"name": "g", "args": {"b": [True]}, "id": "c2", "type": "tool_call"},
    ]


def test_an_arguments_object_too_deep_is_an_invalid_call_not_an_error() -> None:
    deep: dict[str, Any] = {}
    node = deep
    for _ in range(30):
        node["a"] = {}
        node = node["a"]
    assembler = ToolCallAssembler(max_depth=10)
    assembler.apply(CallChunk(index=0, id="c1", name="f", args=deep))
    assembler.finish()
    [invalid] = assembler.invalid_tool_calls
    assert "limit" in (invalid["error"] or "")


def test_apply_after_finish_ignores_late_signals() -> None:
    """The assembler owns "at most one end of stream": apply() ignores every signal after
    the finish (late provider data), while the direct methods keep raising (issue 12)."""
    assembler = ToolCallAssembler()
    assembler.finish("stop")
    late: list[Any] = [
        CallChunk(index=0, name="f", args="{}"),
        {"index": 1, "name": "g", "args": "{}"},
        CallEnd(index=0),
        CallFailure(error="late", index=0),
        ServerToolUse(index=0),
        StreamEnd(reason="length"),
        [CallChunk(index=2, name="h"), StreamEnd(reason="stop")],
    ]
    for signal in late:
        assert assembler.apply(signal) == []
    assert assembler.finish_reason == "stop"
    assert assembler.tool_calls == [] and assembler.invalid_tool_calls == []
    with pytest.raises(AssemblerStateError):
        assembler.feed({"index": 0, "name": "f"})
    with pytest.raises(ChunkValidationError):
        assembler.apply(42)  # type: ignore[arg-type]  # no signal: misuse, even now


def test_user_chunk_dicts_are_checked_exactly_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """LangChain-style chunk dicts are checked by the translator, once each; the assembler
    merges the CallChunks it is given without checking them again."""
    checked: list[Any] = []
    original = callstream.providers.langchain._checked

    def counting(chunk: Any) -> CallChunk:
        checked.append(chunk)
        return original(chunk)

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the assembler checked a chunk again")

    monkeypatch.setattr(callstream.providers.langchain, "_checked", counting)
    monkeypatch.setattr(callstream._assembly.assembler, "read_chunk", refuse)
    payloads = [
        {"name": "f", "args": "", "id": "c1", "index": "0", "type": "tool_call_chunk"},
        {"args": '{"x": ', "index": "0"},
        {"args": "1}", "index": 0},
    ]
    result = collect(payloads, provider="langchain")
    assert checked == payloads
    assert result.tool_calls == [{"name": "f", "args": {"x": 1}, "id": "c1", "type": "tool_call"}]


def test_call_chunk_is_public() -> None:
    assert "CallChunk" in callstream.__all__
    assert callstream.CallChunk is CallChunk
