"""Properties of the XML-ish families over text written by their own writers: random
calls (values typed by a schema built from them), written as each family's template
writes them, cut anywhere, read back the same; a text cut short never gives a call the
model did not finish; any text reads the same under every split.

The writers cannot write every value: a value holding the family's own structure (its
parameter closer followed by what may follow one, its parameter opener at a line start)
is ambiguous by the format, and MiniMax / Step3 drop the whitespace around a value. The
values drawn here hold the markers only where they are text (a closer followed by a
word), and for those two families have no whitespace at their ends."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import callstream
from callstream.tool_parsers import get_tool_parser, minimax_m2, qwen3_coder, seed_oss, step3
from callstream.tool_parsers._registry import parser_class
from callstream.tool_parsers._xml_parser import XmlParser
from tests.support.conformance import cut, text_source

Writer = Callable[..., str]
FAMILIES: dict[str, Writer] = {
    "qwen3_coder": qwen3_coder.write,
    "seed_oss": seed_oss.write,
    "minimax_m2": minimax_m2.write,
    "step3": step3.write,
}


def _family(name: str) -> type[XmlParser]:
    found = parser_class(name)
    assert issubclass(found, XmlParser)
    return found


def _markers(name: str) -> tuple[str, ...]:
    family = _family(name)
    g = family.grammar
    return (
        *family.section_open,
        *family.bare_open,
        g.section_close,
        g.call_open,
        g.call_close,
        g.param_open,
        g.param_close,
        *family.reasoning_open,
        *family.reasoning_close,
        *family.dropped,
        *g.noise,
    )


def _value_tokens(name: str) -> list[str]:
    """Characters, partial markers, and whole markers where they are text."""
    g = _family(name).grammar
    return [
        *'ab <>/|_\n\\"{}é🌸',
        "</param",
        "<tool_",
        "</think",
        g.param_close + " and",
        g.call_close + " then",
        " " + g.param_open + "x>",
        *_family(name).section_open,
        g.section_close,
    ]


_TEXT = st.lists(
    st.sampled_from([*'ab <>/|_\n\\"{}é🌸', "<tool_", "</think", "<|im_"]), max_size=12
)
free_text = _TEXT.map("".join)

names = st.from_regex(r"[a-z_][a-z0-9_]{0,10}", fullmatch=True)
keys = st.from_regex(r"[a-zA-Z_][a-zA-Z0-9_]{0,8}", fullmatch=True)


def _values(name: str) -> st.SearchStrategy[Any]:
    strings = st.lists(st.sampled_from(_value_tokens(name)), max_size=8).map("".join)
    if _family(name).grammar.strip_values:
        strings = strings.filter(lambda s: s == s.strip())
    scalars = (
        st.none()
        | st.booleans()
        | st.integers(-(10**12), 10**12)
        | st.floats(allow_nan=False, allow_infinity=False)
        | strings
    )
    nested = st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3),
        max_leaves=6,
    )
    return st.one_of(strings, scalars, nested)


def _calls(name: str) -> st.SearchStrategy[list[dict[str, Any]]]:
    call = st.builds(
        lambda n, a: {"name": n, "args": a},
        names,
        st.dictionaries(keys, _values(name), max_size=4),
    )
    return st.lists(call, max_size=3, unique_by=lambda c: c["name"])


_KINDS = {
    str: "string",
    bool: "boolean",
    int: "integer",
    float: "number",
    list: "array",
    dict: "object",
}


def tools_for(calls: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """A tool per call, each argument typed by its value."""
    return [
        {
            "type": "function",
            "function": {
                "name": call["name"],
                "parameters": {
                    "type": "object",
                    "properties": {
                        key: {"type": "null" if value is None else _KINDS[type(value)]}
                        for key, value in call["args"].items()
                    },
                },
            },
        }
        for call in calls
    ]


def read(pieces: Sequence[str], name: str, tools: Any) -> callstream.StreamResult:
    return callstream.collect(
        text_source(pieces), provider="text", tool_parser=name, tools=tools, reasoning=True
    )


def summary(result: callstream.StreamResult) -> tuple[Any, ...]:
    return (
        [(c["name"], c["args"]) for c in result.tool_calls],
        [(c["name"], c["error"]) for c in result.invalid_tool_calls],
        result.text,
        result.reasoning,
    )


@pytest.mark.parametrize("name", list(FAMILIES))
@given(data=st.data())
def test_written_calls_read_back_under_any_cut(name: str, data: st.DataObject) -> None:
    markers = _markers(name)
    written = data.draw(_calls(name))
    text = data.draw(free_text)
    reasoning = data.draw(st.none() | free_text)
    assume(not any(m in t for m in markers for t in (text, reasoning or "")))
    raw = FAMILIES[name](written, text=text, reasoning=reasoning)
    tools = tools_for(written)
    whole = read([raw], name, tools)
    assert [(c["name"], c["args"]) for c in whole.tool_calls] == [
        (c["name"], c["args"]) for c in written
    ]
    assert whole.invalid_tool_calls == []
    assert whole.text == text.strip()
    assert whole.reasoning == (reasoning or "").strip()
    points = data.draw(st.lists(st.integers(0, len(raw)), max_size=12))
    assert summary(read(cut(raw, sorted(set(points))), name, tools)) == summary(whole)


@pytest.mark.parametrize("name", list(FAMILIES))
@given(data=st.data())
def test_a_text_cut_short_gives_no_call_the_model_did_not_finish(
    name: str, data: st.DataObject
) -> None:
    written = data.draw(_calls(name))
    raw = FAMILIES[name](written)
    at = data.draw(st.integers(0, len(raw)))
    result = read([raw[:at]], name, tools_for(written))
    got = [(c["name"], c["args"]) for c in result.tool_calls]
    assert got == [(c["name"], c["args"]) for c in written[: len(got)]]
    assert len(result.invalid_tool_calls) <= 1
    for invalid in result.invalid_tool_calls:
        assert "the text ended inside a call" in invalid["error"]
    if at == len(raw):
        assert len(got) == len(written)


@pytest.mark.parametrize("name", list(FAMILIES))
@given(data=st.data())
def test_any_text_reads_the_same_under_every_split(name: str, data: st.DataObject) -> None:
    """Whatever the text (malformed calls, stray markers), every cut gives one result,
    whole markers never reach the text, and nothing raises."""
    tokens = [*'ab<>/_|\n "{}=', *_markers(name), "x>", "\n"]
    raw = data.draw(st.lists(st.sampled_from(tokens), max_size=30).map("".join))
    parser = get_tool_parser(name)
    whole = parser.feed(raw) + parser.close()
    points = data.draw(st.lists(st.integers(0, max(len(raw), 1)), max_size=10))
    assert summary(read(cut(raw, sorted(set(points))), name, None)) == summary(
        read([raw], name, None)
    )
    family = _family(name)
    for signal in whole:
        if isinstance(signal, callstream.TextDelta) and not signal.reasoning:
            assert not any(
                m in signal.text for m in (*family.section_open, family.grammar.section_close)
            )
