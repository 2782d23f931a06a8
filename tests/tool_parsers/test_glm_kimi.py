"""The GLM (glm45, glm47) and Kimi (kimi_k2, kimi_k3) families: their rules, "auto"
recognizing them, and the round trip: random calls written by each family's writer,
cut anywhere, read back the same (with the tools' schemas for the families whose values
are raw text)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import callstream
from callstream.tool_parsers import get_tool_parser, glm, kimi, kimi_k3
from tests.support.conformance import cut, text_source

Writer = Callable[..., str]

WRITERS: dict[str, Writer] = {
    "glm45": glm.write45,
    "glm47": glm.write47,
    "kimi_k2": kimi.write,
    "kimi_k3": kimi_k3.write,
}
OPENERS = {
    "glm45": glm.OPEN,
    "glm47": glm.OPEN,
    "kimi_k2": kimi.CALL,
    "kimi_k3": kimi_k3.CALL,
}
MARKERS = {
    "glm45": (glm.OPEN, glm.CLOSE, glm.KEY, glm.KEY_END, glm.VALUE, glm.VALUE_END),
    "kimi_k2": (kimi.SECTION, kimi.SECTION_END, kimi.CALL, kimi.ARGS, kimi.CALL_END),
    "kimi_k3": (
        kimi_k3.THINK,
        kimi_k3.THINK_END,
        kimi_k3.RESPONSE,
        kimi_k3.CALL,
        kimi_k3.CALL_END,
        kimi_k3.ARG,
        kimi_k3.ARG_END,
        "<|sep|>",
    ),
}
MARKERS["glm47"] = MARKERS["glm45"]
COMMON = ("<think>", "</think>")


def read(family: str, pieces: Sequence[str], **options: Any) -> callstream.StreamResult:
    return callstream.collect(
        text_source(pieces), provider="text", tool_parser=family, reasoning=True, **options
    )


def summary(result: callstream.StreamResult) -> tuple[Any, ...]:
    return (
        [(c["name"], c["args"], c.get("id")) for c in result.tool_calls],
        [(c["name"], c["error"]) for c in result.invalid_tool_calls],
        result.text,
        result.reasoning,
    )


# --- the round trip ------------------------------------------------------------------

_ALPHABET = st.sampled_from(
    list('ab <>/|_\n\\"{}é🌸&') + ["<tool_", "</arg", "<|open|>", "<|close|>", "<|tool_call"]
)
free_text = st.lists(_ALPHABET, max_size=12).map("".join)
# strings may hold a family's markers where its format allows them (see _safe)
strings = st.lists(
    st.sampled_from([*'ab "\\\n<>/é🌸&', " ", "</tool_call>", "<arg_key>", "<|tool_call_end|>"])
    | st.just(kimi_k3.ARG_END),
    max_size=8,
).map("".join)
scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(10**12), 10**12)
    | st.floats(allow_nan=False, allow_infinity=False)
    | strings
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=6,
)
keys = st.from_regex(r"[a-z_&\"]{0,6}", fullmatch=True)
arguments = st.dictionaries(keys, json_values, max_size=4)
names = st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True)
calls = st.lists(st.tuples(names, arguments), max_size=3).map(
    lambda found: [{"name": f"{n}_{i}", "args": a} for i, (n, a) in enumerate(found)]
)

_TYPES = {bool: "boolean", int: "integer", float: "number", str: "string", list: "array"}


def tools_for(written: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tools the calls were written for: each value's JSON type as its schema."""
    out = []
    for call in written:
        properties = {
            key: {"type": "null" if value is None else _TYPES.get(type(value), "object")}
            for key, value in call["args"].items()
        }
        parameters = {"type": "object", "properties": properties}
        out.append(
            {"type": "function", "function": {"name": call["name"], "parameters": parameters}}
        )
    return out


def _safe(family: str, written: list[dict[str, Any]]) -> bool:
    """Whether the family's format can carry the calls' raw string values: GLM's end at
    ``</arg_value>`` (and a ``</tool_call>`` in one is the lost-closer rule's), the raw
    keys of GLM and K3 carry no whitespace at their ends (the template's)."""
    if family.startswith("glm"):
        return all(
            glm.CLOSE not in glm.value_text(v) and k == k.strip()
            for call in written
            for k, v in call["args"].items()
        )
    return True


def _no_marker(family: str, text: str) -> bool:
    return not any(m in text for m in (*MARKERS[family], *COMMON))


