"""Growth checks for the server-side tool paths and the translators' guards.

Each case is timed at size n and 2n (best of several runs); the ratio must stay at or
below 2.3 (linear cost). Prints one line per case and exits non-zero if any ratio is over.

Cases:
- anthropic: a stream of n server-side calls (web search) and n client calls through the
  translator and the assembler (``server_tool_calls`` read at the end);
- langchain: the same as LangChain ``server_tool_call_chunk`` dicts;
- deep input: an ``input`` object nested n levels deep, made JSON data and written as
  text iteratively (``to_json_data`` + ``dumps_bounded``, the path of ``args_text``
  without its ``DEFAULT_MAX_DEPTH`` cut-off);
- bad indexes: n tool blocks with distinct unusable indexes (private keys, failures).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

from callstream import ToolCallAssembler
from callstream._json.dump import dumps_bounded
from callstream.providers._base import to_json_data
from callstream.providers.anthropic import AnthropicTranslator
from callstream.providers.langchain import LangChainTranslator

LIMIT = 2.3


def anthropic_events(n: int) -> list[Any]:
    events: list[Any] = []
    for i in range(n):
        server, client = 2 * i, 2 * i + 1
        events.append(
            {
                "type": "content_block_start",
                "index": server,
                "content_block": {
                    "type": "server_tool_use",
                    "id": f"srvtoolu_{i}",
                    "name": "web_search",
                    "input": {},
                },
            }
        )
        for piece in ('{"query": ', f'"item {i}', '"}'):
            events.append(
                {
                    "type": "content_block_delta",
                    "index": server,
                    "delta": {"type": "input_json_delta", "partial_json": piece},
                }
            )
        events.append({"type": "content_block_stop", "index": server})
        events.append(
            {
                "type": "content_block_start",
                "index": client,
                "content_block": {"type": "tool_use", "id": f"toolu_{i}", "name": "f", "input": {}},
            }
        )
        events.append(
            {
                "type": "content_block_delta",
                "index": client,
                "delta": {"type": "input_json_delta", "partial_json": '{"x": 1}'},
            }
        )
        events.append({"type": "content_block_stop", "index": client})
    events.append({"type": "message_delta", "delta": {"stop_reason": "tool_use"}})
    return events


def run_anthropic(events: list[Any]) -> None:
    translator = AnthropicTranslator()
    assembler = ToolCallAssembler(max_calls=None)
    for event in events:
        assembler.apply(translator.translate(event))
    assert assembler.finished
    _ = assembler.server_tool_calls


def langchain_payloads(n: int) -> list[Any]:
    out: list[Any] = []
    for i in range(n):
        out.append(
            {
                "type": "server_tool_call_chunk",
                "name": "web_search",
                "args": "",
                "id": f"ws_{i}",
                "index": f"lc_{i}",
            }
        )
        out.append({"type": "server_tool_call_chunk", "args": '{"q": "a', "index": f"lc_{i}"})
        out.append({"type": "server_tool_call_chunk", "args": 'b"}', "index": f"lc_{i}"})
    return out


def run_langchain(payloads: list[Any]) -> None:
    translator = LangChainTranslator()
    assembler = ToolCallAssembler(max_calls=None)
    for payload in payloads:
        assembler.apply(translator.translate(payload))
    assembler.finish()


def deep(n: int) -> Any:
    value: Any = 1
    for _ in range(n):
        value = {"a": [value]}
    return value


def serialize(value: Any) -> None:
    dumps_bounded(to_json_data(value, max_depth=10**6), max_depth=10**6)


def bad_index_events(n: int) -> list[Any]:
    return [
        {
            "type": "content_block_start",
            "index": f"bad{i}",
            "content_block": {"type": "tool_use", "id": f"t{i}", "name": "f", "input": {}},
        }
        for i in range(n)
    ] + [{"type": "message_delta", "delta": {"stop_reason": "tool_use"}}]


def best(fn: Callable[[], None], repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> int:
    cases: list[tuple[str, Callable[[int], Callable[[], None]], int]] = [
        (
            "anthropic server+client calls",
            lambda n: lambda e=anthropic_events(n): run_anthropic(e),
            2_000,
        ),
        (
            "langchain server_tool_call_chunk",
            lambda n: lambda p=langchain_payloads(n): run_langchain(p),
            2_000,
        ),
        ("deep input serialization", lambda n: lambda v=deep(n): serialize(v), 20_000),
        ("bad index blocks", lambda n: lambda e=bad_index_events(n): run_anthropic(e), 2_000),
    ]
    failed = False
    for name, make, n in cases:
        small, large = best(make(n)), best(make(2 * n))
        ratio = large / small if small > 0 else 1.0
        verdict = "ok" if ratio <= LIMIT else "OVER"
        failed |= ratio > LIMIT
        print(
            f"{name:34s} n={n:>6d} {small * 1e3:8.2f} ms  2n {large * 1e3:8.2f} ms"
            f"  ratio {ratio:4.2f} {verdict}"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
