"""Text as well as tool calls (issue 15, item 1): every translator reports the assistant's
text and its reasoning as ``TextDelta`` signals; the pipeline puts each payload's text on
its update and the whole text on the result, reasoning only with ``reasoning=True``.

Per format: the exact text and reasoning from dict payloads and from the SDKs' own event
objects; fields of the wrong type give no text and never raise. Through the drivers: the
whole text is the concatenation of the updates' text, reasoning is absent unless asked,
text after the end is ignored; raw SSE bytes cut anywhere give the same text; text mixed
into a tool-call stream at random places leaves the tool calls unchanged. The bundled
examples and the recorded real streams give the text they hold.
"""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from callstream import (
    CallChunk,
    ChunkValidationError,
    OptionTypeError,
    StreamEnd,
    StreamResult,
    TextDelta,
    ToolCallAssembler,
    collect,
    stream,
)
from callstream._async import acollect, astream
from callstream._pipeline import Pipeline
from callstream.examples import EXAMPLES, read_example
from callstream.parsers._parse_input import SIGNAL_TYPES
from callstream.providers import get_translator
from tests.support.corpus import RECORDED_STREAMS
from tests.support.provider_helpers import translate_all
from tests.support.real_clients import anthropic_sse, chat_chunk, chat_sse, sdk_stream
from tests.support.strategies import splits

# --- helpers ----------------------------------------------------------------------------


def text_of(signals: list[Any], *, reasoning: bool = False) -> str:
    """The text (or the reasoning) of ``signals``, in order."""
    return "".join(s.text for s in signals if type(s) is TextDelta and s.reasoning is reasoning)


def split(signals: list[Any]) -> tuple[str, str]:
    return text_of(signals), text_of(signals, reasoning=True)


def calls(result: StreamResult) -> tuple[Any, ...]:
    return (result.tool_calls, result.invalid_tool_calls, result.finish_reason)


# --- the signal, the assembler, the parsers ---------------------------------------------


def test_text_delta_is_a_checked_signal() -> None:
    delta = TextDelta(text="hi")
    assert delta == TextDelta(text="hi", reasoning=False) == TextDelta("hi")
    assert TextDelta("hi", True) == TextDelta(text="hi", reasoning=True)
    with pytest.raises(TypeError):
        TextDelta()  # type: ignore[call-arg]
    with pytest.raises(ChunkValidationError, match="'text' must be a str"):
        TextDelta(text=5)  # type: ignore[arg-type]
    with pytest.raises(ChunkValidationError, match="'text' must be a str, got None"):
        TextDelta(text=None)  # type: ignore[arg-type]
    with pytest.raises(ChunkValidationError, match="'reasoning' must be a bool"):
        TextDelta(text="x", reasoning=1)  # type: ignore[arg-type]
    assert type(TextDelta(text=Weird("abc")).text) is str
    assert TextDelta in SIGNAL_TYPES


def test_the_assembler_passes_text_through_before_and_after_the_finish() -> None:
    assembler = ToolCallAssembler()
    assert assembler.apply(TextDelta(text="Let me look.")) == []
    events = assembler.apply(
        [TextDelta(text="a"), CallChunk(index=0, id="c1", name="f", args="{}"), TextDelta(text="b")]
    )
    assert [type(e).__name__ for e in events] == ["CallStarted", "ArgumentsDelta"]
    assembler.apply(StreamEnd(reason="stop"))
    assert assembler.apply(TextDelta(text="late", reasoning=True)) == []
    assert assembler.tool_calls == [{"name": "f", "args": {}, "id": "c1", "type": "tool_call"}]


def test_a_parser_session_fed_raw_signals_takes_text() -> None:
    from callstream.parsers import JsonToolsParser

    session = JsonToolsParser().session()
    session.feed([TextDelta(text="hi"), CallChunk(index=0, id="c1", name="f", args='{"a": 1}')])
    session.feed(TextDelta(text="more", reasoning=True))
    final = session.close()
    assert final is not None
    assert [c.to_dict() for c in final] == [
        {"name": "f", "args": {"a": 1}, "id": "c1", "type": "tool_call"}
    ]


# --- per format: dicts --------------------------------------------------------------------

OPENAI_CHAT = [
    chat_chunk({"role": "assistant", "content": "", "reasoning_content": "Think"}),
    chat_chunk({"content": None, "reasoning_content": "ing.", "reasoning": "ing."}),  # sent twice
    chat_chunk({"content": "Hel"}),
    chat_chunk({"content": "lo"}),
    chat_chunk({"content": [{"type": "text", "text": " wor"}, {"text": "ld"}]}),
    chat_chunk({"content": [{"type": "image_url", "image_url": {"url": "x"}}]}),
    chat_chunk({"refusal": "no"}),
    chat_chunk({}, "stop"),
]

