"""Growth checks for the provider translators on hostile input: cost at n and 2n.

Each check measures one quantity (traced peak memory, or the best of a few wall-clock
runs, in CPU time) for an input of size n and of size 2n and prints the ratio; a linear cost gives
about 2, a bounded one about 1. The script exits non-zero if a ratio is over 2.3.

- Gemini ``partialArgs`` leaves each jumping ``MAX_INDEX_GAP`` past an array's end
  (memory): arrays being rebuilt are sparse, so memory follows the leaves, not the gaps.
- Gemini leaves out of order, all positions filled (time; the rebuilt value is checked).
- OpenAI Chat chunks with distinct unusable indexes (time): each makes a call of its own.
- Arguments given as objects nested far past the depth limit (time): refused at the
  limit, so the cost does not grow with the depth.
- Hostile objects (a raising ``__getattr__``) in every tool-call entry (time).

Run: ``python benchmarks/bench_growth_providers.py [--quick]`` (harness: ``_growth.py``).
"""

from __future__ import annotations

import dataclasses
import functools
import sys
from collections.abc import Callable
from typing import Any

from _growth import Check, Measure, main, scaled
from callstream import ToolCallAssembler
from callstream.providers.gemini import MAX_INDEX_GAP, GeminiTranslator
from callstream.providers.openai_chat import OpenAIChatTranslator


def gemini_payloads(leaf_list: list[dict[str, Any]]) -> list[Any]:
    def response(part: dict[str, Any]) -> dict[str, Any]:
        return {"candidates": [{"content": {"role": "model", "parts": [part]}, "index": 0}]}

    payloads = [response({"functionCall": {"name": "f", "willContinue": True}})]
    for start in range(0, len(leaf_list), 10):
        batch = leaf_list[start : start + 10]
        payloads.append(response({"functionCall": {"partialArgs": batch, "willContinue": True}}))
    payloads.append(response({"functionCall": {}}))
    return payloads


def gemini_gaps(n: int) -> list[Any]:
    return gemini_payloads(
        [{"jsonPath": f"$.a[{(i + 1) * MAX_INDEX_GAP}]", "numberValue": i} for i in range(n)]
    )


def gemini_reversed(n: int) -> list[Any]:
    """Positions 0..n-1 written in reverse order within blocks of 1,000 (replay mode)."""
    order = [b + 999 - i for b in range(0, n, 1000) for i in range(1000)]
    return gemini_payloads([{"jsonPath": f"$.a[{p}]", "numberValue": p} for p in order])


def chat_bad_indexes(n: int) -> list[Any]:
    return [
        {
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "tool_calls": [
                            {
                                "index": f"bad{i}",
                                "id": f"c{i}",
                                "function": {"name": "f", "arguments": "{}"},
                            }
                        ]
                    },
                }
            ]
        }
        for i in range(n)
    ] + [{"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}]


@dataclasses.dataclass
class Box:
    inner: Any = None


def deep_args(n: int) -> list[Any]:
    value: Any = {"leaf": 1}
    for _ in range(n):
        value = Box(value)
    return [
        {
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "tool_calls": [
                            {"index": 0, "id": "c", "function": {"name": "f", "arguments": value}}
                        ]
                    },
                }
            ]
        }
    ]


class Hostile:
    def __getattr__(self, name: str) -> Any:
        raise RecursionError(name)


def hostile_entries(n: int) -> list[Any]:
    return [
        {
            "choices": [
                {
                    "index": 0,
                    "delta": {"tool_calls": [Hostile(), {"index": 0, "function": Hostile()}]},
                }
            ]
        }
        for _ in range(n)
    ]


def consume(make_translator: Callable[[], Any], payloads: list[Any]) -> None:
    translator = make_translator()
    assembler = ToolCallAssembler()
    for payload in payloads:
        assembler.apply(translator.translate(payload))
    if not assembler.finished:
        assembler.finish()


def check(
    name: str,
    measure: Measure,
    build: Callable[[int], list[Any]],
    make_translator: Callable[[], Any],
    n: int,
) -> Check:
    run = functools.partial(consume, make_translator)
    return Check(name, measure, build, n, run=run, repeats=7)


def checks(quick: bool) -> list[Check]:
    """The checks (``quick``: sizes divided by 4)."""
    return [
        check(
            "gemini leaves jumping MAX_INDEX_GAP past the end",
            "memory",
            gemini_gaps,
            GeminiTranslator,
            scaled(2_000, quick),
        ),
        check(
            "gemini leaves out of order (all filled)",
            "time",
            gemini_reversed,
            GeminiTranslator,
            scaled(10_000, quick),
        ),
        check(
            "openai-chat distinct unusable indexes",
            "time",
            chat_bad_indexes,
            OpenAIChatTranslator,
            scaled(400, quick),
        ),
        check(
            "openai-chat dataclass args nested n deep",
            "time",
            deep_args,
            OpenAIChatTranslator,
            scaled(100_000, quick),
        ),
        check(
            "openai-chat hostile tool-call entries",
            "time",
            hostile_entries,
            OpenAIChatTranslator,
            scaled(2_000, quick),
        ),
    ]


if __name__ == "__main__":
    raise SystemExit(main(checks, sys.argv[1:], __doc__))
