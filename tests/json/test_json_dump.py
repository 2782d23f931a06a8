"""dumps_bounded: json.dumps's output for any value within the limit, never RecursionError;
its strict mode (the output rule: lone surrogates as U+FFFD, no NaN) read by a strict
reader."""

from __future__ import annotations

import inspect
import json
import sys
from collections.abc import Callable
from typing import TypeVar

import pytest
from hypothesis import given
from hypothesis import strategies as st

from callstream import JSONLimitError
from callstream._json.dump import (
    RECURSION_SAFE_DEPTH,
    dumps_bounded,
    nesting_depth,
    same_json,
    strict_data,
)
from tests.support.strict_json import strict_loads

T = TypeVar("T")

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


# --- strict mode: the output rule (issue 22, items 2 and 9) --------------------------------

LONE = ["\udc80", "\ud800", "\udfff", "\udbff", "a\udc80b", "\ud83d\ude80"]  # low, high, ...


def _deep(value: object, depth: int) -> object:
    for i in range(depth):
        value = [value] if i % 2 else {"k": value}
    return value


def _with_stack(frames: int, call: Callable[[], T]) -> T:
    """``call()`` from ``frames`` Python frames deeper than here (a web server's stack)."""
    if frames == 0:
        return call()
    return _with_stack(frames - 1, call)


@pytest.mark.parametrize("lone", LONE)
@pytest.mark.parametrize("depth", [0, 3, RECURSION_SAFE_DEPTH + 5])
def test_strict_writes_every_surrogate_as_a_replacement_character(lone: str, depth: int) -> None:
    value = _deep({lone: [lone, {"x": lone}], "plain": "é 🚀"}, depth)
    text = dumps_bounded(value, max_depth=None, strict=True)
    fixed = lone.replace(lone, "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in lone))
    assert strict_loads(text) == _deep({fixed: [fixed, {"x": fixed}], "plain": "é 🚀"}, depth)
    assert "\\ud" not in text and "\\u" not in text  # no escapes: UTF-8 as is
    assert strict_loads(dumps_bounded(strict_data(value), max_depth=None)) == strict_loads(text)


@pytest.mark.parametrize("depth", [0, 3, RECURSION_SAFE_DEPTH + 5])
def test_strict_writes_non_finite_numbers_as_null(depth: int) -> None:
    value = _deep({"nan": float("nan"), "inf": [float("inf"), -float("inf")], "x": 1.5}, depth)
    text = dumps_bounded(value, max_depth=None, strict=True, separators=(",", ":"))
    assert strict_loads(text) == _deep({"nan": None, "inf": [None, None], "x": 1.5}, depth)
    plain = dumps_bounded(value, max_depth=None)  # plain mode is json.dumps: NaN stays
    assert "NaN" in plain and "Infinity" in plain


def test_strict_refuses_ascii_escapes() -> None:
    with pytest.raises(ValueError, match="ensure_ascii"):
        dumps_bounded({"a": 1}, max_depth=None, strict=True, ensure_ascii=True)


@pytest.mark.parametrize("strict", [False, True])
def test_depth_999_under_a_deep_caller_stack_never_raises_recursion_error(strict: bool) -> None:
    """Arguments collect() accepts (999 levels) written from 300 frames down, and a
    shallow value from near the recursion limit, where json.dumps itself fails."""
    value = _deep({"s": "\udc80"}, 998)
    assert nesting_depth(value, 1000) == 999

    def write() -> str:
        return dumps_bounded(value, max_depth=1000, strict=strict, separators=(",", ":"))

    text = _with_stack(300, write)
    assert text == write()
    if strict:
        assert same_json(strict_loads(text), strict_data(value))
    else:
        assert text.endswith('{"s":"\udc80"}' + "}]" * 499)
    shallow = _deep([1, "é"], 150)
    headroom = sys.getrecursionlimit() - len(inspect.stack()) - 60
    with pytest.raises(RecursionError):  # what json.dumps does there
        _with_stack(headroom, lambda: json.dumps(shallow))
    far = _with_stack(headroom, lambda: dumps_bounded(shallow, max_depth=None, strict=strict))
    assert far == json.dumps(shallow, ensure_ascii=False)


def test_without_a_limit_any_depth_is_written_and_a_cycle_is_refused() -> None:
    value: object = "é"
    for _ in range(50_000):
        value = [value]
    assert dumps_bounded(value, max_depth=None, strict=True) == "[" * 50_000 + '"é"' + "]" * 50_000
    cyclic: list[object] = [1]
    cyclic.append([cyclic])
    with pytest.raises(ValueError, match="Circular"):
        dumps_bounded(cyclic, max_depth=None)
    with pytest.raises(ValueError, match="Circular"):
        dumps_bounded(_deep(cyclic, RECURSION_SAFE_DEPTH + 5), max_depth=None)
    with pytest.raises(ValueError, match="Circular"):
        strict_data(cyclic)
    shared = [1]
    assert dumps_bounded(_deep([shared, shared], 300), max_depth=None) == json.dumps(
        _deep([shared, shared], 300)
    ), "a value seen twice (not inside itself) is no cycle"


finite = scalars | st.floats() | st.text(alphabet=st.characters(codec=None), max_size=4)
strict_values = st.recursive(
    finite,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=3), inner, max_size=4)
    ),
    max_leaves=20,
)


@given(
    strict_values, st.sampled_from([0, 1, RECURSION_SAFE_DEPTH + 1]), st.sampled_from([None, 0, 2])
)
def test_strict_output_is_strict_json_of_strict_data(
    value: object, depth: int, indent: int | None
) -> None:
    """Any value, any depth: the text reads strictly, as the data form of the rule."""
    deep = _deep(value, depth)
    text = dumps_bounded(deep, max_depth=None, strict=True, indent=indent)
    assert json.dumps(strict_loads(text)) == json.dumps(strict_data(deep), allow_nan=False)


@given(values, st.sampled_from([None, 0, 2]), st.sampled_from([None, (",", ":")]), st.booleans())
def test_plain_iterative_writer_equals_json_dumps_with_its_options(
    value: object, indent: int | None, separators: tuple[str, str] | None, ascii_only: bool
) -> None:
    deep = _deep(value, RECURSION_SAFE_DEPTH + 3)
    expected = json.dumps(deep, ensure_ascii=ascii_only, indent=indent, separators=separators)
    got = dumps_bounded(
        deep, max_depth=None, ensure_ascii=ascii_only, indent=indent, separators=separators
    )
    assert got == expected


def test_strict_data_copies_and_keeps_the_later_of_two_keys_that_became_equal() -> None:
    inner = {"a": [1, (2, 3)], "n": float("nan")}
    value = {"x" + chr(0xD800): 1, "x" + chr(0xDC80): 2, "inner": inner}
    data = strict_data(value)
    assert data == {"x\ufffd": 2, "inner": {"a": [1, [2, 3]], "n": None}}
    assert data["inner"] is not inner and data["inner"]["a"] is not inner["a"]
    assert json.loads(dumps_bounded(value, max_depth=None, strict=True)) == data


def test_same_json_compares_any_depth() -> None:
    a, b = _deep({"x": [1, 2]}, 5_000), _deep({"x": [1, 2]}, 5_000)
    assert same_json(a, b)
    assert not same_json(a, _deep({"x": [1, 3]}, 5_000))
    assert not same_json(a, _deep({"x": [1, 2]}, 4_999))
    assert same_json({"a": 1}, {"a": 1}) and not same_json({"a": 1}, {"a": 1, "b": 2})
