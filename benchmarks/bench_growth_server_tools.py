"""Growth checks for the server-side tool paths and the translators' guards.

Each case is timed at size n and 2n (CPU time, best of several runs, by the shared
harness ``_growth.py``); the ratio must stay at or below 2.3 (linear cost). Prints one
line per case and exits non-zero if any ratio is over. ``--quick``: sizes divided by 4.

Cases:
- anthropic: a stream of n server-side calls (web search) and n client calls through the
  translator and the assembler (``server_tool_calls`` read at the end);
- langchain: the same as LangChain ``server_tool_call_chunk`` dicts;
- deep input: a start ``input`` nested n levels deep, serialized by the guard;
- bad indexes: n tool blocks with distinct unusable indexes (private keys, failures).
"""

from __future__ import annotations

import sys
from typing import Any

from _growth import Check, main, scaled
from callstream import ToolCallAssembler
from callstream._json.dump import dumps_bounded
from callstream.providers._plain import to_json_data
from callstream.providers.anthropic import AnthropicTranslator
from callstream.providers.langchain import LangChainTranslator


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


def bad_index_events(n: int) -> list[Any]:
    return [
        {
            "type": "content_block_start",
            "index": f"bad{i}",
            "content_block": {"type": "tool_use", "id": f"t{i}", "name": "f", "input": {}},
        }
        for i in range(n)
    ] + [{"type": "message_delta", "delta": {"stop_reason": "tool_use"}}]


def serialize(value: Any) -> object:
    return dumps_bounded(to_json_data(value, max_depth=10**6), max_depth=10**6)


def checks(quick: bool) -> list[Check]:
    """The checks, in CPU time (``quick``: sizes divided by 4)."""
    return [
        Check(
            "anthropic server+client calls",
            "time",
            anthropic_events,
            scaled(2_000, quick),
            run=run_anthropic,
            repeats=5,
        ),
        Check(
            "langchain server_tool_call_chunk",
            "time",
            langchain_payloads,
            scaled(2_000, quick),
            run=run_langchain,
            repeats=5,
        ),
        Check(
            "deep input serialization",
            "time",
            deep,
            scaled(20_000, quick),
            run=serialize,
            repeats=5,
        ),
        Check(
            "bad index blocks",
            "time",
            bad_index_events,
            scaled(2_000, quick),
            run=run_anthropic,
            repeats=5,
        ),
    ]


if __name__ == "__main__":
    raise SystemExit(main(checks, sys.argv[1:], __doc__))
