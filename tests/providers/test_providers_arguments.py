"""read_arguments: the one rule for a provider's arguments value, and what each translator
does with an arguments object, ``""`` and an array (issue 12, item 4)."""

from __future__ import annotations

import enum
import json
from typing import Any

import pytest

from callstream import collect
from callstream._json.dump import RECURSION_SAFE_DEPTH
from callstream._json.parser import DEFAULT_MAX_DEPTH
from callstream.providers._arguments import read_arguments


def deep(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(depth - 1):
        value = {"a": value}
    return value


class Color(str, enum.Enum):
    RED = "red"


class Text(str):
    def __str__(self) -> str:
        raise AssertionError("read_arguments called a str subclass's own method")


def cyclic() -> dict[str, Any]:
    value: dict[str, Any] = {"a": 1}
    value["self"] = value
    return value


def pydantic_args() -> Any:
    pydantic = pytest.importorskip("pydantic")

    class Args(pydantic.BaseModel):
        city: str
        days: int = 3

    return Args(city="Paris")


SAFE = deep(RECURSION_SAFE_DEPTH)
OVER_SAFE = deep(RECURSION_SAFE_DEPTH + 5)
TOO_DEEP = deep(DEFAULT_MAX_DEPTH + 5)

#: (label, value factory, expected value, expected value with as_text, reason contains)
TABLE: list[tuple[str, Any, Any, Any, str | None]] = [
    ("None", lambda: None, None, None, None),
    ("empty text", lambda: "", None, None, None),
    ("text", lambda: '{"a": ', '{"a": ', '{"a": ', None),
    ("text subclass", lambda: Text('{"b"'), '{"b"', '{"b"', None),
    ("empty text subclass", lambda: Text(""), None, None, None),
    ("str enum member", lambda: Color.RED, "red", "red", None),
    (
        "object",
        lambda: {"a": 1, "b": [True, None]},
        {"a": 1, "b": [True, None]},
        '{"a": 1, "b": [true, null]}',
        None,
    ),
    ("empty object", lambda: {}, {}, "{}", None),
    ("unicode object", lambda: {"é": "ü"}, {"é": "ü"}, '{"é": "ü"}', None),
    ("object at the recursion-safe depth", lambda: SAFE, SAFE, json.dumps(SAFE), None),
    (
        "object deeper than json.dumps recurses safely",
        lambda: OVER_SAFE,
        json.dumps(OVER_SAFE),
        json.dumps(OVER_SAFE),
        None,
    ),
    ("object deeper than DEFAULT_MAX_DEPTH", lambda: TOO_DEEP, None, None, "exceed a limit"),
    ("array", lambda: [1, 2], "[1, 2]", "[1, 2]", None),
    ("tuple", lambda: (1, "x"), '[1, "x"]', '[1, "x"]', None),
    ("number", lambda: 5, "5", "5", None),
    ("fraction", lambda: 1.5, "1.5", "1.5", None),
    ("boolean", lambda: True, "true", "true", None),
    ("not JSON data", object, None, None, "not JSON data"),
    ("object holding a non-JSON value", lambda: {"a": object()}, None, None, "not JSON data"),
    ("cyclic object", cyclic, None, None, "cycle"),
]


@pytest.mark.parametrize(
    ("label", "make", "value", "text", "reason"), TABLE, ids=[row[0] for row in TABLE]
)
def test_read_arguments_table(
    label: str, make: Any, value: Any, text: Any, reason: str | None
) -> None:
    got, why = read_arguments(make())
    assert got == value and type(got) is type(value)
    got_text, why_text = read_arguments(make(), as_text=True)
    assert got_text == text and type(got_text) is type(text)
    if reason is None:
        assert why is None and why_text is None
    else:
        assert why is not None and reason in why and why == why_text


def test_read_arguments_sdk_object() -> None:
    args = pydantic_args()
    assert read_arguments(args) == ({"city": "Paris", "days": 3}, None)
    assert read_arguments(args, as_text=True) == ('{"city": "Paris", "days": 3}', None)


def test_read_arguments_never_raises_on_a_hostile_object() -> None:
    class Hostile:
        def model_dump(self) -> Any:
            raise RuntimeError("boom")

        @property
        def __dict__(self) -> Any:  # type: ignore[override]
            raise RuntimeError("boom")

    value, why = read_arguments(Hostile())
    assert value is None and why is not None


# --- what each translator does with an arguments object, "" and an array ----------------


def payloads(fmt: str, value: Any) -> list[Any]:
    """A stream of format ``fmt`` with one call ``f`` whose arguments field is ``value``."""
    if fmt == "openai-chat":
        entry = {"index": 0, "id": "c", "function": {"name": "f", "arguments": value}}
        return [
            {"choices": [{"index": 0, "delta": {"tool_calls": [entry]}}]},
            {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
        ]
    if fmt == "openai-responses":
        item = {"type": "function_call", "id": "i", "call_id": "c", "name": "f", "arguments": value}
        return [
            {"type": "response.output_item.added", "output_index": 0, "item": item},
            {"type": "response.output_item.done", "output_index": 0, "item": item},
            {"type": "response.completed"},
        ]
    if fmt == "anthropic":
        block = {"type": "tool_use", "id": "c", "name": "f", "input": value}
        return [
            {"type": "content_block_start", "index": 0, "content_block": block},
            {"type": "content_block_stop", "index": 0},
            {"type": "message_delta", "delta": {"stop_reason": "tool_use"}},
        ]
    if fmt == "gemini":
        part = {"functionCall": {"id": "c", "name": "f", "args": value}}
        return [{"candidates": [{"content": {"parts": [part]}, "finishReason": "STOP"}]}]
    if fmt == "bedrock":
        start = {"toolUse": {"toolUseId": "c", "name": "f"}}
        return [
            {"contentBlockStart": {"contentBlockIndex": 0, "start": start}},
            {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"toolUse": {"input": value}}}},
            {"contentBlockStop": {"contentBlockIndex": 0}},
            {"messageStop": {"stopReason": "tool_use"}},
        ]
    if fmt == "cohere":
        call = {"id": "c", "type": "function", "function": {"name": "f", "arguments": value}}
        return [
            {"type": "tool-call-start", "index": 0, "delta": {"message": {"tool_calls": call}}},
            {"type": "tool-call-end", "index": 0},
            {"type": "message-end", "delta": {"finish_reason": "TOOL_CALL"}},
        ]
    if fmt == "ollama":
        call = {"id": "c", "function": {"name": "f", "arguments": value}}
        return [
            {"done": False, "message": {"tool_calls": [call]}},
            {"done": True, "message": {}, "done_reason": "stop"},
        ]
    raise AssertionError(fmt)


