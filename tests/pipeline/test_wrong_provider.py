"""A format named with ``provider=`` that does not read the stream is an error, never an
empty result (the foreign-payload rule of ``callstream._pipeline``): every mismatched
(reader, stream) pair of the eight formats raises ``UnknownFormatError`` naming the format
the payloads look like, with the partial result; every matched pair reads as ``"auto"``
does; payloads a format ignores on purpose stay ignored however many come."""

from __future__ import annotations

import io
import json
from typing import Any

import anyio
import pytest

import callstream
from callstream import UnknownFormatError
from callstream._pipeline import MAX_MISMATCHED
from callstream.cli import run
from callstream.examples import EXAMPLES, example_path, read_example
from callstream.testing import stream_of
from callstream.testing._wire import BYTE_FORMATS
from tests.support.formats import CALL_FORMATS

CALLS = [
    {"name": "get_weather", "args": {"city": "Paris", "days": [1, 2]}, "id": "call_1"},
    {"name": "search", "args": {"q": "a ✓"}, "id": "call_2"},
]


def written(fmt: str) -> list[Any]:
    return list(stream_of(CALLS, format=fmt, text="Hi"))


def refused(source: Any, provider: str) -> UnknownFormatError:
    with pytest.raises(UnknownFormatError) as info:
        callstream.collect(source, provider=provider)
    return info.value


# raw-text formats left out (tests/support/formats.py says why); their own readers are
# checked against these writers in tests/providers/test_text_sources.py
@pytest.mark.parametrize("reader", CALL_FORMATS)
@pytest.mark.parametrize("writer", CALL_FORMATS)
def test_every_reader_and_stream_of_the_eight_formats(writer: str, reader: str) -> None:
    payloads = written(writer)
    if reader == writer:
        result = callstream.collect(payloads, provider=reader)
        assert result == callstream.collect(payloads)
        assert [c["name"] for c in result.tool_calls] == ["get_weather", "search"]
        assert result.provider == reader and result.finished
        return
    sources: list[Any] = [payloads]
    if writer in BYTE_FORMATS:
        sources.append(list(stream_of(CALLS, format=writer, text="Hi", as_="bytes")))
    for source in sources:
        error = refused(source, reader)
        message = str(error)
        assert f"read as {reader!r}" in message
        assert f"the payloads look like {writer!r}; pass provider={writer!r} or 'auto'" in message
        partial = error.callstream_result  # type: ignore[attr-defined]
        assert partial.interrupted and not partial.finished and partial.provider == reader
        assert partial.tool_calls == [] and partial.invalid_tool_calls == []
    # the same through stream(): the updates before the error, the state after it
    with callstream.stream(payloads, provider=reader) as updates:
        with pytest.raises(UnknownFormatError):
            for _ in updates:
                pass
        assert updates.result.interrupted


def test_async_drivers_refuse_a_wrong_format_too() -> None:
    payloads = written("anthropic")

    async def run_both() -> list[str]:
        messages = []
        with pytest.raises(UnknownFormatError) as info:
            await callstream.acollect(payloads, provider="openai-chat")
        messages.append(str(info.value))
        assert info.value.callstream_result.interrupted  # type: ignore[attr-defined]
        async with callstream.astream(payloads, provider="openai-chat") as updates:
            with pytest.raises(UnknownFormatError) as info:
                async for _ in updates:
                    pass
        messages.append(str(info.value))
        return messages

    for backend in ("asyncio", "trio"):
        messages = anyio.run(run_both, backend=backend)
        assert all("look like 'anthropic'" in m for m in messages)


def test_a_long_stream_is_refused_after_a_run_of_foreign_payloads_not_at_its_end() -> None:
    read = []

    def source() -> Any:
        for n, payload in enumerate(written("openai-responses") * 10):
            read.append(n)
            yield payload

    error = refused(source(), "anthropic")
    assert len(read) == MAX_MISMATCHED + 1  # the first run too long, then nothing more
    assert f"none of its first {MAX_MISMATCHED + 1} payloads" in str(error)


