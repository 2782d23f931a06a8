"""The hot paths build frozen dataclasses through their slots; the result must be exactly
what the constructors build (equal, same hash, still frozen)."""

from __future__ import annotations

import dataclasses

import pytest

from callstream import (
    ArgumentsDelta,
    ScalarSet,
    StreamUpdate,
    StringExtended,
    ToolCallAssembler,
    ValueClosed,
    ValueStarted,
)
from callstream._assembly.types import new_arguments_delta
from callstream._json import changes
from callstream._pipeline import Pipeline
from tests.record_fields import as_dict


def same(fast: object, slow: object) -> None:
    assert type(fast) is type(slow)
    assert fast == slow
    assert repr(fast) == repr(slow)
    assert as_dict(fast) == as_dict(slow)
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.path = ()  # type: ignore[attr-defined]


def test_change_builders_equal_constructors() -> None:
    path = ("a", 0)
    same(changes.value_started(path, "string"), ValueStarted(path=path, kind="string"))
    same(changes.string_extended(path, "xy"), StringExtended(path=path, text="xy"))
    same(changes.scalar_set(path, 1.5), ScalarSet(path=path, value=1.5))
    same(changes.value_closed(path), ValueClosed(path=path))
    assert hash(changes.value_closed(path)) == hash(ValueClosed(path=path))


def test_arguments_delta_builder_equals_constructor() -> None:
    fast = new_arguments_delta(2, '{"a"', (ValueStarted(path=(), kind="object"),))
    slow = ArgumentsDelta(index=2, text='{"a"', changes=(ValueStarted(path=(), kind="object"),))
    assert type(fast) is ArgumentsDelta
    assert fast == slow
    assert repr(fast) == repr(slow)
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.index = 3  # type: ignore[misc]


def test_stream_update_builder_equals_constructor() -> None:
    pipeline = Pipeline(provider="openai-chat")
    payload = {
        "choices": [
            {
                "index": 0,
                "delta": {
                    "tool_calls": [
                        {"index": 0, "id": "c1", "function": {"name": "f", "arguments": "{}"}}
                    ]
                },
                "finish_reason": None,
            }
        ]
    }
    (update,) = pipeline.feed(payload)
    assembler = ToolCallAssembler()
    expected_events = tuple(assembler.feed({"index": 0, "id": "c1", "name": "f", "args": "{}"}))
    slow = StreamUpdate(
        events=expected_events,
        tool_calls=assembler.tool_calls,
        invalid_tool_calls=assembler.invalid_tool_calls,
        finish_reason=None,
        payload=payload,
    )
    assert type(update) is StreamUpdate
    assert update == slow
    assert update.payload is payload
    with pytest.raises(dataclasses.FrozenInstanceError):
        update.finish_reason = "x"  # type: ignore[misc]
