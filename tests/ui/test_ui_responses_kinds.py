"""The UI emitters over every kind of OpenAI Responses call (issue 23, item 2).

AG-UI's tool-call events are for the calls the client runs: a hosted call gets none,
only one ``CUSTOM`` ``callstream.server_tool_call`` at its end; the Vercel parts of a
hosted call all say ``providerExecuted: true`` (``tool-input-error`` too) and no output
comes from us; MCP Apps gets client calls only. A custom tool call streams as the JSON
text of ``{"__arg1": ...}`` (its ``args``), which the protocols' readers accept. Checked
on our own streams (``tests/support/responses_streams.py``) with the protocols' own code: the
``ag-ui-protocol`` models, ``@ag-ui/client`` and the ``ai`` package in node
(``tests/ui/node``), the MCP Apps JSON schema; the whole-stream comparisons for these
streams run in ``tests/ui/test_ui_protocols.py`` (its sources include them).
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

import callstream
from callstream.runner import ToolCancelled, ToolFailed, ToolFinished
from callstream.ui import (
    AGUIEncoder,
    VercelEncoder,
    agui_stream,
    mcp_apps_notifications,
    vercel_stream,
)
from tests.runner.test_runner_responses_kinds import CLIENT_TOOLS, _hosted_probe
from tests.support.responses_streams import (
    CLIENT_BUILTINS,
    CUSTOM,
    HOSTED,
    HOSTED_SHELL,
    PATCH,
    PATCH_PIECES,
    SHELL,
    STREAMS,
    XAI_SEARCH,
    Stream,
    added,
    completed,
    created,
    done,
    event,
    sse,
)
from tests.ui.test_ui_protocols import (
    check_agui,
    check_mcp,
    check_python_models,
    check_vercel,
    mcp_schema,
    run_node,
)
from tests.ui.test_ui_protocols import node as node  # noqa: PLC0414  (the fixture)

IDS = [s.name[:32] for s in STREAMS]

_bad_mcp = {
    "type": "mcp_call",
    "id": "mcp_9",
    "name": "create_issue",
    "server_label": "github",
    "arguments": "",
    "status": "in_progress",
}
BAD_HOSTED = Stream(  # a hosted call whose arguments are not JSON: an invalid server call
    "mcp_call (arguments not JSON)",
    [
        created(),
        added(0, _bad_mcp),
        event("response.mcp_call_arguments.delta", 0, "mcp_9", delta='{"title": '),
        event("response.mcp_call_arguments.done", 0, "mcp_9", arguments='{"title": '),
        done(0, {**_bad_mcp, "arguments": '{"title": ', "status": "failed"}),
        completed(),
    ],
    STREAMS[0].expected,
)


def encode(encoder: Any, items: Any) -> list[dict[str, Any]]:
    out = list(encoder.start())
    for item in items:
        out.extend(encoder.feed(item))
    return out + encoder.close()


def server_ids(stream: Stream) -> set[str]:
    """The ids of the stream's hosted calls (an invalid one is listed too, ``args`` {})."""
    return {c["id"] for c in callstream.collect(stream.events).server_tool_calls}


# --- AG-UI --------------------------------------------------------------------------------


@pytest.mark.parametrize("stream", [*STREAMS, BAD_HOSTED], ids=[*IDS, "bad hosted"])
def test_agui_tool_call_events_only_for_client_calls(stream: Stream) -> None:
    result = callstream.collect(stream.events)
    events = encode(AGUIEncoder(), callstream.stream(stream.events))
    hosted = server_ids(stream)
    for e in events:
        if e["type"].startswith("TOOL_CALL"):
            assert e["toolCallId"] not in hosted, e
    started = [e["toolCallId"] for e in events if e["type"] == "TOOL_CALL_START"]
    client = [
        c["id"] for c in [*result.tool_calls, *result.invalid_tool_calls] if c["id"] not in hosted
    ]
    assert sorted(started) == sorted(client)
    told = [e["value"] for e in events if e.get("name") == "callstream.server_tool_call"]
    assert [{k: v for k, v in t.items() if k != "error"} for t in told] == [
        {"toolCallId": c["id"], "toolCallName": c["name"], "arguments": c["args"]}
        for c in result.server_tool_calls
    ]
    # every event validates with the official models (nothing unknown in it)
    check_python_models("".join(agui_stream(callstream.stream(stream.events))))