RESPONSES = [
    {"type": "response.created", "response": {"id": "r"}},
    {"type": "response.reasoning_summary_text.delta", "delta": "Plan", "output_index": 0},
    {"type": "response.reasoning_summary_text.done", "text": "Plan", "output_index": 0},
    {"type": "response.reasoning_text.delta", "delta": " more", "output_index": 0},
    {"type": "response.content_part.added", "part": {"type": "output_text", "text": ""}},
    {"type": "response.output_text.delta", "delta": "Hi", "output_index": 1},
    {"type": "response.output_text.delta", "delta": " there", "output_index": 1},
    {"type": "response.output_text.done", "text": "Hi there", "output_index": 1},
    {"type": "response.content_part.done", "part": {"type": "output_text", "text": "Hi there"}},
    {"type": "response.refusal.delta", "delta": "no"},
    {"type": "response.completed", "response": {"id": "r"}},
]


def anthropic_delta(index: int, delta: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": delta}


ANTHROPIC = [
    {"type": "message_start", "message": {"id": "m", "content": []}},
    {
        "type": "content_block_start",
        "index": 0,
        "content_block": {"type": "thinking", "thinking": "", "signature": ""},
    },
    anthropic_delta(0, {"type": "thinking_delta", "thinking": "Hmm"}),
    anthropic_delta(0, {"type": "thinking_delta", "thinking": ", weather."}),
    anthropic_delta(0, {"type": "signature_delta", "signature": "EuYB=="}),
    {"type": "content_block_stop", "index": 0},
    {
        "type": "content_block_start",
        "index": 1,
        "content_block": {"type": "redacted_thinking", "data": "secret"},
    },
    {"type": "content_block_stop", "index": 1},
    {"type": "content_block_start", "index": 2, "content_block": {"type": "text", "text": ""}},
    anthropic_delta(2, {"type": "text_delta", "text": "I'll check"}),
    anthropic_delta(2, {"type": "citations_delta", "citation": {"cited_text": "nope"}}),
    anthropic_delta(2, {"type": "text_delta", "text": " Paris."}),
    {"type": "content_block_stop", "index": 2},
    {"type": "message_delta", "delta": {"stop_reason": "end_turn"}},
    {"type": "message_stop"},
]

GEMINI = [
    {"candidates": [{"content": {"role": "model", "parts": [{"text": "Plan", "thought": True}]}}]},
    {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [
                        {"text": "Let me "},
                        {"text": "check.", "thoughtSignature": "QUJD"},
                        {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}},
                        {"thoughtSignature": "REVG"},
                    ],
                }
            }
        ]
    },
    {
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": ""}]}, "finishReason": "STOP"}
        ]
    },
]

