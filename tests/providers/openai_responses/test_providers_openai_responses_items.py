"""OpenAI Responses items beyond function calls: custom (free-form) tools, client-run
built-in tools (shell, local shell, apply_patch, computer, tool search, MCP approvals),
hosted tools (server_tool_calls with their status), namespaces and program callers, and
late deltas. Each stream of ``tests/support/responses_streams.py`` is fed whole, one payload at a
time, as raw SSE cut anywhere, and as the SDK's event objects; and a walk over
openai-python's own type unions fails on an item or event type this library neither
reads nor lists as no call."""

from __future__ import annotations

import json
import typing
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import callstream
from callstream import CallDone, CallStarted, StreamResult
from callstream.providers._responses_items import CALL_ITEMS, IGNORED_ITEMS, TOOL_ITEMS
from callstream.providers.openai_responses import (
    IGNORED_EVENTS,
    READ_EVENTS,
    STATUS_EVENT,
    OpenAIResponsesTranslator,
)
from tests.support.responses_streams import (
    CUSTOM,
    PATCH,
    PATCH_PIECES,
    SHELL,
    SHELL_ACTION,
    STREAMS,
    XAI_QUERY,
    XAI_SEARCH,
    Stream,
    added,
    completed,
    created,
    done,
    event,
    response,
    sse,
    wire,
)
from tests.support.strategies import splits

settings_ = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def verdicts(result: StreamResult) -> tuple[Any, ...]:
    return (
        [(c["name"], c["id"], c["args"]) for c in result.tool_calls],
        [(c["name"], c["id"], c["args"]) for c in result.server_tool_calls],
        [(c["name"], c["id"]) for c in result.invalid_tool_calls],
        result.call_extras,
        result.finish_reason,
    )


def expected(stream: Stream) -> tuple[Any, ...]:
    e = stream.expected
    return (e.tool_calls, e.server_tool_calls, e.invalid, e.extras, e.finish_reason)


IDS = [s.name for s in STREAMS]


# --- every stream, every way ----------------------------------------------------------------


@pytest.mark.parametrize("stream", STREAMS, ids=IDS)
def test_whole(stream: Stream) -> None:
    result = callstream.collect(stream.events)
    assert verdicts(result) == expected(stream)
    assert result.provider == "openai-responses"
    for entry in result.server_tool_calls:  # LangChain's server_tool_call shape, extras kept
        assert entry["type"] == "server_tool_call"
        assert entry.get("extras") == result.call_extras[entry["id"] or ""]


@pytest.mark.parametrize("stream", STREAMS, ids=IDS)
def test_one_payload_at_a_time(stream: Stream) -> None:
    """Each call starts once (with its extras of the start) and ends once; client calls
    never show up among server calls or the other way round, at any point."""
    with callstream.stream(stream.events) as updates:
        events = []
        for update in updates:
            events.extend(update.events)
            client = {c["id"] for c in update.tool_calls}
            server = {c["id"] for c in update.server_tool_calls}
            assert not client & server
        assert verdicts(updates.result) == expected(stream)
    starts = [e for e in events if isinstance(e, CallStarted)]
    ends = [e for e in events if isinstance(e, CallDone)]
    assert len({e.index for e in starts}) == len(starts) == len(ends)
    for start in starts:
        assert start.extras is None or start.extras.get("item_type") != "function_call"
        if start.extras is not None and "item_type" in start.extras:
            assert start.extras["item_type"] in CALL_ITEMS  # known at the start already


@pytest.mark.parametrize("stream", STREAMS, ids=IDS)
@settings_
@given(data=st.data())
def test_raw_sse_cut_anywhere(stream: Stream, data: st.DataObject) -> None:
    text = sse(stream.events)
    pieces = data.draw(splits(text, max_cuts=40))
    as_bytes = data.draw(st.booleans())
    chunks: list[Any] = [p.encode() for p in pieces] if as_bytes else pieces
    assert verdicts(callstream.collect(chunks)) == expected(stream)


@pytest.mark.parametrize("stream", STREAMS, ids=IDS)
def test_sdk_event_objects(stream: Stream) -> None:
    pydantic = pytest.importorskip("pydantic")
    responses = pytest.importorskip("openai.types.responses")
    adapter = pydantic.TypeAdapter(responses.ResponseStreamEvent)
    objects = []
    for payload in wire(stream.events):
        if payload["type"] in stream.own_events:
            objects.append(payload)  # the provider's own shape: it stays a dict
            continue
        obj = adapter.validate_python(payload)  # our field names are the SDK's
        assert type(obj).__name__.startswith("Response")
        objects.append(obj)
    assert verdicts(callstream.collect(objects)) == expected(stream)