@pytest.mark.parametrize("family", list(WRITERS))
@given(calls, free_text, st.none() | free_text, st.lists(st.integers(0, 10_000), max_size=12))
def test_written_calls_read_back_under_any_cut(
    family: str,
    written: list[dict[str, Any]],
    text: str,
    reasoning: str | None,
    points: list[int],
) -> None:
    assume(_safe(family, written) and _no_marker(family, text))
    assume(reasoning is None or _no_marker(family, reasoning))
    raw = WRITERS[family](written, text=text, reasoning=reasoning)
    tools = tools_for(written)
    whole = read(family, [raw], tools=tools or None)
    assert [(c["name"], c["args"]) for c in whole.tool_calls] == [
        (c["name"], c["args"]) for c in written
    ]
    assert whole.invalid_tool_calls == []
    assert whole.text == text.strip()
    assert whole.reasoning == (reasoning or "").strip()
    pieces = cut(raw, sorted({p % (len(raw) + 1) for p in points}))
    assert summary(read(family, pieces, tools=tools or None)) == summary(whole)


@pytest.mark.parametrize("family", list(WRITERS))
@given(calls, free_text, st.integers(0, 10_000))
def test_a_text_cut_short_gives_no_call_the_model_did_not_finish(
    family: str, written: list[dict[str, Any]], text: str, at: int
) -> None:
    assume(_safe(family, written) and _no_marker(family, text))
    write = WRITERS[family]
    raw = write(written, text=text)
    prefix = raw[: at % (len(raw) + 1)]
    opener = OPENERS[family]
    opens = [i for i in range(len(raw)) if raw.startswith(opener, i)]
    opened = sum(len(prefix) >= i + len(opener) for i in opens)
    result = read(family, [prefix], tools=tools_for(written) or None)
    finished = len(result.tool_calls)
    assert [(c["name"], c["args"]) for c in result.tool_calls] == [
        (c["name"], c["args"]) for c in written[:finished]
    ]
    assert len(result.invalid_tool_calls) == opened - finished
    for invalid in result.invalid_tool_calls:
        assert "the text ended inside a call" in invalid["error"]
    assert not any(m in result.text for m in MARKERS[family])


@pytest.mark.parametrize("family", list(WRITERS))
@given(st.data())
def test_any_text_reads_the_same_under_every_split(family: str, data: st.DataObject) -> None:
    """Whatever the text (malformed calls, stray markers), every cut gives one result
    and nothing raises."""
    alphabet = [*'ab<>/_|\n {}"=', *MARKERS[family], *COMMON]
    raw = data.draw(st.lists(st.sampled_from(alphabet), max_size=30).map("".join))
    points = data.draw(st.lists(st.integers(0, max(len(raw), 1)), max_size=10))
    assert summary(read(family, cut(raw, sorted(set(points))))) == summary(read(family, [raw]))


# --- the families' rules -------------------------------------------------------------

WEATHER = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            },
        },
    }
]


def test_glm_values_are_typed_by_the_schema_else_by_the_rule() -> None:
    raw = "<tool_call>get_weather<arg_key>city</arg_key><arg_value>42</arg_value><arg_key>days</arg_key><arg_value>3</arg_value></tool_call>"
    typed = read("glm47", [raw], tools=WEATHER)
    assert typed.tool_calls[0]["args"] == {"city": "42", "days": 3}
    untyped = read("glm47", [raw])
    assert untyped.tool_calls[0]["args"] == {"city": 42, "days": 3}


def test_glm_a_lost_closer_only_ends_the_value_at_the_end() -> None:
    lost = "<tool_call>f<arg_key>a</arg_key><arg_value>x</tool_call>\n<tool_call>g</tool_call>"
    result = read("glm47", list(lost))
    assert [(c["name"], c["args"]) for c in result.tool_calls] == [("f", {"a": "x"}), ("g", {})]
    quoted = "<tool_call>f<arg_key>a</arg_key><arg_value>x</tool_call> y</arg_value></tool_call>"
    assert read("glm47", list(quoted)).tool_calls[0]["args"] == {"a": "x</tool_call> y"}


def test_glm_a_string_value_streams_as_it_grows() -> None:
    pieces = [
        "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Pa",
        "ris",
        "</arg_value></tool_call>",
    ]
    previews = [
        dict(update.tool_calls[0]["args"])
        for update in callstream.stream(
            text_source(pieces), provider="text", tool_parser="glm47", tools=WEATHER
        )
        if update.tool_calls
    ]
    assert previews[0] == {"city": "Pa"}
    assert previews[-1] == {"city": "Paris"}


