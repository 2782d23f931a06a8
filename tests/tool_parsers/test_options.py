"""The tool_parser=, tools= and prefill= options of the pipeline, and the tool parser's
rules through it: names and their errors, the provider's own calls beside the text's,
the end of the stream (held text released, a cut call failed, before the provider's
end), interruptions, reasoning (prefill, a closer with no opener), previews, auto."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import callstream
from callstream import OptionValueError, UsageError
from callstream._errors import OptionTypeError, ParserStateError
from callstream.tool_parsers import (
    TEXT_CALL_INDEX,
    TEXT_FORMATS,
    ToolParser,
    get_tool_parser,
    resolve_tool_parser,
)
from callstream.tool_parsers._auto import AutoParser
from tests.support.conformance import chat_chunks, text_source

CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'


def read(pieces: list[str], **options: Any) -> callstream.StreamResult:
    options.setdefault("tool_parser", "hermes")
    return callstream.collect(
        text_source(pieces), provider="openai-chat", reasoning=True, **options
    )


# --- names ---------------------------------------------------------------------------


def test_names_aliases_and_auto() -> None:
    assert "hermes" in TEXT_FORMATS
    assert resolve_tool_parser("Hermes") == "hermes"
    assert resolve_tool_parser("qwen25") == "hermes"
    assert resolve_tool_parser(" AUTO ") == "auto"


def test_an_unknown_name_lists_the_names() -> None:
    with pytest.raises(OptionValueError, match=r"unknown tool_parser 'nope'.*hermes") as info:
        read(["x"], tool_parser="nope")
    assert isinstance(info.value, (UsageError, ValueError))


def test_a_name_of_a_wrong_type() -> None:
    with pytest.raises(OptionTypeError):
        read(["x"], tool_parser=3)


def test_tools_and_prefill_need_a_tool_parser() -> None:
    with pytest.raises(OptionValueError, match="tool_parser"):
        callstream.collect(text_source(["x"]), provider="openai-chat", tools=[])
    with pytest.raises(OptionValueError, match="tool_parser"):
        callstream.collect(text_source(["x"]), provider="openai-chat", prefill="<think>")


def test_a_tool_parser_object() -> None:
    parser = get_tool_parser("hermes")
    result = callstream.collect(text_source([CALL]), provider="openai-chat", tool_parser=parser)
    assert [c["name"] for c in result.tool_calls] == ["get_weather"]
    with pytest.raises(ParserStateError):
        parser.feed("more")


# --- calls ---------------------------------------------------------------------------


def test_text_without_a_tool_parser_is_text() -> None:
    result = callstream.collect(text_source([CALL]), provider="openai-chat")
    assert result.tool_calls == []
    assert result.text == CALL


def test_a_call_to_a_tool_not_offered_is_invalid() -> None:
    def get_time() -> str:
        """The time."""
        return "noon"

    result = read([CALL], tools=[get_time])
    assert result.tool_calls == []
    [invalid] = result.invalid_tool_calls
    assert invalid["name"] == "get_weather"
    assert "not one of the tools offered ('get_time')" in invalid["error"]


def test_the_providers_own_calls_and_the_texts_side_by_side() -> None:
    chunks: list[dict[str, Any]] = [
        {
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": "call_1",
                                "function": {"name": "get_time", "arguments": "{}"},
                            }
                        ]
                    },
                }
            ]
        },
        {"choices": [{"index": 0, "delta": {"content": CALL}}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    ]
    result = callstream.collect(chunks, provider="openai-chat", tool_parser="hermes")
    assert [c["name"] for c in result.tool_calls] == ["get_time", "get_weather"]
    assert result.text == ""


def test_the_text_calls_keys_start_high() -> None:
    parser = get_tool_parser("hermes")
    first = parser.feed(CALL)[0]
    assert isinstance(first, callstream.CallChunk)
    assert first.index == TEXT_CALL_INDEX


def test_a_malformed_call_is_invalid_and_the_others_intact() -> None:
    result = read([CALL, "<tool_call>{not json}</tool_call>", CALL])
    assert [c["name"] for c in result.tool_calls] == ["get_weather", "get_weather"]
    [invalid] = result.invalid_tool_calls
    assert "malformed" in invalid["error"]
    assert "{not json}" in invalid["error"]  # the raw text is kept
    assert result.text == ""


def test_malformed_arguments_are_an_invalid_call() -> None:
    result = read(['<tool_call>{"name": "f", "arguments": {"a": tru}}</tool_call>'])
    assert result.tool_calls == []
    [invalid] = result.invalid_tool_calls
    assert invalid["name"] == "f"


# --- the end of the stream ------------------------------------------------------------


def test_a_call_cut_by_the_end_of_the_text_is_invalid() -> None:
    result = read(["Checking.", CALL[:40]])
    assert result.tool_calls == []
    [invalid] = result.invalid_tool_calls
    assert "the text ended inside a call" in invalid["error"]
    assert result.text == "Checking."


def test_the_parser_is_closed_before_the_providers_end() -> None:
    """A stream ending with finish_reason "length" inside a call: the call is cut."""
    chunks = list(chat_chunks([CALL[:50]], finish="length"))
    result = callstream.collect(chunks, provider="openai-chat", tool_parser="hermes")
    assert result.finish_reason == "length"
    [invalid] = result.invalid_tool_calls
    assert "the text ended inside a call" in invalid["error"]


def test_a_held_back_tail_is_released_at_the_end() -> None:
    for pieces in (["a <"], ["a <tool_"], ["x </thi"]):
        result = read(pieces)
        assert result.text == "".join(pieces)


def test_the_held_tail_comes_before_the_providers_end() -> None:
    chunks = list(chat_chunks(["Hello <tool"], finish="stop"))
    result = callstream.collect(chunks, provider="openai-chat", tool_parser="hermes")
    assert result.text == "Hello <tool"


def test_an_interrupted_stream_fails_the_open_call() -> None:
    def source() -> Iterator[dict[str, Any]]:
        yield {"choices": [{"index": 0, "delta": {"content": "Hi <"}}]}
        yield {"choices": [{"index": 0, "delta": {"content": CALL[1:30]}}]}
        raise ConnectionError("dropped")

    with pytest.raises(ConnectionError) as info:
        callstream.collect(source(), provider="openai-chat", tool_parser="hermes")
    result = info.value.callstream_result  # type: ignore[attr-defined]
    assert result.interrupted
    [invalid] = result.invalid_tool_calls
    assert "interrupted" in invalid["error"]
    assert result.text == "Hi"


# --- reasoning -------------------------------------------------------------------------


def test_prefill_inside_reasoning() -> None:
    result = read(
        ["thinking", " hard</think>\n\nDone."], prefill="<|im_start|>assistant\n<think>\n"
    )
    assert (result.reasoning, result.text) == ("thinking hard", "Done.")


def test_prefill_with_reasoning_closed() -> None:
    prefill = "<|im_start|>assistant\n<think>\n\n</think>\n\n"
    result = read(["Hello", CALL], prefill=prefill)
    assert (result.reasoning, result.text) == ("", "Hello")
    assert len(result.tool_calls) == 1


def test_a_closer_with_no_opener_makes_the_text_before_it_reasoning() -> None:
    result = read(["I should ", "look it up.", "</thi", "nk>\n\nIt is sunny."])
    assert (result.reasoning, result.text) == ("I should look it up.", "It is sunny.")


def test_a_call_drafted_inside_reasoning_is_reasoning() -> None:
    result = read([f"<think>maybe {CALL}</think>", CALL])
    assert len(result.tool_calls) == 1
    assert "<tool_call>" in result.reasoning


def test_template_tokens_are_dropped() -> None:
    result = read(["Hello<|im_end|>", "<|endoftext|>"])
    assert result.text == "Hello"


# --- previews ----------------------------------------------------------------------------


def test_the_arguments_preview_grows() -> None:
    pieces = ['<tool_call>{"name": "f", "arguments": {"text": "hel', "lo wor", 'ld"}}</tool_call>']
    previews = [
        dict(update.tool_calls[0]["args"])
        for update in callstream.stream(
            text_source(pieces), provider="openai-chat", tool_parser="hermes"
        )
        if update.tool_calls
    ]
    assert previews[0] == {"text": "hel"}
    assert previews[-1] == {"text": "hello world"}


# --- auto --------------------------------------------------------------------------------


def test_auto_recognizes_hermes() -> None:
    parser = get_tool_parser("auto")
    assert isinstance(parser, AutoParser)
    out = parser.feed("Sure. " + CALL[:13]) + parser.feed(CALL[13:]) + parser.close()
    assert parser.family == "hermes"
    assert [s.name for s in out if isinstance(s, callstream.CallChunk) and s.name] == [
        "get_weather"
    ]


def test_auto_without_a_marker_is_text() -> None:
    result = read(["Just <b>text</b>."], tool_parser="auto")
    assert (result.text, result.tool_calls) == ("Just <b>text</b>.", [])


def test_auto_reads_the_same_as_the_family() -> None:
    text = f"<think>hm</think>Sure.{CALL}\n{CALL}"
    assert read([text], tool_parser="auto") == read([text])


def test_a_family_subclass_is_a_tool_parser() -> None:
    assert issubclass(type(get_tool_parser("hermes")), ToolParser)


# --- limits ------------------------------------------------------------------------------


def test_a_name_past_the_limit_is_an_invalid_call() -> None:
    result = read([f'<tool_call>{{"name": "{"x" * 5000}", "arguments": {{}}}}</tool_call>ok'])
    assert result.tool_calls == []
    [invalid] = result.invalid_tool_calls
    assert "exceeds 4096 characters" in invalid["error"]
    assert result.text == "ok"


def test_a_template_token_inside_a_call_cuts_it() -> None:
    result = read([CALL[:-12], "<|im_end|>"])  # the end marker never came
    assert result.tool_calls == []
    [invalid] = result.invalid_tool_calls
    assert "the message ended (<|im_end|>) inside a call" in invalid["error"]
    assert result.text == ""
