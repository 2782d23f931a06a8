"""The assistant's text grows linearly: ``collect()`` of n text chunks (the parts joined
once, at the end: time and memory), ``stream()`` reading each update's ``text``, a call
after the text with ``result`` read after every fragment (the joined text is kept, so a
read that finds no new text does not join the parts again), Anthropic thinking and text
with ``reasoning=True``.

(Reading ``result`` after every update of a stream whose every payload adds text copies
the text once per read: a new ``str`` each time, which no kept representation avoids.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from callstream import collect, stream
from tests.growth.scaling import Measure, assert_linear

pytestmark = pytest.mark.growth


def chat(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def call_delta(entry: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return chat({"tool_calls": [{"index": 0, **entry}]}, finish)


def text_chunks(n: int) -> list[Any]:
    return [chat({"content": f"w{i % 10} "}) for i in range(n)] + [chat({}, "stop")]


def call_after_text(n: int) -> list[Any]:
    head = [chat({"content": f"w{i % 10} "}) for i in range(n)]
    first = call_delta({"id": "c1", "function": {"name": "f", "arguments": '{"a": "'}})
    body = [call_delta({"function": {"arguments": "xyzw"}}) for _ in range(n)]
    last = call_delta({"function": {"arguments": '"}'}}, "tool_calls")
    return [*head, first, *body, last]


def anthropic_text(n: int) -> list[Any]:
    def delta(index: int, kind: str, field: str, text: str) -> dict[str, Any]:
        return {"type": "content_block_delta", "index": index, "delta": {"type": kind, field: text}}

    return [
        {"type": "message_start", "message": {"id": "m", "content": []}},
        *(delta(0, "thinking_delta", "thinking", "hm ") for _ in range(n)),
        *(delta(1, "text_delta", "text", "ok ") for _ in range(n)),
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}},
    ]


def collect_text(payloads: list[Any]) -> object:
    return collect(payloads, provider="openai-chat").text


def stream_text(payloads: list[Any]) -> int:
    size = 0
    with stream(payloads, provider="openai-chat") as updates:
        for update in updates:
            size += len(update.text)
    return size


def read_result_after_call_fragments(payloads: list[Any]) -> int:
    size = 0
    with stream(payloads, provider="openai-chat") as updates:
        for update in updates:
            if not update.text:  # a call fragment: the text is as it was
                size += len(updates.result.text)
    return size


def collect_reasoning(payloads: list[Any]) -> object:
    result = collect(payloads, provider="anthropic", reasoning=True)
    return len(result.text) + len(result.reasoning)


CASES: list[tuple[str, Measure, Callable[[int], Any], Callable[[Any], object], int]] = [
    ("collect() of n text chunks", "time", text_chunks, collect_text, 1_500),
    ("collect() of n text chunks", "memory", text_chunks, collect_text, 1_500),
    ("stream() of n text chunks, reading text", "time", text_chunks, stream_text, 1_000),
    (
        "n text chunks, a call in n fragments, result read per fragment",
        "time",
        call_after_text,
        read_result_after_call_fragments,
        500,
    ),
    ("anthropic thinking + text, reasoning=True", "time", anthropic_text, collect_reasoning, 1_000),
]


@pytest.mark.parametrize(
    ("kind", "build", "run", "n"), [c[1:] for c in CASES], ids=[f"{c[0]} ({c[1]})" for c in CASES]
)
def test_text_grows_linearly(
    kind: Measure, build: Callable[[int], Any], run: Callable[[Any], object], n: int
) -> None:
    assert_linear(build, run, n, kind=kind)
