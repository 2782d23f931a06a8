"""``callstream.testing.strategies``: what the strategies draw, and the property they are
for: ``collect(stream_of(calls, ...))`` gives back ``calls`` in every format."""

from __future__ import annotations

import json
import os
import re
from typing import Any

import pytest

from tests.support.strategies import has_inner_empty

pytest.importorskip("hypothesis", reason="the strategies need hypothesis")

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import callstream
from callstream.testing import FORMATS, SPLITS, stream_of
from callstream.testing.strategies import (
    NAME_PATTERN,
    arguments,
    fragments,
    json_values,
    splits,
    streams,
    tool_calls,
)

EXAMPLES = int(os.environ.get("CALLSTREAM_TESTING_EXAMPLES", "8"))
SETTINGS = settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def _triples(calls: Any) -> list[tuple[Any, ...]]:
    return [(c["name"], c["args"], c["id"]) for c in calls]


@pytest.mark.parametrize("fmt", FORMATS)
@SETTINGS
@given(drawn=st.data())
def test_collect_gives_back_the_drawn_calls(fmt: str, drawn: st.DataObject) -> None:
    calls, stream = drawn.draw(streams(fmt))
    assert stream.format == fmt
    result = callstream.collect(stream)
    assert _triples(result.tool_calls) == _triples(calls)
    assert result.invalid_tool_calls == []


@SETTINGS
@given(calls=tool_calls(min_size=0, max_size=4))
def test_calls_have_provider_names_distinct_ids_and_object_arguments(
    calls: list[dict[str, Any]],
) -> None:
    assert len({c["id"] for c in calls}) == len(calls)
    for call in calls:
        assert re.fullmatch(NAME_PATTERN, call["name"]) and len(call["name"]) <= 64
        assert isinstance(call["args"], dict)
        json.dumps(call["args"], ensure_ascii=False).encode("utf-8")  # valid UTF-8 JSON


@SETTINGS
@given(args=arguments(inner_empty=False))
def test_arguments_without_inner_empties_stream_as_vertex(args: dict[str, Any]) -> None:
    assert not has_inner_empty(args)
    stream = stream_of([{"name": "f", "args": args, "id": "c"}], format="vertex")
    assert callstream.collect(stream).tool_calls[0]["args"] == args


@SETTINGS
@given(text=st.text(max_size=40), data=st.data())
def test_fragments_join_back(text: str, data: st.DataObject) -> None:
    pieces = data.draw(fragments(text))
    assert "".join(pieces) == text and pieces


@SETTINGS
@given(split=splits(), value=json_values(5))
def test_splits_are_split_names(split: str, value: Any) -> None:
    assert split in SPLITS
    json.dumps(value)


def test_the_names_given_are_drawn_from() -> None:
    @SETTINGS
    @given(calls=tool_calls(names=["a", "b"], max_size=5))
    def inner(calls: list[dict[str, Any]]) -> None:
        assert {c["name"] for c in calls} <= {"a", "b"}

    inner()


def test_an_unknown_format_is_refused() -> None:
    @settings(max_examples=1, database=None)
    @given(drawn=streams("nope"))
    def inner(drawn: Any) -> None:
        raise AssertionError("drawn from an unknown format")

    with pytest.raises(ValueError, match="unknown format 'nope'"):
        inner()
