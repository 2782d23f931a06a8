"""The other naming style of a field name (``alternate_key``): its answers, and the bound
on what it remembers."""

from __future__ import annotations

import pytest

from callstream.providers import _fields
from callstream.providers._fields import alternate_key, get


@pytest.mark.parametrize(
    ("key", "other"),
    [
        ("functionCall", "function_call"),
        ("tool_use_id", "toolUseId"),
        ("finishReason", "finish_reason"),
        ("content", None),
        ("_private", None),
        ("id", None),
    ],
)
def test_the_other_style_and_the_same_answer_when_asked_again(key: str, other: str | None) -> None:
    assert alternate_key(key) == other
    assert alternate_key(key) == other  # answered from what it remembers


def test_what_it_remembers_is_bounded_by_distinct_keys() -> None:
    for number in range(3 * _fields._MAX_ALTERNATES):
        assert alternate_key(f"someKey{number}") == f"some_key{number}"
    assert len(_fields._ALTERNATES) <= _fields._MAX_ALTERNATES
    # past the bound it still answers, by computing
    assert alternate_key("lateKeyX") == "late_key_x"
    assert get({"late_key_x": 1}, "lateKeyX") == 1