BEDROCK = [
    {"messageStart": {"role": "assistant"}},
    {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": "Th"}}}},
    {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": "ink"}}}},
    {
        "contentBlockDelta": {
            "contentBlockIndex": 0,
            "delta": {"reasoningContent": {"signature": "sig"}},
        }
    },
    {"contentBlockStop": {"contentBlockIndex": 0}},
    {"contentBlockDelta": {"contentBlockIndex": 1, "delta": {"text": "Sun"}, "p": "abc"}},
    {"contentBlockDelta": {"contentBlockIndex": 1, "delta": {"text": "ny."}}},
    {"contentBlockStop": {"contentBlockIndex": 1}},
    {"messageStop": {"stopReason": "end_turn"}},
]


def cohere_content(text: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content-delta", "index": 0, "delta": {"message": {"content": text}}}


COHERE = [
    {"type": "message-start", "id": "m", "delta": {"message": {"role": "assistant"}}},
    {
        "type": "content-start",
        "index": 0,
        "delta": {"message": {"content": {"type": "thinking", "thinking": ""}}},
    },
    cohere_content({"thinking": "Let me"}),
    cohere_content({"thinking": " think."}),
    {"type": "content-end", "index": 0},
    {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": "I will not be read"}}},
    cohere_content({"text": "The answer"}),
    cohere_content({"type": "text", "text": " is 4."}),
    {"type": "message-end", "delta": {"finish_reason": "COMPLETE"}},
]


def ollama_line(content: str, thinking: str | None = None, done: bool = False) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if thinking is not None:
        message["thinking"] = thinking
    line: dict[str, Any] = {"model": "qwen3", "message": message, "done": done}
    if done:
        line["done_reason"] = "stop"
    return line


OLLAMA = [
    ollama_line("", "Ok,"),
    ollama_line("", " so"),
    ollama_line("Four"),
    ollama_line("."),
    ollama_line("", done=True),
]


def lc_chunk(content: Any, **fields: Any) -> dict[str, Any]:
    return {"content": content, "tool_call_chunks": [], "response_metadata": {}, **fields}


LANGCHAIN = [
    lc_chunk("", additional_kwargs={"reasoning_content": "Deep"}),
    lc_chunk([{"type": "thinking", "thinking": "ly", "index": 0}]),
    lc_chunk([{"type": "reasoning", "reasoning": " so."}]),
    lc_chunk("Hello"),
    lc_chunk([{"type": "text", "text": " and", "index": 1}, {"type": "image", "url": "x"}]),
    lc_chunk([{"type": "text", "text": " bye"}], response_metadata={"finish_reason": "stop"}),
]

FORMATS: dict[str, tuple[list[Any], str, str]] = {
    "openai-chat": (OPENAI_CHAT, "Hello world", "Thinking."),
    "openai-responses": (RESPONSES, "Hi there", "Plan more"),
    "anthropic": (ANTHROPIC, "I'll check Paris.", "Hmm, weather."),
    "gemini": (GEMINI, "Let me check.", "Plan"),
    "bedrock": (BEDROCK, "Sunny.", "Think"),
    "cohere": (COHERE, "The answer is 4.", "Let me think."),
    "ollama": (OLLAMA, "Four.", "Ok, so"),
    "langchain": (LANGCHAIN, "Hello and bye", "Deeply so."),
}


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_each_format_reports_its_text_and_reasoning(name: str) -> None:
    payloads, text, reasoning = FORMATS[name]
    signals = translate_all(get_translator(name), payloads)
    assert split(signals) == (text, reasoning)
    assert all(s.text for s in signals if type(s) is TextDelta)  # never an empty piece


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_collect_gives_the_whole_text_and_reasoning_only_when_asked(name: str) -> None:
    payloads, text, reasoning = FORMATS[name]
    plain = collect(payloads, provider=name)
    assert (plain.text, plain.reasoning) == (text, "")
    asked = collect(payloads, provider=name, reasoning=True)
    assert (asked.text, asked.reasoning) == (text, reasoning)
    assert calls(asked) == calls(plain)
    auto = collect(payloads, reasoning=True)  # recognized from the payloads
    assert (auto.provider, auto.text, auto.reasoning) == (name, text, reasoning)


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_updates_carry_each_payloads_text(name: str) -> None:
    payloads, text, reasoning = FORMATS[name]
    with stream(payloads, provider=name, reasoning=True) as updates:
        seen = list(updates)
        result = updates.result
    assert "".join(u.text for u in seen) == text == result.text
    assert "".join(u.reasoning for u in seen) == reasoning == result.reasoning
    for update, payload in zip(seen, payloads):
        signals = get_translator(name).translate(payload)
        if name not in ("anthropic", "openai-responses"):  # stateless for text
            assert update.text == text_of(signals)
    with stream(payloads, provider=name) as quiet:
        assert all(u.reasoning == "" for u in quiet)


def test_openai_chat_exact_signals_reasoning_first_and_text_before_calls() -> None:
    chunk = chat_chunk(
        {
            "content": "Hi",
            "reasoning": "r",
            "tool_calls": [{"index": 0, "id": "c", "function": {"name": "f", "arguments": ""}}],
        },
        "tool_calls",
    )
    signals = get_translator("openai-chat").translate(chunk)
    assert signals == [
        TextDelta(text="r", reasoning=True),
        TextDelta(text="Hi"),
        CallChunk(index=0, id="c", name="f", args=""),
        StreamEnd(reason="tool_calls", provider_reason="tool_calls"),
    ]


def test_openai_chat_reads_a_whole_message_and_mistral_thinking_parts() -> None:
    translator = get_translator("openai-chat")
    message = {
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"content": "Whole."}, "finish_reason": "stop"}],
    }
    assert split(translator.translate(message)) == ("Whole.", "")
    mistral = chat_chunk(
        {
            "content": [
                {"type": "thinking", "thinking": [{"type": "text", "text": "Hmm"}]},
                {"type": "thinking", "thinking": " ok"},
                {"type": "text", "text": "Yes."},
            ]
        }
    )
    assert split(translator.translate(mistral)) == ("Yes.", "Hmm ok")


def test_other_choices_and_error_payloads_give_no_text() -> None:
    translator = get_translator("openai-chat")
    other = {"choices": [{"index": 1, "delta": {"content": "second choice"}}]}
    assert translator.translate(other) == []


WRONG_TYPES: dict[str, list[Any]] = {
    "openai-chat": [
        chat_chunk({"content": 5, "reasoning_content": {"a": 1}}),
        chat_chunk({"content": [5, None, {"type": "text", "text": 7}], "reasoning": ["x"]}),
        chat_chunk({"content": {"text": "an object is not content"}}),
        chat_chunk({"content": [{"type": "thinking", "thinking": [{"text": 3}, 4]}]}),
        {"choices": [{"index": 0, "delta": "not a delta"}]},
    ],
    "openai-responses": [
        {"type": "response.output_text.delta", "delta": 5},
        {"type": "response.reasoning_text.delta", "delta": {"text": "x"}},
        {"type": "response.output_text.delta"},
    ],
    "anthropic": [
        anthropic_delta(0, {"type": "text_delta", "text": None}),
        anthropic_delta(0, {"type": "text_delta", "text": ["x"]}),
        anthropic_delta(0, {"type": "thinking_delta", "thinking": 3}),
        anthropic_delta(0, {"type": "thinking_delta", "text": "wrong field"}),
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": 1}},
        anthropic_delta(0, "not a delta"),
    ],
    "gemini": [
        {"candidates": [{"content": {"parts": [{"text": 5}, {"text": None}, "x", 7]}}]},
        {"candidates": [{"content": {"parts": {"text": {"nested": "no"}}}}]},
    ],
    "bedrock": [
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": 5}}},
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"reasoningContent": "str"}}},
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": 1}}}},
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": None}},
    ],
    "cohere": [
        cohere_content({"text": 5, "thinking": ["x"]}),
        {"type": "content-delta", "delta": {"message": {"content": "a string"}}},
        {"type": "content-delta", "delta": None},
    ],
    "ollama": [
        {"message": {"content": 5, "thinking": {"a": 1}}, "done": False},
        {"message": "text", "done": False},
    ],
    "langchain": [
        lc_chunk(5),
        lc_chunk([{"type": "text", "text": 5}, {"type": "reasoning", "reasoning": None}, 3]),
        lc_chunk("", additional_kwargs={"reasoning_content": 5}),
        lc_chunk("", additional_kwargs="not a dict"),
    ],
}


