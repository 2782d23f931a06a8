"""The JSON-call families without canitoolcall fixtures (granite, phi4_mini_json, jamba,
internlm, cohere, xlam): conformance-style cases of our own from each family's real
shape (the module docstrings cite it), read whole, under every two-piece split, one
character at a time, and through ``auto``; cut at every point; markers inside JSON
strings; unknown names; malformed JSON. Plus the roundtrip property: random calls
written by each family's writer, cut anywhere, read back the same."""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import callstream
from callstream.tool_parsers import cohere, granite, internlm, jamba, phi4_mini, xlam
from callstream.tool_parsers._registry import get_tool_parser, resolve_tool_parser
from tests.support.conformance import cut, text_source

WRITERS: dict[str, ModuleType] = {
    "granite": granite,
    "phi4_mini_json": phi4_mini,
    "jamba": jamba,
    "internlm": internlm,
    "cohere": cohere,
    "xlam": xlam,
}
#: the markers of each family (none may reach the text, the reasoning or a name)
MARKERS: dict[str, tuple[str, ...]] = {
    name: tuple(
        m
        for cls in [get_tool_parser(name).__class__]
        for m in cls.call_open
        + cls.call_close
        + cls.reasoning_open
        + cls.reasoning_close
        + cls.dropped
    )
    for name in WRITERS
}


def read(pieces: Sequence[str], name: str, **options: Any) -> callstream.StreamResult:
    return callstream.collect(
        text_source(pieces), provider="text", tool_parser=name, reasoning=True, **options
    )


def summary(result: callstream.StreamResult) -> tuple[Any, ...]:
    return (
        [(c["name"], c["args"]) for c in result.tool_calls],
        [(c["name"], c["error"]) for c in result.invalid_tool_calls],
        result.text,
        result.reasoning,
    )


def every_split(raw: str, name: str, **options: Any) -> tuple[Any, ...]:
    """The result, the same whole, under every two-piece cut and one character at a time."""
    whole = summary(read([raw], name, **options))
    for at in range(len(raw) + 1):
        assert summary(read(cut(raw, [at]), name, **options)) == whole, at
    assert summary(read(list(raw), name, **options)) == whole
    return whole


TRICKY = {"q": "</tool_calls> <|END_ACTION|> <|action_end|> ] ``` functools[ <|tool_call|>"}
CALLS = [{"name": "get_weather", "args": {"city": "Paris", "n": 2}}, {"name": "f", "args": TRICKY}]

# real shapes, written as the sources show them
CASES: dict[str, list[tuple[str, list[tuple[str, Any]], str, str]]] = {
    "granite": [
        (
            '<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris"}}]',
            [("get_weather", {"city": "Paris"})],
            "",
            "",
        ),
        (
            'Let me check.<tool_call>[{"arguments": {}, "name": "t"}, '
            '{"name": "u", "arguments": {"a": [1, {"b": null}]}}]<|end_of_text|>',
            [("t", {}), ("u", {"a": [1, {"b": None}]})],
            "Let me check.",
            "",
        ),
    ],
    "phi4_mini_json": [
        (
            'functools[{"name": "get_weather", "arguments": {"city": "Paris"}}]',
            [("get_weather", {"city": "Paris"})],
            "",
            "",
        ),
        (
            'I use functools a lot. functools[{"name": "a", "parameters": {"x": "]"}},'
            ' {"name": "b", "arguments": {}}]<|end|>',
            [("a", {"x": "]"}), ("b", {})],
            "I use functools a lot.",
            "",
        ),
        ("cache = functools[key](x)", [], "cache = functools[key](x)", ""),
    ],
    "jamba": [
        (
            '<tool_calls>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</tool_calls>',
            [("get_weather", {"city": "Paris"})],
            "",
            "",
        ),
        (
            'Sure.\n<tool_calls>[\n  {"name": "a", "arguments": {"s": "</tool_calls>"}},\n'
            '  {"name": "b", "arguments": {}}\n]</tool_calls><|eom|>',
            [("a", {"s": "</tool_calls>"}), ("b", {})],
            "Sure.",
            "",
        ),
        (
            '<|bom|><|assistant|> <tool_calls>[{"name": "get_weather", "arguments": {"city":'
            ' "London"}}]</tool_calls><|eom|>',
            [("get_weather", {"city": "London"})],
            "",
            "",
        ),
    ],
    "internlm": [
        (
            '<|action_start|><|plugin|>\n{"name": "get_weather", "parameters": {"city": "Paris"}}'
            "<|action_end|>",
            [("get_weather", {"city": "Paris"})],
            "",
            "",
        ),
        (
            'Checking.<|action_start|><|plugin|>\n{"name": "a", "arguments": '
            '{"s": "<|action_end|>"}}<|action_end|>\n<|im_end|>',
            [("a", {"s": "<|action_end|>"})],
            "Checking.",
            "",
        ),
    ],
    "cohere": [
        (
            "<|START_THINKING|>I will look up the weather.<|END_THINKING|><|START_ACTION|>[\n"
            '    {"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": "Paris"}}'
            "\n]<|END_ACTION|><|END_OF_TURN_TOKEN|>",
            [("get_weather", {"city": "Paris"})],
            "",
            "I will look up the weather.",
        ),
        (
            "<|START_RESPONSE|>It is sunny.<|END_RESPONSE|>",
            [],
            "It is sunny.",
            "",
        ),
        (
            '<|START_ACTION|>[{"tool_name": "a", "parameters": {"s": "<|END_ACTION|>"}},'
            ' {"tool_call_id": "1", "parameters": {}, "tool_name": "b"}]<|END_ACTION|>',
            [("a", {"s": "<|END_ACTION|>"}), ("b", {})],
            "",
            "",
        ),
    ],
    "xlam": [
        (
            '[{"name": "get_weather", "arguments": {"city": "Paris"}}]',
            [("get_weather", {"city": "Paris"})],
            "",
            "",
        ),
        (
            'Here:\n```json\n[{"name": "a", "arguments": {"s": "```"}}]\n```',
            [("a", {"s": "```"})],
            "Here:",
            "",
        ),
        (
            "[1] is the answer, see ```python\nx\n```",
            [],
            "[1] is the answer, see ```python\nx\n```",
            "",
        ),
        (
            '<tool_call>[{"name": "a", "arguments": {}}]</tool_call><|eot_id|>',
            [("a", {})],
            "",
            "",
        ),
        ('[TOOL_CALLS][{"name": "a", "arguments": {}}]', [("a", {})], "", ""),
        (
            'A JSON example:\n```json\n{"a": [1]}\n```',
            [],
            'A JSON example:\n```json\n{"a": [1]}\n```',
            "",
        ),
    ],
}
CASE_PARAMS = [(name, *case) for name, cases in CASES.items() for case in cases]


