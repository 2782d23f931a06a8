"""One side per call: the assembler's events, the result, the UIs and the runner agree on
whether a call is run by the provider (a server-side tool) or by the client.

The side is decided once, when the call starts: a translator sends ``ServerToolUse``
before the chunk that starts a server call, so even what that first chunk reports (an id
or a name over the 4,096-character limit makes the call invalid at once) says
``server=True``. Before, the marker came after that chunk: the ``CallInvalid`` of a
server call with a long id said ``server=False`` while the result filed the call under
``server_tool_calls``, so the UIs showed an invalid client call and ``ToolRunner`` made
an error result for a call the provider ran.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import callstream
from callstream import (
    CallDone,
    CallInvalid,
    CallStarted,
    ServerToolUse,
    ToolCallAssembler,
)
from callstream._assembly.options import MAX_NAME_CHARS
from callstream.providers.langchain import LangChainTranslator
from callstream.ui import agui_stream, mcp_apps_notifications, vercel_stream
from tests.support.real_clients import anthropic_sse, byte_pieces, sdk_stream
from tests.support.runner_helpers import on_fake_clock, paced
from tests.ui.test_ui import events_of

LONG_ID = "srvtoolu_" + "x" * MAX_NAME_CHARS  # past the limit
LONG_NAME = "bash_" * (MAX_NAME_CHARS // 5 + 1)


def _message_start() -> dict[str, Any]:
    return {
        "type": "message_start",
        "message": {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "content": [],
            "model": "claude-test",
            "stop_reason": None,
            "usage": {"input_tokens": 5, "output_tokens": 1},
        },
    }


def _block(index: int, kind: str, id_: str | None, name: str) -> dict[str, Any]:
    block: dict[str, Any] = {"type": kind, "name": name, "input": {}}
    if id_ is not None:
        block["id"] = id_
    return {"type": "content_block_start", "index": index, "content_block": block}


def _json(index: int, text: str) -> dict[str, Any]:
    return {
        "type": "content_block_delta",
        "index": index,
        "delta": {"type": "input_json_delta", "partial_json": text},
    }


def _stop(index: int) -> dict[str, Any]:
    return {"type": "content_block_stop", "index": index}


def anthropic_events(server_id: str, server_name: str, stop: str = "tool_use") -> list[Any]:
    """A bash_code_execution call the provider runs (id and name as given), then a client
    call of ``get_weather``."""
    return [
        _message_start(),
        _block(0, "server_tool_use", server_id, server_name),
        _json(0, '{"command": "ls"}'),
        _stop(0),
        _block(1, "tool_use", "toolu_1", "get_weather"),
        _json(1, '{"city": "Paris"}'),
        _stop(1),
        {"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"output_tokens": 9}},
        {"type": "message_stop"},
    ]


def bedrock_events(server_id: str) -> list[Any]:
    return [
        {"messageStart": {"role": "assistant"}},
        {
            "contentBlockStart": {
                "contentBlockIndex": 0,
                "start": {
                    "toolUse": {"toolUseId": server_id, "name": "nova_grounding", "type": "server_tool_use"}
                },
            }
        },
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"toolUse": {"input": "{}"}}}},
        {"contentBlockStop": {"contentBlockIndex": 0}},
        {
            "contentBlockStart": {
                "contentBlockIndex": 1,
                "start": {"toolUse": {"toolUseId": "tooluse_1", "name": "get_weather"}},
            }
        },
        {
            "contentBlockDelta": {
                "contentBlockIndex": 1,
                "delta": {"toolUse": {"input": '{"city": "Paris"}'}},
            }
        },
        {"contentBlockStop": {"contentBlockIndex": 1}},
        {"messageStop": {"stopReason": "tool_use"}},
    ]


def langchain_chunks(server_id: str) -> list[Any]:
    """LangChain v1 blocks: a server_tool_call_chunk, then a client tool-call chunk."""
    return [
        {
            "content": [
                {
                    "type": "server_tool_call_chunk",
                    "index": 0,
                    "id": server_id,
                    "name": "code_execution",
                    "args": '{"code": "1"}',
                }
            ],
            "tool_call_chunks": [],
        },
        {
            "content": [],
            "tool_call_chunks": [
                {"index": 1, "id": "call_1", "name": "get_weather", "args": '{"city": "Paris"}'}
            ],
        },
        {"content": [], "tool_call_chunks": [], "response_metadata": {"finish_reason": "tool_calls"}},
    ]


CLIENT = [{"name": "get_weather", "args": {"city": "Paris"}, "id": "toolu_1", "type": "tool_call"}]


def call_events(updates: list[callstream.StreamUpdate]) -> list[Any]:
    return [
        e for u in updates for e in u.events if isinstance(e, (CallStarted, CallDone, CallInvalid))
    ]


def check_sides(updates: list[callstream.StreamUpdate], result: callstream.StreamResult) -> None:
    """Call 0 is the server call, call 1 the client's: every event and the result agree."""
    events = call_events(updates)
    assert {e.index for e in events} == {0, 1}
    assert all(e.server == (e.index == 0) for e in events), events
    [invalid] = [e for e in events if isinstance(e, CallInvalid)]
    assert invalid.index == 0 and "longer than 4096 characters" in str(
        invalid.invalid_tool_call["error"]
    )
    assert result.invalid_tool_calls == []
    assert len(result.server_tool_calls) == 1
    assert result.server_tool_calls[0]["args"] == {}  # invalid: no arguments shown
    assert [c["name"] for c in result.tool_calls] == ["get_weather"]