@pytest.mark.parametrize("name", sorted(WRONG_TYPES))
def test_text_fields_of_the_wrong_type_give_no_text(name: str) -> None:
    signals = translate_all(get_translator(name), WRONG_TYPES[name])
    assert [s for s in signals if type(s) is TextDelta] == []


class Weird(str):
    """A ``str`` subclass whose methods lie: its characters are what counts."""

    def __str__(self) -> str:
        return "lie"


def test_str_subclasses_read_as_their_characters() -> None:
    signals = get_translator("ollama").translate(
        {"message": {"content": Weird("real")}, "done": False}
    )
    assert signals == [TextDelta(text="real")]
    assert type(signals[0].text) is str  # type: ignore[union-attr]


# --- per format: the SDKs' own objects ----------------------------------------------------


def test_openai_sdk_chunks_give_the_same_text() -> None:
    from openai._models import construct_type  # how the SDK builds its stream objects
    from openai.types.chat import ChatCompletionChunk

    objects = [construct_type(type_=ChatCompletionChunk, value=c) for c in OPENAI_CHAT]
    assert type(objects[0]) is ChatCompletionChunk
    assert split(translate_all(get_translator("openai-chat"), objects)) == (
        "Hello world",
        "Thinking.",
    )


def test_openai_sdk_responses_events_give_the_same_text() -> None:
    from openai.types.responses import (
        ResponseReasoningSummaryTextDeltaEvent,
        ResponseReasoningTextDeltaEvent,
        ResponseTextDeltaEvent,
    )

    common = {"item_id": "i", "output_index": 0, "sequence_number": 1}
    objects = [
        ResponseReasoningSummaryTextDeltaEvent(
            type="response.reasoning_summary_text.delta", delta="Plan", summary_index=0, **common
        ),
        ResponseReasoningTextDeltaEvent(
            type="response.reasoning_text.delta", delta=" more", content_index=0, **common
        ),
        ResponseTextDeltaEvent(
            type="response.output_text.delta",
            delta="Hi",
            content_index=0,
            logprobs=[],
            **common,
        ),
    ]
    signals = translate_all(get_translator("openai-responses"), objects)
    assert split(signals) == ("Hi", "Plan more")


def test_anthropic_sdk_events_give_the_same_text() -> None:
    from anthropic._models import construct_type  # how the SDK builds its stream objects
    from anthropic.types import RawContentBlockDeltaEvent, RawMessageStreamEvent

    objects = [construct_type(type_=RawMessageStreamEvent, value=e) for e in ANTHROPIC]
    assert any(type(o) is RawContentBlockDeltaEvent for o in objects)
    assert split(translate_all(get_translator("anthropic"), objects)) == (
        "I'll check Paris.",
        "Hmm, weather.",
    )


def test_gemini_sdk_responses_give_the_same_text() -> None:
    from google.genai import types

    objects = [types.GenerateContentResponse.model_validate(p) for p in GEMINI]
    assert split(translate_all(get_translator("gemini"), objects)) == ("Let me check.", "Plan")


def test_ollama_sdk_responses_give_the_same_text() -> None:
    import ollama

    objects = [ollama.ChatResponse.model_validate(line) for line in OLLAMA]
    assert split(translate_all(get_translator("ollama"), objects)) == ("Four.", "Ok, so")


