"""dumps_bounded: json.dumps's output for any value within the limit, never RecursionError."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from callstream import JSONLimitError
from callstream._json.dump import RECURSION_SAFE_DEPTH, dumps_bounded, nesting_depth

scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=5) | st.integers(), inner, max_size=4)
    ),
    max_leaves=20,
)


def _wrap(value: object, depth: int) -> object:
    for i in range(depth):
        value = [value] if i % 2 else {"k": value, 1: None}
    return value


@given(values, st.booleans())
def test_equals_json_dumps_shallow(value: object, ascii_only: bool) -> None:
    assert dumps_bounded(value, max_depth=1000, ensure_ascii=ascii_only) == json.dumps(
        value, ensure_ascii=ascii_only
    )


@given(values, st.booleans())
def test_equals_json_dumps_deep(value: object, ascii_only: bool) -> None:
    deep = _wrap(value, RECURSION_SAFE_DEPTH + 5)
    expected = json.dumps(deep, ensure_ascii=ascii_only)  # fine at this depth for json
    assert dumps_bounded(deep, max_depth=1000, ensure_ascii=ascii_only) == expected


def test_deep_value_is_a_limit_error_not_recursion() -> None:
    deep: object = 1
    for _ in range(100_000):
        deep = [deep]
    with pytest.raises(JSONLimitError, match="max_depth=1000"):
        dumps_bounded(deep, max_depth=1000)
    assert nesting_depth(deep, 10) is None


def test_deep_value_within_a_raised_limit_is_written_iteratively() -> None:
    deep: object = {"a": "é"}
    for _ in range(5_000):
        deep = [deep]
    text = dumps_bounded(deep, max_depth=10_000)
    assert text == "[" * 5_000 + '{"a": "é"}' + "]" * 5_000


def test_cycle_is_a_limit_error() -> None:
    cyclic: list[object] = []
    cyclic.append(cyclic)
    with pytest.raises(JSONLimitError):
        dumps_bounded(cyclic, max_depth=50)


def test_depth_counts() -> None:
    assert nesting_depth(1, 5) == 0
    assert nesting_depth([], 5) == 1
    assert nesting_depth({"a": [[1]]}, 5) == 3
    assert nesting_depth({"a": [[1]]}, 2) is None


def test_unserializable_raises_like_json() -> None:
    with pytest.raises(TypeError):
        dumps_bounded({"a": object()}, max_depth=10)
    with pytest.raises(TypeError):
        dumps_bounded(_wrap({"a": object()}, 300), max_depth=1000)
