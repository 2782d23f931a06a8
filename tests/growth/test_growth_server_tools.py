"""The server-side tool paths and the translators' guards grow linearly: n server and n
client calls through the Anthropic translator and the assembler, the same as LangChain
``server_tool_call_chunk`` dicts, a start ``input`` nested n deep serialized by the
guard, n tool blocks with distinct unusable indexes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from callstream import ToolCallAssembler
from callstream._json.dump import dumps_bounded
from callstream.providers._plain import to_json_data
from callstream.providers.anthropic import AnthropicTranslator
from callstream.providers.langchain import LangChainTranslator
from tests.growth.scaling import assert_linear

pytestmark = pytest.mark.growth


def _delta(index: int, piece: str) -> dict[str, Any]:
    delta = {"type": "input_json_delta", "partial_json": piece}
    return {"type": "content_block_delta", "index": index, "delta": delta}


def _start(index: Any, kind: str, id_: str, name: str) -> dict[str, Any]:
    block = {"type": kind, "id": id_, "name": name, "input": {}}
    return {"type": "content_block_start", "index": index, "content_block": block}


END = {"type": "message_delta", "delta": {"stop_reason": "tool_use"}}


def anthropic_events(n: int) -> list[Any]:
    events: list[Any] = []
    for i in range(n):
        server, client = 2 * i, 2 * i + 1
        events.append(_start(server, "server_tool_use", f"srvtoolu_{i}", "web_search"))
        events += [_delta(server, piece) for piece in ('{"query": ', f'"item {i}', '"}')]
        events.append({"type": "content_block_stop", "index": server})
        events.append(_start(client, "tool_use", f"toolu_{i}", "f"))
        events.append(_delta(client, '{"x": 1}'))
        events.append({"type": "content_block_stop", "index": client})
    return [*events, END]


def run_anthropic(events: list[Any]) -> None:
    translator = AnthropicTranslator()
    assembler = ToolCallAssembler(max_calls=None)
    for event in events:
        assembler.apply(translator.translate(event))
    assert assembler.finished
    assembler.server_tool_calls


def langchain_payloads(n: int) -> list[Any]:
    out: list[Any] = []
    for i in range(n):
        kind, index = "server_tool_call_chunk", f"lc_{i}"
        out.append(
            {"type": kind, "name": "web_search", "args": "", "id": f"ws_{i}", "index": index}
        )
        out.append({"type": kind, "args": '{"q": "a', "index": index})
        out.append({"type": kind, "args": 'b"}', "index": index})
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


def serialize(value: Any) -> object:
    return dumps_bounded(to_json_data(value, max_depth=10**6), max_depth=10**6)


def bad_index_events(n: int) -> list[Any]:
    return [_start(f"bad{i}", "tool_use", f"t{i}", "f") for i in range(n)] + [END]


CASES: list[tuple[str, Callable[[int], Any], Callable[[Any], object], int]] = [
    ("anthropic server+client calls", anthropic_events, run_anthropic, 80),
    ("langchain server_tool_call_chunk", langchain_payloads, run_langchain, 200),
    ("deep input serialization", deep, serialize, 1_500),
    ("bad index blocks", bad_index_events, run_anthropic, 300),
]


@pytest.mark.parametrize(("build", "run", "n"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_server_tool_paths_grow_linearly(
    build: Callable[[int], Any], run: Callable[[Any], object], n: int
) -> None:
    assert_linear(build, run, n)