# --- the assembler's events and the result, on every path ------------------------------------


def test_the_assembler_decides_the_side_before_the_first_event() -> None:
    assembler = ToolCallAssembler()
    assert assembler.apply(ServerToolUse(index=0, id=LONG_ID)) == []
    events = assembler.feed({"index": 0, "id": LONG_ID, "name": "bash_code_execution", "args": None})
    assert [type(e) for e in events] == [CallStarted, CallInvalid]
    assert all(e.server for e in events)
    assert events[1].invalid_tool_call["name"] == "bash_code_execution"  # reported with its name
    assert assembler.is_server_call(0) and assembler.invalid_tool_calls == []
    assembler.finish("tool_use")
    assert assembler.server_tool_calls == [
        {"type": "server_tool_call", "name": "bash_code_execution", "args": {}, "id": None}
    ]


def test_a_mark_waits_only_for_the_call_it_names() -> None:
    assembler = ToolCallAssembler()
    assembler.apply(ServerToolUse(index=0, id="srvtoolu_1"))
    # another call starts first: the mark is dropped, neither call is a server call
    assembler.feed({"index": 0, "id": "toolu_9", "name": "f", "args": "{}"})
    assembler.feed({"index": 1, "id": "srvtoolu_1", "name": "g", "args": "{}"})
    assert not assembler.is_server_call(0) and not assembler.is_server_call(1)
    # a mark after the first chunk still marks that (open) call, as before
    assembler.feed({"index": 2, "id": "srvtoolu_2", "name": "web_search", "args": None})
    assembler.apply(ServerToolUse(index=2))
    assert assembler.is_server_call(2)
    assert not assembler.is_server_call(3) and not assembler.is_server_call(-1)


def test_a_mark_for_an_index_whose_open_call_has_another_id_waits_for_the_new_call() -> None:
    # a client block left open, then a server block reusing its index (hostile): the mark
    # names the new call by id, so the open client call stays the client's
    assembler = ToolCallAssembler()
    assembler.feed({"index": 0, "id": "toolu_1", "name": "f", "args": '{"a": 1'})
    assembler.apply(ServerToolUse(index=0, id="srvtoolu_1"))
    assembler.feed({"index": 0, "id": "srvtoolu_1", "name": "web_search", "args": None})
    assert [assembler.is_server_call(n) for n in range(assembler.call_count)] == [False, True]


@pytest.mark.parametrize("size", [None, 1, 7, 4096])
def test_anthropic_long_server_id_is_a_server_call_everywhere(size: int | None) -> None:
    events = anthropic_events(LONG_ID, "bash_code_execution")
    source: Any = events if size is None else byte_pieces(anthropic_sse(events), size)
    with callstream.stream(source) as stream:
        updates = list(stream)
    check_sides(updates, stream.result)
    assert stream.result.server_tool_calls[0]["name"] == "bash_code_execution"
    assert stream.result.tool_calls == CLIENT
    assert callstream.collect(events) == stream.result


def test_anthropic_long_server_id_through_the_real_sdk() -> None:
    data = anthropic_sse(anthropic_events(LONG_ID, "bash_code_execution"))
    with callstream.stream(sdk_stream("anthropic", data)) as stream:
        updates = list(stream)
    check_sides(updates, stream.result)
    assert stream.result == callstream.collect(byte_pieces(data, 3))


