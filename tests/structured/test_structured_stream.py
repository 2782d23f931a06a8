"""``callstream.structured`` and its async twin over every provider format (issue 27 item
1): the text deltas are the JSON, reasoning is ignored, updates carry the partial object,
the completed paths and the text; the end is the validated value or an error that keeps
the text and the partial object; a token-limit cut is an error."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from pydantic import BaseModel

import callstream
from callstream import (
    OptionValueError,
    StructuredOutputError,
    StructuredUpdate,
    collect_structured,
    structured,
)
from tests.structured.models import Doc, Item
from tests.structured.payloads import FORMATS, payloads, split_text

TEXT = json.dumps(
    {
        "title": "Groceries",
        "items": [{"name": "apple", "qty": 3, "tags": ["fruit"]}, {"name": "bread"}],
        "meta": {"aisle": 4},
        "pet": {"kind": "cat", "lives": 9},
    }
)
EXPECTED = Doc.model_validate_json(TEXT)


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.mark.parametrize("fmt", FORMATS)
def test_each_format_gives_updates_and_the_validated_value(fmt: str) -> None:
    source = payloads(fmt, split_text(TEXT, 9))
    with structured(source, Doc) as updates:
        seen = list(updates)
    assert all(isinstance(u, StructuredUpdate) for u in seen)
    last = seen[-1]
    assert last.done and last.value == EXPECTED and type(last.value) is Doc
    assert last.update is None and last.closed == ((),)
    assert not any(u.done for u in seen[:-1])
    assert "".join(u.delta for u in seen) == TEXT  # the reasoning was not read
    assert updates.result is not None and updates.result.value == EXPECTED
    assert updates.result.stream.provider == fmt
    assert updates.stream_result.text == TEXT
    closed = [path for u in seen[:-1] for path in u.closed]
    assert ("title",) in closed and ("items", 0) in closed and closed[-1] == ()
    assert collect_structured(source, Doc).value == EXPECTED


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_token_limit_cut_is_an_error_with_the_partial_object(fmt: str) -> None:
    cut = TEXT[: TEXT.index('"bread') + 3]  # ... {"name": "br
    source = payloads(fmt, split_text(cut, 7), finish="length")
    updates = structured(source, Doc)
    with pytest.raises(StructuredOutputError) as caught:
        for _ in updates:
            pass
    error = caught.value
    assert error.reason == "length" and error.finish_reason == "length"
    assert "token limit" in str(error)
    assert error.text == cut
    assert error.value.title == "Groceries"
    assert error.value.items[0] == Item(name="apple", qty=3, tags=["fruit"])
    assert error.value.items[1].name == "br"
    assert error.partial == json.loads(cut + '"}]}')  # the JSON preview
    assert updates.value is error.value and updates.error is error and updates.result is None
    with pytest.raises(StructuredOutputError):
        collect_structured(source, Doc)


def test_the_text_so_far_and_the_update_it_came_from() -> None:
    pieces = split_text(TEXT, 11)
    seen = list(structured(payloads("openai-chat", pieces), Doc, provider="openai-chat"))
    texts = [u.text for u in seen]
    assert texts[0] == "" and texts[1] == pieces[0] and texts[2] == pieces[0] + pieces[1]
    assert texts[-1] == TEXT
    assert seen[1].update is not None and seen[1].update.payload["choices"][0]["delta"] == {
        "content": pieces[0]
    }


def test_raw_server_sent_events_are_read_too() -> None:
    body = "".join(f"data: {json.dumps(p)}\n\n" for p in payloads("openai-chat", [TEXT]))
    raw = [body[i : i + 13].encode() for i in range(0, len(body), 13)]
    assert collect_structured(raw, Doc).value == EXPECTED


def test_not_json_fails_at_once_and_closes_the_source() -> None:
    closed: list[bool] = []

    def source() -> Any:
        try:
            yield from payloads("openai-chat", ["Sure! ", TEXT])
        finally:
            closed.append(True)

    updates = structured(source(), Doc)
    with pytest.raises(StructuredOutputError) as caught:
        for _ in updates:
            pass
    assert caught.value.reason == "json" and caught.value.text == "Sure! "
    assert "position 0" in str(caught.value)
    assert closed == [True]
    assert list(updates) == []  # finished


@pytest.mark.parametrize(
    ("extract", "pieces"),
    [
        ("fenced", ["```json\n", TEXT, "\n```"]),
        ("fenced", ["  ``", "`\n", TEXT[:5], TEXT[5:] + "\n`", "``\n"]),
        ("prose", ["Here you go:\n```json\n", TEXT, "\n```\nAnything else?"]),
        ("prose", ["I picked these items: ", TEXT, " - enjoy {"]),
    ],
)
def test_leading_prose_and_fences_as_an_option(extract: str, pieces: list[str]) -> None:
    source = payloads("anthropic", pieces)
    result = collect_structured(source, Doc, extract=extract)
    assert result.value == EXPECTED and result.json_text.strip() == TEXT
    assert result.text == "".join(pieces)
    with pytest.raises(StructuredOutputError, match="not valid JSON"):
        collect_structured(source, Doc)  # extract="json": the text must be the value


def test_prose_mode_takes_the_first_bracket() -> None:
    source = payloads("anthropic", ["I picked [these] items: ", TEXT])
    # "[these]" comes first: it is where the value begins, and it is not JSON
    with pytest.raises(StructuredOutputError) as caught:
        collect_structured(source, Doc, extract="prose")
    assert caught.value.reason == "json"


def test_fenced_mode_refuses_text_after_the_fence() -> None:
    source = payloads("anthropic", ["```json\n", TEXT, "\n```\nHope this helps"])
    with pytest.raises(StructuredOutputError, match="after the JSON value"):
        collect_structured(source, Doc, extract="fenced")


def test_an_unknown_extract_mode_is_a_usage_error() -> None:
    with pytest.raises(OptionValueError, match="extract must be one of"):
        structured([], Doc, extract="html")  # type: ignore[arg-type]


def test_no_text_at_all_is_an_error() -> None:
    tool_only = [
        {"type": "message_start", "message": {"id": "m", "content": []}},
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "tool_use", "id": "t", "name": "f", "input": {}},
        },
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"}},
        {"type": "message_stop"},
    ]
    with pytest.raises(StructuredOutputError) as caught:
        collect_structured(tool_only, Doc)
    assert caught.value.reason == "incomplete" and "no JSON value" in str(caught.value)


def test_a_provider_error_mid_stream() -> None:
    source = [
        *payloads("anthropic", [TEXT[:30]])[:-3],
        {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
    ]
    with pytest.raises(StructuredOutputError) as caught:
        collect_structured(source, Doc)
    assert caught.value.reason == "provider_error" and "Overloaded" in str(caught.value)
    assert caught.value.text == TEXT[:30]


def test_a_validation_failure_keeps_pydantic_s_message_and_the_raw_text() -> None:
    text = '{"title": "t", "items": [{"name": "a", "qty": "lots"}]}'
    with pytest.raises(StructuredOutputError) as caught:
        collect_structured(payloads("gemini", [text]), Doc)
    error = caught.value
    assert error.reason == "validation" and error.text == text
    assert "items.0.qty" in str(error) and "valid integer" in str(error)
    assert error.errors is not None and error.errors[0]["loc"] == ("items", 0, "qty")


def test_a_dropped_connection_propagates_and_the_partial_object_stays() -> None:
    def source() -> Any:
        yield from payloads("openai-chat", [TEXT[:40]])[:-1]
        raise ConnectionError("reset")

    updates = structured(source(), Doc)
    with pytest.raises(ConnectionError):
        for _ in updates:
            pass
    assert updates.value.title == "Groceries" and updates.text == TEXT[:40]
    assert updates.stream_result.interrupted


def test_without_a_schema_the_value_is_plain_json() -> None:
    result = collect_structured(payloads("ollama", split_text(TEXT, 5)))
    assert result.value == json.loads(TEXT)
    seen = [copy.deepcopy(u.value) for u in structured(payloads("ollama", split_text(TEXT, 5)))]
    assert seen[-1] == json.loads(TEXT)
    assert {"title": "Groc"} in seen  # strings grow (the value is a live view: copied here)


def test_collect_validates_only_at_the_end(monkeypatch: pytest.MonkeyPatch) -> None:
    from callstream.partial._shapes import Shape

    calls: list[str] = []
    original = Shape.validate

    def counting(shape: Shape, text: str) -> Any:
        calls.append(text)
        return original(shape, text)

    monkeypatch.setattr(Shape, "validate", counting)
    assert collect_structured(payloads("anthropic", split_text(TEXT, 3)), Doc).value == EXPECTED
    assert calls == []
    list(structured(payloads("anthropic", split_text(TEXT, 3)), Doc))
    assert calls  # previews validate values as they close


def test_stream_options_reach_the_pipeline_and_bound_the_json() -> None:
    source = payloads("openai-chat", [TEXT])
    with pytest.raises(StructuredOutputError, match="max_chars"):
        collect_structured(source, Doc, max_chars=20)
    result = collect_structured(source, Doc, reasoning=True)
    assert result.stream.reasoning.startswith("The user wants JSON")


def test_the_json_text_has_the_streams_default_max_chars() -> None:
    """Without ``max_chars`` the JSON text is bounded like argument text (issue 32): one
    character past ``DEFAULT_MAX_CHARS`` is refused at the chunk that brings it."""
    from callstream._assembly.options import DEFAULT_MAX_CHARS

    fits = "[" + " " * (DEFAULT_MAX_CHARS - 2) + "]"
    assert collect_structured(payloads("openai-chat", [fits])).value == []
    with pytest.raises(StructuredOutputError, match="max_chars") as caught:
        collect_structured(payloads("openai-chat", [fits + " "]))
    assert caught.value.reason == "json"
    assert collect_structured(payloads("openai-chat", [fits + " "]), max_chars=None).value == []


def test_langchain_message_chunks() -> None:
    from langchain_core.messages import AIMessageChunk

    chunks = [AIMessageChunk(content=piece) for piece in split_text(TEXT, 8)]
    assert collect_structured(chunks, Doc, provider="langchain").value == EXPECTED


class Tiny(BaseModel):
    a: int


@pytest.mark.anyio
async def test_the_async_twin_gives_the_same_updates() -> None:
    source = payloads("openai-responses", split_text(TEXT, 6))
    sync = [(u.delta, u.closed, u.done) for u in structured(source, Doc)]

    async def agen() -> Any:
        for payload in source:
            yield payload

    async with callstream.astructured(agen(), Doc) as updates:
        seen = [u async for u in updates]
    assert [(u.delta, u.closed, u.done) for u in seen] == sync
    assert seen[-1].value == EXPECTED
    assert (await callstream.acollect_structured(source, Doc)).value == EXPECTED
    with pytest.raises(StructuredOutputError) as caught:
        await callstream.acollect_structured(payloads("openai-chat", ['{"a": 1'], "length"), Tiny)
    assert caught.value.reason == "length"
