"""``callstream.testing.stream_of``: reading a written stream gives back its calls, or the
documented outcome of its quirk, for every format x quirk x split (and every encoding)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import callstream
from callstream._json.dump import same_json
from callstream.providers._eventstream import EventStreamDecoder
from callstream.testing import FORMATS, QUIRKS, SPLITS, StreamDropped, WireStream, stream_of
from callstream.testing._stream import split_text
from callstream.testing._wire import WIRE_FORMATS
from callstream.testing.strategies import json_scalars, json_text, splits, tool_calls
from tests.support.strategies import has_inner_empty
from tests.support.strict_json import deep_room, strict_loads

EXAMPLES = int(os.environ.get("CALLSTREAM_TESTING_EXAMPLES", "8"))
# Vertex cannot express an empty container inside the arguments: those examples are
# assumed away, which on a loaded machine can trip hypothesis' filter health check.
SUPPRESSED = [HealthCheck.too_slow, HealthCheck.filter_too_much]
WHOLE = {"gemini", "vertex", "mistral", "ollama"}  # formats that send a call's arguments whole
WIRE = list(WIRE_FORMATS)

_values = st.recursive(
    json_scalars(6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(json_text(6), inner, max_size=3),
    max_leaves=8,
)
# small calls (three names, short strings, few small containers) of callstream.testing's
# strategies: the properties run for every format x quirk x split
_calls = tool_calls(
    names=["get_weather", "search", "write_file"],
    args=st.dictionaries(json_text(6), _values, max_size=4),
)


def _cases() -> list[Any]:
    out = []
    for fmt in FORMATS:
        quirks = [None, *(q for q, info in QUIRKS.items() if fmt in info.formats)]
        for quirk in quirks:
            for split in SPLITS:
                out.append(pytest.param(fmt, quirk, split, id=f"{fmt}-{quirk or 'plain'}-{split}"))
    return out


def _seen(calls: list[dict[str, Any]], fmt: str) -> list[tuple[Any, ...]]:
    return [(c["name"], c["args"], c["id"]) for c in calls]


def _got(result: Any) -> list[tuple[Any, ...]]:
    return [(c["name"], c["args"], c["id"]) for c in result.tool_calls]


def snapshot_broken(
    calls: list[dict[str, Any]], fmt: str, quirks: tuple[str, ...], split: str, seed: int
) -> frozenset[str]:
    """The ids of the calls ``cumulative-arguments`` makes invalid in ``fmt``: on Chat,
    every call whose text ``stream_of`` cuts in more than one piece (the snapshots are
    appended), found by cutting the texts as it does, with the same seed."""
    if "cumulative-arguments" not in quirks or fmt != "openai-chat":
        return frozenset()
    rng = random.Random(seed)
    texts = [json.dumps(c["args"], ensure_ascii=False) for c in calls]
    return frozenset(
        c["id"] for c, t in zip(calls, texts, strict=True) if len(split_text(t, split, rng)) > 1
    )


def check_outcome(
    stream: WireStream,
    calls: list[dict[str, Any]],
    fmt: str,
    quirk: str | None,
    text: str | None = None,
    broken: frozenset[str] = frozenset(),
) -> None:
    """``collect(stream)`` is what QUIRKS documents for ``quirk`` (``broken``: the ids of
    the calls ``cumulative-arguments`` makes invalid besides, see
    :func:`snapshot_broken`)."""
    invalid: list[str]  # the names of the calls the quirk makes invalid
    if quirk == "dropped-connection":
        with pytest.raises(StreamDropped) as caught:
            callstream.collect(stream)
        result = caught.value.callstream_result  # type: ignore[attr-defined]
        assert result.interrupted
        valid, invalid = calls[:-1], ([] if fmt in WHOLE else [calls[-1]["name"]])
    else:
        # an error line alone (one call, sent whole, never sent) names no format
        alone = quirk == "provider-error" and fmt in WHOLE
        provider = {"vertex": "gemini"}.get(fmt, fmt) if alone else "auto"
        result = callstream.collect(stream, reasoning=True, provider=provider)
        if text:
            assert result.text == text
        valid, invalid = calls, []
    if quirk == "token-limit":
        valid, invalid = calls[:-1], [calls[-1]["name"]]
        assert result.finish_reason == "length"
    elif quirk == "provider-error":
        assert result.finish_reason == "error" and result.provider_error
        if fmt == "openai-chat":  # Groq: the failed generation, no call streamed
            valid, invalid, broken = [], [calls[-1]["name"]], frozenset()
        else:  # the last call cut by the error, or (calls sent whole) never sent
            valid, invalid = calls[:-1], ([] if fmt in WHOLE else [calls[-1]["name"]])
    elif quirk == "stop-after-calls":
        assert result.finish_reason == "stop"
    invalid += [c["name"] for c in valid if c["id"] in broken]
    valid = [c for c in valid if c["id"] not in broken]
    assert _got(result) == _seen(valid, fmt)
    # calls made invalid mid-stream (snapshots) are listed as they fail: compare as sets
    assert sorted(c["name"] for c in result.invalid_tool_calls) == sorted(invalid)


@pytest.mark.parametrize(("fmt", "quirk", "split"), _cases())
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=SUPPRESSED)
@given(calls=_calls, seed=st.integers(0, 2**32), text=st.none() | json_text(6))
def test_collect_gives_back_the_calls_or_the_quirks_outcome(
    fmt: str,
    quirk: str | None,
    split: Any,
    calls: list[dict[str, Any]],
    seed: int,
    text: str | None,
) -> None:
    if fmt == "vertex":
        assume(not any(has_inner_empty(c["args"]) for c in calls))
    quirks: Any = () if quirk is None else (quirk,)
    stream = stream_of(calls, format=fmt, split=split, quirks=quirks, seed=seed, text=text)
    check_outcome(stream, calls, fmt, quirk, text, snapshot_broken(calls, fmt, quirks, split, seed))


def _wire_cases() -> list[Any]:
    return [
        pytest.param(fmt, quirk, as_, id=f"{fmt}-{quirk or 'plain'}-{as_}")
        for fmt in WIRE
        for quirk in [None, *(q for q, info in QUIRKS.items() if fmt in info.formats)]
        for as_ in ("bytes", "lines")
    ]


@pytest.mark.parametrize(("fmt", "quirk", "as_"), _wire_cases())
@settings(max_examples=max(2, EXAMPLES // 2), deadline=None, suppress_health_check=SUPPRESSED)
@given(calls=_calls, seed=st.integers(0, 2**32))
def test_bytes_and_lines_read_as_the_payloads(
    fmt: str, quirk: str | None, as_: Any, calls: list[dict[str, Any]], seed: int
) -> None:
    if fmt == "vertex":
        assume(not any(has_inner_empty(c["args"]) for c in calls))
    quirks: Any = () if quirk is None else (quirk,)
    stream = stream_of(calls, format=fmt, split="random", quirks=quirks, seed=seed, as_=as_)
    assert all(isinstance(item, bytes if as_ == "bytes" else str) for item in stream.items)
    broken = snapshot_broken(calls, fmt, quirks, "random", seed)
    check_outcome(stream, calls, fmt, quirk, broken=broken)


# --- examples and misuse ----------------------------------------------------------------------

CALLS = [
    {"name": "get_weather", "args": {"city": "Paris", "days": [1, 2]}, "id": "call_a"},
    {"name": "search", "args": {"q": "x y"}, "id": "call_b"},
]


def test_splits_cut_the_text_and_join_back() -> None:
    import random

    text = '{"city": "São Paulo", "n": [1, 2]}'
    rng = random.Random(3)
    assert split_text(text, "whole", rng) == (text,)
    assert split_text(text, "char", rng) == tuple(text)
    token = split_text(text, "token", rng)
    assert "".join(token) == text and 1 < len(token) < len(text) and max(map(len, token)) <= 6
    assert "".join(split_text(text, "random", rng)) == text
    assert split_text("", "token", rng) == ("",)


def test_the_random_split_follows_the_seed() -> None:
    one = stream_of(CALLS, format="openai-chat", split="random", seed=7)
    assert one.items == stream_of(CALLS, format="openai-chat", split="random", seed=7).items


def test_the_random_split_without_a_seed_is_seed_0_in_every_run() -> None:
    # a test that draws no seed gets the same stream every run (its verdict is no luck),
    # also in a new interpreter
    code = (
        "from callstream.testing import stream_of\n"
        "calls = [{'name': 'f', 'args': {'text': 'x' * 40, 'n': [1, 2, 3]}, 'id': 'c'}]\n"
        "print(stream_of(calls, format='anthropic', split='random').items)\n"
    )
    runs = {
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout
        for _ in range(2)
    }
    calls = [{"name": "f", "args": {"text": "x" * 40, "n": [1, 2, 3]}, "id": "c"}]
    seeded = stream_of(calls, format="anthropic", split="random", seed=0)
    assert runs == {f"{seeded.items}\n"}
    default = stream_of(CALLS, format="openai-chat", split="random")
    assert default.items == stream_of(CALLS, format="openai-chat", split="random", seed=0).items


def test_a_stream_iterates_again_and_drops_every_time() -> None:
    stream = stream_of(CALLS, format="anthropic", quirks=["dropped-connection"])
    for _ in range(2):
        with pytest.raises(StreamDropped):
            list(stream)
    assert "dropped" in repr(stream) and len(stream) == len(stream.items)


def test_missing_ids_are_numbered_and_text_comes_first() -> None:
    stream = stream_of([{"name": "f", "args": {}}], format="openai-chat", text="Hi")
    result = callstream.collect(stream)
    assert result.text == "Hi" and [c["id"] for c in result.tool_calls] == ["call_0"]


def test_without_finish_the_stream_just_stops() -> None:
    stream = stream_of(CALLS, format="openai-chat", finish=False)
    assert all(p["choices"][0]["finish_reason"] is None for p in stream.items)
    assert len(callstream.collect(stream).tool_calls) == 2


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"format": "nope"}, ValueError, "unknown format name 'nope'; the formats .*openai-chat"),
        ({"format": "anthropic", "split": "word"}, ValueError, "unknown split 'word'"),
        ({"format": "anthropic", "quirks": ["odd"]}, ValueError, "unknown quirk 'odd'"),
        (
            {"format": "anthropic", "quirks": ["missing-index"]},
            ValueError,
            "quirk 'missing-index' does not apply to anthropic: it applies to openai-chat",
        ),
        (
            {"format": "gemini", "quirks": ["token-limit"]},
            ValueError,
            "it applies to openai-chat, openai-responses, anthropic, bedrock, cohere, langchain, "
            "langchain-events",
        ),
        (
            {"format": "openai-chat", "quirks": ["token-limit", "dropped-connection"]},
            ValueError,
            "both end the stream",
        ),
        (
            {"format": "openai-chat", "quirks": ["missing-index", "interleaved"]},
            ValueError,
            "cannot be combined",
        ),
        ({"format": "openai-chat", "quirks": "whole-calls"}, TypeError, "not the string"),
        ({"format": "bedrock", "as_": "lines"}, ValueError, "eventstream is binary"),
        ({"format": "openai-chat", "as_": "sse"}, ValueError, "unknown as_ 'sse'"),
    ],
)
def test_misuse_raises_a_precise_error(kwargs: Any, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        stream_of(CALLS, **kwargs)


def test_bad_calls_raise() -> None:
    with pytest.raises(TypeError, match=r"calls\[0\] must be a mapping"):
        stream_of([{"args": {}}], format="anthropic")
    with pytest.raises(TypeError, match=r"calls\[0\]\['args'\] must be a mapping"):
        stream_of([{"name": "f", "args": "{}"}], format="anthropic")
    with pytest.raises(ValueError, match="distinct"):
        stream_of([{"name": "f", "args": {}, "id": "x"}] * 2, format="anthropic")
    with pytest.raises(ValueError, match=r"empty array at \$\.a"):
        stream_of([{"name": "f", "args": {"a": []}}], format="vertex")
    with pytest.raises(ValueError, match="needs at least one call"):
        stream_of([], format="anthropic", quirks=["token-limit"])
    with pytest.raises(ValueError, match=r"calls\[0\]\['args'\] is not JSON: Out of range"):
        stream_of([{"name": "f", "args": {"x": float("inf")}}], format="anthropic")
    with pytest.raises(TypeError, match=r"calls\[0\]\['args'\] is not JSON data"):
        stream_of([{"name": "f", "args": {"x": object()}}], format="anthropic")


def test_every_quirk_names_its_servers_and_formats() -> None:
    for name, info in QUIRKS.items():
        assert info.summary and info.servers and info.outcome, name
        assert set(info.formats) <= set(FORMATS), name


def _pairs() -> list[Any]:
    out = []
    for fmt in FORMATS:
        names = [q for q, info in QUIRKS.items() if fmt in info.formats]
        for n, first in enumerate(names):
            for second in names[n + 1 :]:
                try:
                    stream_of(CALLS, format=fmt, quirks=[first, second])  # type: ignore[list-item]
                except ValueError:
                    continue  # a pair that cannot be combined (its own test is above)
                out.append(pytest.param(fmt, (first, second), id=f"{fmt}-{first}+{second}"))
    return out


_OUTCOME_FIRST = ("token-limit", "provider-error", "dropped-connection", "stop-after-calls")


@pytest.mark.parametrize(("fmt", "quirks"), _pairs())
@settings(max_examples=max(2, EXAMPLES // 2), deadline=None, suppress_health_check=SUPPRESSED)
@given(calls=_calls, seed=st.integers(0, 2**32), split=splits())
def test_quirks_combine(
    fmt: str, quirks: tuple[str, str], calls: list[dict[str, Any]], seed: int, split: Any
) -> None:
    if fmt == "vertex":
        assume(not any(has_inner_empty(c["args"]) for c in calls))
    stream = stream_of(calls, format=fmt, split=split, quirks=quirks, seed=seed)  # type: ignore[arg-type]
    outcome = next((q for q in _OUTCOME_FIRST if q in quirks), None)
    check_outcome(
        stream, calls, fmt, outcome, broken=snapshot_broken(calls, fmt, quirks, split, seed)
    )


# --- the edges of what callstream reads back: written as given, or refused ------------------

LIMIT = 4_096  # the longest name or id callstream keeps (MAX_NAME_CHARS)


def _deepest(fmt: str) -> int:
    return 512 if fmt == "vertex" else 1_000  # Vertex's jsonPath limit; else max_depth


def _nested(depth: int) -> dict[str, Any]:
    """Arguments ``depth`` levels deep (the arguments object is level 1)."""
    value: Any = "leaf"
    for _ in range(depth - 1):
        value = [value]
    return {"x": value}


def _encodings(fmt: str) -> list[str]:
    byte_formats = [*WIRE, "bedrock"]
    return [
        "payloads",
        *(["bytes"] if fmt in byte_formats else []),
        *(["lines"] if fmt in WIRE else []),
    ]


_EDGES = [
    pytest.param(fmt, as_, split, id=f"{fmt}-{as_}-{split}")
    for fmt in FORMATS
    for as_ in _encodings(fmt)
    for split in ("whole", "char", "random")
]


@pytest.mark.parametrize(("fmt", "as_", "split"), _EDGES)
def test_calls_at_callstream_s_limits_are_written_and_read_back(
    fmt: str, as_: Any, split: Any
) -> None:
    # The deepest arguments, the longest name and id callstream reads: written (no
    # RecursionError, in any encoding), the bytes exactly the payloads, read back as given
    # (with room for json.loads, which callstream's transport decodes each payload with).
    calls = [
        {"name": "n" * LIMIT, "id": "i" * LIMIT, "args": {"a": 1}},
        {"name": "deep", "id": "call_deep", "args": _nested(_deepest(fmt))},
    ]
    stream = stream_of(calls, format=fmt, as_=as_, split=split, seed=11)
    with deep_room():
        if as_ != "payloads":
            payloads = list(stream_of(calls, format=fmt, split=split, seed=11).items)
            assert same_json(_decoded(stream.items, as_, fmt), payloads)
        result = callstream.collect(stream)
    got = [(c["name"], c["id"], c["args"]) for c in result.tool_calls]
    assert len(got) == 2 and not result.invalid_tool_calls
    for (name, id_, args), call in zip(got, calls, strict=True):
        assert (name, id_) == (call["name"], call["id"]) and same_json(args, call["args"])


def _decoded(items: list[Any], as_: str, fmt: str) -> list[Any]:
    """The payloads in ``items`` (bytes or lines), as a strict JSON reader decodes them."""
    if fmt == "bedrock":  # AWS eventstream messages: read by callstream's own decoder
        out: list[Any] = []
        decoder = EventStreamDecoder(max_event_chars=1 << 30)
        for item in items:
            decoder.feed_into(item, out)
        return out
    text = "".join(i.decode() if isinstance(i, bytes) else i + "\n" for i in items)
    out = []
    for line in text.split("\n"):
        body = line[len("data: ") :] if line.startswith("data: ") else line
        if body.startswith(("{", "[")) and body != "[DONE]":
            out.append(strict_loads(body))
    return out


@pytest.mark.parametrize(
    ("calls", "formats", "match"),
    [
        ([{"name": "", "args": {}}], FORMATS, r"calls\[0\]\['name'\] is empty"),
        ([{"name": "f", "id": "", "args": {}}], FORMATS, r"calls\[0\]\['id'\] is empty"),
        (
            [{"name": "f", "id": "i" * (LIMIT + 1), "args": {}}],
            FORMATS,
            r"calls\[0\]\['id'\] is longer than 4096",
        ),
        (
            [{"name": "n" * (LIMIT + 1), "args": {}}],
            FORMATS,
            r"calls\[0\]\['name'\] is longer than 4096",
        ),
        ([{"name": "f", "args": _nested(1_001)}], FORMATS, r"nesting deeper than max_depth=1000"),
        ([{"name": "f", "args": _nested(513)}], ("vertex",), r"deeper than 512 levels"),
        (
            [{"name": "f", "args": {}}, {"name": "g", "id": "", "args": {}}],
            ("anthropic",),
            r"calls\[1\]\['id'\] is empty",
        ),
    ],
    ids=["empty name", "empty id", "long id", "long name", "too deep", "vertex too deep", "second"],
)
def test_calls_callstream_would_not_read_back_as_given_are_refused(
    calls: list[dict[str, Any]], formats: tuple[str, ...], match: str
) -> None:
    for fmt in formats:
        for as_ in _encodings(fmt):
            with pytest.raises(ValueError, match=match):
                stream_of(calls, format=fmt, as_=as_)  # type: ignore[arg-type]
