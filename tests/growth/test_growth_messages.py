"""``tool_messages()`` costs O(total size of the results), in every format: many small
results, one result with a wide object, one with a long text."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from callstream.runner._messages import tool_messages
from callstream.runner._tool_result import ToolResult
from tests.growth.scaling import assert_linear

pytestmark = pytest.mark.growth


def many_results(n: int) -> list[ToolResult]:
    """n results, a third each done with a dict, done with text, and failed."""
    out = []
    for i in range(n):
        kind = i % 3
        output: Any = {"temp": i, "city": f"Paris {i}"} if kind == 0 else f"sunny {i}"
        out.append(
            ToolResult(
                index=i,
                id=f"call_{i}",
                name="get_weather",
                args={"city": f"Paris {i}"},
                status="error" if kind == 2 else "done",
                output=None if kind == 2 else output,
                error="ValueError: no such city" if kind == 2 else None,
            )
        )
    return out


def wide_output(n: int) -> list[ToolResult]:
    """One result whose output is an object of n keys, each a short list."""
    output = {f"key_{i}": [i, f"v{i}"] for i in range(n)}
    return [ToolResult(index=0, id="c", name="f", args={}, status="done", output=output)]


def long_text(n: int) -> list[ToolResult]:
    """One result whose output is a text of n characters (sent as is)."""
    text = "é☀ab" * (n // 4)
    return [ToolResult(index=0, id="c", name="f", args={}, status="done", output=text)]


FORMATS = ("openai", "openai-responses", "anthropic", "gemini", "bedrock", "ollama")
CASES: list[tuple[Callable[[int], list[ToolResult]], int, str]] = [
    *((many_results, 1_000, fmt) for fmt in FORMATS),
    *((wide_output, 1_000, fmt) for fmt in ("gemini", "bedrock", "openai")),
    (long_text, 200_000, "anthropic"),
]


@pytest.mark.parametrize(
    ("build", "n", "fmt"), CASES, ids=[f"{b.__name__} ({fmt})" for b, _, fmt in CASES]
)
def test_tool_messages_grow_linearly(
    build: Callable[[int], list[ToolResult]], n: int, fmt: Any
) -> None:
    assert_linear(build, lambda results: tool_messages(results, fmt), n)
