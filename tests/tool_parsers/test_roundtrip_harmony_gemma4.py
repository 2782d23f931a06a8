"""Properties of the openai (gpt-oss harmony) and gemma4 parsers over text written by
their own writers: random calls, written as the model writes them, cut anywhere, read
back the same; a text cut short never gives a call the model did not finish; any text
(stray and partial markers) reads the same under every split, and no marker reaches the
text, the reasoning or the arguments."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import callstream
from callstream.tool_parsers import gemma4, harmony
from tests.support.conformance import cut, text_source

HARMONY_MARKERS = (
    "<|start|>",
    "<|channel|>",
    "<|constrain|>",
    "<|message|>",
    "<|end|>",
    "<|call|>",
    "<|return|>",
)
GEMMA_MARKERS = (
    gemma4.OPEN,
    gemma4.CLOSE,
    gemma4.QUOTE,
    "<|channel>",
    gemma4.THOUGHT_CLOSE,
    *gemma4.Gemma4Parser.dropped,
)
FAMILIES: dict[str, tuple[Callable[..., str], tuple[str, ...]]] = {
    "openai": (harmony.write, HARMONY_MARKERS),
    "gemma4": (gemma4.write, GEMMA_MARKERS),
}
"""tool parser -> (its writer, its markers)"""

_ALPHABET = st.sampled_from(
    [*'ab <>/|_tolc\n\\"{}:,[]é🌸', "<|en", "<|sta", "<|chan", "<tool_", "<|tool", '<|"']
)
free_text = st.lists(_ALPHABET, max_size=12).map("".join)

names = st.from_regex(r"[a-z_][a-z0-9_]{0,10}", fullmatch=True)
# keys Gemma 4 can write bare (no ':', ',', brackets or '<', no space at the ends)
keys = st.from_regex(r"[A-Za-z_é]([A-Za-z0-9_ é]{0,4}[A-Za-z0-9_é])?", fullmatch=True)
strings = st.lists(
    st.sampled_from([*'ab "\\\n<>/{}:,é🌸', "<tool_call|>", "<|tool_call>", "<|end|>", '<|"'])
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
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3),
    max_leaves=8,
)
arguments = st.dictionaries(keys, json_values, max_size=4)
calls = st.lists(st.builds(lambda n, a: {"name": n, "args": a}, names, arguments), max_size=3)
families = st.sampled_from(sorted(FAMILIES))


def _no_marker(family: str, text: str | None) -> bool:
    return text is None or not any(m in text for m in FAMILIES[family][1])


def read(family: str, pieces: Sequence[str]) -> callstream.StreamResult:
    return callstream.collect(
        text_source(pieces), provider="text", tool_parser=family, reasoning=True
    )


def summary(result: callstream.StreamResult) -> tuple[Any, ...]:
    return (
        [(c["name"], c["args"]) for c in result.tool_calls],
        [(c["name"], c["error"]) for c in result.invalid_tool_calls],
        result.text,
        result.reasoning,
    )


@given(
    families,
    calls,
    free_text,
    st.none() | free_text,
    st.lists(st.integers(0, 10_000), max_size=12),
)
def test_written_calls_read_back_under_any_cut(
    family: str,
    written: list[dict[str, Any]],
    text: str,
    reasoning: str | None,
    points: list[int],
) -> None:
    assume(_no_marker(family, text) and _no_marker(family, reasoning))
    raw = FAMILIES[family][0](written, text=text, reasoning=reasoning)
    whole = read(family, [raw])
    assert [(c["name"], c["args"]) for c in whole.tool_calls] == [
        (c["name"], c["args"]) for c in written
    ]
    assert whole.invalid_tool_calls == []
    assert whole.text == text.strip()
    assert whole.reasoning == (reasoning or "").strip()
    pieces = cut(raw, sorted({p % (len(raw) + 1) for p in points}))
    assert summary(read(family, pieces)) == summary(whole)


def _call_bounds(family: str, raw: str, written: list[dict[str, Any]]) -> list[tuple[int, int]]:
    """Where each call's text opens (after its opener) and where it is finished."""
    writer = FAMILIES[family][0]
    opener = "<|message|>" if family == "openai" else gemma4.OPEN
    bounds = []
    for k in range(len(written)):
        start = len(writer(written[:k])) if k else 0
        finished = len(writer(written[: k + 1]))
        opened = raw.index(opener, start) + len(opener)
        bounds.append((opened, finished))
    return bounds


@given(families, calls, st.integers(0, 10_000))
def test_a_text_cut_short_gives_no_call_the_model_did_not_finish(
    family: str, written: list[dict[str, Any]], at: int
) -> None:
    raw = FAMILIES[family][0](written)
    prefix = raw[: at % (len(raw) + 1)]
    bounds = _call_bounds(family, raw, written)
    finished = sum(end <= len(prefix) for _, end in bounds)
    opened = sum(start <= len(prefix) for start, _ in bounds)
    result = read(family, [prefix])
    got = [(c["name"], c["args"]) for c in result.tool_calls]
    assert got == [(c["name"], c["args"]) for c in written[:finished]]
    assert len(result.invalid_tool_calls) == opened - finished  # the one cut, if any
    for invalid in result.invalid_tool_calls:
        assert "the text ended inside a call" in (invalid["error"] or "")
    assert not any(m in (result.text or "") for m in FAMILIES[family][1])


@pytest.mark.parametrize("family", sorted(FAMILIES))
@given(data=st.data())
def test_any_text_reads_the_same_under_every_split(family: str, data: st.DataObject) -> None:
    """Whatever the text (malformed calls, stray markers), every cut gives one result and
    nothing raises."""
    tokens = [*'ab<>/_|\n {}:,"', "call:f", " to=functions.f", "analysis", "final"]
    tokens += [*FAMILIES[family][1], "<|channel>thought"]
    raw = data.draw(st.lists(st.sampled_from(tokens), max_size=30).map("".join))
    points = data.draw(st.lists(st.integers(0, max(len(raw), 1)), max_size=10))
    pieces = cut(raw, sorted(set(points)))
    assert summary(read(family, pieces)) == summary(read(family, [raw]))
