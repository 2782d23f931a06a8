"""The per-chunk value classes (``callstream._types.Record``) behave as the frozen
dataclasses they replaced, in the pure and in the compiled build alike."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from typing import Any

import pytest

from callstream import ArgumentsDelta, CallChunk, StreamUpdate, TextDelta, ValueClosed
from callstream._assembly.types import new_arguments_delta, new_call_chunk, new_text_delta
from callstream._types import Record, fast_constructor, is_native
from callstream._update import new_update
from tests.compiled_build import COMPILED
from tests.record_fields import as_dict, field_names

_CALL = {"name": "f", "args": {"a": [1]}, "id": "c1", "type": "tool_call"}

SAMPLES: list[tuple[type[Record], dict[str, Any]]] = [
    (CallChunk, {"index": 0, "id": "c1", "name": "f", "args": '{"a'}),
    (TextDelta, {"text": "hi", "reasoning": True}),
    (ArgumentsDelta, {"index": 1, "text": "}", "changes": (ValueClosed(path=()),)}),
    (
        StreamUpdate,
        {
            "events": (),
            "tool_calls": [_CALL],
            "invalid_tool_calls": [],
            "finish_reason": "stop",
            "payload": {"p": 1},
            "server_tool_calls": [],
            "text": "t",
            "reasoning": "",
        },
    ),
]
IDS = [cls.__name__ for cls, _ in SAMPLES]


@pytest.mark.parametrize(("cls", "fields"), SAMPLES, ids=IDS)
def test_fields_equality_and_repr(cls: type[Record], fields: dict[str, Any]) -> None:
    obj = cls(**fields)
    assert field_names(cls) == list(fields)
    assert as_dict(obj) == fields
    assert obj == cls(**fields)
    changed = {"text": "zz"} if "text" in fields else {"index": 9}
    assert obj != cls(**{**fields, **changed})
    assert (obj == object()) is False
    shown = ", ".join(f"{k}={v!r}" for k, v in fields.items())
    assert repr(obj) == f"{cls.__name__}({shown})"
    assert not hasattr(obj, "__dict__")


@pytest.mark.parametrize(("cls", "fields"), SAMPLES, ids=IDS)
def test_frozen_against_assignment_and_deletion(cls: type[Record], fields: dict[str, Any]) -> None:
    obj = cls(**fields)
    for name in fields:
        with pytest.raises(dataclasses.FrozenInstanceError, match=f"assign to field '{name}'"):
            setattr(obj, name, None)
        with pytest.raises(dataclasses.FrozenInstanceError, match=f"delete field '{name}'"):
            delattr(obj, name)
    with pytest.raises(dataclasses.FrozenInstanceError):
        obj.extra = 1  # type: ignore[attr-defined]
    assert as_dict(obj) == fields


@pytest.mark.parametrize(("cls", "fields"), SAMPLES, ids=IDS)
def test_pickle_copy_and_deepcopy(cls: type[Record], fields: dict[str, Any]) -> None:
    obj = cls(**fields)
    for clone in (pickle.loads(pickle.dumps(obj)), copy.copy(obj), copy.deepcopy(obj)):
        assert type(clone) is cls
        assert as_dict(clone) == fields


@pytest.mark.parametrize(("cls", "fields"), SAMPLES, ids=IDS)
def test_constructor_is_keyword_only(cls: type[Record], fields: dict[str, Any]) -> None:
    with pytest.raises(TypeError):
        cls(*fields.values())


def test_hash_follows_the_compared_fields() -> None:
    chunk = CallChunk(index=0, id="c", name="f", args="{")
    assert hash(chunk) == hash(CallChunk(index=0, id="c", name="f", args="{"))
    assert len({TextDelta(text="a"), TextDelta(text="a"), TextDelta(text="b")}) == 2
    update = StreamUpdate(events=(), tool_calls=[], invalid_tool_calls=[], finish_reason=None)
    with pytest.raises(TypeError, match="unhashable"):
        hash(update)  # lists, as the dataclass had


def test_stream_update_ignores_the_payload_in_equality_and_defaults() -> None:
    base: dict[str, Any] = {
        "events": (),
        "tool_calls": [],
        "invalid_tool_calls": [],
        "finish_reason": None,
    }
    one, two = StreamUpdate(**base, payload={"a": 1}), StreamUpdate(**base, payload={"b": 2})
    assert one == two
    assert one.server_tool_calls == [] and one.text == "" and one.reasoning == ""
    assert one.server_tool_calls is not two.server_tool_calls  # a fresh list each


def test_match_by_position_and_keyword() -> None:
    match CallChunk(index=2, name="f"):
        case CallChunk(2, None, "f", None):
            pass
        case _:
            pytest.fail("no positional match")
    match TextDelta(text="x", reasoning=True):
        case TextDelta(text="x", reasoning=True):
            pass
        case _:
            pytest.fail("no keyword match")
    match new_arguments_delta(0, "{", ()):
        case ArgumentsDelta(0, text):
            assert text == "{"
        case _:
            pytest.fail("no positional match")


def test_hot_path_builders_equal_the_constructors() -> None:
    assert new_call_chunk(1, "c", "f", "{") == CallChunk(index=1, id="c", name="f", args="{")
    assert new_text_delta("t", False) == TextDelta(text="t")
    update = new_update((), [_CALL], [], "stop", None, [], "x", "")
    assert update == StreamUpdate(
        events=(), tool_calls=[_CALL], invalid_tool_calls=[], finish_reason="stop", text="x"
    )
    for cls, _ in SAMPLES:
        assert type(cls.__dict__["__init__"]).__name__ != "function" if COMPILED else True
        assert is_native(cls) is COMPILED


@pytest.mark.skipif(COMPILED, reason="a compiled record has no slot descriptors to set")
def test_fast_constructor_needs_unchecked_for_a_record() -> None:
    with pytest.raises(TypeError, match=r"TextDelta\.__init__"):
        fast_constructor(TextDelta)
    factory = fast_constructor(TextDelta, unchecked=True)
    assert factory("a", True) == TextDelta(text="a", reasoning=True)


@pytest.mark.skipif(not COMPILED, reason="the compiled build only")
def test_fast_constructor_refuses_a_compiled_record() -> None:
    with pytest.raises(TypeError, match="compiled"):
        fast_constructor(TextDelta, unchecked=True)