@pytest.mark.parametrize(("family", "raw", "calls", "text", "reasoning"), CASE_PARAMS)
def test_the_real_shapes_read_the_same_under_every_split(
    family: str, raw: str, calls: list[tuple[str, Any]], text: str, reasoning: str
) -> None:
    got_calls, invalid, got_text, got_reasoning = every_split(raw, family)
    assert (got_calls, invalid, got_text, got_reasoning) == (calls, [], text, reasoning)
    for marker in MARKERS[family]:
        if marker not in text:  # (a case of text that looks like a marker)
            assert marker not in got_text and marker not in got_reasoning


@pytest.mark.parametrize("family", list(WRITERS))
def test_auto_recognizes_the_family_by_its_marker(family: str) -> None:
    raw = WRITERS[family].write(CALLS, text="Hello", reasoning=None)
    assert summary(read([raw], "auto")) == summary(read([raw], family))
    assert [c["name"] for c in read([raw], "auto").tool_calls] == ["get_weather", "f"]


@pytest.mark.parametrize("family", list(WRITERS))
def test_a_cut_text_gives_no_call_the_model_did_not_finish(family: str) -> None:
    raw = WRITERS[family].write(CALLS, text="Hello")
    for at in range(len(raw)):
        result = read([raw[:at]], family)
        for call in result.tool_calls:
            assert (call["name"], call["args"]) in [(c["name"], c["args"]) for c in CALLS]
        # a call whose object is cut is invalid, with the reason, never valid
        finished = len(result.tool_calls) + len(result.invalid_tool_calls)
        assert finished <= len(CALLS)
        for invalid in result.invalid_tool_calls:
            assert "ended inside a call" in invalid["error"]
        # (a fence cut before its list is text: a fence holds calls when a list follows)
        text = result.text.removesuffix(xlam.FENCE) if family == "xlam" else result.text
        for marker in MARKERS[family]:
            assert marker not in text


@pytest.mark.parametrize("family", list(WRITERS))
def test_an_unknown_tool_is_an_invalid_call_and_the_others_stay(family: str) -> None:
    raw = WRITERS[family].write(CALLS, text="")
    result = read([raw], family, tools=[{"type": "function", "function": {"name": "f"}}])
    assert [c["name"] for c in result.tool_calls] == ["f"]
    assert [c["name"] for c in result.invalid_tool_calls] == ["get_weather"]
    assert "not one of the tools offered" in result.invalid_tool_calls[0]["error"]


