"""Structured-output streams of our own in the real wire shapes, through the real SDK
clients on mock transports (``callstream.testing.MockProvider``; no network): OpenAI
Chat (``response_format`` json_schema), OpenAI Responses (``text.format``), Anthropic
(``output_config.format``) and Gemini (``response_schema``, google-genai over ``httpx2``),
sync and async; a token-limit cut through each client is an error with the partial
object."""

from __future__ import annotations

import json
from typing import Any

import anthropic
import openai
import pytest
from google import genai
from google.genai import types as genai_types

import callstream
from callstream import StructuredOutputError
from tests.structured.models import Doc, Item
from tests.support.real_clients import Replay

TEXT = json.dumps(
    {
        "title": "Trip",
        "items": [{"name": "tent", "qty": 1, "tags": ["camp", "sleep"]}, {"name": "stove"}],
        "pet": {"kind": "dog", "name": "Rex"},
        "mode": "slow",
    }
)
EXPECTED = Doc.model_validate_json(TEXT)
CUT = TEXT[: TEXT.index('"stove') + 4]  # ... {"name": "sto
SCHEMA = Doc.model_json_schema()
THOUGHT = "Thinking about {the trip"


def pieces(text: str, size: int = 6) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


# --- OpenAI Chat Completions ----------------------------------------------------------------


def chat_wire(text: str, finish: str) -> bytes:
    def chunk(delta: dict[str, Any], reason: str | None = None) -> dict[str, Any]:
        return {
            "id": "chatcmpl-9",
            "object": "chat.completion.chunk",
            "created": 1_733_000_000,
            "model": "gpt-4o-2024-08-06",
            "system_fingerprint": "fp_1",
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": reason}],
        }

    events = [chunk({"role": "assistant", "content": "", "refusal": None})]
    events += [chunk({"content": piece}) for piece in pieces(text)]
    events.append(chunk({}, finish))
    events.append(
        {
            "id": "chatcmpl-9",
            "object": "chat.completion.chunk",
            "created": 1_733_000_000,
            "model": "gpt-4o-2024-08-06",
            "choices": [],
            "usage": {"prompt_tokens": 20, "completion_tokens": 40, "total_tokens": 60},
        }
    )
    body = "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"
    return body.encode()


CHAT_FORMAT = {
    "type": "json_schema",
    "json_schema": {"name": "doc", "schema": SCHEMA, "strict": False},
}


def openai_client(replay: Replay, *, aio: bool = False) -> Any:
    options: dict[str, Any] = {"api_key": "test", "base_url": "http://test/v1", "max_retries": 0}
    if aio:
        return openai.AsyncOpenAI(http_client=replay.async_client(), **options)
    return openai.OpenAI(http_client=replay.client(), **options)


def chat_stream(replay: Replay) -> Any:
    return openai_client(replay).chat.completions.create(
        model="gpt-4o-2024-08-06",
        messages=[{"role": "user", "content": "Plan a trip"}],
        response_format=CHAT_FORMAT,
        stream=True,
        stream_options={"include_usage": True},
    )


# --- OpenAI Responses ----------------------------------------------------------------------


def responses_wire(text: str, finish: str) -> bytes:
    base = {
        "id": "resp_9",
        "object": "response",
        "created_at": 1_733_000_000,
        "model": "gpt-4o-2024-08-06",
        "output": [],
        "text": {"format": {"type": "json_schema", "name": "doc", "schema": SCHEMA}},
    }
    message = {"id": "msg_9", "type": "message", "role": "assistant", "content": []}
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {**base, "status": "in_progress"}},
        {"type": "response.in_progress", "response": {**base, "status": "in_progress"}},
        {"type": "response.output_item.added", "output_index": 0, "item": {
            "id": "rs_9", "type": "reasoning", "summary": []}},
        {"type": "response.reasoning_summary_text.delta", "item_id": "rs_9", "output_index": 0,
         "summary_index": 0, "delta": THOUGHT},
        {"type": "response.output_item.done", "output_index": 0, "item": {
            "id": "rs_9", "type": "reasoning", "summary": [{"type": "summary_text", "text": THOUGHT}]}},
        {"type": "response.output_item.added", "output_index": 1,
         "item": {**message, "status": "in_progress"}},
        {"type": "response.content_part.added", "item_id": "msg_9", "output_index": 1,
         "content_index": 0, "part": {"type": "output_text", "text": "", "annotations": []}},
    ]  # fmt: skip
    events += [
        {
            "type": "response.output_text.delta",
            "item_id": "msg_9",
            "output_index": 1,
            "content_index": 0,
            "delta": piece,
            "logprobs": [],
        }
        for piece in pieces(text)
    ]
    part = {"type": "output_text", "text": text, "annotations": []}
    done_message = {**message, "status": "completed", "content": [part]}
    if finish == "length":
        events.append(
            {
                "type": "response.incomplete",
                "response": {
                    **base,
                    "status": "incomplete",
                    "incomplete_details": {"reason": "max_output_tokens"},
                    "output": [{**done_message, "status": "incomplete"}],
                },
            }
        )
    else:
        events += [
            {"type": "response.output_text.done", "item_id": "msg_9", "output_index": 1,
             "content_index": 0, "text": text, "logprobs": []},
            {"type": "response.content_part.done", "item_id": "msg_9", "output_index": 1,
             "content_index": 0, "part": part},
            {"type": "response.output_item.done", "output_index": 1, "item": done_message},
            {"type": "response.completed",
             "response": {**base, "status": "completed", "output": [done_message]}},
        ]  # fmt: skip
    body = ""
    for number, event in enumerate(events):
        numbered = {**event, "sequence_number": number}
        body += f"event: {event['type']}\ndata: {json.dumps(numbered)}\n\n"
    return body.encode()


