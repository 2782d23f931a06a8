"""Format auto-detection on evidence: stray payloads, streams that stop matching, SDK objects."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import callstream
from callstream import UnknownFormatError
from callstream._pipeline import MAX_MISMATCHED, MAX_UNRECOGNIZED_OBJECTS
from callstream.providers import detect_format, has_evidence
from callstream.testing import MockProvider, WireStream
from tests.providers.transport.test_transport_lines import ANTHROPIC, OLLAMA, OPENAI, STREAMS, same
from tests.support.strategies import splits


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


STRAYS = [
    {"index": 0},
    {"type": "message_start"},
    {"candidates": []},
    {"id": "chatcmpl-1"},
    {"done": False, "message": {}},
]
PAYLOADS = {"openai": OPENAI, "anthropic": ANTHROPIC, "ollama": OLLAMA}


def sse(payloads: list[Any]) -> str:
    return "".join(f"data: {json.dumps(p)}\n\n" for p in payloads)


@pytest.mark.parametrize("stray", STRAYS, ids=json.dumps)
@pytest.mark.parametrize("name", sorted(PAYLOADS))
def test_a_stray_first_payload_does_not_choose_the_format(stray: dict[str, Any], name: str) -> None:
    payloads = [stray, *PAYLOADS[name]]
    same(callstream.collect(payloads), name)
    updates = list(callstream.stream(payloads))
    # held, then replayed in order: one update per payload
    assert [u.payload for u in updates if u.payload is not None] == payloads


@pytest.mark.parametrize("stray", STRAYS, ids=json.dumps)
def test_a_stray_first_event_in_raw_sse_whole_and_char_by_char(stray: dict[str, Any]) -> None:
    text = sse([stray, *OPENAI])
    same(callstream.collect([text]), "openai")
    same(callstream.collect(list(text)), "openai")
    same(callstream.collect(text.splitlines()), "openai")


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(STRAYS), st.data())
def test_a_stray_first_event_in_random_splits(stray: dict[str, Any], data: st.DataObject) -> None:
    text = sse([stray, stray, *OPENAI])
    same(callstream.collect(data.draw(splits(text))), "openai")


def test_strays_are_no_evidence_and_real_fields_are() -> None:
    for stray in STRAYS:
        name = detect_format(stray)
        assert name is None or not has_evidence(name, stray)
    assert has_evidence("openai-chat", OPENAI[1])  # a tool call
    assert has_evidence("openai-chat", OPENAI[-1])  # a finish reason
    assert not has_evidence("openai-chat", OPENAI[0])  # a role chunk: a shape only
    assert has_evidence("anthropic", ANTHROPIC[5])  # tool_use block start
    assert has_evidence("anthropic", ANTHROPIC[-1])
    assert has_evidence("ollama", OLLAMA[1]) and has_evidence("ollama", OLLAMA[2])
    assert not has_evidence("ollama", OLLAMA[0])


def test_text_only_stream_is_chosen_by_its_shape() -> None:
    text_chunks = [
        {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": t}}]}
        for t in "abcdef"
    ]
    updates = list(callstream.stream(text_chunks))
    assert len(updates) == len(text_chunks) + 1
    assert callstream.collect(text_chunks).provider == "openai-chat"
    assert callstream.collect(text_chunks[:1]).provider == "openai-chat"  # chosen at close


def test_a_stream_that_stops_matching_raises() -> None:
    chunk = {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}}]}
    source = [*ANTHROPIC[:6], *[chunk] * (MAX_MISMATCHED + 1)]
    with pytest.raises(UnknownFormatError, match="read as 'anthropic', but its last 17"):
        callstream.collect(source)
    # a few foreign payloads (pings, keep-alives) are fine
    assert callstream.collect([*ANTHROPIC[:6], *[chunk] * 3, *ANTHROPIC[6:]]).tool_calls


def test_three_like_strays_then_another_format_raises_instead_of_going_silent() -> None:
    source = [{"candidates": []}] * 3 + OPENAI * 4
    with pytest.raises(UnknownFormatError, match="read as 'gemini'"):
        callstream.collect(source)


def test_mismatch_is_checked_for_an_explicit_provider_too() -> None:
    source = [*ANTHROPIC, *[{"x": 1}] * (MAX_MISMATCHED + 5)]
    with pytest.raises(UnknownFormatError, match="read as 'anthropic', but its last 17") as info:
        callstream.collect(source, provider="anthropic")
    assert info.value.callstream_result.tool_calls  # type: ignore[attr-defined]
    assert callstream.collect(source[: len(ANTHROPIC) + MAX_MISMATCHED], provider="anthropic")


class _Opaque:
    """An SDK object of no known shape."""

    def __init__(self, number: int) -> None:
        self.number = number


def test_unrecognized_sdk_objects_fail_fast() -> None:
    pulled = 0

    def source() -> Iterator[_Opaque]:
        nonlocal pulled
        for i in range(1000):
            pulled += 1
            yield _Opaque(i)

    with pytest.raises(UnknownFormatError, match="cannot recognize"):
        callstream.collect(source())
    assert pulled == MAX_UNRECOGNIZED_OBJECTS <= 8


# --- the openai SDK's chat.completions.stream() helper ----------------------------------------

TOOLS: list[Any] = [
    {
        "type": "function",
        "function": {
            "name": name,
            "parameters": {"type": "object", "properties": {}, "additionalProperties": True},
        },
    }
    for name in ("get_weather", "get_time")
]


def _transport(times: int) -> httpx.MockTransport:
    """``times`` answers with the OpenAI stream, from ``callstream.testing.MockProvider``."""
    stream = WireStream([STREAMS["openai"][0].encode()], "openai-chat")
    return httpx.MockTransport(MockProvider(*[stream] * times))


def _ask() -> dict[str, Any]:
    return {"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}], "tools": TOOLS}


def test_openai_stream_helper_events_give_the_raw_chunks_calls() -> None:
    client = openai.OpenAI(
        api_key="sk-test",
        base_url="https://api.example.test/v1",
        http_client=httpx.Client(transport=_transport(3)),
    )
    with client.chat.completions.stream(**_ask()) as events:
        result = callstream.collect(events)
    same(result, "openai")
    with client.chat.completions.stream(**_ask()) as events:
        kinds = set()
        for update in callstream.stream(events):
            kinds.add(getattr(update.payload, "type", None))
    assert {"chunk", "tool_calls.function.arguments.delta"} <= kinds
    with client.chat.completions.stream(**_ask()) as events:
        assert callstream.collect(events, provider="openai-chat") == result


@pytest.mark.anyio
async def test_openai_async_stream_helper_events_give_the_raw_chunks_calls() -> None:
    client = openai.AsyncOpenAI(
        api_key="sk-test",
        base_url="https://api.example.test/v1",
        http_client=httpx.AsyncClient(transport=_transport(2)),
    )
    async with client.chat.completions.stream(**_ask()) as events:
        result = await callstream.acollect(events)
    same(result, "openai")
    async with client.chat.completions.stream(**_ask()) as events:
        seen = [update async for update in callstream.astream(events)]
    assert seen[-1].tool_calls == result.tool_calls
