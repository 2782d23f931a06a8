"""The openai (gpt-oss harmony) and gemma4 families' own rules, beyond the fixtures:
harmony's headers, recipients, prefill and cut calls; Gemma 4's values typed by the
schema (and without one), strings that grow in the previews, malformed calls; auto."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import callstream
from callstream.tool_parsers import resolve_tool_parser
from tests.support.conformance import text_source


def read(pieces: list[str], tool_parser: str, **options: Any) -> callstream.StreamResult:
    return callstream.collect(
        text_source(pieces),
        provider="text",
        tool_parser=tool_parser,
        reasoning=True,
        **options,
    )


def calls(result: callstream.StreamResult) -> list[tuple[str, Any]]:
    return [(c["name"], c["args"]) for c in result.tool_calls]


def test_names() -> None:
    for name in ("openai", "harmony", "gpt-oss", "gpt_oss", "GPT-OSS"):
        assert resolve_tool_parser(name) == "openai"
    assert resolve_tool_parser("gemma4") == "gemma4"


# --- harmony -----------------------------------------------------------------------------

ANALYSIS = "<|channel|>analysis<|message|>Need the weather.<|end|>"
CALL = (
    "<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json"
    '<|message|>{"city": "Paris"}'
)


def test_harmony_prefill_opens_the_header() -> None:
    result = read([ANALYSIS, CALL], "openai", prefill="<|start|>assistant")
    assert calls(result) == [("get_weather", {"city": "Paris"})]
    assert result.reasoning == "Need the weather."


def test_harmony_prefill_inside_the_analysis_message() -> None:
    prefill = "<|start|>assistant<|channel|>analysis<|message|>"
    result = read(["Thinking", " on.<|end|>", CALL], "openai", prefill=prefill)
    assert (result.reasoning, result.text) == ("Thinking on.", "")
    assert calls(result) == [("get_weather", {"city": "Paris"})]


def test_harmony_text_with_no_header_is_text() -> None:
    result = read(["It is sunny to=day", " in Paris."], "openai")
    assert result.text == "It is sunny to=day in Paris."


def test_harmony_a_call_the_text_cuts_is_invalid() -> None:
    result = read([ANALYSIS, CALL[:-3]], "openai")
    assert result.tool_calls == []
    [invalid] = result.invalid_tool_calls
    assert invalid["name"] == "get_weather"
    assert "the text ended inside a call" in invalid["error"]


def test_harmony_an_interrupted_call_is_invalid_even_when_its_object_closed() -> None:
    def source() -> Iterator[str]:
        yield from text_source([ANALYSIS, CALL])
        raise ConnectionError("dropped")

    with pytest.raises(ConnectionError) as info:
        callstream.collect(source(), provider="text", tool_parser="openai")
    result = info.value.callstream_result  # type: ignore[attr-defined]
    assert result.tool_calls == []
    assert "interrupted" in result.invalid_tool_calls[0]["error"]


def test_harmony_built_in_recipients_and_unknown_channels_are_dropped() -> None:
    raw = (
        "<|channel|>commentary to=python <|constrain|>code<|message|>print(1)<|call|>"
        "<|start|>assistant<|channel|>notes<|message|>scratch<|end|>"
        "<|start|>assistant<|channel|>final<|message|>Done."
    )
    result = read([raw], "openai")
    assert (result.tool_calls, result.text) == ([], "Done.")


def test_harmony_malformed_arguments_are_an_invalid_call() -> None:
    raw = "<|channel|>commentary to=functions.f json<|message|>[1, 2]<|call|>"
    result = read([raw, "<|start|>assistant<|channel|>final<|message|>ok"], "openai")
    [invalid] = result.invalid_tool_calls
    assert "not a JSON object" in invalid["error"]
    assert result.text == "ok"


def test_harmony_arguments_preview_grows() -> None:
    pieces = ["<|channel|>commentary to=functions.f json<|message|>", '{"text": "hel', 'lo"}']
    previews = [
        dict(update.tool_calls[0]["args"])
        for update in callstream.stream(
            text_source(pieces), provider="text", tool_parser="openai"
        )
        if update.tool_calls
    ]
    assert previews[0] == {}  # the call, announced with its name
    assert {"text": "hel"} in previews
    assert previews[-1] == {"text": "hello"}


# --- gemma4 ------------------------------------------------------------------------------

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "f",
            "parameters": {
                "type": "object",
                "properties": {
                    "s": {"type": "string"},
                    "n": {"type": "integer"},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "opts": {"type": "object", "properties": {"deep": {"type": "boolean"}}},
                },
            },
        },
    }
]
TYPED = '<|tool_call>call:f{s:42,n:<|"|>3<|"|>,tags:[1,<|"|>x<|"|>],opts:{deep:<|"|>true<|"|>}}'


def test_gemma4_values_typed_by_the_schema() -> None:
    result = read([TYPED + "<tool_call|>"], "gemma4", tools=TOOLS)
    args = {"s": "42", "n": 3, "tags": ["1", "x"], "opts": {"deep": True}}
    assert calls(result) == [("f", args)]


def test_gemma4_values_without_a_schema() -> None:
    raw = TYPED + ",x:1e-05,y:null,z:two words}<tool_call|>"
    result = read([raw.replace("}},x", "},x")], "gemma4")
    args = {
        "s": 42,
        "n": "3",
        "tags": [1, "x"],
        "opts": {"deep": "true"},
        "x": 1e-05,
        "y": None,
        "z": "two words",
    }
    assert calls(result) == [("f", args)]


def test_gemma4_a_string_grows_in_the_previews() -> None:
    pieces = ["<|tool_call>call:f{s:<|", '"|>hel', "lo <tool_call|> wor", 'ld<|"|>}<tool_call|>']
    previews = [
        dict(update.tool_calls[0]["args"])
        for update in callstream.stream(
            text_source(pieces), provider="text", tool_parser="gemma4"
        )
        if update.tool_calls
    ]
    assert [p for p in previews if p][:2] == [{"s": "hel"}, {"s": "hello <tool_call|> wor"}]
    assert previews[-1] == {"s": "hello <tool_call|> world"}


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("<|tool_call>call:f no brace<tool_call|>", "no arguments object"),
        ("<|tool_call>call:f{a:1} b<tool_call|>", "text after the call's arguments"),
        ("<|tool_call>call:f{a:1,,b:2}<tool_call|>", "no value came before it"),
        ("<|tool_call>call:f{a:[1}<tool_call|>", "the wrong kind of container"),
        ('<|tool_call>call:f{a:<|"|>x', "the text ended inside a call"),
    ],
)
def test_gemma4_malformed_calls_are_invalid(raw: str, reason: str) -> None:
    result = read([raw, "<|tool_call>call:g{}<tool_call|>"], "gemma4")
    assert reason in result.invalid_tool_calls[0]["error"]
    if "ended" not in reason:
        assert calls(result) == [("g", {})]


def test_gemma4_thinking_off_prefill_and_dropped_tokens() -> None:
    prefill = "<|turn>model\n<|channel>thought\n<channel|>"
    result = read(["Hi<turn|>"], "gemma4", prefill=prefill)
    assert (result.text, result.reasoning) == ("Hi", "")


# --- auto --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "family"),
    [
        (ANALYSIS + CALL, "openai"),
        (
            ' to=functions.get_weather<|channel|>commentary json<|message|>{"city": "Paris"}',
            "openai",
        ),
        (
            '<|channel>thought\nhm<channel|><|tool_call>call:get_weather{city:<|"|>Paris<|"|>}<tool_call|>',
            "gemma4",
        ),
    ],
)
def test_auto_recognizes_the_family(raw: str, family: str) -> None:
    auto = read([raw[i : i + 3] for i in range(0, len(raw), 3)], "auto")
    assert calls(auto) == [("get_weather", {"city": "Paris"})]
    named = read([raw], family)
    assert (auto.text, auto.reasoning) == (named.text, named.reasoning)