def test_a_stream_that_changes_format_keeps_what_was_read_before() -> None:
    head = list(stream_of(CALLS[:1], format="openai-chat", finish=False))
    error = refused([*head, *written("anthropic") * 2], "openai-chat")
    assert "its last 17 payloads have no field of that format" in str(error)
    assert "look like 'anthropic'" in str(error)
    partial = error.callstream_result  # type: ignore[attr-defined]
    assert [c["name"] for c in partial.tool_calls] == ["get_weather"] and partial.interrupted


def test_payloads_of_no_known_format_are_refused_without_a_name() -> None:
    error = refused([{"keepalive": True}] * 3, "gemini")
    assert "none of its 3 payloads" in str(error) and "look like" not in str(error)
    assert "pass provider=" in str(error)


IGNORED_ON_PURPOSE: dict[str, Any] = {
    "anthropic": {"type": "ping"},
    "openai-chat": {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "choices": [],
        "usage": {"prompt_tokens": 3, "completion_tokens": 5, "total_tokens": 8},
    },
    "openai-responses": {"type": "response.in_progress", "response": {"id": "resp_1"}},
    "cohere": {"type": "content-start", "index": 0, "delta": {}},
}


@pytest.mark.parametrize("fmt", sorted(IGNORED_ON_PURPOSE))
def test_payloads_a_format_ignores_on_purpose_stay_ignored(fmt: str) -> None:
    payloads = written(fmt)
    ignored = [IGNORED_ON_PURPOSE[fmt]] * (4 * MAX_MISMATCHED)
    for source in ([*ignored, *payloads], [*payloads[:3], *ignored, *payloads[3:]]):
        assert callstream.collect(source, provider=fmt) == callstream.collect(payloads)
    sse = "".join(f"data: {json.dumps(p)}\n\n" for p in payloads) + "data: [DONE]\n\n"
    raw = ": keep-alive\n\n" * 40 + sse
    assert callstream.collect([raw], provider=fmt) == callstream.collect(payloads)


def test_a_few_foreign_payloads_among_the_format_s_own_are_tolerated() -> None:
    payloads = written("openai-chat")
    scalars = [True] * MAX_MISMATCHED  # a JSON value that is no object: foreign
    for at in (0, 3, len(payloads)):
        source = [*payloads[:at], *scalars, *payloads[at:]]
        assert callstream.collect(source, provider="openai-chat") == callstream.collect(payloads)
    too_many = [*scalars, True, *payloads]
    assert "none of its first 17" in str(refused(too_many, "openai-chat"))
    ndjson = "true\n" * (MAX_MISMATCHED + 1) + "".join(json.dumps(p) + "\n" for p in payloads)
    assert "none of its first 17" in str(refused([ndjson], "openai-chat"))


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_the_bundled_examples_read_with_their_format_named(name: str) -> None:
    example = EXAMPLES[name]
    text = read_example(name)
    source: list[Any] = (
        [text]
        if example.filename.endswith(".sse")
        else [json.loads(line) for line in text.splitlines() if line.strip()]
    )
    assert callstream.collect(source, provider=example.format) == callstream.collect(source)
    other = "gemini" if example.format != "gemini" else "ollama"
    assert f"look like {example.format!r}" in str(refused(source, other))


def test_the_command_line_refuses_a_wrong_provider_in_one_line() -> None:
    path = str(example_path("openai_chat_parallel"))
    out, err = io.StringIO(), io.StringIO()
    status = run(["inspect", "--provider", "claude", path], stdout=out, stderr=err)
    assert status == 2 and out.getvalue() == ""
    [line] = err.getvalue().splitlines()
    assert line.startswith("callstream: error: the stream was read as 'anthropic'")
    assert "the payloads look like 'openai-chat'; pass provider='openai-chat' or 'auto'" in line
    assert run(["inspect", "--provider", "openai", path], stdout=io.StringIO()) == 0