def test_agui_an_invalid_hosted_call_is_told_with_its_error() -> None:
    updates = list(callstream.stream(BAD_HOSTED.events))
    [verdict] = [e for u in updates for e in u.events if isinstance(e, callstream.CallInvalid)]
    assert verdict.server
    events = encode(AGUIEncoder(), updates)
    [told] = [e["value"] for e in events if e["type"] == "CUSTOM"]
    assert told == {
        "toolCallId": "mcp_9",
        "toolCallName": "create_issue",
        "arguments": {},
        "error": verdict.invalid_tool_call["error"],
    }
    assert told["error"]
    assert not [e for e in events if e["type"].startswith("TOOL_CALL")]


def test_agui_custom_call_args_are_the_json_text_of_its_arguments() -> None:
    events = encode(AGUIEncoder(), callstream.stream(CUSTOM.events))
    deltas = [e["delta"] for e in events if e["type"] == "TOOL_CALL_ARGS"]
    assert len(deltas) >= len(PATCH_PIECES)  # streamed as it came, a growing string
    assert json.loads("".join(deltas)) == {"__arg1": PATCH}
    assert not [e for e in events if e.get("name") == "callstream.tool_call_arguments"]


# --- Vercel --------------------------------------------------------------------------------

MARKED = {"tool-input-start", "tool-input-available", "tool-input-error"}
"""The parts of a call whose schema has ``providerExecuted`` (the ``ai`` package's
``uiMessageChunkSchema``; ``tool-input-delta`` has none: the part keeps its start's)."""


@pytest.mark.parametrize("stream", [*STREAMS, BAD_HOSTED], ids=[*IDS, "bad hosted"])
def test_vercel_every_part_of_a_hosted_call_is_provider_executed(stream: Stream) -> None:
    hosted = server_ids(stream)
    tools = [callstream.Tool(_hosted_probe, name=n) for n in ("web_search", "create_issue")]
    with callstream.ToolRunner([*CLIENT_TOOLS, *tools]).stream(stream.events) as items:
        chunks = encode(VercelEncoder(), items)
    kinds = set()
    for chunk in chunks:
        call_id = chunk.get("toolCallId")
        if call_id in hosted:
            kinds.add(chunk["type"])
            assert not chunk["type"].startswith("tool-output"), chunk  # no result from us
            if chunk["type"] in MARKED:
                assert chunk.get("providerExecuted") is True, chunk
        elif call_id is not None:
            assert "providerExecuted" not in chunk, chunk
    if hosted:
        assert "tool-input-start" in kinds
        assert kinds & {"tool-input-available", "tool-input-error"}
    if stream is BAD_HOSTED:
        assert "tool-input-error" in kinds


# --- MCP Apps -------------------------------------------------------------------------------


@pytest.mark.parametrize("stream", STREAMS, ids=IDS)
def test_mcp_apps_views_only_for_client_calls(stream: Stream) -> None:
    notes = list(mcp_apps_notifications(callstream.stream(stream.events), min_interval=0))
    hosted = server_ids(stream)
    assert all(n.tool_call_id not in hosted for n in notes)
    finals = [n for n in notes if n.message["method"] == "ui/notifications/tool-input"]
    result = callstream.collect(stream.events)
    assert [n.message["params"]["arguments"] for n in finals] == [
        c["args"] for c in result.tool_calls
    ]


