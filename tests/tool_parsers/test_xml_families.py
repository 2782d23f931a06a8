"""The XML-ish families (qwen3_coder, seed_oss, minimax_m2, step3), read from the shapes
their chat templates and engines write: each case whole, cut at every place (one cut),
cut one character at a time, and cut short at every place (never a call the model did
not finish); markers inside values, bad names, reasoning, the policy for calls written
inside a reasoning block never closed, and ``auto``. canitoolcall has fixtures for
qwen3-xml only (test_conformance.py); these are ours, from the same sources."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

import callstream
from callstream.tool_parsers import get_tool_parser
from callstream.tool_parsers.step3 import CALL_BEGIN, CALL_END, CLOSE, OPEN, SEP
from tests.support.conformance import cut, text_source

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
        },
    },
}
WRITE = {
    "type": "function",
    "function": {
        "name": "write_file",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
        },
    },
}
TOOLS = [WEATHER, WRITE]


def read(
    pieces: Sequence[str], parser: str, prefill: str = "", tools: Any = TOOLS
) -> callstream.StreamResult:
    return callstream.collect(
        text_source(pieces),
        provider="text",
        tool_parser=parser,
        tools=tools,
        prefill=prefill,
        reasoning=True,
    )


def summary(result: callstream.StreamResult) -> tuple[Any, ...]:
    return (
        [(c["name"], c["args"]) for c in result.tool_calls],
        [c["name"] for c in result.invalid_tool_calls],
        result.text,
        result.reasoning,
    )


def _step3_call(name: str, params: str) -> str:
    return (
        f'{CALL_BEGIN}function{SEP}<steptml:invoke name="{name}">\n{params}'
        f"</steptml:invoke>{CALL_END}\n"
    )


# (id, parser, prefill, raw text, expected calls, expected text, expected reasoning)
CASES: list[tuple[str, str, str, str, list[Any], str, str]] = [
    (
        "seed-template",
        "seed_oss",
        "<seed:bos>assistant\n",
        "<seed:think>The user wants Paris.</seed:think>\nLet me check.\n\n<seed:tool_call>\n"
        "<function=get_weather>\n<parameter=city>Paris</parameter>\n"
        "<parameter=days>3</parameter>\n</function>\n</seed:tool_call>",
        [("get_weather", {"city": "Paris", "days": 3})],
        "Let me check.",
        "The user wants Paris.",
    ),
    (
        "seed-newlines-and-markers-in-value",
        "seed_oss",
        "",
        "<seed:tool_call>\n<function=write_file>\n<parameter=path>\na.md\n</parameter>\n"
        "<parameter=content>Use </parameter> and <seed:tool_call> freely.\n</parameter>\n"
        "</function>\n</seed:tool_call>",
        [
            (
                "write_file",
                {"path": "a.md", "content": "Use </parameter> and <seed:tool_call> freely."},
            )
        ],
        "",
        "",
    ),
    (
        "seed-parallel-and-eos",
        "seed_oss",
        "",
        "<seed:tool_call>\n<function=get_weather>\n<parameter=city>Oslo</parameter>\n</function>\n"
        "</seed:tool_call>\n<seed:tool_call>\n<function=get_weather>\n<parameter=city>Rome"
        "</parameter>\n</function>\n</seed:tool_call><seed:eos>",
        [("get_weather", {"city": "Oslo"}), ("get_weather", {"city": "Rome"})],
        "",
        "",
    ),
    (
        "minimax-guide",
        "minimax_m2",
        "]~b]ai\n<think>\n",
        "The user wants the weather.\n</think>\n\nLet me look.\n<minimax:tool_call>\n"
        '<invoke name="get_weather">\n<parameter name="city">San Francisco</parameter>\n'
        '<parameter name="days">2</parameter>\n</invoke>\n<invoke name="get_weather">\n'
        "<parameter name='city'>Paris</parameter>\n</invoke>\n</minimax:tool_call>",
        [("get_weather", {"city": "San Francisco", "days": 2}), ("get_weather", {"city": "Paris"})],
        "Let me look.",
        "The user wants the weather.",
    ),
    (
        "minimax-markers-in-value",
        "minimax_m2",
        "",
        '<minimax:tool_call>\n<invoke name="write_file">\n<parameter name="path"> x.html '
        '</parameter>\n<parameter name="content">\n<p>a</p></parameter> <invoke name="y">\n'
        "</parameter>\n</invoke>\n</minimax:tool_call>[e~[",
        [
            (
                "write_file",
                {"path": "x.html", "content": '<p>a</p></parameter> <invoke name="y">'},
            )
        ],
        "",
        "",
    ),
    (
        "step3-template",
        "step3",
        "<|BOT|>assistant\n<think>\n",
        "Weather for Tokyo.\n</think>\nSure.\n"
        f"{OPEN}\n"
        + _step3_call(
            "get_weather",
            '<steptml:parameter name="city">Tokyo</steptml:parameter>\n'
            '<steptml:parameter name="days">5</steptml:parameter>\n',
        )
        + _step3_call("get_weather", '<steptml:parameter name="city">Kyoto</steptml:parameter>\n')
        + CLOSE,
        [("get_weather", {"city": "Tokyo", "days": 5}), ("get_weather", {"city": "Kyoto"})],
        "Sure.",
        "Weather for Tokyo.",
    ),
    (
        "step3-no-wrappers",
        "step3",
        "",
        f'{OPEN}{CALL_BEGIN}<steptml:invoke name="get_weather"><steptml:parameter name="city">'
        f"Tokyo</steptml:parameter></steptml:invoke>{CALL_END}{CLOSE}",
        [("get_weather", {"city": "Tokyo"})],
        "",
        "",
    ),
    (
        "qwen-text-around",
        "qwen3_coder",
        "",
        "Sure.<tool_call>\n<function=get_weather>\n<parameter=city>\nLyon\n</parameter>\n"
        "</function>\n</tool_call>\nDone.",
        [("get_weather", {"city": "Lyon"})],
        "Sure.\nDone.",
        "",
    ),
]


def _check(result: callstream.StreamResult, calls: list[Any], text: str, reasoning: str) -> None:
    assert [(c["name"], c["args"]) for c in result.tool_calls] == calls
    assert result.invalid_tool_calls == []
    assert result.text == text
    assert result.reasoning == reasoning


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_whole_and_every_cut(case: tuple[str, str, str, str, list[Any], str, str]) -> None:
    _, parser, prefill, raw, calls, text, reasoning = case
    _check(read([raw], parser, prefill), calls, text, reasoning)
    _check(read(list(raw), parser, prefill), calls, text, reasoning)
    for at in range(1, len(raw)):
        _check(read(cut(raw, [at]), parser, prefill), calls, text, reasoning)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_cut_short_anywhere(case: tuple[str, str, str, str, list[Any], str, str]) -> None:
    """Every prefix: the calls it holds whole, at most one invalid call (the one cut),
    never a marker in the text, and never a call the model did not finish."""
    _, parser, prefill, raw, calls, _, _ = case
    for at in range(len(raw)):
        result = read([raw[:at]], parser, prefill)
        got = [(c["name"], c["args"]) for c in result.tool_calls]
        assert got == calls[: len(got)]
        assert len(result.invalid_tool_calls) <= 1
        for invalid in result.invalid_tool_calls:
            assert "the text ended inside a call" in invalid["error"]
        markers = (OPEN, CLOSE, "tool_call>", "<function=", "<invoke", "<parameter", "think>")
        assert not any(m in result.text for m in markers)


@pytest.mark.parametrize(
    ("parser", "raw"),
    [
        (
            "qwen3_coder",
            "<tool_call>\n<function=rm>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>",
        ),
        (
            "seed_oss",
            "<seed:tool_call><function=rm><parameter=a>1</parameter></function></seed:tool_call>",
        ),
        (
            "minimax_m2",
            '<minimax:tool_call><invoke name="rm"><parameter name="a">1</parameter></invoke></minimax:tool_call>',
        ),
        (
            "step3",
            f'{OPEN}{CALL_BEGIN}function{SEP}<steptml:invoke name="rm"></steptml:invoke>{CALL_END}{CLOSE}',
        ),
    ],
)
def test_a_name_not_offered_is_an_invalid_call(parser: str, raw: str) -> None:
    result = read([raw], parser)
    assert result.tool_calls == []
    assert [c["name"] for c in result.invalid_tool_calls] == ["rm"]
    assert "not one of the tools offered" in result.invalid_tool_calls[0]["error"]
    assert result.text == ""


@pytest.mark.parametrize(
    ("parser", "raw"),
    [
        ("qwen3_coder", "<tool_call>\n<function=get\nweather>\n</function>\n</tool_call>after"),
        ("qwen3_coder", '<tool_call>\n{"name": "get_weather", "arguments": {}}\n</tool_call>after'),
        (
            "minimax_m2",
            '<minimax:tool_call><invoke name="get_weather">junk</invoke></minimax:tool_call>after',
        ),
    ],
)
def test_malformed_calls_are_invalid_and_the_text_goes_on(parser: str, raw: str) -> None:
    for pieces in ([raw], list(raw)):
        result = read(pieces, parser)
        assert result.tool_calls == []
        assert len(result.invalid_tool_calls) == 1
        assert result.text == "after"


def test_values_typed_without_tools_by_the_documented_rule() -> None:
    raw = (
        "<tool_call>\n<function=f>\n<parameter=n>\n42\n</parameter>\n<parameter=o>\n"
        '{"a": [1]}\n</parameter>\n<parameter=s>\nParis\n</parameter>\n<parameter=z>\n'
        "02139\n</parameter>\n<parameter=t>\ntrue\n</parameter>\n</function>\n</tool_call>"
    )
    for pieces in ([raw], list(raw)):
        result = read(pieces, "qwen3_coder", tools=None)
        assert result.tool_calls[0]["args"] == {
            "n": 42,
            "o": {"a": [1]},
            "s": "Paris",
            "z": "02139",
            "t": True,
        }


def test_a_string_value_grows_while_it_streams() -> None:
    parser = get_tool_parser("minimax_m2", tools=TOOLS)
    head = '<minimax:tool_call>\n<invoke name="write_file">\n<parameter name="content">'
    fragments = []
    for piece in (head, "line one\n", "line two ", "and more "):
        for signal in parser.feed(piece):
            if isinstance(signal, callstream.CallChunk) and signal.args:
                fragments.append(signal.args)
    assert "".join(fragments) == '{"content": "line one\\nline two and more'
    parser.feed("</parameter>\n</invoke>\n</minimax:tool_call>")
    parser.close()


# --- calls written inside a reasoning block never closed (the documented policy) ------

THINK = "<|im_start|>assistant\n<think>\n"
QCALL = "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>"


@pytest.mark.parametrize(
    ("raw", "calls", "text", "reasoning"),
    [
        # the model's call: nothing follows it (llama.cpp #20837, vLLM #39056)
        ("Check it.\n" + QCALL, [("get_weather", {"city": "Paris"})], "", "Check it."),
        (
            "Check.\n" + QCALL + "\n" + QCALL + "\n<|im_end|>",
            [("get_weather", {"city": "Paris"})] * 2,
            "",
            "Check.",
        ),
        # the call, then the reasoning's closer, then nothing
        ("Check.\n" + QCALL + "\n</think>\n\n", [("get_weather", {"city": "Paris"})], "", "Check."),
        # a draft: the reasoning goes on
        ("Maybe " + QCALL + " no, wait.", [], "", "Maybe " + QCALL + " no, wait."),
        # a draft: the real call comes after the closer
        (
            "Draft:\n" + QCALL + "\n</think>\n\n" + QCALL,
            [("get_weather", {"city": "Paris"})],
            "",
            "Draft:\n" + QCALL,
        ),
        # a draft: text comes after the closer
        (
            "Draft:\n" + QCALL + "\n</think>\nNo call needed.",
            [],
            "No call needed.",
            "Draft:\n" + QCALL,
        ),
        # no function after the opener: reasoning
        (
            "Hermes writes <tool_call>{...}</tool_call>.",
            [],
            "",
            "Hermes writes <tool_call>{...}</tool_call>.",
        ),
    ],
)
def test_calls_inside_an_unclosed_reasoning_block(
    raw: str, calls: list[Any], text: str, reasoning: str
) -> None:
    for pieces in ([raw], list(raw), cut(raw, [len(raw) // 2])):
        result = read(pieces, "qwen3_coder", THINK)
        assert [(c["name"], c["args"]) for c in result.tool_calls] == calls
        assert result.invalid_tool_calls == []
        assert result.text == text
        assert result.reasoning == reasoning


def test_a_call_cut_inside_reasoning_is_invalid() -> None:
    raw = "Check.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nPar"
    result = read([raw], "qwen3_coder", THINK)
    assert result.tool_calls == []
    assert [c["name"] for c in result.invalid_tool_calls] == ["get_weather"]
    assert result.reasoning == "Check."


# --- auto ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "family"),
    [
        (QCALL, "qwen3_coder"),
        ('<tool_call>\n{"name": "get_weather", "arguments": {}}\n</tool_call>', "hermes"),
        ("<function=get_weather>\n</function>\n</tool_call>", "qwen3_coder"),
        (
            "<seed:think>x</seed:think><seed:tool_call><function=get_weather></function></seed:tool_call>",
            "seed_oss",
        ),
        (
            '<minimax:tool_call><invoke name="get_weather"></invoke></minimax:tool_call>',
            "minimax_m2",
        ),
        (
            f'{OPEN}{CALL_BEGIN}function{SEP}<steptml:invoke name="get_weather"></steptml:invoke>{CALL_END}{CLOSE}',
            "step3",
        ),
    ],
)
def test_auto_recognizes_the_family(raw: str, family: str) -> None:
    for pieces in ([raw], list(raw)):
        parser = get_tool_parser("auto", tools=TOOLS)
        signals = [s for piece in pieces for s in parser.feed(piece)] + parser.close()
        assert parser.family == family  # type: ignore[attr-defined]
        names = [s.name for s in signals if isinstance(s, callstream.CallChunk) and s.name]
        assert names == ["get_weather"]
        assert not any(isinstance(s, callstream.CallFailure) for s in signals)
