"""Properties of the hermes parser over text written by its own writer: random calls,
written as a Hermes / Qwen3 model writes them (``hermes.write``), cut anywhere, read back
the same; the same result under every split; a text cut short never gives a call the
model did not finish."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hypothesis import assume, given
from hypothesis import strategies as st

import callstream
from callstream.tool_parsers import get_tool_parser
from callstream.tool_parsers.hermes import HermesParser, write
from tests.support.conformance import cut, text_source

MARKERS = ("<tool_call>", "</tool_call>", "<think>", "</think>", *HermesParser.dropped)
REASONING_MARKERS = ("<think>", "</think>", *HermesParser.dropped)

# text that looks like markers without being one: held back, then released as text
_ALPHABET = st.sampled_from(list('ab <>/|_tolc\n\\"{}é🌸') + ["<tool_", "</think", "<|im_"])
free_text = st.lists(_ALPHABET, max_size=12).map("".join)

names = st.from_regex(r"[a-z_][a-z0-9_]{0,10}", fullmatch=True)
scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(10**12), 10**12)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.lists(st.sampled_from([*'ab "\\\n<>/é🌸', "</tool_call>", "<tool_call>"])).map("".join)
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)
arguments = st.dictionaries(st.text(max_size=6), json_values, max_size=4)
calls = st.lists(st.builds(lambda n, a: {"name": n, "args": a}, names, arguments), max_size=3)


def _no_marker(text: str) -> bool:
    return not any(m in text for m in MARKERS)


def read(pieces: Sequence[str], name: str = "hermes") -> callstream.StreamResult:
    return callstream.collect(
        text_source(pieces), provider="text", tool_parser=name, reasoning=True
    )


def summary(result: callstream.StreamResult) -> tuple[Any, ...]:
    return (
        [(c["name"], c["args"]) for c in result.tool_calls],
        [(c["name"], c["error"]) for c in result.invalid_tool_calls],
        result.text,
        result.reasoning,
    )


@given(calls, free_text, st.none() | free_text, st.lists(st.integers(0, 10_000), max_size=12))
def test_written_calls_read_back_under_any_cut(
    written: list[dict[str, Any]], text: str, reasoning: str | None, points: list[int]
) -> None:
    assume(_no_marker(text) and (reasoning is None or _no_marker(reasoning)))
    raw = write(written, text=text, reasoning=reasoning)
    whole = read([raw])
    assert [(c["name"], c["args"]) for c in whole.tool_calls] == [
        (c["name"], c["args"]) for c in written
    ]
    assert whole.invalid_tool_calls == []
    assert whole.text == text.strip()
    assert whole.reasoning == (reasoning or "").strip()
    pieces = cut(raw, sorted({p % (len(raw) + 1) for p in points}))
    assert summary(read(pieces)) == summary(whole)


@given(calls, free_text, st.integers(0, 10_000))
def test_a_text_cut_short_gives_no_call_the_model_did_not_finish(
    written: list[dict[str, Any]], text: str, at: int
) -> None:
    assume(_no_marker(text))
    raw = write(written, text=text)
    prefix = raw[: at % (len(raw) + 1)]
    # where each call's block starts and ends in the text (the writer only appends)
    ends = [len(write(written[: k + 1], text=text)) for k in range(len(written))]
    starts = [len(write(written[:k], text=text)) for k in range(len(written))]
    finished = sum(end <= len(prefix) for end in ends)
    opened = sum(
        len(prefix) >= raw.index("<tool_call>", start) + len("<tool_call>") for start in starts
    )
    result = read([prefix])
    got = [(c["name"], c["args"]) for c in result.tool_calls]
    assert got == [(c["name"], c["args"]) for c in written[:finished]]
    assert len(result.invalid_tool_calls) == opened - finished  # the one cut, if any
    for invalid in result.invalid_tool_calls:
        assert "the text ended inside a call" in invalid["error"]
    assert not any(m in result.text for m in MARKERS)


@given(st.lists(st.sampled_from([*'ab<>/_|\n {}"', *MARKERS]), max_size=30).map("".join), st.data())
def test_any_text_reads_the_same_under_every_split(raw: str, data: st.DataObject) -> None:
    """Whatever the text (malformed calls, stray markers), every cut gives one result,
    ``auto`` gives it too, markers never reach the text or the reasoning, and nothing
    raises."""
    parser = get_tool_parser("hermes")
    whole = parser.feed(raw) + parser.close()
    points = data.draw(st.lists(st.integers(0, max(len(raw), 1)), max_size=10))
    pieces = cut(raw, sorted(set(points)))
    assert summary(read(pieces)) == summary(read([raw]))
    # auto reads as the family it recognizes (another family of <tool_call>, GLM, takes a
    # body that is not a JSON object)
    auto = get_tool_parser("auto")
    for piece in pieces:
        auto.feed(piece)
    auto.close()
    family = getattr(auto, "family", None) or "hermes"
    by_auto, by_family = summary(read(pieces, "auto")), summary(read(pieces, family))
    if family == "hermes":
        assert by_auto == by_family
    else:  # before it knows the family, auto drops every template's own tokens
        assert by_auto[0] == by_family[0] and len(by_auto[1]) == len(by_family[1])
    for signal in whole:
        if isinstance(signal, callstream.TextDelta):
            # a call drafted inside reasoning stays reasoning, markers and all
            markers = REASONING_MARKERS if signal.reasoning else MARKERS
            assert not any(m in signal.text for m in markers)