MALFORMED = {
    "granite": '<|tool_call|>[{"name": "a", "arguments": {"x": 1,}}]',
    "phi4_mini_json": 'functools[{"name": "a", "arguments": [1]}]',
    "jamba": '<tool_calls>[{"name": 3, "arguments": {}}]</tool_calls>',
    "internlm": '<|action_start|><|plugin|>\n{"name": "a" "parameters": {}}<|action_end|>',
    "cohere": '<|START_ACTION|>[{"tool_call_id": "0", "parameters": {}}]<|END_ACTION|>',
    "xlam": '```json\n[{"name": "a", "arguments": {"x": tru}}]\n```',
}


@pytest.mark.parametrize("family", list(WRITERS))
def test_malformed_json_is_an_invalid_call_under_every_split(family: str) -> None:
    calls, invalid, text, reasoning = every_split(MALFORMED[family], family)
    assert calls == []
    assert len(invalid) == 1 and invalid[0][1]
    for marker in MARKERS[family]:
        assert marker not in text


def test_cohere_the_tool_parser_is_not_the_cohere_provider() -> None:
    assert resolve_tool_parser("cohere") == "cohere"
    assert resolve_tool_parser("command") == "cohere"
    raw = cohere.write(CALLS[:1], text="ok", reasoning="plan")
    assert summary(read([raw], "cohere"))[0] == [("get_weather", {"city": "Paris", "n": 2})]


@pytest.mark.parametrize(
    ("alias", "name"),
    [("granite3", "granite"), ("phi4_mini", "phi4_mini_json"), ("internlm2", "internlm")],
)
def test_the_aliases(alias: str, name: str) -> None:
    assert resolve_tool_parser(alias) == name


# --- the roundtrip property ---------------------------------------------------------------

_ALPHABET = st.sampled_from(list('ab <>/|_\n\\"{}[]`é🌸') + ["<tool_", "<|START", "functools"])
free_text = st.lists(_ALPHABET, max_size=10).map("".join)
names = st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True)
values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**9), 10**9)
    | st.lists(st.sampled_from([*'ab "\\\n<>/é]`', "<|END_ACTION|>", "</tool_calls>"])).map(
        "".join
    ),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=6,
)
calls_st = st.lists(
    st.builds(
        lambda n, a: {"name": n, "args": a},
        names,
        st.dictionaries(st.text(max_size=5), values, max_size=3),
    ),
    max_size=3,
)


def _plain(text: str, family: str) -> bool:
    stripped = text.strip()
    if family == "xlam" and stripped.startswith("["):
        return False  # a bare list at the start is read as calls
    return not any(m in text for m in MARKERS[family]) and "``" not in text


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(list(WRITERS)),
    calls_st,
    free_text,
    st.none() | free_text,
    st.lists(st.integers(0, 10_000), max_size=10),
)
def test_written_calls_read_back_under_any_cut(
    family: str,
    written: list[dict[str, Any]],
    text: str,
    reasoning: str | None,
    points: list[int],
) -> None:
    assume(_plain(text, family) and (reasoning is None or _plain(reasoning, family)))
    assume(family != "cohere" or not text or text.strip())
    raw = WRITERS[family].write(written, text=text, reasoning=reasoning)
    whole = read([raw], family)
    assert [(c["name"], c["args"]) for c in whole.tool_calls] == [
        (c["name"], c["args"]) for c in written
    ]
    assert whole.invalid_tool_calls == []
    assert whole.text == text.strip()
    assert whole.reasoning == (reasoning or "").strip()
    pieces = cut(raw, sorted({p % (len(raw) + 1) for p in points}))
    assert summary(read(pieces, family)) == summary(whole)


_PIECES = {
    name: st.sampled_from([*'ab<>/_|\n {}[]":,`', '"name"', '"tool_name"', *MARKERS[name]])
    for name in WRITERS
}


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(list(WRITERS)), st.data())
def test_any_text_reads_the_same_under_every_split(family: str, data: st.DataObject) -> None:
    """Whatever the text (malformed calls, stray markers), every cut gives one result
    and nothing raises."""
    raw = "".join(data.draw(st.lists(_PIECES[family], max_size=30)))
    points = data.draw(st.lists(st.integers(0, max(len(raw), 1)), max_size=10))
    pieces = cut(raw, sorted(set(points)))
    assert summary(read(pieces, family)) == summary(read([raw], family))


@pytest.mark.parametrize(
    ("prefill", "raw", "reasoning", "text"),
    [
        (
            "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>",
            "<|START_RESPONSE|>Hi.<|END_RESPONSE|>",
            "",
            "Hi.",
        ),
        (
            "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|><|START_THINKING|>",
            "plan<|END_THINKING|><|START_RESPONSE|>Hi.<|END_RESPONSE|>",
            "plan",
            "Hi.",
        ),
    ],
)
def test_cohere_prefill(prefill: str, raw: str, reasoning: str, text: str) -> None:
    for pieces in ([raw], list(raw)):
        result = read(pieces, "cohere", prefill=prefill)
        assert (result.text, result.reasoning) == (text, reasoning)