def test_attribute_objects_read_like_dicts() -> None:
    """Cohere's and Bedrock's SDK objects are read by attribute, as any object is."""

    def ns(value: Any) -> Any:
        if isinstance(value, dict):
            return SimpleNamespace(**{k: ns(v) for k, v in value.items()})
        if isinstance(value, list):
            return [ns(v) for v in value]
        return value

    for name in ("cohere", "bedrock"):
        payloads, text, reasoning = FORMATS[name]
        signals = translate_all(get_translator(name), [ns(p) for p in payloads])
        assert split(signals) == (text, reasoning), name


def test_langchain_message_chunks_give_the_same_text() -> None:
    from langchain_core.messages import AIMessageChunk

    objects = [
        AIMessageChunk(content="", additional_kwargs={"reasoning_content": "Deep"}),
        AIMessageChunk(content=[{"type": "thinking", "thinking": "ly", "index": 0}]),
        AIMessageChunk(content=[{"type": "reasoning", "reasoning": " so."}]),
        AIMessageChunk(content="Hello"),
        AIMessageChunk(content=[{"type": "text", "text": " and", "index": 1}]),
        AIMessageChunk(content=" bye", response_metadata={"finish_reason": "stop"}),
    ]
    result = collect(objects, reasoning=True)
    assert (result.provider, result.text, result.reasoning) == (
        "langchain",
        "Hello and bye",
        "Deeply so.",
    )


def test_langchain_reasoning_in_blocks_and_additional_kwargs_is_read_once() -> None:
    both = lc_chunk(
        [{"type": "reasoning", "reasoning": "once"}, {"type": "text", "text": "hi"}],
        additional_kwargs={"reasoning_content": "once"},
    )
    signals = get_translator("langchain").translate(both)
    assert signals == [TextDelta(text="once", reasoning=True), TextDelta(text="hi")]


def test_langchain_parser_ignores_text_and_keeps_the_end_last() -> None:
    from langchain_core.messages import AIMessageChunk

    from callstream.parsers.langchain import ToolCallsOutputParser

    chunks = [
        AIMessageChunk(content="Let me look."),
        AIMessageChunk(
            content="",
            tool_call_chunks=[{"name": "f", "args": '{"a": 1}', "id": "c1", "index": 0}],
        ),
        AIMessageChunk(content=" Done.", response_metadata={"finish_reason": "tool_calls"}),
    ]
    outputs = list(ToolCallsOutputParser().transform(iter(chunks)))
    assert outputs[-1] == [{"name": "f", "args": {"a": 1}, "id": "c1", "type": "tool_call"}]


def test_real_openai_client_stream() -> None:
    chunks = [
        chat_chunk({"role": "assistant", "content": None, "reasoning_content": "Think"}),
        chat_chunk({"content": "Caf\u00e9 "}),
        chat_chunk(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "f", "arguments": '{"a": 1}'},
                    }
                ]
            }
        ),
        chat_chunk({"content": "\U0001f600"}, "tool_calls"),
    ]
    result = collect(sdk_stream("openai", chat_sse(chunks)), reasoning=True)
    assert (result.text, result.reasoning) == ("Caf\u00e9 \U0001f600", "Think")
    assert [c["args"] for c in result.tool_calls] == [{"a": 1}]


def test_real_anthropic_client_stream() -> None:
    events = [
        {
            "type": "message_start",
            "message": {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": "claude-test",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 1, "output_tokens": 1},
            },
        },
        *ANTHROPIC[1:],
    ]
    result = collect(sdk_stream("anthropic", anthropic_sse(events)), reasoning=True)
    assert (result.text, result.reasoning) == ("I'll check Paris.", "Hmm, weather.")
    assert result.provider == "anthropic"


# --- the pipeline ---------------------------------------------------------------------------


def test_reasoning_is_a_checked_option() -> None:
    with pytest.raises(OptionTypeError, match="reasoning must be a bool"):
        Pipeline("openai-chat", reasoning="yes")  # type: ignore[arg-type]
    with pytest.raises(OptionTypeError, match="reasoning must be a bool"):
        collect([], reasoning=1)
    with pytest.raises(OptionTypeError, match="max_event_chars, reasoning, tool_parser, tools, prefill and"):
        Pipeline("openai-chat", reasonning=True)


def test_async_drivers_pass_reasoning_through() -> None:
    payloads, text, reasoning = FORMATS["anthropic"]

    async def run() -> tuple[str, str, str, str]:
        result = await acollect(payloads, reasoning=True)
        async with astream(payloads, provider="anthropic") as updates:
            pieces = [u.text + "|" + u.reasoning async for u in updates]
        return (
            result.text,
            result.reasoning,
            "".join(pieces).replace("|", ""),
            updates.result.reasoning,
        )

    for backend in ("asyncio", "trio"):
        assert anyio.run(run, backend=backend) == (text, reasoning, text, "")