def test_mcp_apps_previews_a_custom_call_as_a_growing_string() -> None:
    notes = list(mcp_apps_notifications(callstream.stream(CUSTOM.events), min_interval=0))
    previews = [
        n.message["params"]["arguments"]
        for n in notes
        if n.message["method"] == "ui/notifications/tool-input-partial"
    ]
    assert len(previews) >= 2
    assert all(set(p) == {"__arg1"} and PATCH.startswith(p["__arg1"]) for p in previews)


# --- in node: the protocols' own readers ------------------------------------------------------


def test_the_readers_keep_a_hosted_call_the_provider_s(node: str) -> None:
    sources = [HOSTED, HOSTED_SHELL, XAI_SEARCH, BAD_HOSTED]
    vercel = run_node(
        node,
        "vercel_client.mjs",
        [{"sse": "".join(vercel_stream(callstream.stream([sse(s.events)])))} for s in sources],
    )
    agui = run_node(
        node,
        "agui_client.mjs",
        [{"sse": "".join(agui_stream(callstream.stream([sse(s.events)])))} for s in sources],
    )
    for stream, reading, agui_result in zip(sources, vercel, agui, strict=True):
        want = callstream.collect(stream.events)
        check_vercel(reading, want)
        check_agui(agui_result, want)
        hosted = server_ids(stream)
        for message in (reading["reader"]["message"], reading["chat"]["message"]):
            parts = [p for p in message["parts"] if p.get("toolCallId") in hosted]
            assert sorted(p["toolCallId"] for p in parts) == sorted(hosted)
            assert all(p.get("providerExecuted") is True for p in parts), parts
            assert all(p["state"] in ("input-available", "output-error") for p in parts)
        assert not any(m.get("toolCalls") for m in agui_result["messages"])  # no client calls
        told = [c for c in agui_result["custom"] if c["name"] == "callstream.server_tool_call"]
        assert sorted(c["value"]["toolCallId"] for c in told) == sorted(hosted)


def test_runner_results_of_every_client_kind_reach_both_clients(node: str) -> None:
    runner = callstream.ToolRunner(CLIENT_TOOLS)
    runs = []
    for stream in (CUSTOM, SHELL, CLIENT_BUILTINS):
        with runner.stream([sse(stream.events)]) as items_stream:
            items = list(items_stream)
        results = [
            i.result for i in items if isinstance(i, (ToolFinished, ToolFailed, ToolCancelled))
        ]
        runs.append((stream, items, results))
    agui = run_node(node, "agui_client.mjs", [{"sse": "".join(agui_stream(i))} for _, i, _ in runs])
    vercel = run_node(
        node, "vercel_client.mjs", [{"sse": "".join(vercel_stream(i))} for _, i, _ in runs]
    )
    for (stream, _, results), agui_result, vercel_result in zip(runs, agui, vercel, strict=True):
        want = callstream.collect(stream.events)
        check_agui(agui_result, want)
        tool_messages = {
            m["toolCallId"]: m["content"] for m in agui_result["messages"] if m["role"] == "tool"
        }
        assert tool_messages == {r.id: r.content for r in results}
        chat = vercel_result["chat"]
        assert chat["status"] == "ready" and chat["said"] == [], chat
        parts = {p["toolCallId"]: p for p in chat["message"]["parts"] if "toolCallId" in p}
        for result in results:
            part = parts[result.id]
            assert part["input"] == result.args and "providerExecuted" not in part
            if result.status == "done":
                assert part["state"] == "output-available"
                assert part["output"] == result.output_json
            else:
                assert (part["state"], part["errorText"]) == ("output-error", result.content)


def test_mcp_apps_notifications_of_every_kind_match_the_schema(node: str) -> None:
    schema = mcp_schema(node)
    for stream in [*STREAMS, BAD_HOSTED]:
        with callstream.ToolRunner(CLIENT_TOOLS).stream(stream.events) as items:
            notes = list(mcp_apps_notifications(items, min_interval=0))
        check_mcp(schema, notes)
        assert all(n.tool_call_id not in server_ids(stream) for n in notes)


