"""LangChain content-block events (``stream_events(version="v3")``, ``ChatModelStream``)
and LangGraph's wrappers read by the ``langchain`` format: streams of our own in the real
shapes (checked against ``langchain_protocol``'s own types), fed whole, one event at a
time, wrapped the ways LangGraph yields them, and as raw SSE cut anywhere; plus the
real langchain-core bridge (``chunks_to_events`` / ``message_to_events``) over real
``AIMessageChunk`` s."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import callstream
from callstream import ArgumentsDelta, StreamResult
from callstream.providers import detect_format, has_evidence
from callstream.providers.langchain import EVENTS, LangChainTranslator, detect
from tests.support.langchain_events import (
    CUT_EVENTS,
    ERROR_EVENTS,
    PARALLEL_EVENTS,
    REASONING_EVENTS,
    SERVER_EVENTS,
    call_start,
    delta,
    envelope,
    finish,
    message_finish,
    message_start,
    sse,
    start,
)
from tests.support.provider_helpers import check_never_raises, odd_payloads
from tests.support.strategies import splits


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


STREAMS: dict[str, list[dict[str, Any]]] = {
    "parallel": PARALLEL_EVENTS,
    "server-tool": SERVER_EVENTS,
    "max-tokens": CUT_EVENTS,
    "error": ERROR_EVENTS,
    "reasoning": REASONING_EVENTS,
}

SEARCH_CALL = {
    "type": "server_tool_call",
    "name": "web_search",
    "args": {"query": "weather Paris"},
    "id": "srvtoolu_1",
}


def calls(result: StreamResult) -> list[tuple[str, Any, str]]:
    return [(c["name"], c["args"], c["id"]) for c in result.tool_calls]


def check(name: str, result: StreamResult) -> None:
    """What each stream must give, stated outright."""
    assert result.provider == "langchain" and result.finished
    paris = ("get_weather", {"city": "Paris"})
    if name == "parallel":
        assert calls(result) == [
            (*paris, "call_1"),
            ("get_weather", {"city": "Edinburgh", "country": "UK"}, "call_2"),
        ]
        assert result.invalid_tool_calls == [] and result.server_tool_calls == []
        assert (result.finish_reason, result.text) == ("tool_calls", "Checking both.")
    elif name == "server-tool":
        assert result.server_tool_calls == [SEARCH_CALL]
        assert calls(result) == [(*paris, "toolu_1")] and result.invalid_tool_calls == []
        assert (result.finish_reason, result.text) == ("tool_use", "It is sunny.")
    elif name == "max-tokens":
        assert calls(result) == [(*paris, "toolu_1")]
        [bad] = result.invalid_tool_calls
        assert (bad["name"], bad["id"]) == ("make_file", "toolu_2")
        assert bad["args"] == '{"filename": "taxes.txt", "lines": ["# Tax guide", "Fil'
        assert "cut off by the token limit" in str(bad["error"])
        assert (result.finish_reason, result.provider_finish_reason) == ("length", "max_tokens")
    elif name == "error":
        assert calls(result) == [(*paris, "call_1")]
        [bad] = result.invalid_tool_calls
        assert (bad["id"], bad["args"]) == ("call_2", '{"city": "Edinburgh", "coun')
        assert bad["error"] == "LangChain stream error (provider_error): upstream connection reset"
        assert result.finish_reason == "error"
    else:
        assert calls(result) == [(*paris, "call_1")]
        assert (result.text, result.reasoning) == ("Let me look.", "The user wants the weather.")


def test_our_streams_have_the_protocols_shapes() -> None:
    # Checked by langchain-protocol's own types (pydantic, strict): the streams above
    # are what the protocol defines, not our reading of it.
    pydantic = pytest.importorskip("pydantic")
    protocol = pytest.importorskip("langchain_protocol.protocol")
    adapter = pydantic.TypeAdapter(protocol.MessagesData)
    for events in STREAMS.values():
        for event in events:
            adapter.validate_python(event, strict=True)


@pytest.mark.parametrize("name", list(STREAMS))
def test_fed_whole(name: str) -> None:
    check(name, callstream.collect(STREAMS[name], reasoning=True))
    check(name, callstream.collect(STREAMS[name], provider="langchain", reasoning=True))


@pytest.mark.parametrize("name", list(STREAMS))
def test_fed_one_event_at_a_time(name: str) -> None:
    events = STREAMS[name]
    with callstream.stream(iter(events), reasoning=True) as updates:
        seen = list(updates)
    assert [u.payload for u in seen if u.payload is not None] == events  # one update each
    check(name, updates.result)
    assert "".join(u.text for u in seen) == updates.result.text


@pytest.mark.anyio
@pytest.mark.parametrize("name", list(STREAMS))
async def test_async_fed_one_event_at_a_time(name: str) -> None:
    async def source() -> Any:
        for event in STREAMS[name]:
            yield event

    check(name, await callstream.acollect(source(), reasoning=True))


def wrappings(events: list[dict[str, Any]]) -> dict[str, list[Any]]:
    """The same events as LangGraph yields them."""
    meta = {"langgraph_node": "model", "langgraph_step": 1, "run_id": "run-1"}
    return {
        "bare": events,
        # Pregel's messages handler under stream_events(version="v3"): (event, metadata)
        "messages-tuples": [(e, meta) for e in events],
        # stream(version="v2"): StreamPart dicts
        "stream-parts": [{"type": "messages", "ns": (), "data": (e, meta)} for e in events],
        # stream_events(version="v3") in process: protocol events around the tuples
        "protocol-events": [
            {
                "type": "event",
                "method": "messages",
                "params": {"namespace": [], "timestamp": 1, "data": (e, meta)},
            }
            for e in events
        ],
        # ... and over the wire: the event itself as params.data
        "protocol-events-wire": [envelope(e) for e in events],
        # stream_mode=["messages", "updates"], subgraphs=True, and both
        "mode-tuples": [("messages", (e, meta)) for e in events],
        "namespace-tuples": [((), (e, meta)) for e in events],
        "namespace-mode-tuples": [((), "messages", (e, meta)) for e in events],
    }


OTHER_PARTS = [
    {"type": "values", "ns": (), "data": {"messages": []}},
    {"type": "updates", "ns": (), "data": {"model": {"messages": []}}},
    {"type": "event", "method": "lifecycle", "params": {"namespace": [], "data": {}}},
    ("updates", {"model": {}}),
]


@pytest.mark.parametrize("wrapping", list(wrappings([])))
@pytest.mark.parametrize("name", list(STREAMS))
def test_langgraph_wrappers(name: str, wrapping: str) -> None:
    payloads = wrappings(STREAMS[name])[wrapping]
    check(name, callstream.collect(payloads, reasoning=True))
    # Parts of other modes around them are part of the stream, with nothing to read.
    mixed = [*OTHER_PARTS, *payloads[:3], *OTHER_PARTS, *payloads[3:], *OTHER_PARTS]
    if wrapping != "bare":
        check(name, callstream.collect(mixed, reasoning=True))
    for payload in payloads:
        assert detect(payload) and detect_format(payload) == "langchain"


def test_a_second_message_is_never_mixed_into_the_first() -> None:
    # Two models streaming at once in parallel nodes (another namespace, another run):
    # the stream reads the first message; the other's calls, at the same indexes, never
    # join its calls. Its later end is after the end of the stream.
    first = [(e, {"run_id": "run-1"}) for e in PARALLEL_EVENTS]
    second = [(e, {"run_id": "run-2"}) for e in CUT_EVENTS]
    interleaved: list[Any] = []
    for i in range(max(len(first), len(second))):
        interleaved += second[i : i + 1] + first[i : i + 1]
    result = callstream.collect(interleaved)
    # the cut stream's message-start came first: it is the one read
    check("max-tokens", result)
    other = [(e, {"langgraph_node": "b"}) for e in PARALLEL_EVENTS]
    subgraph = [
        {"type": "messages", "ns": ("child:1",), "data": pair} for pair in other
    ]  # another namespace
    root = [{"type": "messages", "ns": (), "data": (e, {})} for e in CUT_EVENTS]
    mixed = [x for pair in zip(root, subgraph, strict=False) for x in pair]
    mixed += subgraph[len(root) :]
    check("max-tokens", callstream.collect(mixed))


@pytest.mark.parametrize("name", list(STREAMS))
def test_raw_sse_whole_and_char_by_char(name: str) -> None:
    for text in (sse(STREAMS[name]), sse([envelope(e) for e in STREAMS[name]], event="messages")):
        check(name, callstream.collect([text], reasoning=True))
        check(name, callstream.collect(list(text), reasoning=True))
        check(
            name,
            callstream.collect(
                [text.encode()[i : i + 1] for i in range(len(text.encode()))], reasoning=True
            ),
        )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), name=st.sampled_from(list(STREAMS)), wire=st.booleans())
def test_raw_sse_in_random_splits(data: st.DataObject, name: str, wire: bool) -> None:
    events = [envelope(e) for e in STREAMS[name]] if wire else STREAMS[name]
    text = sse(events)
    pieces = [p.encode() for p in data.draw(splits(text))]
    check(name, callstream.collect(pieces, reasoning=True))


def test_previews_after_every_argument_delta_end_as_collect() -> None:
    # LangChain itself parses the arguments only at message-finish; here every
    # tool-call-delta shows the call's arguments so far, and the previews grow into
    # what collect() gives.
    events = PARALLEL_EVENTS
    with callstream.stream(iter(events)) as updates:
        seen = [(u.payload, u.snapshot()) for u in updates]
    previews: dict[str, list[Any]] = {"call_1": [], "call_2": []}
    for payload, update in seen:
        if payload is not None and payload.get("delta", {}).get("type") == "tool-call-delta":
            assert any(isinstance(e, ArgumentsDelta) for e in update.events)
            current = {c["id"]: c["args"] for c in update.tool_calls}
            call_id = "call_1" if payload["index"] == 1 else "call_2"
            previews[call_id].append(current[call_id])
    assert previews["call_1"] == [{}, {"city": "Pa"}, {"city": "Paris"}]
    assert previews["call_2"] == [
        {"city": "Edin"},
        {"city": "Edinburgh"},  # a key is shown once it is complete
        {"city": "Edinburgh", "country": "UK"},
    ]
    final = callstream.collect(events)
    assert seen[-1][1].tool_calls == final.tool_calls
    assert [c["args"] for c in final.tool_calls] == [previews["call_1"][-1], previews["call_2"][-1]]


def test_detection_on_evidence() -> None:
    assert detect_format(message_start()) == "langchain"
    assert not has_evidence("langchain", message_start())  # a shape, no evidence
    assert has_evidence("langchain", call_start(0, "c", "f"))
    assert has_evidence("langchain", message_finish(None, None))
    assert not has_evidence("langchain", delta(0, text="hi"))  # text is no evidence
    for other in ({"event": "thread.run.step.delta"}, {"event": 5}):
        assert not detect(other)
    # Cohere's hyphenated events name their kind in ``type``, never in ``event``
    assert detect_format({"type": "message-start", "id": "x"}) == "cohere"


def test_an_error_without_open_calls_ends_the_stream_with_error() -> None:
    result = callstream.collect([message_start(), {"event": "error", "message": "overloaded"}])
    assert result.finish_reason == "error" and result.tool_calls == []


def test_the_older_event_shapes() -> None:
    # langchain-core before the explicit deltas: a ``content_block`` slice instead of a
    # ``delta`` (appended arguments), ``content_block`` in start and finish events, and a
    # top-level ``reason`` on message-finish (protocol < 0.0.9).
    def slice_(index: int, block: dict[str, Any]) -> dict[str, Any]:
        return {"event": "content-block-delta", "index": index, "content_block": block}

    events = [
        message_start(),
        {"event": "content-block-start", "index": 0, "content_block": {"type": "text", "text": ""}},
        slice_(0, {"type": "text", "text": "Hi."}),
        slice_(
            1, {"type": "tool_call_chunk", "id": "c1", "name": "f", "args": '{"a": ', "index": 0}
        ),
        slice_(1, {"type": "tool_call_chunk", "args": "1}", "index": 0}),
        slice_(
            2, {"type": "server_tool_call_chunk", "id": "s1", "name": "web_search", "args": "{}"}
        ),
        {"event": "message-finish", "reason": "max_tokens"},
    ]
    result = callstream.collect(events)
    assert calls(result) == [("f", {"a": 1}, "c1")] and result.text == "Hi."
    assert [c["id"] for c in result.server_tool_calls] == ["s1"]
    assert (result.finish_reason, result.provider_finish_reason) == ("length", "max_tokens")


def block_delta(index: int, **fields: Any) -> dict[str, Any]:
    return {
        "event": "content-block-delta",
        "index": index,
        "delta": {"type": "block-delta", "fields": {"type": "tool_call_chunk", **fields}},
    }


def test_block_delta_snapshots() -> None:
    # ``block-delta`` carries the call chunk so far: what extends the text is appended.
    growing = [
        message_start(),
        call_start(0, "c1", "f"),
        block_delta(0, args='{"a": '),
        block_delta(0, args='{"a": 1'),
        block_delta(0, args='{"a": 1}'),
        message_finish("finish_reason", "tool_calls"),
    ]
    assert calls(callstream.collect(growing)) == [("f", {"a": 1}, "c1")]
    # A snapshot that rewrites the text stops the deltas; the finished block decides.
    rewritten = [*growing[:3], block_delta(0, args='{"b": 2'), block_delta(0, args='{"b": 2}')]
    fixed = callstream.collect(
        [
            *rewritten,
            finish(0, {"type": "tool_call", "id": "c1", "name": "f", "args": {"b": 2}}),
            growing[-1],
        ]
    )
    assert calls(fixed) == [("f", {"b": 2}, "c1")]
    # ... and without one the call fails with the reason, never a silent mix of texts.
    [bad] = callstream.collect([*rewritten, growing[-1]]).invalid_tool_calls
    assert "rewrote the call's arguments" in str(bad["error"]) and bad["args"] == '{"a": '


def test_finished_blocks_without_deltas() -> None:
    # A whole message replayed as events (LangGraph for a node's returned message, a
    # cache hit): each call is in its start and its finish only.
    events = [
        message_start(),
        start(0, {"type": "tool_call", "id": "c1", "name": "f", "args": {}}),
        finish(0, {"type": "tool_call", "id": "c1", "name": "f", "args": {"a": [1, 2]}}),
        start(1, {"type": "invalid_tool_call", "id": "c2", "name": "g", "error": "bad"}),
        finish(
            1,
            {
                "type": "invalid_tool_call",
                "id": "c2",
                "name": "g",
                "args": '{"a": tru',
                "error": "bad",
            },
        ),
        start(2, {"type": "invalid_tool_call", "id": "c3", "name": "h", "error": "no name?"}),
        finish(
            2, {"type": "invalid_tool_call", "id": "c3", "name": "h", "args": None, "error": "boom"}
        ),
        finish(
            3,
            {
                "type": "server_tool_call",
                "id": "s1",
                "name": "web_search",
                "args": {"q": "x"},
                "index": 3,
            },
        ),
        finish(4, {"type": "text", "text": "Done."}),
        message_finish("finish_reason", "stop"),
    ]
    result = callstream.collect(events)
    assert calls(result) == [("f", {"a": [1, 2]}, "c1")] and result.text == "Done."
    invalid = {c["id"]: c for c in result.invalid_tool_calls}
    assert invalid["c2"]["args"] == '{"a": tru'  # our verdict on its text
    assert invalid["c3"]["error"] == "LangChain invalid_tool_call: boom"  # nothing to judge
    assert result.server_tool_calls == [
        {"type": "server_tool_call", "name": "web_search", "args": {"q": "x"}, "id": "s1"}
    ]


def test_finished_text_completes_its_deltas() -> None:
    events = [
        message_start(),
        start(0, {"type": "text", "text": ""}),
        delta(0, text="Hel"),
        finish(0, {"type": "text", "text": "Hello."}),  # the tail the deltas lacked
        finish(1, {"type": "text", "text": " Bye."}),  # no deltas at all
        start(2, {"type": "reasoning", "reasoning": ""}),
        delta(2, reasoning="hmm"),
        finish(2, {"type": "reasoning", "reasoning": "other"}),  # rewritten: nothing more
        message_finish(None, None),
    ]
    result = callstream.collect(events, reasoning=True)
    assert (result.text, result.reasoning, result.finish_reason) == ("Hello. Bye.", "hmm", None)


def test_argument_deltas_before_their_start_are_held() -> None:
    events = [
        message_start(),
        delta(0, args='{"a": 1}'),
        call_start(0, "c1", "f"),
        delta(1, args='{"orphan": '),  # no start and no finish ever says whose
        message_finish("finish_reason", "tool_calls"),
    ]
    result = callstream.collect(events)
    assert calls(result) == [("f", {"a": 1}, "c1")]
    [orphan] = result.invalid_tool_calls
    assert orphan["args"] == '{"orphan": ' and "no name" in str(orphan["error"])


def test_unusable_indexes_fail_their_call() -> None:
    events = [
        message_start(),
        start(None, {"type": "tool_call_chunk", "id": "c1", "name": "f", "args": ""}),  # type: ignore[arg-type]
        {
            "event": "content-block-delta",
            "index": "x",
            "delta": {"type": "tool-call-delta", "args": "{}"},
        },
        call_start(1, "c2", "g"),
        delta(1, args="{}"),
        message_finish("finish_reason", "tool_calls"),
    ]
    result = callstream.collect(events)
    assert calls(result) == [("g", {}, "c2")]
    [bad] = result.invalid_tool_calls
    assert bad["id"] == "c1" and "unusable LangChain content-block index" in str(bad["error"])


def test_a_message_of_another_role_is_skipped() -> None:
    events = [
        message_start(role="human"),
        call_start(0, "x", "not_a_call"),
        message_finish("finish_reason", "stop"),
        *PARALLEL_EVENTS,
    ]
    check("parallel", callstream.collect(events))


def test_a_message_starting_before_the_last_one_finished_keeps_its_calls_apart() -> None:
    first = [message_start(), call_start(0, "c1", "f"), delta(0, args='{"a": ')]
    second = [message_start("lc_run--2"), call_start(0, "c2", "g"), delta(0, args='{"b": 2}')]
    result = callstream.collect([*first, *second, message_finish("finish_reason", "tool_calls")])
    assert calls(result) == [("g", {"b": 2}, "c2")]
    assert [c["id"] for c in result.invalid_tool_calls] == ["c1"]


KEYS = ["event", "index", "delta", "content", "content_block", "type", "args", "fields"]
KEYS += ["text", "reasoning", "metadata", "message", "id", "name", "method", "params", "data"]
VALUES = [*sorted(EVENTS), "text-delta", "tool-call-delta", "block-delta", "tool_call_chunk"]
VALUES += ["tool_call", "invalid_tool_call", "server_tool_call_chunk", "messages", "event"]


def as_events(payload: Any) -> Any:
    """Junk made an event (a dict with a known ``event``) or a LangGraph envelope: provider
    data, never raised on. (Bare lists are the user's tool-call chunks: a wrong one is
    the calling code's bug and raises ChunkValidationError, see test_providers_langchain.)"""
    if isinstance(payload, dict):  # its own "event" key must not unmake the event
        return {**payload, "event": "content-block-delta"}
    return envelope(payload)


@settings(max_examples=200, deadline=None)
@given(st.lists(odd_payloads(KEYS, VALUES).map(as_events), max_size=12))
def test_odd_events_never_raise(payloads: list[Any]) -> None:
    check_never_raises(LangChainTranslator(), payloads)


def test_odd_event_fields_never_raise() -> None:
    odd = [
        {
            "event": "content-block-delta",
            "index": 0,
            "delta": {"type": "tool-call-delta", "args": 5},
        },
        {"event": "content-block-start", "index": 0, "content": {"type": "tool_call", "args": [1]}},
        {"event": "content-block-finish", "index": 0, "content": "text"},
        {"event": "message-finish", "metadata": 5},
        {"event": "error", "message": {"x": 1}},
        ({"event": "message-start"}, {"run_id": 5}),
        {"type": "event", "method": "messages", "params": {"data": [1, 2, 3]}},
    ]
    check_never_raises(LangChainTranslator(), odd)