def test_text_after_the_end_of_the_stream_is_ignored() -> None:
    payloads = [
        chat_chunk({"content": "Done."}, "stop"),
        chat_chunk({"content": " (late)", "reasoning_content": "late"}),
    ]
    with stream(payloads, provider="openai-chat", reasoning=True) as updates:
        seen = list(updates)
        result = updates.result
    assert [u.text for u in seen] == ["Done.", ""]
    assert (result.text, result.reasoning) == ("Done.", "")
    # in one payload: text before the end counts, text after it does not
    pipeline = Pipeline("anthropic")
    assembler_end = [
        anthropic_delta(0, {"type": "text_delta", "text": "a"}),
        {"type": "message_stop"},
        anthropic_delta(0, {"type": "text_delta", "text": "b"}),
    ]
    for payload in assembler_end:
        pipeline.feed(payload)
    pipeline.close()
    assert pipeline.result().text == "a"


def test_one_payload_with_several_pieces_joins_them_on_its_update() -> None:
    payload = {
        "candidates": [
            {"content": {"parts": [{"text": "a"}, {"text": "b", "thought": True}, {"text": "c"}]}}
        ]
    }
    (update,) = Pipeline("gemini", reasoning=True).feed(payload)
    assert (update.text, update.reasoning) == ("ac", "b")


def test_snapshot_keeps_text_and_defaults_are_empty() -> None:
    (update,) = Pipeline("ollama", reasoning=True).feed(ollama_line("Hi", "hm"))
    snap = update.snapshot()
    assert (snap.text, snap.reasoning) == ("Hi", "hm")
    (plain,) = Pipeline("ollama").feed(ollama_line("", None))
    assert (plain.text, plain.reasoning) == ("", "")
    assert StreamResult(tool_calls=[], invalid_tool_calls=[], finish_reason=None).text == ""


def test_the_joined_text_is_kept_until_more_text_arrives() -> None:
    pipeline = Pipeline("openai-chat")
    for piece in ("a", "b", "c"):
        pipeline.feed(chat_chunk({"content": piece}))
    first = pipeline.result().text
    assert first == "abc"
    pipeline.feed(chat_chunk({"tool_calls": [{"index": 0, "id": "c", "function": {"name": "f"}}]}))
    assert pipeline.result().text is first  # no new text: the same string, not a new join
    pipeline.feed(chat_chunk({"content": "d"}))
    assert pipeline.result().text == "abcd"


def test_a_quiet_pipeline_keeps_the_text() -> None:
    pipeline = Pipeline("cohere", reasoning=True).quiet()
    for payload in COHERE:
        assert pipeline.feed(payload) == []
    assert pipeline.close() == []
    result = pipeline.result()
    assert (result.text, result.reasoning) == ("The answer is 4.", "Let me think.")


def test_text_only_payloads_count_as_the_format() -> None:
    """A long run of text-only chunks after the format was chosen is not a mismatch."""
    payloads = [
        chat_chunk({"tool_calls": [{"index": 0, "id": "c", "function": {"name": "f"}}]}),
        *[{"choices": [{"index": 0, "delta": {"content": "x"}}]} for _ in range(40)],
        chat_chunk({}, "stop"),
    ]
    result = collect(payloads)
    assert result.text == "x" * 40
    assert result.provider == "openai-chat"


def test_interrupted_stream_keeps_the_text_so_far() -> None:
    def source() -> Any:
        yield chat_chunk({"content": "part"})
        raise ConnectionError("dropped")

    with pytest.raises(ConnectionError) as caught:
        collect(source(), provider="openai-chat")
    result = caught.value.callstream_result  # type: ignore[attr-defined]
    assert (result.interrupted, result.text) == (True, "part")


# --- random splits and interleavings --------------------------------------------------------

SSE_CHUNKS = [
    chat_chunk({"role": "assistant", "content": None, "reasoning_content": "Hm\u00e9 "}),
    chat_chunk({"reasoning_content": "\U0001f914 ok"}),
    chat_chunk({"content": "Voil\u00e0: "}),
    chat_chunk(
        {
            "tool_calls": [
                {
                    "index": 0,
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "f", "arguments": '{"city": "Z\u00fcr'},
                }
            ]
        }
    ),
    chat_chunk({"tool_calls": [{"index": 0, "function": {"arguments": 'ich"}'}}]}),
    chat_chunk({"content": " \u2014 done \U0001f600"}, "tool_calls"),
    chat_chunk({}, usage=True),
]
SSE_BYTES = chat_sse(SSE_CHUNKS)
SSE_WANT = ("Voil\u00e0:  \u2014 done \U0001f600", "Hm\u00e9 \U0001f914 ok")


def sse_result(pieces: list[bytes]) -> tuple[str, str, Any]:
    result = collect(pieces, reasoning=True)
    return result.text, result.reasoning, result.tool_calls


