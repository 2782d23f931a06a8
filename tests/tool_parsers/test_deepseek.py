"""The DeepSeek families (V3 / R1, V3.1, and the DSML versions V3.2, V4, V4.1): random
calls written by each family's writer, cut anywhere, read back the same; a text cut short
gives no call the model did not finish; any text reads the same under every split; and
the rules the fixtures do not show (text in a section, a lost end marker, values typed
by ``string=`` and the schema, ``auto``, aliases, prefills)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import callstream
from callstream.tool_parsers import deepseek as v3
from callstream.tool_parsers import deepseek_dsml as dsml
from callstream.tool_parsers import get_tool_parser, resolve_tool_parser
from tests.support.conformance import cut, text_source

Writer = Callable[..., str]

WRITERS: dict[str, Writer] = {
    "deepseek_v3": v3.write_v3,
    "deepseek_v31": v3.write_v31,
    "deepseek_v32": dsml.write_v32,
    "deepseek_v4": dsml.write_v4,
    "deepseek_v41": dsml.write_v41,
}
JSON_FAMILIES = ("deepseek_v3", "deepseek_v31")

V3_MARKERS = (v3.CALLS_BEGIN, v3.CALLS_END, v3.CALL_BEGIN, v3.CALL_END, v3.SEP)
DSML_MARKERS = (
    dsml.SECTION_OPEN
    + dsml.SECTION_CLOSE
    + dsml.INVOKE_OPEN
    + dsml.INVOKE_CLOSE
    + dsml.PARAM_OPEN
    + dsml.PARAM_CLOSE
)
COMMON = ("<think>", "</think>", *v3.TEMPLATE_TOKENS)
MARKERS = V3_MARKERS + DSML_MARKERS + COMMON

# pieces of markers: held back, then released as text
_PIECES = [
    "<｜tool▁",
    "<｜tool▁call",
    "</｜DSML｜",
    "<｜DSML｜ ",
    "<｜",
    "｜",
    "▁",
    "</think",
    "<｜Assi",
]
_ALPHABET = st.sampled_from([*'ab <>/_\n\\"{}`é🌸', *_PIECES])
free_text = st.lists(_ALPHABET, max_size=12).map("".join)

names = st.from_regex(r"[a-z_][a-z0-9_]{0,10}", fullmatch=True)
keys = st.from_regex(r"[a-z_][a-z0-9_]{0,6}", fullmatch=True)
# strings may hold whole markers: a JSON string or a DSML value is only ended by its own end
_STRING_PARTS = [*'ab "\\\n\t<>/`é🌸 ', *_PIECES, v3.CALL_END, v3.SEP, dsml.INVOKE_OPEN[1]]
strings = st.lists(st.sampled_from(_STRING_PARTS), max_size=8).map("".join)
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
    max_leaves=8,
)
arguments = st.dictionaries(keys, json_values, max_size=4)
calls = st.lists(st.builds(lambda n, a: {"name": n, "args": a}, names, arguments), max_size=3)


def _no_marker(text: str) -> bool:
    return not any(m in text for m in MARKERS)


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


def _pairs(written: Sequence[Mapping[str, Any]]) -> list[tuple[str, Any]]:
    return [(c["name"], c["args"]) for c in written]


families = pytest.mark.parametrize("family", list(WRITERS))


@families
@given(
    written=calls,
    text=free_text,
    reasoning=st.none() | free_text,
    points=st.lists(st.integers(0, 10_000), max_size=12),
)
def test_written_calls_read_back_under_any_cut(
    family: str,
    written: list[dict[str, Any]],
    text: str,
    reasoning: str | None,
    points: list[int],
) -> None:
    assume(_no_marker(text) and (reasoning is None or _no_marker(reasoning)))
    raw = WRITERS[family](written, text=text, reasoning=reasoning)
    whole = read([raw], family)
    assert _pairs(whole.tool_calls) == _pairs(written)
    assert whole.invalid_tool_calls == []
    assert whole.text == text.strip()
    assert whole.reasoning == (reasoning or "").strip()
    pieces = cut(raw, sorted({p % (len(raw) + 1) for p in points}))
    assert summary(read(pieces, family)) == summary(whole)
    assert summary(read(pieces, "auto")) == summary(whole)


def _opener_and_end(family: str) -> tuple[str, str]:
    if family in JSON_FAMILIES:
        return v3.CALL_BEGIN, v3.CALL_END
    token = "｜DSML｜ " if family == "deepseek_v41" else "｜DSML｜"
    return f"<{token}invoke", f"</{token}invoke>"


@families
@given(written=calls, text=free_text, at=st.integers(0, 10_000))
def test_a_text_cut_short_gives_no_call_the_model_did_not_finish(
    family: str, written: list[dict[str, Any]], text: str, at: int
) -> None:
    raw = WRITERS[family](written, text=text)
    assume(_no_marker(text))
    opener, end = _opener_and_end(family)
    # no marker inside the values, so the markers can be counted
    assume(raw.count(opener) == len(written) and raw.count(end) == len(written))
    prefix = raw[: at % (len(raw) + 1)]
    finished = prefix.count(end)
    opened = prefix.count(opener)
    result = read([prefix], family)
    assert _pairs(result.tool_calls) == _pairs(written[:finished])
    assert len(result.invalid_tool_calls) == opened - finished  # the one cut, if any
    for invalid in result.invalid_tool_calls:
        assert "the text ended inside a call" in invalid["error"]
    assert not any(m in result.text for m in MARKERS)


@families
@given(
    raw=st.lists(
        st.sampled_from([*'ab<>/_|\n {}"`', *MARKERS, '="x"', "function"]), max_size=30
    ).map("".join),
    data=st.data(),
)
def test_any_text_reads_the_same_under_every_split(
    family: str, raw: str, data: st.DataObject
) -> None:
    """Whatever the text (malformed calls, stray markers), every cut gives one result,
    markers never reach the text, and nothing raises."""
    parser = get_tool_parser(family)
    signals = parser.feed(raw) + parser.close()
    points = data.draw(st.lists(st.integers(0, max(len(raw), 1)), max_size=10))
    pieces = cut(raw, sorted(set(points)))
    assert summary(read(pieces, family)) == summary(read([raw], family))
    own = (V3_MARKERS if family in JSON_FAMILIES else DSML_MARKERS) + COMMON
    for signal in signals:
        if isinstance(signal, callstream.TextDelta) and not signal.reasoning:
            assert not any(m in signal.text for m in own)


# --- the rules, one by one ------------------------------------------------------------------

SECTION = "<｜tool▁calls▁begin｜>{}<｜tool▁calls▁end｜>"
V3_CALL = "<｜tool▁call▁begin｜>function<｜tool▁sep｜>{}\n```json\n{}\n```<｜tool▁call▁end｜>"
V31_CALL = "<｜tool▁call▁begin｜>{}<｜tool▁sep｜>{}<｜tool▁call▁end｜>"


def _v3(name: str, args: str) -> str:
    return V3_CALL.format(name, args)


def _v31(name: str, args: str) -> str:
    return V31_CALL.format(name, args)


def test_names_and_aliases() -> None:
    for name in WRITERS:
        assert resolve_tool_parser(name) == name
    assert resolve_tool_parser("deepseekv3") == "deepseek_v3"
    assert resolve_tool_parser("deepseekv31") == "deepseek_v31"
    assert resolve_tool_parser("deepseekv32") == "deepseek_v32"
    assert resolve_tool_parser("deepseekv4") == "deepseek_v4"
    assert resolve_tool_parser("DeepSeek-R1") == "deepseek_v3"


@pytest.mark.parametrize("name", JSON_FAMILIES)
def test_both_json_shapes_read_by_both_parsers(name: str) -> None:
    raw = SECTION.format(_v3("f", '{"a": 1}') + "\n" + _v31("g", '{"b": [2]}'))
    result = read([raw], name)
    assert _pairs(result.tool_calls) == [("f", {"a": 1}), ("g", {"b": [2]})]


def test_text_in_a_section_is_an_invalid_call_and_the_calls_around_it_stay() -> None:
    raw = SECTION.format("junk" + _v3("f", "{}")) + "after"
    result = read([raw], "deepseek_v3")
    assert _pairs(result.tool_calls) == [("f", {})]
    [invalid] = result.invalid_tool_calls
    assert "no call" in invalid["error"] and "junk" in invalid["error"]
    assert result.text == "after"


def test_a_lost_end_marker_fails_that_call_only() -> None:
    raw = SECTION.format(_v31("f", '{"a": 1}').replace(v3.CALL_END, "") + _v31("g", "{}"))
    result = read([raw], "deepseek_v31")
    assert _pairs(result.tool_calls) == [("g", {})]
    [invalid] = result.invalid_tool_calls
    assert invalid["name"] == "f" and "end marker is missing" in invalid["error"]


def test_malformed_json_arguments_are_an_invalid_call() -> None:
    raw = SECTION.format(_v3("f", '{"a": 1'))
    result = read([raw], "deepseek_v3")
    assert result.tool_calls == []
    assert len(result.invalid_tool_calls) == 1


def test_a_call_opener_without_a_section_is_a_call() -> None:
    result = read(["Sure. " + _v31("f", '{"a": "x"}') + " done"], "deepseek_v31")
    assert _pairs(result.tool_calls) == [("f", {"a": "x"})]
    assert result.text == "Sure.  done"


def test_a_tool_not_offered() -> None:
    tools = [{"type": "function", "function": {"name": "g", "parameters": {}}}]
    result = read([SECTION.format(_v3("f", "{}") + _v3("g", "{}"))], "deepseek_v3", tools=tools)
    assert _pairs(result.tool_calls) == [("g", {})]
    assert "not one of the tools offered" in result.invalid_tool_calls[0]["error"]


DSML_CALL = (
    '<｜DSML｜tool_calls>\n<｜DSML｜invoke name="f">\n'
    '<｜DSML｜parameter name="n" string="true">42</｜DSML｜parameter>\n'
    '<｜DSML｜parameter name="m" string="false">abc</｜DSML｜parameter>\n'
    '<｜DSML｜parameter name="k">[1]</｜DSML｜parameter>\n'
    '<｜DSML｜parameter name="s" string="false">"quoted"</｜DSML｜parameter>\n'
    "</｜DSML｜invoke>\n</｜DSML｜tool_calls>"
)


def test_dsml_values_without_tools_follow_the_string_attribute() -> None:
    [call] = read([DSML_CALL], "deepseek_v4").tool_calls
    assert call["args"] == {"n": "42", "m": "abc", "k": [1], "s": "quoted"}


def test_dsml_values_the_schema_types_when_the_model_word_does_not_fit() -> None:
    schema = {
        "type": "object",
        "properties": {"n": {"type": "integer"}, "m": {"type": "string"}, "k": {"type": "array"}},
    }
    tools = [{"type": "function", "function": {"name": "f", "parameters": schema}}]
    [call] = read([DSML_CALL], "deepseek_v4", tools=tools).tool_calls
    assert call["args"] == {"n": 42, "m": "abc", "k": [1], "s": "quoted"}


def test_a_dsml_string_streams_as_it_grows() -> None:
    parser = get_tool_parser("deepseek_v32")
    head = '<｜DSML｜function_calls>\n<｜DSML｜invoke name="f">\n<｜DSML｜parameter name="t" string="true">'
    fragments = []
    for piece in (head, "Hel", "lo <｜DSML｜invoke", " wor", "ld</｜DSML｜param"):
        fragments += [s.args for s in parser.feed(piece) if getattr(s, "args", None)]
    assert "".join(fragments) == '{"t": "Hello <｜DSML｜invoke world'


@pytest.mark.parametrize("family", ["deepseek_v32", "deepseek_v4", "deepseek_v41"])
def test_every_dsml_spelling_is_read_by_every_dsml_parser(family: str) -> None:
    for writer in (dsml.write_v32, dsml.write_v4, dsml.write_v41):
        raw = writer([{"name": "f", "args": {"a": 1, "b": "x"}}], text="Hi")
        result = read([raw], family)
        assert _pairs(result.tool_calls) == [("f", {"a": 1, "b": "x"})]
        assert result.text == "Hi"


def test_a_broken_invoke_fails_and_the_next_is_read() -> None:
    raw = (
        'x<｜DSML｜tool_calls>\n<｜DSML｜invoke name="f">\nhello\n</｜DSML｜invoke>\n'
        '<｜DSML｜invoke name="g">\n\n</｜DSML｜invoke>\n</｜DSML｜tool_calls>'
    )
    result = read([raw], "deepseek_v4")
    assert _pairs(result.tool_calls) == [("g", {})]
    assert "no parameter" in result.invalid_tool_calls[0]["error"]
    assert result.text == "x"


@pytest.mark.parametrize(
    ("prefill", "text", "reasoning"),
    [
        ("<｜Assistant｜><think>", "ok", "Plan"),
        ("<｜Assistant｜><think>\n", "ok", "Plan"),
        ("<｜Assistant｜></think>", "Planok", ""),
    ],
)
def test_prefills(prefill: str, text: str, reasoning: str) -> None:
    result = read(["Plan</think>ok<｜end▁of▁sentence｜>"], "deepseek_v4", prefill=prefill)
    assert (result.text, result.reasoning) == (text, reasoning)


@pytest.mark.parametrize(
    ("raw", "family"),
    [
        (SECTION.format(_v3("f", "{}")), "deepseek_v3"),
        (SECTION.format(_v31("f", "{}")), "deepseek_v31"),
        (dsml.write_v32([{"name": "f", "args": {}}]), "deepseek_v32"),
        (dsml.write_v4([{"name": "f", "args": {}}]), "deepseek_v4"),
        (dsml.write_v41([{"name": "f", "args": {}}]), "deepseek_v41"),
    ],
)
def test_auto_recognizes_each(raw: str, family: str) -> None:
    parser = get_tool_parser("auto")
    for char in raw:
        parser.feed(char)
    parser.close()
    assert parser.family == family  # type: ignore[attr-defined]
