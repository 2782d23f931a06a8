"""The shared value machinery the XML-ish families use: raw values typed by the tool's
parameter schema (or the one rule without), and the arguments object written as JSON a
part at a time (a string value growing as it streams)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from callstream.tool_parsers._values import ArgsWriter, json_string_part, param_schema, type_value

SCHEMAS = {
    "f": {
        "type": "object",
        "properties": {
            "n": {"type": "integer"},
            "x": {"type": "number"},
            "ok": {"type": "boolean"},
            "s": {"type": "string"},
            "o": {"type": "object"},
            "a": {"type": "array"},
            "maybe": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
            "choice": {"enum": ["red", "blue"]},
        },
    }
}


@pytest.mark.parametrize(
    ("param", "raw", "value"),
    [
        ("n", "42", 42),
        ("n", " 42\n", 42),
        ("n", "4.0", 4),
        ("n", "forty", "forty"),  # not an integer: the text, as written
        ("x", "2.5", 2.5),
        ("x", "1e-05", 1e-05),
        ("ok", "True", True),
        ("ok", "false", False),
        ("s", "42", "42"),  # a string parameter keeps digits as text
        ("s", " spaced ", " spaced "),
        ("o", '{"a": [1]}', {"a": [1]}),
        ("a", "[1, 2]", [1, 2]),
        ("maybe", "null", None),
        ("maybe", "7", 7),
        ("choice", "red", "red"),
        ("unknown", "3", 3),  # no schema: the rule
        ("unknown", "three", "three"),
        ("unknown", '"quoted"', '"quoted"'),  # a JSON string stays the text
        ("unknown", "NaN", "NaN"),
    ],
)
def test_type_value(param: str, raw: str, value: Any) -> None:
    got = type_value(raw, param_schema(SCHEMAS, "f", param))
    assert got == value and type(got) is type(value)


def test_no_schema_for_an_unknown_tool_or_no_tools() -> None:
    assert param_schema(SCHEMAS, "g", "n") is None
    assert param_schema(None, "f", "n") is None


@given(
    st.lists(
        st.tuples(st.text(max_size=5), st.text(max_size=5) | st.integers() | st.none()),
        max_size=4,
        unique_by=lambda kv: kv[0],
    ),
    st.integers(1, 4),
)
def test_args_writer_writes_json_piece_by_piece(items: list[tuple[str, Any]], size: int) -> None:
    writer = ArgsWriter()
    parts: list[str] = []
    for key, value in items:
        parts.append(writer.key(key))
        if isinstance(value, str):
            parts.append(writer.string_start())
            parts += [writer.string_part(value[i : i + size]) for i in range(0, len(value), size)]
            parts.append(writer.string_end())
        else:
            parts.append(writer.value(value))
    parts.append(writer.close())
    assert json.loads("".join(parts)) == dict(items)


def test_a_string_part_is_escaped() -> None:
    assert json_string_part('a"\\\n</x>é') == 'a\\"\\\\\\n</x>é'
