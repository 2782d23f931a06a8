"""Growth checks for the assistant's text (issue 15): cost at n and 2n.

Each check measures CPU time (best of a few runs) or traced peak memory for an input of
size n and of size 2n and prints the ratio; a linear cost gives about 2. The script exits
non-zero if a ratio is over 2.3.

- ``collect()`` of n text chunks (OpenAI Chat ``delta.content``): the whole text is kept
  as parts and joined once, at the end (time, and memory: the parts and the one string).
- ``stream()`` of n text chunks, reading each update's ``text`` (time).
- ``stream()`` of n text chunks then a tool call in n argument fragments, reading
  ``result`` after every fragment (time): the joined text is kept, so a read that finds
  no new text does not join the n parts again.
- Anthropic text and thinking deltas, n of each, with ``reasoning=True`` (time).

(Reading ``result`` after every update of a stream whose every payload adds text copies
the text once per read: a new ``str`` each time, which no kept representation avoids.)

Run: ``python benchmarks/bench_growth_text.py [--quick]`` (harness: ``_growth.py``).
"""

from __future__ import annotations

import sys
from typing import Any

from _growth import Check, main, scaled
from callstream import collect, stream


def chat(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def text_chunks(n: int) -> list[Any]:
    return [chat({"content": f"w{i % 10} "}) for i in range(n)] + [chat({}, "stop")]


def call_after_text(n: int) -> list[Any]:
    head = [chat({"content": f"w{i % 10} "}) for i in range(n)]
    first = chat(
        {
            "tool_calls": [
                {"index": 0, "id": "c1", "function": {"name": "f", "arguments": '{"a": "'}}
            ]
        }
    )
    body = [
        chat({"tool_calls": [{"index": 0, "function": {"arguments": "xyzw"}}]}) for _ in range(n)
    ]
    last = chat({"tool_calls": [{"index": 0, "function": {"arguments": '"}'}}]}, "tool_calls")
    return [*head, first, *body, last]


def anthropic_text(n: int) -> list[Any]:
    def delta(index: int, kind: str, field: str, text: str) -> dict[str, Any]:
        return {
            "type": "content_block_delta",
            "index": index,
            "delta": {"type": kind, field: text},
        }

    thinking = [delta(0, "thinking_delta", "thinking", "hm ") for _ in range(n)]
    text = [delta(1, "text_delta", "text", "ok ") for _ in range(n)]
    return [
        {"type": "message_start", "message": {"id": "m", "content": []}},
        *thinking,
        *text,
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


def checks(quick: bool) -> list[Check]:
    """The checks (``quick``: sizes divided by 4)."""
    return [
        Check(
            "collect() of n text chunks",
            "time",
            text_chunks,
            scaled(40_000, quick),
            run=collect_text,
            repeats=5,
        ),
        Check(
            "collect() of n text chunks",
            "memory",
            text_chunks,
            scaled(40_000, quick),
            run=collect_text,
        ),
        Check(
            "stream() of n text chunks, reading update.text",
            "time",
            text_chunks,
            scaled(40_000, quick),
            run=stream_text,
            repeats=5,
        ),
        Check(
            "n text chunks, a call in n fragments, result read per fragment",
            "time",
            call_after_text,
            scaled(20_000, quick),
            run=read_result_after_call_fragments,
            repeats=5,
        ),
        Check(
            "anthropic n thinking + n text deltas, reasoning=True",
            "time",
            anthropic_text,
            scaled(40_000, quick),
            run=collect_reasoning,
            repeats=5,
        ),
    ]


if __name__ == "__main__":
    raise SystemExit(main(checks, sys.argv[1:], __doc__))