FORMATS = ["openai-chat", "openai-responses", "anthropic", "gemini", "bedrock", "cohere", "ollama"]

ARRAY_ERROR = "arguments must be a JSON object, got array"

#: fmt -> (result for {"a": 1}, for "", for [1, 2]): ("valid", args) or ("invalid", error).
#: Unchanged by the one rule except where noted.
EXPECTED: dict[str, tuple[Any, Any, Any]] = {
    "openai-chat": (("valid", {"a": 1}), ("valid", {}), ("invalid", ARRAY_ERROR)),
    "openai-responses": (("valid", {"a": 1}), ("valid", {}), ("invalid", ARRAY_ERROR)),
    # Anthropic's {"a": 1} start input is a programmatic call's whole input; an array
    # start input was ignored (a valid call with {}): now the call is invalid (changed)
    "anthropic": (("valid", {"a": 1}), ("valid", {}), ("invalid", ARRAY_ERROR)),
    "gemini": (("valid", {"a": 1}), ("valid", {}), ("invalid", ARRAY_ERROR)),
    # an array handed over as a decoded delta input was ignored: now invalid (changed)
    "bedrock": (("valid", {"a": 1}), ("valid", {}), ("invalid", ARRAY_ERROR)),
    # array arguments were ignored (a valid call with {}): now invalid (changed)
    "cohere": (("valid", {"a": 1}), ("valid", {}), ("invalid", ARRAY_ERROR)),
    "ollama": (("valid", {"a": 1}), ("valid", {}), ("invalid", ARRAY_ERROR)),
}


def verdict(fmt: str, value: Any) -> tuple[str, Any]:
    result = collect(payloads(fmt, value), provider=fmt)
    if result.tool_calls:
        (call,) = result.tool_calls
        assert call["name"] == "f"
        return "valid", call["args"]
    (bad,) = result.invalid_tool_calls
    assert bad["name"] == "f"
    return "invalid", bad["error"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_each_translator_reads_arguments_by_the_one_rule(fmt: str) -> None:
    as_object, empty, array = EXPECTED[fmt]
    assert verdict(fmt, {"a": 1}) == as_object
    assert verdict(fmt, "") == empty
    assert verdict(fmt, [1, 2]) == array


def test_langchain_server_tool_call_args_by_the_one_rule() -> None:
    def server(args: Any) -> Any:
        block = {"type": "server_tool_call", "id": "s", "name": "web", "args": args, "index": 0}
        return collect([[block]], provider="langchain").server_tool_calls

    assert server({"q": "x"}) == [
        {"type": "server_tool_call", "name": "web", "args": {"q": "x"}, "id": "s"}
    ]
    assert server("") == [{"type": "server_tool_call", "name": "web", "args": {}, "id": "s"}]
    # an array: still no arguments object (its reason is now the assembler's)
    assert server([1, 2]) == [{"type": "server_tool_call", "name": "web", "args": {}, "id": "s"}]
