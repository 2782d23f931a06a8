"""Properties of the mistral, llama3_json / llama4_json and pythonic / llama4_pythonic
parsers over text written by their own writers: random calls, cut anywhere, read back the
same; a text cut short gives no call the model did not finish; any text reads the same
under every split and nothing raises."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import callstream
from callstream.tool_parsers import get_tool_parser, llama, mistral, pythonic
from tests.support.conformance import cut, text_source

Writer = Callable[..., str]

FAMILIES: dict[str, tuple[str, Writer, bool]] = {
    # id: (tool parser, writer, whether text may come before the calls)
    "mistral-v3": ("mistral", lambda c, **k: mistral.write(c, version=3, **k), True),
    "mistral-v11": ("mistral", lambda c, **k: mistral.write(c, version=11, **k), True),
    "mistral-v13": ("mistral", mistral.write, True),
    "llama3_json": ("llama3_json", llama.write, True),
    "llama4_json": ("llama4_json", llama.write, True),
    "pythonic": ("pythonic", pythonic.write, False),
    "llama4_pythonic": ("llama4_pythonic", pythonic.write, True),
}
MARKERS = (
    "[TOOL_CALLS]",
    "[ARGS]",
    "[CALL_ID]",
    "[THINK]",
    "[/THINK]",
    "<think>",
    "</think>",
    "</s>",
    "[INST]",
    "[/INST]",
    "<|python_tag|>",
    "<|python_start|>",
    "<|python_end|>",
    *llama.LLAMA3_TOKENS,
    *llama.LLAMA4_TOKENS,
)

_ALPHABET = st.sampled_from(list("ab <>[]|_/TOL\n\\\"'é🌸") + ["[TOOL_", "<|python", "[/THI"])
free_text = st.lists(_ALPHABET, max_size=12).map("".join)
names = st.from_regex(r"[a-z_][a-z0-9_]{0,10}", fullmatch=True)
scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(10**12), 10**12)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.lists(st.sampled_from([*"ab \"'\\\n<>/é🌸", "[TOOL_CALLS]", "<|python_tag|>", "]"])).map(
        "".join
    )
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)
# identifiers, so the pythonic writer can write them as keyword arguments
arguments = st.dictionaries(names, json_values, max_size=4)
calls = st.lists(st.builds(lambda n, a: {"name": n, "args": a}, names, arguments), max_size=3)


def _plain(text: str) -> bool:
    """Text a writer can put before calls: no marker, and not starting like a call."""
    body = text.strip()
    return not any(m in text for m in MARKERS) and not body.startswith(("{", "["))


def read(pieces: Sequence[str], name: str) -> callstream.StreamResult:
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


@pytest.mark.parametrize("family", list(FAMILIES))
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
    name, write, text_first = FAMILIES[family]
    assume(_plain(text) and (reasoning is None or _plain(reasoning)))
    if written and not text_first:
        text, reasoning = "", None
    raw = write(written, text=text, reasoning=reasoning)
    whole = read([raw], name)
    assert [(c["name"], c["args"]) for c in whole.tool_calls] == [
        (c["name"], c["args"]) for c in written
    ]
    assert whole.invalid_tool_calls == []
    assert whole.text == text.strip()
    assert whole.reasoning == (reasoning or "").strip()
    pieces = cut(raw, sorted({p % (len(raw) + 1) for p in points}))
    assert summary(read(pieces, name)) == summary(whole)


@pytest.mark.parametrize("family", list(FAMILIES))
@given(written=calls, at=st.integers(0, 10_000))
def test_a_text_cut_short_gives_no_call_the_model_did_not_finish(
    family: str, written: list[dict[str, Any]], at: int
) -> None:
    name, write, _ = FAMILIES[family]
    raw = write(written)
    prefix = raw[: at % (len(raw) + 1)]
    result = read([prefix], name)
    got = [(c["name"], c["args"]) for c in result.tool_calls]
    want = [(c["name"], c["args"]) for c in written]
    assert got == want[: len(got)]  # only calls the model finished, in order
    if prefix != raw and family in ("pythonic", "llama4_pythonic"):
        assert got == []  # a list cut before its "]" is no call
    assert not any(m in result.text for m in MARKERS if m not in prefix[:0])


@pytest.mark.parametrize("name", ["mistral", "llama3_json", "llama4_json", "pythonic"])
@given(
    raw=st.lists(st.sampled_from([*"ab{}[]()=,;:'\"\n ", *MARKERS, '"name"']), max_size=30).map(
        "".join
    ),
    data=st.data(),
)
def test_any_text_reads_the_same_under_every_split(
    name: str, raw: str, data: st.DataObject
) -> None:
    parser = get_tool_parser(name)
    parser.feed(raw)
    parser.close()
    points = data.draw(st.lists(st.integers(0, max(len(raw), 1)), max_size=10))
    pieces = cut(raw, sorted(set(points)))
    assert summary(read(pieces, name)) == summary(read([raw], name))