def responses_stream(replay: Replay) -> Any:
    return openai_client(replay).responses.create(
        model="gpt-4o-2024-08-06",
        input="Plan a trip",
        text={"format": {"type": "json_schema", "name": "doc", "schema": SCHEMA}},
        stream=True,
    )


# --- Anthropic ----------------------------------------------------------------------------


def anthropic_wire(text: str, finish: str) -> bytes:
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": {
            "id": "msg_9", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [], "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": 30, "output_tokens": 1}}},
        {"type": "content_block_start", "index": 0,
         "content_block": {"type": "thinking", "thinking": "", "signature": ""}},
        {"type": "content_block_delta", "index": 0,
         "delta": {"type": "thinking_delta", "thinking": THOUGHT}},
        {"type": "content_block_delta", "index": 0,
         "delta": {"type": "signature_delta", "signature": "c2ln"}},
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1,
         "content_block": {"type": "text", "text": ""}},
    ]  # fmt: skip
    events += [
        {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": p}}
        for p in pieces(text)
    ]
    events += [
        {"type": "content_block_stop", "index": 1},
        {"type": "message_delta",
         "delta": {"stop_reason": "max_tokens" if finish == "length" else "end_turn",
                   "stop_sequence": None},
         "usage": {"output_tokens": 80}},
        {"type": "message_stop"},
    ]  # fmt: skip
    body = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
    return body.encode()


def anthropic_client(replay: Replay, *, aio: bool = False) -> Any:
    options: dict[str, Any] = {"api_key": "test", "base_url": "http://test", "max_retries": 0}
    if aio:
        return anthropic.AsyncAnthropic(http_client=replay.async_client(), **options)
    return anthropic.Anthropic(http_client=replay.client(), **options)


ANTHROPIC_REQUEST: dict[str, Any] = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 1024,
    "messages": [{"role": "user", "content": "Plan a trip"}],
    "output_config": {"format": {"type": "json_schema", "schema": SCHEMA}},
    "stream": True,
}


def anthropic_stream(replay: Replay) -> Any:
    return anthropic_client(replay).messages.create(**ANTHROPIC_REQUEST)


# --- Gemini (google-genai) ------------------------------------------------------------------


def gemini_wire(text: str, finish: str) -> bytes:
    def chunk(part: dict[str, Any], reason: str | None = None) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"parts": [part], "role": "model"}, "index": 0}
        if reason is not None:
            candidate["finishReason"] = reason
        return {
            "candidates": [candidate],
            "usageMetadata": {"promptTokenCount": 12, "totalTokenCount": 40},
            "modelVersion": "gemini-2.5-flash",
            "responseId": "gem_9",
        }

    events = [chunk({"text": THOUGHT, "thought": True})]
    events += [chunk({"text": piece}) for piece in pieces(text)]
    events.append(chunk({"text": ""}, "MAX_TOKENS" if finish == "length" else "STOP"))
    return "".join(f"data: {json.dumps(e)}\r\n\r\n" for e in events).encode()


def gemini_client(replay: Replay, *, aio: bool = False) -> genai.Client:
    http = genai_types.HttpOptions(
        base_url="http://test",
        httpx_async_client=replay.async_client() if aio else None,
        httpx_client=None if aio else replay.client(),
    )
    return genai.Client(api_key="test", http_options=http)