def test_raw_sse_whole_and_one_byte_at_a_time() -> None:
    whole = sse_result([SSE_BYTES])
    assert whole[:2] == SSE_WANT
    assert whole[2] == [
        {"name": "f", "args": {"city": "Z\u00fcrich"}, "id": "c1", "type": "tool_call"}
    ]
    assert sse_result([SSE_BYTES[i : i + 1] for i in range(len(SSE_BYTES))]) == whole
    text = SSE_BYTES.decode()
    assert collect(list(text), reasoning=True).text == SSE_WANT[0]  # one character at a time


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_raw_sse_cut_anywhere_gives_the_same_text(data: st.DataObject) -> None:
    cuts = sorted(data.draw(st.lists(st.integers(0, len(SSE_BYTES)), max_size=40)))
    bounds = [0, *cuts, len(SSE_BYTES)]
    pieces = [SSE_BYTES[a:b] for a, b in zip(bounds, bounds[1:])]
    assert sse_result(pieces) == sse_result([SSE_BYTES])


ANTHROPIC_SSE = anthropic_sse(ANTHROPIC).decode()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_anthropic_sse_text_cut_anywhere(data: st.DataObject) -> None:
    pieces = data.draw(splits(ANTHROPIC_SSE))
    result = collect(pieces, reasoning=True)
    assert (result.text, result.reasoning) == ("I'll check Paris.", "Hmm, weather.")


TOOL_STREAM = [
    chat_chunk(
        {"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "f", "arguments": '{"a": '}}]}
    ),
    chat_chunk(
        {"tool_calls": [{"index": 1, "id": "c2", "function": {"name": "g", "arguments": "{"}}]}
    ),
    chat_chunk({"tool_calls": [{"index": 0, "function": {"arguments": "[1, 2]}"}}]}),
    chat_chunk({"tool_calls": [{"index": 1, "function": {"arguments": '"b": "x"}'}}]}),
    chat_chunk({}, "tool_calls"),
]
TOOL_RESULT = collect(TOOL_STREAM)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, len(TOOL_STREAM) - 1),
            st.text(min_size=1, max_size=5),
            st.booleans(),
            st.booleans(),
        ),
        max_size=8,
    )
)
def test_text_mixed_into_a_tool_call_stream_changes_no_call(
    inserts: list[tuple[int, str, bool, bool]],
) -> None:
    """Text chunks inserted anywhere before the finish (alone, or inside a call chunk)
    leave the calls as they were; the text is the inserted pieces in order."""
    payloads = [json.loads(json.dumps(p)) for p in TOOL_STREAM]
    placed: list[list[tuple[str, bool, bool]]] = [[] for _ in payloads]
    for position, piece, reasoning, inside in inserts:
        placed[position].append((piece, reasoning, inside))
    out: list[Any] = []
    want_text = want_reasoning = ""
    for payload, extra in zip(payloads, placed):
        for piece, reasoning, inside in extra:
            key = "reasoning_content" if reasoning else "content"
            if reasoning:
                want_reasoning += piece
            else:
                want_text += piece
            if inside:
                delta = payload["choices"][0]["delta"]
                if key in delta:  # a second piece of the same kind: a payload of its own
                    out.append(chat_chunk({key: piece}))
                else:
                    delta[key] = piece
            else:
                out.append(chat_chunk({key: piece}))
        out.append(payload)
    # the order within one payload is reasoning, then content: recompute what to expect
    want_text = want_reasoning = ""
    for payload in out:
        delta = payload["choices"][0]["delta"]
        want_reasoning += delta.get("reasoning_content", "")
        want_text += delta.get("content", "") or ""
    result = collect(out, reasoning=True)
    assert calls(result) == calls(TOOL_RESULT)
    assert (result.text, result.reasoning) == (want_text, want_reasoning)


# --- the bundled examples and the recorded streams -------------------------------------------

EXAMPLE_TEXT = {
    "anthropic_long_string": "I'll save your travel notes to `notes/kyoto.md`.",
    "gemini": "Let me check both for you.",
}


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_bundled_examples_give_their_text(name: str) -> None:
    text = read_example(name)
    source: list[Any] = (
        [text]
        if EXAMPLES[name].filename.endswith(".sse")
        else [json.loads(line) for line in text.splitlines() if line.strip()]
    )
    result = collect(source, provider=EXAMPLES[name].format, reasoning=True)
    assert result.text == EXAMPLE_TEXT.get(name, "")
    assert result.reasoning == ""


RECORDED = sorted(RECORDED_STREAMS.glob("*.jsonl")) if RECORDED_STREAMS.is_dir() else []


def load_recorded(stem: str) -> list[Any]:
    path = RECORDED_STREAMS / f"{stem}.jsonl"
    return [
        json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
    ]


def _chat(payloads: list[Any], key: str) -> str:
    return "".join(
        (c.get("delta") or {}).get(key) or ""
        for p in payloads
        for c in p.get("choices", [])
        if isinstance((c.get("delta") or {}).get(key), str)
    )


def _anthropic(payloads: list[Any], kind: str, field: str) -> str:
    return "".join(
        p["delta"][field]
        for p in payloads
        if p.get("type") == "content_block_delta" and p["delta"].get("type") == kind
    )