# --- custom tools ---------------------------------------------------------------------------


def test_a_custom_call_streams_a_growing_string_and_ends_as_langchain_writes_it() -> None:
    previews = []
    with callstream.stream(CUSTOM.events) as updates:
        for update in updates:
            if update.tool_calls:
                previews.append(update.tool_calls[0]["args"].get("__arg1"))
        chunks = updates._pipeline.assembler.tool_call_chunks
    shown = [p for p in previews if p is not None]
    assert shown[0] == ""  # announced at output_item.added
    for before, after in zip(shown, shown[1:]):
        assert after.startswith(before)  # never shrinks, never shows half a pair
        assert not any(0xD800 <= ord(ch) <= 0xDFFF for ch in after)
    joined = "".join(PATCH_PIECES)
    assert shown[1] == PATCH_PIECES[0]
    assert shown[2] == PATCH_PIECES[0] + PATCH_PIECES[1][:-1]  # the cut pair waits
    assert PATCH in shown and joined != PATCH  # the two halves read back as one character
    assert chunks[0]["args"] == json.dumps({"__arg1": PATCH})  # LangChain's own text


@settings_
@given(st.text(), st.data())
def test_any_custom_input_cut_anywhere_even_between_a_surrogate_pair(
    text: str, data: st.DataObject
) -> None:
    """Cut at UTF-16 code units, as a JSON string cut between two events decodes: every
    character, escape and cut pair gives back exactly the text, never an invalid call."""
    units = text.encode("utf-16-le")
    cuts = sorted(data.draw(st.lists(st.integers(0, len(units) // 2), max_size=8)))
    bounds = [0, *cuts, len(units) // 2]
    pieces = [
        units[2 * a : 2 * b].decode("utf-16-le", "surrogatepass")
        for a, b in zip(bounds, bounds[1:])
    ]
    with_done = data.draw(st.booleans())
    item = {"type": "custom_tool_call", "id": "ctc_1", "call_id": "c", "name": "t", "input": ""}
    events = [created(), added(0, item)]
    events += [event("response.custom_tool_call_input.delta", 0, "ctc_1", delta=p) for p in pieces]
    if with_done:
        events.append(event("response.custom_tool_call_input.done", 0, "ctc_1", input=text))
    events += [done(0, {**item, "input": text}), completed()]
    result = callstream.collect(events)
    assert result.invalid_tool_calls == []
    assert [c["args"] for c in result.tool_calls] == [{"__arg1": text}]
    assert result.call_extras["c"]["input"] == text
    assert callstream.collect([sse(events)]).tool_calls == result.tool_calls


def test_a_custom_call_cut_off_is_invalid_with_its_text_so_far() -> None:
    item = {"type": "custom_tool_call", "id": "ctc_1", "call_id": "c", "name": "t", "input": ""}
    events = [
        created(),
        added(0, item),
        event("response.custom_tool_call_input.delta", 0, "ctc_1", delta='say "hi'),
        {
            "type": "response.incomplete",
            "response": {
                **response("incomplete"),
                "incomplete_details": {"reason": "max_output_tokens"},
            },
        },
    ]
    result = callstream.collect(events)
    [bad] = result.invalid_tool_calls
    assert (bad["name"], bad["id"]) == ("t", "c")
    assert bad["args"] == '{"__arg1": "say \\"hi' and "cut off" in (bad["error"] or "")
    assert json.loads(bad["args"] + '"}') == {"__arg1": 'say "hi'}
    assert result.finish_reason == "length"


def test_a_custom_input_without_done_events_is_the_streamed_text() -> None:
    item = {"type": "custom_tool_call", "id": "ctc_1", "call_id": "c", "name": "t", "input": ""}
    events = [
        added(0, item),
        event("response.custom_tool_call_input.delta", 0, "ctc_1", delta="abc"),
        event("response.custom_tool_call_input.done", 0, "ctc_1"),  # no input given
        completed(),
    ]
    assert [c["args"] for c in callstream.collect(events).tool_calls] == [{"__arg1": "abc"}]


def test_the_done_input_wins_over_the_streamed_text() -> None:
    item = {"type": "custom_tool_call", "id": "ctc_1", "call_id": "c", "name": "t", "input": ""}
    events = [
        added(0, item),
        event("response.custom_tool_call_input.delta", 0, "ctc_1", delta="abX"),
        event("response.custom_tool_call_input.done", 0, "ctc_1", input="abc"),
        event("response.custom_tool_call_input.delta", 0, "ctc_1", delta="late"),
        done(0, {**item, "input": "something else"}),
        completed(),
    ]
    assert [c["args"] for c in callstream.collect(events).tool_calls] == [{"__arg1": "abc"}]


def test_input_that_is_not_text_makes_the_call_invalid() -> None:
    item = {"type": "custom_tool_call", "id": "ctc_1", "call_id": "c", "name": "t", "input": 5}
    result = callstream.collect([added(0, item), completed()])
    [bad] = result.invalid_tool_calls
    assert bad["name"] == "t" and "not text" in (bad["error"] or "")


def _custom_stream(tools_events: list[dict[str, Any]], name: str = "x_keyword_search") -> Any:
    item = {"type": "custom_tool_call", "id": "ctc_1", "call_id": "c", "name": name, "input": "q"}
    return callstream.collect([*tools_events, added(1, item), done(1, item), completed()])


def test_who_runs_a_custom_call_follows_the_declared_tools() -> None:
    # no tools listed (unknown): the client's, so a call is never lost to an agent loop
    assert [c["name"] for c in _custom_stream([]).tool_calls] == ["x_keyword_search"]
    assert _custom_stream([created()]).tool_calls != []  # an empty list tells nothing
    # tools listed, none custom of that name: the provider's (xAI)
    result = _custom_stream([created(tools=[{"type": "x_search"}])])
    assert result.tool_calls == [] and result.finish_reason == "stop"
    assert [c["args"] for c in result.server_tool_calls] == [{"__arg1": "q"}]
    # declared: top level, in a namespace, or by a later tool search / additional tools
    custom = {"type": "custom", "name": "x_keyword_search"}
    spaced = {"type": "namespace", "name": "ns", "description": "", "tools": [custom]}
    found = {
        "type": "tool_search_output",
        "id": "tso_1",
        "execution": "server",
        "status": "completed",
        "tools": [custom],
    }
    extra = {"type": "additional_tools", "id": "at_1", "role": "developer", "tools": [custom]}
    for tools_events in (
        [created(tools=[{"type": "x_search"}, custom])],
        [created(tools=[{"type": "x_search"}, spaced])],
        [created(tools=[{"type": "x_search"}]), added(0, found), done(0, found)],
        [created(tools=[{"type": "x_search"}]), done(0, extra)],
    ):
        result = _custom_stream(tools_events)
        assert [c["name"] for c in result.tool_calls] == ["x_keyword_search"], tools_events
        assert result.server_tool_calls == []


def test_xai_search_is_a_server_call_with_its_status() -> None:
    seen = []
    with callstream.stream(XAI_SEARCH.events) as updates:
        for update in updates:
            seen.extend(c.get("extras", {}).get("status") for c in update.server_tool_calls)
        assert updates.tool_calls == []
    assert "in_progress" in seen and seen[-1] == "completed"
    assert json.loads(XAI_QUERY)  # the text is the provider's JSON, kept as the input


# --- shell ----------------------------------------------------------------------------------


def test_shell_commands_stream_as_growing_strings() -> None:
    previews = []
    with callstream.stream(SHELL.events) as updates:
        for update in updates:
            if update.tool_calls:
                action = update.tool_calls[0]["args"].get("action", {})
                previews.append(list(action.get("commands", [])))
    assert previews[0] == []
    assert ["ls"] in previews and ['ls -la "/tmp"'] in previews
    assert ['ls -la "/tmp"', "echo \u00e9"] in previews
    assert previews[-1] == SHELL_ACTION["commands"]


def test_shell_commands_given_whole_do_not_stream() -> None:
    item = {
        "type": "shell_call",
        "id": "sh_1",
        "call_id": "c",
        "action": {"commands": ["pwd"]},
        "status": "in_progress",
    }
    events = [
        added(0, item),
        event("response.shell_call_command.added", 0, command="pwd", command_index=0),
        done(0, {**item, "status": "completed"}),
        completed(),
    ]
    result = callstream.collect(events)
    assert [c["args"] for c in result.tool_calls] == [{"action": {"commands": ["pwd"]}}]


def test_shell_events_for_another_kind_of_item_are_ignored() -> None:
    item = {"type": "function_call", "id": "fc_1", "call_id": "c", "name": "f", "arguments": ""}
    events = [
        added(0, item),
        event("response.shell_call_command.added", 0, command="rm", command_index=0),
        event("response.custom_tool_call_input.delta", 0, "fc_1", delta="junk"),
        event("response.function_call_arguments.done", 0, "fc_1", arguments='{"a": 1}'),
        completed(),
    ]
    assert [c["args"] for c in callstream.collect(events).tool_calls] == [{"a": 1}]


# --- hosted tools ---------------------------------------------------------------------------


def test_status_events_update_the_server_entry_live() -> None:
    item = {
        "type": "web_search_call",
        "id": "ws_1",
        "action": {"type": "search"},
        "status": "in_progress",
    }
    events = [
        added(0, item),
        event("response.web_search_call.searching", 0, "ws_1"),
        done(0, {**item, "status": "completed"}),
        completed(),
    ]
    statuses = [
        [c["extras"]["status"] for c in u.server_tool_calls] for u in callstream.stream(events)
    ]
    assert statuses[:3] == [["in_progress"], ["searching"], ["completed"]]


def test_a_provider_s_own_hosted_call_item_is_a_server_call() -> None:
    item = {
        "type": "x_search_call",
        "id": "xs_1",
        "status": "in_progress",
        "action": {"query": "a"},
        "results": [1],
    }
    events = [
        added(0, item),
        event("response.x_search_call.completed", 0, "xs_1"),
        done(0, {**item, "status": "completed"}),
        {"type": "response.output_item.done", "output_index": 1, "item": {"type": "foo_output"}},
        completed(),
    ]
    result = callstream.collect(events)
    assert verdicts(result) == (
        [],
        [("x_search", "xs_1", {"action": {"query": "a"}})],
        [],
        {"xs_1": {"item_type": "x_search_call", "status": "completed"}},
        "stop",
    )


def test_code_streamed_before_its_item_was_added_is_kept() -> None:
    events = [
        event("response.code_interpreter_call_code.delta", 0, "ci_1", delta="print(1)"),
        done(
            0,
            {
                "type": "code_interpreter_call",
                "id": "ci_1",
                "container_id": "k",
                "code": "print(1)",
                "status": "completed",
            },
        ),
        completed(),
    ]
    result = callstream.collect(events)
    assert [(c["name"], c["args"]) for c in result.server_tool_calls] == [
        ("code_interpreter", {"container_id": "k", "code": "print(1)"})
    ]


# --- function calls -------------------------------------------------------------------------


def test_deltas_after_done_never_change_a_call() -> None:
    """pydantic-ai #5757: arguments that arrive after function_call_arguments.done."""
    translator = OpenAIResponsesTranslator()
    item = {"type": "function_call", "id": "fc_1", "call_id": "c", "name": "f", "arguments": ""}
    translator.translate(added(0, item))
    translator.translate(event("response.function_call_arguments.done", 0, "fc_1", arguments="{}"))
    late = event("response.function_call_arguments.delta", 0, "fc_1", delta='{"x": 1}')
    assert translator.translate(late) == []
    assert translator.translate(done(0, {**item, "arguments": '{"x": 2}'})) == []
    result = callstream.collect(
        [
            added(0, item),
            event("response.function_call_arguments.done", 0, "fc_1", arguments="{}"),
            late,
            done(0, {**item, "arguments": '{"x": 2}'}),
            completed(),
        ]
    )
    assert [c["args"] for c in result.tool_calls] == [{}]


def test_a_function_call_without_namespace_or_caller_has_no_extras() -> None:
    item = {"type": "function_call", "id": "fc_1", "call_id": "c", "name": "f", "arguments": ""}
    events = [added(0, item), done(0, {**item, "arguments": "{}", "caller": {"type": "direct"}})]
    updates = list(callstream.stream([*events, completed()]))
    assert callstream.collect([*events, completed()]).call_extras == {}
    assert all(getattr(e, "extras", None) is None for u in updates for e in u.events)


def test_async_function_calls_are_marked() -> None:
    item = {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "c",
        "name": "f",
        "arguments": "{}",
        "async": True,
    }
    assert callstream.collect([added(0, item), completed()]).call_extras == {"c": {"async": True}}


# --- unusable indexes, failures -------------------------------------------------------------


def test_an_item_with_an_unusable_output_index_is_one_invalid_call() -> None:
    item = {"type": "custom_tool_call", "id": "ctc_1", "call_id": "c", "name": "t", "input": ""}
    events = [
        {**added(0, item), "output_index": "x"},
        {
            **event("response.custom_tool_call_input.delta", 0, "ctc_1", delta="a"),
            "output_index": "x",
        },
        {**event("response.shell_call_command.delta", 0, delta="a"), "output_index": True},
        completed(),
    ]
    result = callstream.collect(events)
    assert [
        (c["name"], "unusable output_index" in (c["error"] or ""))
        for c in result.invalid_tool_calls
    ] == [
        ("t", True),
        (None, True),
    ]
    assert result.tool_calls == []


def test_a_failed_response_fails_the_open_custom_and_server_calls() -> None:
    custom = {"type": "custom_tool_call", "id": "ctc_1", "call_id": "c", "name": "t", "input": ""}
    search = {"type": "web_search_call", "id": "ws_1", "action": {}, "status": "in_progress"}
    events = [
        added(0, custom),
        event("response.custom_tool_call_input.delta", 0, "ctc_1", delta="abc"),
        added(1, search),
        {
            "type": "response.failed",
            "response": {**response("failed"), "error": {"code": "e", "message": "boom"}},
        },
    ]
    result = callstream.collect(events)
    assert [(c["name"], c["error"]) for c in result.invalid_tool_calls] == [("t", "boom")]
    assert [(c["name"], c["args"]) for c in result.server_tool_calls] == [("web_search", {})]
    assert result.finish_reason == "error"


# --- the walk over openai-python's own unions ("nothing silently dropped") ------------------


def _literal_types(union: Any) -> dict[str, str]:
    """``type`` literal -> model name, for every model in an SDK union."""
    out: dict[str, str] = {}
    for model in typing.get_args(typing.get_args(union)[0]):
        for value in typing.get_args(model.model_fields["type"].annotation):
            out[value] = model.__name__
    return out


def test_every_item_type_of_the_sdk_is_read_or_listed_as_no_call() -> None:
    responses = pytest.importorskip("openai.types.responses")
    item_types = _literal_types(responses.ResponseOutputItem)
    assert len(item_types) >= 28  # the union as of openai 3.x
    unknown = {
        t: m for t, m in item_types.items() if t not in CALL_ITEMS and t not in IGNORED_ITEMS
    }
    assert unknown == {}, f"Responses items neither read nor listed in IGNORED_ITEMS: {unknown}"
    assert not set(CALL_ITEMS) & set(IGNORED_ITEMS)
    assert TOOL_ITEMS <= set(IGNORED_ITEMS)


def test_every_call_item_type_is_streamed_and_read_as_a_call() -> None:
    """Each type of CALL_ITEMS is in one of our streams, and gives a call there."""
    seen: set[str] = set()
    for stream in STREAMS:
        result = callstream.collect(stream.events)
        seen.update(
            extras.get("item_type", "function_call") for extras in result.call_extras.values()
        )
        seen.update("function_call" for c in result.tool_calls if c["id"] not in result.call_extras)
    assert seen == set(CALL_ITEMS)


def test_every_event_type_of_the_sdk_is_read_or_listed_as_no_call() -> None:
    responses = pytest.importorskip("openai.types.responses")
    event_types = _literal_types(responses.ResponseStreamEvent)
    assert len(event_types) >= 58
    unknown = {
        t: m
        for t, m in event_types.items()
        if t not in READ_EVENTS and t not in IGNORED_EVENTS and not STATUS_EVENT.fullmatch(t)
    }
    assert unknown == {}, f"Responses events neither read nor listed in IGNORED_EVENTS: {unknown}"
    assert not READ_EVENTS & set(IGNORED_EVENTS)
    assert not any(STATUS_EVENT.fullmatch(t) for t in IGNORED_EVENTS)


def test_the_stream_result_and_state_carry_the_extras() -> None:
    payloads = [
        {"type": "response.output_item.added", "output_index": 0, "item": _namespaced()},
        {"type": "response.function_call_arguments.done", "output_index": 0, "arguments": "{}"},
        {"type": "response.completed", "response": {}},
    ]
    with callstream.stream(payloads) as updates:
        for _ in updates:
            pass
        assert updates.call_extras == {"call_1": {"namespace": "crm"}}
    assert callstream.collect(payloads).call_extras == {"call_1": {"namespace": "crm"}}
    assert callstream.collect([]).call_extras == {}


def _namespaced() -> dict[str, Any]:
    return {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_1",
        "name": "lookup",
        "namespace": "crm",
        "arguments": "",
    }


def test_a_provider_error_too_deep_to_copy_is_kept_as_the_reason() -> None:
    deep: Any = "boom"
    for _ in range(1200):
        deep = [deep]
    item = {"type": "mcp_call", "id": "m", "name": "t", "server_label": "s", "arguments": "{}"}
    events = [done(0, {**item, "error": deep}), completed()]
    result = callstream.collect(events, max_depth=5)  # the assembler's own limit: not this one
    [entry] = result.server_tool_calls
    assert "error" in entry.get("extras", {})
    assert "nesting deeper than max_depth=1000" in entry["extras"]["error"]
