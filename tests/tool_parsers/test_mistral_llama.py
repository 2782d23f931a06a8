"""The mistral, llama3_json / llama4_json and pythonic / llama4_pythonic rules beyond the
fixtures: prefill, cut and malformed calls, unknown names, JSON answers kept as text,
Python values as JSON, auto."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

import callstream
from tests.support.conformance import text_source

WEATHER = {
    "type": "function",
    "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {}}},
}


def read(pieces: Sequence[str], name: str, **options: Any) -> callstream.StreamResult:
    return callstream.collect(
        text_source(pieces), provider="text", tool_parser=name, reasoning=True, **options
    )


def every_cut(raw: str, name: str, **options: Any) -> callstream.StreamResult:
    """The result of the whole text, checked equal under every two-piece cut."""
    whole = read([raw], name, **options)
    for at in range(1, len(raw)):
        cut = read([raw[:at], raw[at:]], name, **options)
        assert (cut.tool_calls, cut.text, cut.reasoning) == (
            whole.tool_calls,
            whole.text,
            whole.reasoning,
        ), at
        assert [c["error"] for c in cut.invalid_tool_calls] == [
            c["error"] for c in whole.invalid_tool_calls
        ], at
    return whole


def test_mistral_prefill_and_think() -> None:
    raw = '[THINK]plan[/THINK]ok[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}</s>'
    result = every_cut(raw, "mistral", prefill="[INST]hi[/INST]")
    assert result.reasoning == "plan"
    assert result.text == "ok"
    assert [(c["name"], c["args"]) for c in result.tool_calls] == [
        ("get_weather", {"city": "Paris"})
    ]


def test_mistral_cut_call_is_invalid_with_a_reason() -> None:
    result = every_cut('[TOOL_CALLS]get_weather[ARGS]{"city": "Par', "mistral")
    assert result.tool_calls == []
    assert "the text ended inside a call" in result.invalid_tool_calls[0]["error"]


def test_mistral_unknown_tool_and_the_next_call_intact() -> None:
    raw = '[TOOL_CALLS]rm[ARGS]{"path": "/"}[TOOL_CALLS]get_weather[ARGS]{}'
    result = every_cut(raw, "mistral", tools=[WEATHER])
    assert [c["name"] for c in result.tool_calls] == ["get_weather"]
    assert "not one of the tools offered" in result.invalid_tool_calls[0]["error"]


def test_mistral_v3_list_and_malformed_arguments() -> None:
    raw = '[TOOL_CALLS] [{"name": "a", "arguments": {"x": 1}}, {"name": "b", "arguments": 3}]'
    result = every_cut(raw, "mistral")
    assert [(c["name"], c["args"]) for c in result.tool_calls] == [("a", {"x": 1})]
    assert "not a JSON object" in result.invalid_tool_calls[0]["error"]
    bad = every_cut("[TOOL_CALLS]get_weather[ARGS]not json", "mistral")
    assert bad.tool_calls == [] and bad.invalid_tool_calls


@pytest.mark.parametrize(
    "raw", ['{"capital": "Paris"}', "{}", '{"a": 1} is a dict', '{"parameters": {}}', "{"]
)
def test_llama_json_answers_stay_text(raw: str) -> None:
    result = every_cut(raw, "llama3_json")
    assert result.tool_calls == [] and result.invalid_tool_calls == []
    assert result.text == raw


def test_llama_calls_separated_and_tagged() -> None:
    raw = '{"name": "a", "parameters": {"x": "<|eot_id|>"}}; {"name": "b", "parameters": {}}<|eot_id|>'
    result = every_cut(
        raw, "llama3_json", prefill="<|start_header_id|>assistant<|end_header_id|>\n\n"
    )
    assert [(c["name"], c["args"]) for c in result.tool_calls] == [
        ("a", {"x": "<|eot_id|>"}),
        ("b", {}),
    ]
    tagged = every_cut('Sure. <|python_tag|>{"name": "a", "arguments": {}}<|eom_id|>', "auto")
    assert tagged.text == "Sure." and [c["name"] for c in tagged.tool_calls] == ["a"]


def test_llama_cut_call_is_invalid() -> None:
    result = every_cut('{"name": "get_weather", "parameters": {"city": "Pa', "llama3_json")
    assert result.tool_calls == [] and len(result.invalid_tool_calls) == 1


def test_pythonic_values_as_json() -> None:
    raw = "[f(a=(1, 2), b={'k': None}, c=-1.5e3, d='it\\'s \\u00e9\\n'), g()]"
    result = every_cut(raw, "pythonic")
    assert [(c["name"], c["args"]) for c in result.tool_calls] == [
        ("f", {"a": [1, 2], "b": {"k": None}, "c": -1500.0, "d": "it's é\n"}),
        ("g", {}),
    ]


@pytest.mark.parametrize(
    ("raw", "reason"),
    [("[f(x)]", "positional"), ("[f(a=x)]", "not a Python literal"), ("[f(a=1)", "list of calls")],
)
def test_pythonic_bad_calls_are_invalid(raw: str, reason: str) -> None:
    result = every_cut(raw, "pythonic")
    assert result.tool_calls == []
    assert reason in result.invalid_tool_calls[0]["error"]


@pytest.mark.parametrize("raw", ["[1, 2] are numbers", "[link](x)", "[ ]"])
def test_pythonic_lists_that_are_no_calls_stay_text(raw: str) -> None:
    result = every_cut(raw, "pythonic")
    assert result.tool_calls == [] and result.text == raw


def test_auto_recognizes_the_markers() -> None:
    mistral = read(['[THINK]x[/THINK][TOOL_CALLS]f[ARGS]{"a": 1}'], "auto")
    assert mistral.reasoning == "x" and [c["name"] for c in mistral.tool_calls] == ["f"]
    llama4 = every_cut("<|python_start|>[f(a=1)]<|python_end|>", "auto")
    assert [(c["name"], c["args"]) for c in llama4.tool_calls] == [("f", {"a": 1})]
    llama4_json = every_cut('<|python_start|>{"name": "f", "parameters": {}}<|python_end|>', "auto")
    assert [c["name"] for c in llama4_json.tool_calls] == ["f"]