def _responses(payloads: list[Any], kind: str) -> str:
    return "".join(p["delta"] for p in payloads if p.get("type") == kind)


# Streams whose INDEX.md / expected/ quirks mention their text or reasoning, with the
# text read straight off the payloads by the field the provider documents (independent of
# the translators): (text, reasoning).
RECORDED_TEXT: dict[str, Any] = {
    "anthropic_tool_use_single_call": lambda p: (
        _anthropic(p, "text_delta", "text"),
        _anthropic(p, "thinking_delta", "thinking"),
    ),
    "anthropic_server_tool_use_bash_code_execution": lambda p: (
        _anthropic(p, "text_delta", "text"),
        _anthropic(p, "thinking_delta", "thinking"),
    ),
    "deepseek_reasoner_tool_call": lambda p: (
        _chat(p, "content"),
        _chat(p, "reasoning_content"),
    ),
    "xai_grok_single_chunk_tool_call": lambda p: (
        _chat(p, "content"),
        _chat(p, "reasoning_content"),
    ),
    "groq_tool_use_failed_error_event": lambda p: (_chat(p, "content"), _chat(p, "reasoning")),
    "deepseek_responses_api_function_call": lambda p: (
        _responses(p, "response.output_text.delta"),
        _responses(p, "response.reasoning_text.delta"),
    ),
    "lmstudio_responses_function_call_done_only": lambda p: (
        _responses(p, "response.output_text.delta"),
        _responses(p, "response.reasoning_text.delta"),
    ),
    "bedrock_converse_nova_tool_use": lambda p: (
        "".join(
            e["contentBlockDelta"]["delta"].get("text", "") for e in p if "contentBlockDelta" in e
        ),
        "",
    ),
    "gemini_vertex_no_args_then_partial_args": lambda p: (
        "",
        "".join(
            part["text"]
            for e in p
            for c in e.get("candidates", [])
            for part in c.get("content", {}).get("parts", [])
            if part.get("thought") is True
        ),
    ),
}


@pytest.mark.skipif(not RECORDED, reason=f"no recorded streams in {RECORDED_STREAMS}")
@pytest.mark.parametrize("stem", sorted(RECORDED_TEXT))
def test_recorded_streams_give_their_text(stem: str) -> None:
    if not (RECORDED_STREAMS / f"{stem}.jsonl").exists():
        pytest.skip(f"{stem} is not in this corpus")
    payloads = load_recorded(stem)
    want_text, want_reasoning = RECORDED_TEXT[stem](payloads)
    assert want_text or want_reasoning  # the stream holds what the index says
    result = collect(payloads, reasoning=True)
    assert (result.text, result.reasoning) == (want_text, want_reasoning)
    assert collect(payloads).reasoning == ""


@pytest.mark.skipif(not RECORDED, reason=f"no recorded streams in {RECORDED_STREAMS}")
@pytest.mark.parametrize("path", RECORDED, ids=[p.stem for p in RECORDED])
def test_recorded_streams_same_calls_and_updates_add_up(path: Any) -> None:
    payloads = load_recorded(path.stem)
    plain = collect(payloads)
    with stream(payloads, reasoning=True) as updates:
        seen = list(updates)
        result = updates.result
    assert calls(result) == calls(plain)
    assert result.server_tool_calls == plain.server_tool_calls
    assert "".join(u.text for u in seen) == result.text == plain.text
    assert "".join(u.reasoning for u in seen) == result.reasoning


# --- memory: the text is kept as text, not one object per delta ------------------------------


def _raw_deltas(count: int, *, reasoning: bool) -> Any:
    """``count`` raw SSE events of two characters of text each (reasoning too, when asked),
    made one at a time so that only what the stream keeps stays in memory."""
    for _ in range(count):
        delta = {"content": "ab", "reasoning_content": "cd"} if reasoning else {"content": "ab"}
        yield chat_sse([chat_chunk(delta)], done=False)


@pytest.mark.parametrize("reasoning", [False, True])
def test_a_text_only_raw_stream_keeps_about_its_text(reasoning: bool) -> None:
    """Each delta decoded from raw bytes is its own string (about 50 bytes of object for
    two characters); kept one by one they cost ~60 bytes per delta beyond the text (2M
    deltas: +110 MB). Kept as text they cost under a byte."""
    import tracemalloc

    count = 10_000
    updates = stream(_raw_deltas(count + 500, reasoning=reasoning), reasoning=reasoning)
    for _ in range(500):  # warm up: imports, the format detection, the first blocks
        next(updates)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(count):
            next(updates)
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    text_bytes = count * (4 if reasoning else 2)  # one byte per ASCII character
    per_delta = (kept - text_bytes) / count
    assert per_delta < 2.0, f"{per_delta:.1f} bytes per delta beyond the text"
    result = updates.result
    assert result.text == "ab" * (count + 500)
    assert result.reasoning == ("cd" * (count + 500) if reasoning else "")
    updates.close()
