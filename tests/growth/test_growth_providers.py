"""The provider translators on hostile input grow linearly: Gemini ``partialArgs`` leaves
each jumping ``MAX_INDEX_GAP`` past an array's end (memory follows the leaves, not the
gaps), Gemini leaves out of order, OpenAI Chat chunks with distinct unusable indexes,
arguments nested far past the depth limit (refused at the limit: flat), hostile objects
in every tool-call entry."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest

from callstream import ToolCallAssembler
from callstream.providers.gemini import MAX_INDEX_GAP, GeminiTranslator
from callstream.providers.openai_chat import OpenAIChatTranslator
from tests.growth.scaling import Measure, assert_linear

pytestmark = pytest.mark.growth


def gemini_payloads(leaves: list[dict[str, Any]]) -> list[Any]:
    def response(part: dict[str, Any]) -> dict[str, Any]:
        return {"candidates": [{"content": {"role": "model", "parts": [part]}, "index": 0}]}

    payloads = [response({"functionCall": {"name": "f", "willContinue": True}})]
    for start in range(0, len(leaves), 10):
        batch = leaves[start : start + 10]
        payloads.append(response({"functionCall": {"partialArgs": batch, "willContinue": True}}))
    payloads.append(response({"functionCall": {}}))
    return payloads


def gemini_gaps(n: int) -> list[Any]:
    leaves = [{"jsonPath": f"$.a[{(i + 1) * MAX_INDEX_GAP}]", "numberValue": i} for i in range(n)]
    return gemini_payloads(leaves)


def gemini_reversed(n: int) -> list[Any]:
    """Positions 0..n-1 written in reverse order within blocks of 100 (replay mode)."""
    order = [b + 99 - i for b in range(0, n, 100) for i in range(100)]
    return gemini_payloads([{"jsonPath": f"$.a[{p}]", "numberValue": p} for p in order])


def chat(entries: list[Any]) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": {"tool_calls": entries}}]}


def chat_bad_indexes(n: int) -> list[Any]:
    entry = {"id": "c", "function": {"name": "f", "arguments": "{}"}}
    end = {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}
    return [chat([{**entry, "index": f"bad{i}"}]) for i in range(n)] + [end]


@dataclasses.dataclass
class Box:
    inner: Any = None


def deep_args(n: int) -> list[Any]:
    value: Any = {"leaf": 1}
    for _ in range(n):
        value = Box(value)
    return [chat([{"index": 0, "id": "c", "function": {"name": "f", "arguments": value}}])]


class Hostile:
    def __getattr__(self, name: str) -> Any:
        raise RecursionError(name)


def hostile_entries(n: int) -> list[Any]:
    return [chat([Hostile(), {"index": 0, "function": Hostile()}]) for _ in range(n)]


def consume(make_translator: Callable[[], Any]) -> Callable[[list[Any]], None]:
    def run(payloads: list[Any]) -> None:
        translator = make_translator()
        assembler = ToolCallAssembler()
        for payload in payloads:
            assembler.apply(translator.translate(payload))
        if not assembler.finished:
            assembler.finish()

    return run


CASES: list[tuple[str, Measure, Callable[[int], list[Any]], Callable[[], Any], int]] = [
    ("gemini leaves jumping MAX_INDEX_GAP", "memory", gemini_gaps, GeminiTranslator, 200),
    ("gemini leaves out of order", "time", gemini_reversed, GeminiTranslator, 500),
    ("openai-chat distinct unusable indexes", "time", chat_bad_indexes, OpenAIChatTranslator, 100),
    ("openai-chat dataclass args nested n deep", "time", deep_args, OpenAIChatTranslator, 20_000),
    ("openai-chat hostile tool-call entries", "time", hostile_entries, OpenAIChatTranslator, 200),
]


@pytest.mark.parametrize(
    ("kind", "build", "translator", "n"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_translators_grow_linearly(
    kind: Measure, build: Callable[[int], list[Any]], translator: Callable[[], Any], n: int
) -> None:
    assert_linear(build, consume(translator), n, kind=kind)