def test_kimi_keeps_the_models_call_id() -> None:
    raw = kimi.write([{"name": "get_weather", "args": {"city": "Paris"}}])
    assert "functions.get_weather:0" in raw
    result = read("kimi_k2", [raw])
    assert result.tool_calls[0]["id"] == "functions.get_weather:0"
    assert result.tool_calls[0]["name"] == "get_weather"


def test_kimi_text_inside_the_section_is_not_text() -> None:
    raw = "Hi <|tool_calls_section_begin|> noise <|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{}<|tool_call_end|> more <|tool_calls_section_end|> bye"
    result = read("kimi_k2", list(raw))
    assert result.text == "Hi  bye"
    assert [c["name"] for c in result.tool_calls] == ["f"]


def test_kimi_k2_calls_end_a_reasoning_left_open() -> None:
    raw = "thinking<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>"
    prefill = "<|im_assistant|>assistant<|im_middle|><think>"
    result = read("kimi_k2", list(raw), prefill=prefill)
    assert (result.reasoning, result.text) == ("thinking", "")
    assert [c["name"] for c in result.tool_calls] == ["f"]


def test_kimi_k3_a_declared_type_types_the_value_without_tools() -> None:
    raw = kimi_k3.write([{"name": "f", "args": {"n": 1.5, "s": "1.5", "b": False, "z": None}}])
    assert read("kimi_k3", [raw]).tool_calls[0]["args"] == {
        "n": 1.5,
        "s": "1.5",
        "b": False,
        "z": None,
    }


def test_kimi_k3_the_prefill_opens_the_reasoning_or_the_response() -> None:
    thinking = '<|open|>message role="assistant"<|sep|><|open|>think<|sep|>'
    result = read(
        "kimi_k3", ["step", "<|close|>think<|sep|>", "<|open|>response<|sep|>ok"], prefill=thinking
    )
    assert (result.reasoning, result.text) == ("step", "ok")
    skipped = read(
        "kimi_k3", ["<|open|>response<|sep|>ok<|close|>response<|sep|>"], prefill=thinking
    )
    assert (skipped.reasoning, skipped.text) == ("", "ok")


@pytest.mark.parametrize(
    ("raw", "family"),
    [
        (
            "<think>r</think>hi<tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value></tool_call>",
            "glm45",
        ),
        ('hi<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call>', "hermes"),
        (
            'hi<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{"a": 1}<|tool_call_end|><|tool_calls_section_end|>',
            "kimi_k2",
        ),
        (
            'r<|close|>think<|sep|><|open|>response<|sep|>hi<|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool="f" index="1"<|sep|><|open|>argument key="a" type="number"<|sep|>1<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>',
            "kimi_k3",
        ),
    ],
)
def test_auto_recognizes_the_family(raw: str, family: str) -> None:
    for pieces in ([raw], list(raw)):
        auto = read("auto", pieces)
        assert summary(auto) == summary(read(family, pieces))
        assert [(c["name"], c["args"]) for c in auto.tool_calls] == [("f", {"a": 1})]
        assert auto.text == "hi"


def test_glm_does_not_claim_another_familys_tool_call() -> None:
    parser = get_tool_parser("glm47")
    assert parser.claims("<tool_call>", '\n{"name"') is False
    assert parser.claims("<tool_call>", "\n<function=f>") is False
    assert parser.claims("<tool_call>", "\n") is None
    assert parser.claims("<tool_call>", "get_weather\n") is True


@pytest.mark.parametrize(
    ("family", "raw"),
    [
        ("glm47", "<tool_call>{name}<arg_key>a</arg_key><arg_value>1</arg_value></tool_call>ok"),
        ("glm47", "<tool_call>f<arg_key>{name}</arg_key><arg_value>1</arg_value></tool_call>ok"),
        (
            "kimi_k2",
            "<|tool_call_begin|>functions.{name}:0<|tool_call_argument_begin|>{{}}<|tool_call_end|>ok",
        ),
        ("kimi_k3", '<|open|>call tool="{name}"<|sep|><|close|>call<|sep|>ok'),
    ],
)
def test_a_name_past_the_limit_is_an_invalid_call(family: str, raw: str) -> None:
    result = read(family, list(raw.format(name="x" * 5000)))
    assert result.tool_calls == []
    [invalid] = result.invalid_tool_calls
    assert "exceeds 4096 characters" in invalid["error"]
    assert result.text == "ok"