# --- an over-long id: the events, the result, the runner and the UIs agree -------------------

LONG = "x" * 4_097  # one past the assembler's limit on a call id (MAX_NAME_CHARS)


def _long_ids(stream: Stream) -> list[dict[str, Any]]:
    """The stream with every item id and call id made longer than the assembler keeps."""
    ids = {
        value
        for e in stream.events
        for value in (
            e.get("item_id"),
            e.get("item", {}).get("id"),
            e.get("item", {}).get("call_id"),
        )
        if isinstance(value, str)
    }
    text = json.dumps(stream.events)
    for id_ in sorted(ids, key=len, reverse=True):
        text = text.replace(json.dumps(id_), json.dumps(id_ + LONG))
    events: list[dict[str, Any]] = json.loads(text)
    return events


def _sources(events: list[dict[str, Any]], seed: int) -> list[Any]:
    """The payloads whole, and their server-sent events cut at seeded random places."""
    rng = random.Random(seed)
    text = sse(events)
    cuts = sorted(rng.sample(range(1, len(text)), 40))
    return [events, [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]]


HOSTED_STREAMS = [HOSTED, HOSTED_SHELL, XAI_SEARCH]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize(
    "stream", [*HOSTED_STREAMS, CUSTOM, CLIENT_BUILTINS], ids=lambda s: s.name[:24]
)
def test_an_over_long_id_keeps_the_call_on_its_side(stream: Stream, seed: int) -> None:
    # A call refused at its first chunk (its id is over the limit) is still the side's it
    # is: a hosted call is the provider's in every event, in the result, to the runner
    # and to the UIs; a client call is the client's invalid call.
    events = _long_ids(stream)
    hosted = stream in HOSTED_STREAMS
    for source in _sources(events, seed):
        result = callstream.collect(source)
        verdicts = [
            e
            for u in callstream.stream(source)
            for e in u.events
            if isinstance(e, (callstream.CallStarted, callstream.CallInvalid, callstream.CallDone))
        ]
        assert verdicts and all(e.server is hosted for e in verdicts), verdicts
        assert all(
            isinstance(e, (callstream.CallStarted, callstream.CallInvalid)) for e in verdicts
        )
        invalid = [e for e in verdicts if isinstance(e, callstream.CallInvalid)]
        listed = result.server_tool_calls if hosted else result.invalid_tool_calls
        assert len(invalid) == len(listed) > 0
        assert not result.tool_calls
        assert not (result.invalid_tool_calls if hosted else result.server_tool_calls)
    names = {c["name"] for c in callstream.collect(events).server_tool_calls}
    own = {t.__name__ for t in CLIENT_TOOLS}
    tools = [callstream.Tool(_hosted_probe, name=n) for n in sorted(names - own)]
    answered = callstream.ToolRunner([*CLIENT_TOOLS, *tools]).run(events).results
    assert len(answered) == (0 if hosted else len(invalid))  # never a call the provider ran
    agui = encode(AGUIEncoder(), callstream.stream(events))
    told = [e for e in agui if e.get("name") == "callstream.server_tool_call"]
    started = [e for e in agui if e["type"] == "TOOL_CALL_START"]
    assert (len(told), len(started)) == ((len(invalid), 0) if hosted else (0, len(invalid)))
    check_python_models("".join(agui_stream(callstream.stream(events))))
    with callstream.ToolRunner([*CLIENT_TOOLS, *tools]).stream(events) as items:
        parts = encode(VercelEncoder(), items)
    errors = [p for p in parts if p["type"] == "tool-input-error"]
    assert len(errors) == len(invalid)
    assert all((p.get("providerExecuted") is True) is hosted for p in errors), errors
    assert not [p for p in parts if p["type"].startswith("tool-output")] or not hosted