@pytest.mark.parametrize("size", [None, 5])
def test_a_server_call_whose_name_is_refused_is_kept_as_a_server_call(size: int | None) -> None:
    # The name never fits, so it is never set: the call is kept (name "") rather than
    # dropped from every list.
    events = anthropic_events("srvtoolu_1", LONG_NAME)
    source: Any = events if size is None else byte_pieces(anthropic_sse(events), size)
    with callstream.stream(source) as stream:
        updates = list(stream)
    check_sides(updates, stream.result)
    assert stream.result.server_tool_calls == [
        {"type": "server_tool_call", "name": "", "args": {}, "id": "srvtoolu_1"}
    ]


def test_bedrock_long_server_id() -> None:
    with callstream.stream(bedrock_events("tooluse_" + "y" * MAX_NAME_CHARS)) as stream:
        updates = list(stream)
    check_sides(updates, stream.result)


def test_langchain_long_server_id() -> None:
    translator = LangChainTranslator()
    with callstream.stream(langchain_chunks(LONG_ID), provider=translator) as stream:
        updates = list(stream)
    check_sides(updates, stream.result)
    assert stream.result.server_tool_calls[0]["name"] == "code_execution"


def test_a_short_id_server_call_is_a_server_call_from_its_first_event() -> None:
    # The common case, now decided at the start too: nothing ever says server=False.
    updates = list(callstream.stream(anthropic_events("srvtoolu_1", "bash_code_execution")))
    events = call_events(updates)
    assert all(e.server == (e.index == 0) for e in events)
    assert [type(e) for e in events if e.index == 0] == [CallStarted, CallDone]


# --- the UIs and the runner ---------------------------------------------------------------------


def test_the_uis_show_it_as_the_providers_call() -> None:
    events = anthropic_events(LONG_ID, "bash_code_execution")
    agui = events_of(list(agui_stream(callstream.stream(events))))
    starts = [e for e in agui if e["type"] == "TOOL_CALL_START"]
    assert [e["toolCallId"] for e in starts] == ["toolu_1"]  # the client call only
    customs = [e for e in agui if e["type"] == "CUSTOM"]
    assert [e["name"] for e in customs] == ["callstream.server_tool_call"]  # no client call
    assert customs[0]["value"]["toolCallName"] == "bash_code_execution"
    assert "longer than 4096" in customs[0]["value"]["error"]
    vercel = events_of(list(vercel_stream(callstream.stream(events))))
    server = [c for c in vercel if c.get("toolName") == "bash_code_execution"]
    assert [c["type"] for c in server] == ["tool-input-start", "tool-input-error"]
    assert all(c.get("providerExecuted") is True for c in server)
    client = [c for c in vercel if c.get("toolName") == "get_weather"]
    assert client and all("providerExecuted" not in c for c in client)
    mcp = list(mcp_apps_notifications(callstream.stream(events)))
    assert {m.call for m in mcp} == {1}


def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


def test_the_runner_makes_no_result_for_a_call_the_provider_ran() -> None:
    runner = callstream.ToolRunner([get_weather])
    result = runner.run(anthropic_events(LONG_ID, "bash_code_execution"))
    assert [(r.index, r.name, r.status) for r in result.results] == [(1, "get_weather", "done")]
    assert len(result.server_tool_calls) == 1


def test_a_run_left_early_cancels_client_calls_without_ids_but_not_server_calls() -> None:
    # The server call's id is refused (None) and the client call has none either: a run
    # left before the end gives the client call its cancelled result, the server call none
    # (they were told apart by id, and None named both).
    events = anthropic_events(LONG_ID, "bash_code_execution")
    events[4] = _block(1, "tool_use", None, "get_weather")
    runner = callstream.ToolRunner([get_weather])

    async def main() -> callstream.RunResult:
        async with runner.astream(paced(events)) as run:
            async for item in run:
                if isinstance(item, callstream.StreamUpdate) and item.payload is events[5]:
                    break  # the client call's text is complete, its block not stopped
        return run.result

    result = on_fake_clock(main)
    assert [(r.index, r.status) for r in result.results] == [(1, "cancelled")]


def test_the_event_feed_carries_the_side() -> None:
    from callstream.feed import to_feed

    updates = list(callstream.stream(anthropic_events(LONG_ID, "bash_code_execution")))
    lines = [to_feed(e) for e in call_events(updates)]
    assert [(line["index"], line["server"]) for line in lines] == [
        (0, True),
        (0, True),
        (1, False),
        (1, False),
    ]
    json.dumps(lines)
