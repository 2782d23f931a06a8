"""The assembler under hostile input grows linearly (time; memory past ``max_calls`` stays
flat): streams of n and 4n signals, the views a driver reads after every payload read
(``tool_calls``, ``invalid_tool_calls``, ``server_tool_calls``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from callstream._assembly import ServerToolUse, ToolCallAssembler
from tests.growth.scaling import Measure, assert_linear

pytestmark = pytest.mark.growth

Stream = list[Any]


def many_calls(n: int) -> Stream:
    """n calls one after another, OpenAI style: a starting chunk, then two text pieces."""
    out: Stream = []
    for i in range(n):
        out.append({"index": i, "id": f"call_{i}", "name": "get_weather", "args": ""})
        out.append({"index": i, "id": None, "name": None, "args": '{"city": '})
        out.append({"index": i, "id": None, "name": None, "args": f'"Paris {i}"}}'})
    return out


def many_malformed_calls(n: int) -> Stream:
    """n calls, each listed in tool_calls first, then turned invalid by malformed text."""
    out: Stream = []
    for i in range(n):
        out.append({"index": i, "id": f"call_{i}", "name": "f", "args": "{"})
        out.append({"index": i, "id": None, "name": None, "args": "oops"})
    return out


def many_server_calls(n: int) -> Stream:
    """n server-side tool calls (marked right after their first chunk) streaming text."""
    out: Stream = []
    for i in range(n):
        out.append({"index": i, "id": f"srv_{i}", "name": "web_search", "args": ""})
        out.append(ServerToolUse(index=i))
        out.append({"index": i, "id": None, "name": None, "args": '{"query": '})
        out.append({"index": i, "id": None, "name": None, "args": f'"q {i}"}}'})
    return out


def long_invalid_call(size: int) -> Stream:
    """One call invalid from its second character that keeps streaming 4-character pieces."""
    out: Stream = [{"index": 0, "id": "a", "name": "f", "args": "{x"}]
    out.extend({"index": 0, "id": None, "name": None, "args": "abcd"} for _ in range(size // 4))
    return out


def consume(stream: Stream, options: dict[str, Any]) -> ToolCallAssembler:
    asm = ToolCallAssembler(**options)
    for signal in stream:
        asm.apply(signal)
        asm.tool_calls
        asm.invalid_tool_calls
        asm.server_tool_calls
    asm.finish()
    return asm


CASES: list[tuple[str, Callable[[int], Stream], int, dict[str, Any], Measure]] = [
    ("calls within max_calls", many_calls, 100, {}, "time"),
    ("calls past max_calls=100", many_calls, 700, {"max_calls": 100}, "time"),
    ("calls past max_calls=100", many_calls, 700, {"max_calls": 100}, "memory"),
    ("calls past default max_calls", many_calls, 700, {}, "time"),
    ("malformed calls within max_calls", many_malformed_calls, 100, {}, "time"),
    ("malformed calls past max_calls", many_malformed_calls, 700, {}, "time"),
    ("server calls within max_calls", many_server_calls, 100, {}, "time"),
    ("server calls past max_calls", many_server_calls, 700, {}, "time"),
    ("invalid call streaming (chars)", long_invalid_call, 20_000, {}, "time"),
]


@pytest.mark.parametrize(
    ("build", "n", "options", "kind"),
    [case[1:] for case in CASES],
    ids=[f"{name} ({kind})" for name, *_, kind in CASES],
)
def test_assembly_grows_linearly(
    build: Callable[[int], Stream], n: int, options: dict[str, Any], kind: Measure
) -> None:
    # past max_calls=100 the assembler only counts the calls it refuses: its memory is flat
    flat = kind == "memory"
    assert_linear(build, lambda s: consume(s, options), n, kind=kind, flat=flat)
