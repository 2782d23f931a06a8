"""The output parsers grow linearly: ``JsonToolsParser`` and ``PydanticToolsParser`` over n
small calls (``max_calls=None``: with the default, calls past 1,000 are only counted),
LangChain's ``ToolCallsOutputParser.transform`` over n ``AIMessageChunk`` s (no callbacks:
with them LangChain's own run report adds up the messages, outside callstream), one call
whose arguments are an open array of n objects (each result copies it: bounded by
``SNAPSHOT_COPY_FACTOR``), and ``min_preview_growth=0`` (previews bounded by
``PREVIEW_WORK_FACTOR``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from pydantic import BaseModel

from callstream.parsers import JsonToolsParser, PydanticToolsParser
from tests.growth.scaling import assert_linear, call

pytestmark = pytest.mark.growth


class Small(BaseModel):
    a: int
    b: str


class Item(BaseModel):
    n: int
    s: str


class Many(BaseModel):
    items: list[Item]


def _split(text: str, size: int = 4) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def call_chunks(n: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i in range(n):
        out.append({"index": i, "id": f"c{i}", "name": "Small", "args": ""})
        for part in _split(json.dumps({"a": i, "b": "x" * 8})):
            out.append({"index": i, "id": None, "name": None, "args": part})
    return out


def array_chunks(n: int) -> list[dict[str, Any]]:
    text = json.dumps({"items": [{"n": i, "s": "abc"} for i in range(n)]})
    out: list[dict[str, Any]] = [{"index": 0, "id": "a", "name": "Many", "args": ""}]
    out += [{"index": 0, "id": None, "name": None, "args": p} for p in _split(text)]
    return out


def consume(iterator: Any) -> None:
    for _ in iterator:
        pass


def json_calls(n: int) -> Callable[[], None]:
    chunks = call_chunks(n)
    return lambda: consume(JsonToolsParser().stream(chunks, max_calls=None))


def pydantic_calls(n: int) -> Callable[[], None]:
    chunks = call_chunks(n)
    return lambda: consume(PydanticToolsParser([Small]).stream(chunks, max_calls=None))


def langchain_calls(n: int) -> Callable[[], None]:
    from langchain_core.messages import AIMessageChunk

    from callstream.parsers.langchain import ToolCallsOutputParser

    messages = [AIMessageChunk(content="", tool_call_chunks=[c]) for c in call_chunks(n)]  # type: ignore[list-item]
    messages.append(AIMessageChunk(content="", response_metadata={"finish_reason": "stop"}))
    parser = ToolCallsOutputParser(assembler_options={"max_calls": None})
    return lambda: consume(parser.transform(iter(messages)))


def json_open_array(n: int) -> Callable[[], None]:
    chunks = array_chunks(n)
    return lambda: consume(JsonToolsParser().stream(chunks))


def pydantic_growth_zero(n: int) -> Callable[[], None]:
    chunks = array_chunks(n)
    return lambda: consume(PydanticToolsParser([Many], min_preview_growth=0).stream(chunks))


CASES: list[tuple[Callable[[int], Callable[[], None]], int]] = [
    (json_calls, 100),
    (pydantic_calls, 100),
    (langchain_calls, 20),
    (json_open_array, 200),
    (pydantic_growth_zero, 150),
]


@pytest.mark.parametrize(("build", "n"), CASES, ids=[b.__name__ for b, _ in CASES])
def test_parsers_grow_linearly(build: Callable[[int], Callable[[], None]], n: int) -> None:
    if build is langchain_calls:
        pytest.importorskip("langchain_core")
    assert_linear(build, call, n, repeats=3)