GEMINI_CONFIG = genai_types.GenerateContentConfig(
    response_mime_type="application/json", response_schema=Item
)


def gemini_stream(replay: Replay) -> Any:
    return gemini_client(replay).models.generate_content_stream(
        model="gemini-2.5-flash", contents="Plan a trip", config=GEMINI_CONFIG
    )


# --- the tests ----------------------------------------------------------------------------

CLIENTS = {
    "openai-chat": (chat_wire, chat_stream),
    "openai-responses": (responses_wire, responses_stream),
    "anthropic": (anthropic_wire, anthropic_stream),
    "gemini": (gemini_wire, gemini_stream),
}


@pytest.mark.parametrize("name", sorted(CLIENTS))
def test_sdk_streams_give_the_validated_object(name: str) -> None:
    wire, open_stream = CLIENTS[name]
    replay = Replay(wire(TEXT, "stop"), name, size=17, times=2)
    updates = []
    with callstream.structured(open_stream(replay), Doc) as stream_updates:
        for update in stream_updates:
            updates.append(update)
    assert updates[-1].done and updates[-1].value == EXPECTED
    assert stream_updates.result is not None
    assert stream_updates.result.stream.provider == name
    assert stream_updates.text == TEXT  # the thinking is not read as JSON
    titles = [u.value.title for u in updates[:-1] if u.value is not None]
    assert "Trip" in titles
    assert replay.closed == (True,)
    if name == "openai-chat":
        assert replay.requests[0].body["response_format"] == CHAT_FORMAT
    result = callstream.collect_structured(open_stream(replay), Doc)
    assert result.value == EXPECTED and result.json_text == TEXT


@pytest.mark.parametrize("name", sorted(CLIENTS))
def test_a_token_limit_cut_through_the_sdk_is_an_error(name: str) -> None:
    wire, open_stream = CLIENTS[name]
    replay = Replay(wire(CUT, "length"), name, size=11)
    with pytest.raises(StructuredOutputError) as caught:
        for _ in callstream.structured(open_stream(replay), Doc):
            pass
    error = caught.value
    assert error.reason == "length" and error.text == CUT
    assert error.value.items[0] == Item(name="tent", qty=1, tags=["camp", "sleep"])
    assert error.value.items[1].name == "sto"
    assert replay.closed == (True,)


async def async_stream(name: str, replay: Replay) -> Any:
    if name == "openai-chat":
        return await openai_client(replay, aio=True).chat.completions.create(
            model="gpt-4o-2024-08-06",
            messages=[{"role": "user", "content": "Plan a trip"}],
            response_format=CHAT_FORMAT,
            stream=True,
        )
    if name == "openai-responses":
        return await openai_client(replay, aio=True).responses.create(
            model="gpt-4o-2024-08-06",
            input="Plan a trip",
            text={"format": {"type": "json_schema", "name": "doc", "schema": SCHEMA}},
            stream=True,
        )
    if name == "anthropic":
        return await anthropic_client(replay, aio=True).messages.create(**ANTHROPIC_REQUEST)
    return await gemini_client(replay, aio=True).aio.models.generate_content_stream(
        model="gemini-2.5-flash", contents="Plan a trip", config=GEMINI_CONFIG
    )


@pytest.mark.anyio
@pytest.mark.parametrize("name", sorted(CLIENTS))
async def test_async_sdk_streams(name: str) -> None:
    wire, _ = CLIENTS[name]
    replay = Replay(wire(TEXT, "stop"), name, size=13, times=2)
    async with callstream.astructured(await async_stream(name, replay), Doc) as updates:
        seen = [update async for update in updates]
    assert seen[-1].done and seen[-1].value == EXPECTED
    result = await callstream.acollect_structured(await async_stream(name, replay), Doc)
    assert result.value == EXPECTED
    assert replay.closed == (True, True)


def test_the_sdk_objects_themselves_are_read() -> None:
    """Not a re-parse of the wire: the sources above are the SDKs' own objects."""
    replay = Replay(gemini_wire(TEXT, "stop"), "gemini", size=17)
    first = next(iter(gemini_stream(replay)))
    assert isinstance(first, genai_types.GenerateContentResponse)
    replay = Replay(anthropic_wire(TEXT, "stop"), "anthropic", size=17)
    assert type(next(iter(anthropic_stream(replay)))).__module__.startswith("anthropic.")
