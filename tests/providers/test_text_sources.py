"""The raw-text sources of issue 34 item 1: ``provider="text"`` (the model's output as
``str`` / bytes pieces), ``openai-completions`` (``/v1/completions``), ``ollama-generate``
(``/api/generate``) and ``llamacpp-completion`` (llama.cpp's ``/completion``).

Per format: the text (and reasoning) from dicts and from the raw SSE / NDJSON bytes, the
same under every cut of the bytes (hypothesis), sync and async (asyncio and trio); the
finish reasons in the one vocabulary (a token limit is ``"length"``); error payloads end
the stream with reason ``"error"`` and the server's message; detection picks each from
its payloads without taking the chat formats' streams (and they keep theirs); a stream of
another format read as one of these is refused, naming the format it looks like.
``"text"``: every piece verbatim, empty pieces ignored, UTF-8 bytes decoded across cuts
(bad bytes are U+FFFD), never auto-detected, no finish reason.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import callstream
from callstream import StreamResult, UnknownFormatError
from callstream._async import acollect, astream
from callstream.providers import (
    FORMATS,
    RAW_TEXT_FORMATS,
    detect_format,
    get_translator,
    has_evidence,
    resolve_format,
)
from callstream.testing import stream_of
from tests.providers.test_detection import STRAYS
from tests.support.formats import CALL_FORMATS

# --- the wire shapes (field names as the servers send them) ----------------------------


def completion(text: str, finish: str | None = None, index: int = 0) -> dict[str, Any]:
    return {
        "id": "cmpl-1",
        "object": "text_completion",
        "created": 1760000000,
        "model": "m",
        "choices": [{"index": index, "text": text, "logprobs": None, "finish_reason": finish}],
    }


COMPLETIONS = [
    completion('<tool_call>\n{"name": '),
    completion('"get_weather", "arguments": {"city": "Paris ✓"}}'),
    completion("\n</tool_call>", "stop"),
    {"id": "cmpl-1", "object": "text_completion", "choices": [], "usage": {"total_tokens": 9}},
]
COMPLETIONS_TEXT = (
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris ✓"}}\n</tool_call>'
)


def generate(response: str, done: bool = False, **extra: Any) -> dict[str, Any]:
    return {
        "model": "qwen3",
        "created_at": "2026-01-01T00:00:00Z",
        "response": response,
        "done": done,
        **extra,
    }


GENERATE = [
    generate(""),
    generate("", thinking="Weather: "),
    generate("", thinking="call the tool."),
    generate("Sure: é"),
    generate("✓ done"),
    generate("", True, done_reason="stop", eval_count=5, total_duration=10, context=[1, 2]),
]


def llama(content: str, stop: bool = False, **extra: Any) -> dict[str, Any]:
    fields = {
        "index": 0,
        "content": content,
        "tokens": [1],
        "stop": stop,
        "id_slot": 0,
        "tokens_predicted": 1,
        "tokens_evaluated": 4,
    }
    return {**fields, **extra}


LLAMACPP = [
    llama("Hello", stop_type="none"),
    llama(", wörld"),
    llama(" 👋"),
    llama("", True, stop_type="eos", stopping_word="", truncated=False, timings={"predicted_n": 3}),
]

STREAMS: dict[str, tuple[list[dict[str, Any]], str, str, str]] = {
    # format: (payloads, text, reasoning, finish reason)
    "openai-completions": (COMPLETIONS, COMPLETIONS_TEXT, "", "stop"),
    "ollama-generate": (GENERATE, "Sure: é✓ done", "Weather: call the tool.", "stop"),
    "llamacpp-completion": (LLAMACPP, "Hello, wörld 👋", "", "stop"),
}


def sse(payloads: list[Any], done: bool = True) -> bytes:
    body = "".join(f"data: {json.dumps(p, ensure_ascii=False)}\n\n" for p in payloads)
    return (body + ("data: [DONE]\n\n" if done else "")).encode()


def ndjson(payloads: list[Any]) -> bytes:
    return "".join(json.dumps(p, ensure_ascii=False) + "\n" for p in payloads).encode()


def wire(name: str) -> bytes:
    payloads = STREAMS[name][0]
    if name == "ollama-generate":
        return ndjson(payloads)
    return sse(payloads, done=name == "openai-completions")


@st.composite
def byte_cuts(draw: st.DrawFn, data: bytes) -> list[bytes]:
    """``data`` cut at random places (empty pieces too); joined, it is ``data`` again."""
    cuts = sorted(draw(st.lists(st.integers(0, len(data)), max_size=40)))
    bounds = [0, *cuts, len(data)]
    return [data[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]


def summary(result: StreamResult) -> tuple[Any, ...]:
    return (
        result.text,
        result.reasoning,
        result.finish_reason,
        result.provider,
        result.finished,
        result.tool_calls,
        result.invalid_tool_calls,
        result.provider_error,
    )


# --- each format from dicts and from its bytes -----------------------------------------


@pytest.mark.parametrize("name", sorted(STREAMS))
def test_each_format_from_dicts_and_bytes_named_and_detected(name: str) -> None:
    payloads, text, reasoning, reason = STREAMS[name]
    expected = (text, reasoning, reason, name, True, [], [], None)
    for source in (payloads, [wire(name)], list(wire(name).splitlines(keepends=True))):
        assert summary(collect(source, provider=name)) == expected
        assert summary(collect(source)) == expected  # auto-detected
        for alias in ALIASES.get(name, ()):
            assert collect(source, provider=alias).provider == name


def collect(source: Any, **options: Any) -> StreamResult:
    return callstream.collect(source, reasoning=True, **options)


ALIASES = {
    "openai-completions": (
        "completions",
        "openai-completion",
        "legacy-completions",
        "OpenAI_Completions",
    ),
    "ollama-generate": ("ollama-completion",),
    "llamacpp-completion": ("llama.cpp-completion", "llamacpp-native", "llamacpp_completion"),
}


def test_aliases_resolve_and_every_raw_text_format_is_listed() -> None:
    for name, aliases in ALIASES.items():
        assert all(resolve_format(alias) == name for alias in aliases)
    assert RAW_TEXT_FORMATS <= set(FORMATS)
    assert not RAW_TEXT_FORMATS & set(CALL_FORMATS)


@settings(max_examples=60, deadline=None)
@given(st.data(), st.sampled_from(sorted(STREAMS)))
def test_bytes_cut_anywhere_give_the_same_result(data: st.DataObject, name: str) -> None:
    whole = summary(collect([wire(name)], provider=name))
    pieces = data.draw(byte_cuts(wire(name)))
    assert summary(collect(pieces, provider=name)) == whole
    assert summary(collect(pieces)) == whole


@pytest.mark.parametrize("name", sorted(STREAMS))
def test_the_updates_carry_the_text_piece_by_piece(name: str) -> None:
    payloads, text, reasoning, _ = STREAMS[name]
    with callstream.stream(payloads, provider=name, reasoning=True) as updates:
        seen = list(updates)
    assert "".join(u.text for u in seen) == text
    assert "".join(u.reasoning for u in seen) == reasoning
    assert [u.payload for u in seen] == payloads  # one update per payload


# --- async, asyncio and trio -------------------------------------------------------------


async def pieces_of(items: list[Any]) -> AsyncIterator[Any]:
    for item in items:
        await anyio.lowlevel.checkpoint()
        yield item


SOURCES: dict[str, tuple[list[Any], str]] = {
    **{name: (STREAMS[name][0], STREAMS[name][1]) for name in STREAMS},
    "text": (
        ["<tool_", "call>", b"\xc3", b"\xa9", "", " \n ", "data: {}\n\n"],
        "<tool_call>é \n data: {}\n\n",
    ),
}


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
@pytest.mark.parametrize("name", sorted(SOURCES))
def test_async_drivers_give_what_the_sync_ones_give(name: str, backend: str) -> None:
    items, text = SOURCES[name]
    sync = summary(collect(items, provider=name))
    assert sync[0] == text

    async def run() -> list[tuple[Any, ...]]:
        results = [summary(await acollect(pieces_of(items), provider=name, reasoning=True))]
        results.append(summary(await acollect(items, provider=name, reasoning=True)))
        async with astream(pieces_of(items), provider=name, reasoning=True) as updates:
            joined = "".join([u.text async for u in updates])
        assert joined == text
        results.append(summary(updates.result))
        return results

    assert anyio.run(run, backend=backend) == [sync, sync, sync]


# --- provider="text" ---------------------------------------------------------------------


def test_text_pieces_are_verbatim_and_empty_pieces_give_nothing() -> None:
    pieces = ['data: {"a": 1}\n\n', "", "  ", '{"choices": []}\n', "\r\n", "\ud800", "[DONE]"]
    with callstream.stream(pieces, provider="text") as updates:
        seen = list(updates)
    assert [u.text for u in seen] == [*pieces, ""]  # one per piece, then the end
    assert [u.payload for u in seen] == [*pieces, None]
    result = updates.result
    assert result.text == "".join(pieces)
    assert (result.finish_reason, result.provider_finish_reason) == (None, None)
    assert result.provider == "text" and result.finished and not result.interrupted
    assert collect("one whole string", provider="text").text == "one whole string"


@settings(max_examples=80, deadline=None)
@given(st.data(), st.text(max_size=40))
def test_utf8_bytes_cut_anywhere_come_out_whole(data: st.DataObject, text: str) -> None:
    encoded = text.encode("utf-8", "surrogatepass")
    expected = encoded.decode("utf-8", "replace")
    cuts = data.draw(byte_cuts(encoded))
    kinds = data.draw(
        st.lists(
            st.sampled_from([bytes, bytearray, memoryview]), min_size=len(cuts), max_size=len(cuts)
        )
    )
    assert (
        collect(
            [kind(piece) for kind, piece in zip(kinds, cuts, strict=True)], provider="text"
        ).text
        == expected
    )


def test_bad_bytes_are_replacement_characters_never_an_error() -> None:
    assert (
        collect([b"a\xff", b"\xfe", b"b\xe2\x82"], provider="text").text == "a\ufffd\ufffdb\ufffd"
    )
    # a str piece after a character cut in two: the cut character is U+FFFD first
    assert collect([b"\xe2\x82", "x", b"\xac"], provider="text").text == "\ufffdx\ufffd"
    assert collect([b"\xe2\x82", b"\xac"], provider="text").text == "€"


def test_a_partial_character_at_the_end_is_one_replacement_update() -> None:
    with callstream.stream([b"ok \xf0\x9f"], provider="text") as updates:
        texts = [u.text for u in updates]
    assert texts == ["ok ", "\ufffd"]


def test_an_interrupted_text_source_drops_a_partial_character() -> None:
    def source() -> Iterator[bytes]:
        yield b"ab\xc3"
        raise ConnectionResetError("gone")

    with pytest.raises(ConnectionResetError), callstream.stream(source(), provider="text") as s:
        list(s)
    assert s.result.text == "ab" and s.result.interrupted and not s.result.finished


def test_text_is_never_auto_detected() -> None:
    for text in ("plain words", "Hello\nworld\n"):
        assert detect_format(text) is None
        with pytest.raises(UnknownFormatError, match="pass provider='text'"):
            callstream.collect([text])
    assert detect_format("data: x") is None and not has_evidence("text", "x")


def test_payloads_read_as_text_are_refused_naming_their_format() -> None:
    payloads = list(stream_of([{"name": "f", "args": {}}], format="anthropic"))
    with pytest.raises(UnknownFormatError, match="look like 'anthropic'"):
        callstream.collect(payloads, provider="text")
    # a str source is text whatever it holds: SSE read as text is its characters
    raw = sse([completion("x")])
    assert collect([raw.decode()], provider="text").text == raw.decode()


def test_odd_pieces_never_raise() -> None:
    class Odd(str):
        def __str__(self) -> str:
            raise RuntimeError("no")

    translator = get_translator("text")
    assert [s.text for s in translator.translate(Odd("hi"))] == ["hi"]  # type: ignore[attr-defined]
    assert translator.translate(12) == [] and translator.translate({"text": "x"}) == []


# --- finish reasons and errors ------------------------------------------------------------

FINISHES = [
    # (format, last payload, finish_reason, provider_finish_reason)
    ("openai-completions", completion("", "stop"), "stop", "stop"),
    ("openai-completions", completion("", "length"), "length", "length"),
    ("openai-completions", completion("", "max_tokens"), "length", "max_tokens"),
    ("openai-completions", completion("", "eos_token"), "stop", "eos_token"),
    ("openai-completions", completion("", "abort"), "abort", "abort"),
    ("ollama-generate", generate("", True, done_reason="stop"), "stop", "stop"),
    ("ollama-generate", generate("", True, done_reason="length"), "length", "length"),
    ("ollama-generate", generate("", True), None, None),
    ("llamacpp-completion", llama("", True, stop_type="eos"), "stop", "eos"),
    ("llamacpp-completion", llama("", True, stop_type="word", stopping_word="###"), "stop", "word"),
    ("llamacpp-completion", llama("", True, stop_type="limit"), "length", "limit"),
    (
        "llamacpp-completion",
        llama("", True, stopped_limit=True, stopped_eos=False),
        "length",
        "limit",
    ),
    ("llamacpp-completion", llama("", True, stopped_eos=True), "stop", "eos"),
    ("llamacpp-completion", llama("", True, stopped_word=True), "stop", "word"),
    ("llamacpp-completion", llama("", True), None, None),
]


@pytest.mark.parametrize(("name", "last", "reason", "said"), FINISHES)
def test_finish_reasons_in_the_one_vocabulary(
    name: str, last: dict[str, Any], reason: str | None, said: str | None
) -> None:
    result = collect([*STREAMS[name][0][:2], last], provider=name)
    assert (result.finish_reason, result.provider_finish_reason) == (reason, said)
    assert result.finished and result.provider_error is None


ERRORS = [
    # (format, error payload, provider_error)
    (
        "openai-completions",
        {"error": {"message": "bad prompt", "type": "BadRequestError", "param": None, "code": 400}},
        "bad prompt",
    ),
    (
        "openai-completions",
        {"object": "error", "message": "old vLLM", "type": "x", "code": 500},
        "old vLLM",
    ),
    ("openai-completions", {"error": {"code": 503}}, "503"),
    ("ollama-generate", {"error": "model 'x' not found"}, "model 'x' not found"),
    ("ollama-generate", {"error": {"nothing": 1}}, "Ollama stream error"),
    (
        "llamacpp-completion",
        {
            "error": {
                "code": 400,
                "message": "the request exceeds the available context size",
                "type": "exceed_context_size_error",
            }
        },
        "the request exceeds the available context size",
    ),
    ("llamacpp-completion", {"error": {"type": "server_error"}}, "server_error"),
]


@pytest.mark.parametrize(("name", "error", "said"), ERRORS)
def test_error_payloads_end_the_stream_with_the_servers_message(
    name: str, error: dict[str, Any], said: str
) -> None:
    first = STREAMS[name][0][:2]
    expected = "".join(
        s.text for p in first for s in get_translator(name).translate(p) if not s.reasoning
    )  # type: ignore[attr-defined]
    for source in ([*first, error], sse([*first, error], done=False)):
        result = collect(source if isinstance(source, list) else [source], provider=name)
        assert (result.finish_reason, result.provider_error) == ("error", said)
        assert result.text == expected and result.finished
    assert collect([*first, error]).provider == name  # detected from the first payloads


def test_only_the_chosen_choice_or_prompt_is_read() -> None:
    completions = [
        completion("a"),
        completion("B", index=1),
        completion("b", "stop"),
        completion("C", "length", index=1),
    ]
    result = collect(completions, provider="openai-completions")
    assert (result.text, result.finish_reason) == ("ab", "stop")
    results = [
        llama("a"),
        llama("B", index=1),
        llama("b", True, stop_type="eos"),
        llama("", True, index=1, stop_type="limit"),
    ]
    result = collect(results, provider="llamacpp-completion")
    assert (result.text, result.finish_reason) == ("ab", "stop")


def test_fields_of_the_wrong_type_give_no_text_and_never_raise() -> None:
    odd = [
        ("openai-completions", {"object": "text_completion", "choices": [{"text": 5}, None, 3]}),
        ("openai-completions", {"object": "text_completion", "choices": "nope"}),
        (
            "openai-completions",
            {"object": "text_completion", "choices": [{"index": "0", "text": "x"}]},
        ),
        ("ollama-generate", {"response": ["x"], "done": "yes", "thinking": 3}),
        ("llamacpp-completion", {"content": {"a": 1}, "stop": False, "index": True}),
        ("llamacpp-completion", {"content": "x", "stop": "no"}),
    ]
    for name, payload in odd:
        assert get_translator(name).translate(payload) == [], (name, payload)


# --- detection ---------------------------------------------------------------------------


def test_detection_and_evidence_per_format() -> None:
    assert [detect_format(p) for p in COMPLETIONS] == ["openai-completions"] * 4
    assert detect_format({"choices": [{"index": 0, "text": "x", "finish_reason": None}]}) == (
        "openai-completions"
    )
    assert {detect_format(p) for p in GENERATE} == {"ollama-generate"}
    assert {detect_format(p) for p in LLAMACPP} == {"llamacpp-completion"}
    assert detect_format({"content": "x", "stop": False, "multimodal": True, "slot_id": 0}) == (
        "llamacpp-completion"  # llamafile and older builds
    )
    assert has_evidence("openai-completions", COMPLETIONS[2])  # a finish reason
    assert not has_evidence("openai-completions", COMPLETIONS[0])  # text is no evidence
    assert has_evidence("ollama-generate", GENERATE[-1]) and not has_evidence(
        "ollama-generate", GENERATE[3]
    )
    assert has_evidence("llamacpp-completion", LLAMACPP[-1]) and not has_evidence(
        "llamacpp-completion", LLAMACPP[0]
    )
    # errors alone are too generic to name any of them
    for error in ({"error": "x"}, {"error": {"message": "x", "code": 1}}):
        assert detect_format(error) is None


@pytest.mark.parametrize("stray", STRAYS, ids=json.dumps)
@pytest.mark.parametrize("name", sorted(STREAMS))
def test_a_stray_first_payload_does_not_choose_the_format(stray: dict[str, Any], name: str) -> None:
    payloads, text, reasoning, reason = STREAMS[name]
    result = collect([stray, *payloads])
    assert summary(result) == (text, reasoning, reason, name, True, [], [], None)


CHAT = [
    {
        "id": "c",
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": {"content": "Hi"}, "finish_reason": None}],
    },
    {
        "id": "c",
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
    },
]
OLLAMA_CHAT = [
    {
        "model": "m",
        "created_at": "t",
        "message": {"role": "assistant", "content": "Hi"},
        "done": False,
    },
    {
        "model": "m",
        "created_at": "t",
        "message": {"role": "assistant", "content": ""},
        "done": True,
        "done_reason": "stop",
    },
]


def test_the_chat_formats_keep_their_streams() -> None:
    assert [detect_format(p) for p in CHAT] == ["openai-chat"] * 2
    assert [detect_format(p) for p in OLLAMA_CHAT] == ["ollama"] * 2
    # a chat choice without an object field is still Chat Completions
    assert detect_format({"choices": [{"index": 0, "delta": {"content": "x"}}]}) == "openai-chat"
    assert collect(CHAT).provider == "openai-chat"
    assert collect(OLLAMA_CHAT).provider == "ollama"
    for stream in (STREAMS["openai-completions"][0], STREAMS["ollama-generate"][0]):
        assert collect(stream).provider in RAW_TEXT_FORMATS


@pytest.mark.parametrize(
    ("payloads", "reader", "looks_like"),
    [
        (COMPLETIONS, "openai-chat", "openai-completions"),
        (CHAT, "openai-completions", "openai-chat"),
        (GENERATE, "ollama", "ollama-generate"),
        (OLLAMA_CHAT, "ollama-generate", "ollama"),
        (LLAMACPP, "openai-completions", "llamacpp-completion"),
        (COMPLETIONS, "llamacpp-completion", "openai-completions"),
    ],
)
def test_a_neighbours_stream_is_refused_naming_its_format(
    payloads: list[Any], reader: str, looks_like: str
) -> None:
    with pytest.raises(UnknownFormatError) as info:
        callstream.collect(payloads, provider=reader)
    assert f"pass provider={looks_like!r}" in str(info.value)
    assert info.value.callstream_result.interrupted  # type: ignore[attr-defined]


@pytest.mark.parametrize("writer", CALL_FORMATS)
@pytest.mark.parametrize("reader", sorted(RAW_TEXT_FORMATS))
def test_every_call_format_read_as_a_raw_text_format_is_refused(writer: str, reader: str) -> None:
    payloads = list(stream_of([{"name": "f", "args": {"a": 1}, "id": "c1"}], format=writer))
    with pytest.raises(UnknownFormatError) as info:
        callstream.collect(payloads, provider=reader)
    assert f"read as {reader!r}" in str(info.value)
    assert f"the payloads look like {writer!r}" in str(info.value)


# --- the runner: raw-text formats have no tool-result messages ---------------------------


@pytest.mark.parametrize(
    "name", [*sorted(RAW_TEXT_FORMATS), "completions", "Ollama_Completion", "llamacpp-native"]
)
def test_tool_messages_refuse_a_raw_text_format_saying_what_to_do(name: str) -> None:
    from callstream import OptionValueError
    from callstream.runner import ToolResult, tool_messages

    result = ToolResult(index=0, id="c1", name="f", args={}, status="done", output="ok")
    with pytest.raises(OptionValueError, match="raw-text format") as info:
        tool_messages([result], name)  # type: ignore[arg-type]
    assert "tool_messages(results, 'openai')" in str(info.value)
    assert "apply_chat_template" in str(info.value)
    # an unknown name is still refused as unknown
    with pytest.raises(OptionValueError, match="unknown format name"):
        tool_messages([result], "no-such-format")  # type: ignore[arg-type]


def test_the_sdks_own_objects_read_as_their_dicts() -> None:
    openai_types = pytest.importorskip("openai.types")
    ollama = pytest.importorskip("ollama")
    chunks = [
        openai_types.Completion.model_construct(
            **{
                **p,
                "choices": [
                    openai_types.CompletionChoice.model_construct(**c) for c in p["choices"]
                ],
            }
        )
        for p in COMPLETIONS
    ]
    assert summary(collect(chunks)) == summary(collect(COMPLETIONS))
    parts = [ollama.GenerateResponse(**p) for p in GENERATE]
    assert summary(collect(parts)) == summary(collect(GENERATE))
