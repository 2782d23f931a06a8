"""Raw transport under hostile input: cut-independent sniffing, deep payloads, size limits."""

from __future__ import annotations

import json
import random
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import callstream
from callstream import DataError, OptionTypeError, OptionValueError, StreamLimitError
from callstream.providers._chunks import ChunkDecoder
from callstream.providers._eventstream import EventStreamDecoder
from callstream.providers.transport import (
    DEFAULT_MAX_EVENT_CHARS,
    JSONStreamDecoder,
    SSEDecoder,
    TransportDecoder,
    TransportMessage,
    is_transport_chunk,
)
from callstream.testing import encode, stream_of
from tests.providers.transport.test_transport_lines import STREAMS, same


def decode(chunks: list[Any], **options: Any) -> list[TransportMessage]:
    decoder = TransportDecoder(**options)
    out: list[TransportMessage] = []
    for chunk in chunks:
        out.extend(decoder.feed(chunk))
    out.extend(decoder.close())
    return out


def two_way_cuts(data: bytes) -> list[list[bytes]]:
    return [[data[:i], data[i:]] for i in range(len(data) + 1)]


# --- item: the format must not depend on where a chunk is cut ---------------------------------

UNICODE_BLANKS = [
    "\ufeff\u00a0\ufeff",
    "\u00a0",
    "\u2028",
    "\u2029",
    "\u3000",
    "\ufeff",
    " \u00a0\n",
    "\u2028\u00a0",
]


@pytest.mark.parametrize("blank", UNICODE_BLANKS)
def test_ndjson_after_unicode_blank_is_json_whatever_the_cut(blank: str) -> None:
    text, payloads, _ = STREAMS["ollama"]
    data = (blank + text).encode()
    whole = decode([data])
    assert [m.payload for m in whole] == payloads
    for chunks in two_way_cuts(data):
        assert decode(chunks) == whole
    assert decode([data[i : i + 1] for i in range(len(data))]) == whole
    assert decode(list(blank + text)) == whole
    same(callstream.collect([data]), "ollama")


@pytest.mark.parametrize("blank", UNICODE_BLANKS)
def test_sse_after_unicode_blank_is_the_same_whatever_the_cut(blank: str) -> None:
    data = (blank + STREAMS["openai"][0]).encode()
    whole = decode([data])
    for chunks in two_way_cuts(data[:40]):
        assert decode([*chunks, data[40:]]) == whole
    assert decode([data[i : i + 1] for i in range(len(data))]) == whole


@settings(max_examples=80, deadline=None)
@given(
    st.text(st.sampled_from(["\u00a0", "\u2028", " ", "\n", "\r", "\t", "\ufeff", "\u3000"])),
    st.sampled_from(sorted(STREAMS)),
    st.data(),
)
def test_any_cut_of_any_blank_prefix_gives_the_whole_result(
    prefix: str, name: str, data: st.DataObject
) -> None:
    raw = (prefix + STREAMS[name][0]).encode()
    whole = decode([raw])
    cut = data.draw(st.integers(0, len(raw)))
    assert decode([raw[:cut], raw[cut:]]) == whole
    points = sorted(data.draw(st.lists(st.integers(0, len(raw)), max_size=12)))
    bounds = [0, *points, len(raw)]
    assert decode([raw[a:b] for a, b in zip(bounds, bounds[1:])]) == whole


# --- a JSON value that is no object, as the first frame or any other -------------------------

SCALARS = ["true", "false", "null", "1", "-2.5e3", '"x"', '"a \\"q\\" \\\\ \u2713"']
SCALAR_CALLS = [
    {"name": "get_weather", "args": {"city": "Zürich", "days": [1, 2]}, "id": "call_1"},
    {"name": "search", "args": {"q": 'a "quoted" ✓'}, "id": "call_2"},
]


def _scalar_streams(scalar: str, fmt: str) -> dict[str, list[Any]]:
    """``fmt``'s stream with ``scalar`` as its first frame (and again in the middle of
    NDJSON): as NDJSON text, and for an SSE format as SSE bytes (``data: <scalar>``) and
    SSE lines (a line iterator)."""
    payloads = list(stream_of(SCALAR_CALLS, format=fmt, text="Hi"))
    half = len(payloads) // 2
    lines = [json.dumps(p) + "\n" for p in payloads]
    ndjson = "".join([scalar + "\n", *lines[:half], scalar + "\n", *lines[half:]])
    if fmt == "ollama":
        return {"ndjson": [ndjson]}
    sse = [b"data: " + scalar.encode() + b"\n\n", *encode(payloads, fmt)]
    sse_lines = ["data: " + scalar, "", *encode(payloads, fmt, as_="lines")]
    return {"ndjson": [ndjson], "sse": [b"".join(sse)], "sse-lines": sse_lines}


def _cut(chunks: list[Any], how: str, seed: int) -> list[Any]:
    """The stream whole, one character (byte) at a time, or at seeded random places; line
    iterators stay as they are (each item is a line)."""
    if len(chunks) > 1 or how == "whole":
        return chunks
    [raw] = chunks
    if how == "one":
        return [raw[i : i + 1] for i in range(len(raw))]
    rng = random.Random(seed)
    points = sorted(rng.randrange(len(raw) + 1) for _ in range(rng.randrange(1, 40)))
    return [raw[a:b] for a, b in zip([0, *points], [*points, len(raw)])]


@pytest.mark.parametrize("fmt", ["openai-responses", "anthropic", "ollama"])
@pytest.mark.parametrize("scalar", SCALARS)
def test_a_scalar_frame_is_a_payload_and_the_frames_after_it_are_read(
    scalar: str, fmt: str
) -> None:
    want_payloads = list(stream_of(SCALAR_CALLS, format=fmt, text="Hi"))
    want = callstream.collect(want_payloads)
    assert len(want.tool_calls) == 2
    value = json.loads(scalar)
    for wire, chunks in _scalar_streams(scalar, fmt).items():
        for how, seed in [("whole", 0), ("one", 0), *(("random", n) for n in range(2))]:
            cut = _cut(chunks, how, seed)
            payloads = [m.payload for m in decode(cut)]
            assert payloads[0] == value and type(payloads[0]) is type(value), (wire, how)
            assert len(payloads) == len(want_payloads) + (2 if wire == "ndjson" else 1)
            for provider in (fmt, "auto"):
                assert callstream.collect(cut, provider=provider) == want, (wire, how, provider)


@pytest.mark.parametrize("text", ["true", " null ", "1", '"x"', "nul", "tru e", "truex"])
def test_a_stream_of_only_a_scalar_or_a_stray_word(text: str) -> None:
    """A lone value is one payload (JSON, however short); a word that is no JSON value is
    SSE text that is no field: dropped and counted, whatever the cut."""
    for chunks in ([text], list(text), [text.encode()]):
        decoder = TransportDecoder()
        got = [m.payload for chunk in chunks for m in decoder.feed(chunk)]
        got += [m.payload for m in decoder.close()]
        try:
            value = json.loads(text)
        except ValueError:
            assert got == [] and decoder.dropped == 1
        else:
            assert got == [value] and decoder.dropped == 0


def test_stray_text_between_json_objects_is_dropped_and_counted() -> None:
    decoder = TransportDecoder()
    got = decoder.feed('{"a": 1} oops {"b": 2}\n[{"c": 3}, 4]') + decoder.close()
    assert [m.payload for m in got] == [{"a": 1}, {"b": 2}, {"c": 3}, 4]
    assert decoder.dropped == 1


# --- item: a deep payload never vanishes silently ----------------------------------------------


def _deep(depth: int) -> str:
    return '{"choices": [], "x": ' + "[" * depth + "]" * depth + "}"


@pytest.mark.parametrize("kind", ["sse", "ndjson"])
def test_payload_too_deep_for_json_loads_raises_a_data_error(kind: str) -> None:
    deep = _deep(100_000)
    text = f"data: {deep}\n\n" if kind == "sse" else deep + "\n"
    for chunks in ([text], [text[i : i + 4096] for i in range(0, len(text), 4096)]):
        with pytest.raises(StreamLimitError, match="nested too deep") as info:
            decode(chunks)
        assert isinstance(info.value, DataError)
        with pytest.raises(StreamLimitError):
            callstream.collect(chunks)


def test_moderately_deep_payload_is_decoded() -> None:
    [message] = decode([f"data: {_deep(200)}\n\n"])
    assert message.payload["choices"] == []


# --- item: lines, events and objects are bounded ------------------------------------------------


def test_default_limit_is_far_above_real_events() -> None:
    assert DEFAULT_MAX_EVENT_CHARS >= 16 * 1024 * 1024
    big = {"choices": [], "blob": "x" * 2_000_000}
    assert decode([f"data: {json.dumps(big)}\n\n"])[0].payload == big
    assert decode([json.dumps(big)])[0].payload == big


def test_unterminated_sse_line_over_the_limit_raises_while_streaming() -> None:
    decoder = TransportDecoder(max_event_chars=100)
    decoder.feed("data: ")
    with pytest.raises(StreamLimitError, match="an SSE line exceeds max_event_chars=100"):
        for _ in range(200):
            decoder.feed("x")


def test_sse_line_over_the_limit_in_one_chunk_raises() -> None:
    with pytest.raises(StreamLimitError, match="SSE line"):
        decode(["data: " + "x" * 200 + "\n\n"], max_event_chars=100)


def test_sse_event_of_many_short_data_lines_over_the_limit_raises() -> None:
    with pytest.raises(StreamLimitError, match="an SSE event's data"):
        decode(["data: xxxxxxxxx\n" * 20], max_event_chars=100)
    decoder = SSEDecoder(max_event_chars=100)
    with pytest.raises(StreamLimitError, match="an SSE event's data"):
        for _ in range(20):
            decoder.feed("data: xxxxxxxxx\n")


def test_comment_line_over_the_limit_raises() -> None:
    with pytest.raises(StreamLimitError):
        decode(["data: {}\n\n:" + "x" * 300], max_event_chars=100)


def test_json_object_over_the_limit_raises_whole_and_in_pieces() -> None:
    text = json.dumps({"a": "x" * 200})
    with pytest.raises(StreamLimitError, match="a JSON object exceeds"):
        decode([text], max_event_chars=100)
    decoder = JSONStreamDecoder(max_event_chars=100)
    with pytest.raises(StreamLimitError, match="a JSON object exceeds"):
        for char in text:
            decoder.feed(char)


def test_leading_whitespace_flood_is_bounded() -> None:
    decoder = TransportDecoder(max_event_chars=100)
    with pytest.raises(StreamLimitError, match="leading whitespace"):
        for _ in range(200):
            decoder.feed(" ")


def test_events_within_the_limit_pass_and_the_limit_is_per_event() -> None:
    event = 'data: {"a": "' + "x" * 60 + '"}\n\n'
    assert len(decode([event * 50], max_event_chars=100)) == 50
    obj = json.dumps({"a": "x" * 60}) + "\n"
    assert len(decode([obj * 50], max_event_chars=100)) == 50


@pytest.mark.parametrize("cls", [TransportDecoder, SSEDecoder, JSONStreamDecoder])
def test_limit_option_is_checked(cls: Any) -> None:
    with pytest.raises(OptionValueError):
        cls(max_event_chars=0)
    with pytest.raises(OptionTypeError):
        cls(max_event_chars="10")
    with pytest.raises(OptionTypeError):
        cls(max_event_chars=True)


def test_transport_decoder_has_no_dead_kind_property() -> None:
    """``TransportDecoder.kind`` had no user; the sniffing state is private now."""
    assert not hasattr(TransportDecoder(), "kind")


def _sse_body(events: int, size: int) -> list[bytes]:
    payload = {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}}]}
    payload["pad"] = "x" * size  # type: ignore[assignment]
    return [f"data: {json.dumps(payload)}\n\n".encode() for _ in range(events)]


@pytest.mark.anyio
async def test_drivers_take_max_event_chars() -> None:
    body = _sse_body(3, 500)
    assert callstream.collect(body).finished  # within the default
    for run in (
        lambda: callstream.collect(body, max_event_chars=100),
        lambda: list(callstream.stream(body, provider="openai-chat", max_event_chars=100)),
    ):
        with pytest.raises(StreamLimitError, match="max_event_chars=100"):
            run()
    with pytest.raises(StreamLimitError, match="max_event_chars=100"):
        await callstream.acollect(body, max_event_chars=100)
    # the limit bounds raw text only: decoded payloads of any size pass
    payloads = [json.loads(b.decode()[6:]) for b in body]
    assert callstream.collect(payloads, max_event_chars=100).finished


@pytest.mark.parametrize(("value", "error"), [(0, OptionValueError), ("1", OptionTypeError)])
def test_drivers_check_max_event_chars_at_call_time(value: object, error: type) -> None:
    with pytest.raises(error, match="max_event_chars"):
        callstream.stream([], max_event_chars=value)


def test_unknown_option_message_names_max_event_chars() -> None:
    with pytest.raises(OptionTypeError, match="max_event_chars"):
        callstream.collect([], max_line=1)


class _FakeClass:
    """An object lying about its class: isinstance() would consult its ``__class__``."""

    @property  # type: ignore[misc]
    def __class__(self) -> type:
        raise RuntimeError("no class for you")


def test_transport_check_reads_the_real_type() -> None:
    assert not is_transport_chunk(_FakeClass())
    assert is_transport_chunk(memoryview(b"x")) and is_transport_chunk("")


# --- item: what came before a limit error never depends on where the network cut ---------------


def _sse(payload: dict[str, Any]) -> str:
    return f"data: {json.dumps(payload)}\n\n"


def _chat(delta: dict[str, Any]) -> dict[str, Any]:
    return {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta}]}


def _call(index: int, **function: str) -> dict[str, Any]:
    fields: dict[str, Any] = {"index": index, "function": function}
    if "name" in function:
        fields.update(id=f"call_{index}", type="function")
    return _chat({"tool_calls": [fields]})


# One call complete, a second half-way, some text: all before the offending part, which
# is followed by a payload that must never be read.
_BEFORE_SSE = "".join(
    _sse(p)
    for p in (
        _chat({"role": "assistant", "content": "Looking "}),
        _call(0, name="weather", arguments='{"city": "Paris"}'),
        _chat({"content": "it up"}),
        _call(1, name="time", arguments='{"zone": "Eu'),
    )
)
_AFTER_SSE = _sse(_chat({"content": " never read"}))
_OLLAMA_BEFORE = "".join(
    json.dumps({"model": "m", "message": {"role": "assistant", "content": text}, "done": False})
    + "\n"
    for text in ("Looking ", "it up")
)
_OLLAMA_AFTER = json.dumps({"model": "m", "message": {"content": "!"}, "done": True}) + "\n"
_DEEP = "[" * 30_000 + "]" * 30_000  # past json.loads on 3.10 - 3.13 (3.13: ~10k)

# name -> (raw text, max_event_chars): each stream breaks a limit after the payloads above
LIMIT_STREAMS: dict[str, tuple[str, int]] = {
    "sse: payload too deep": (_BEFORE_SSE + f'data: {{"x": {_DEEP}}}\n\n' + _AFTER_SSE, 10**6),
    "sse: line too long": (_BEFORE_SSE + _sse({"pad": "x" * 400}) + _AFTER_SSE, 260),
    "sse: event data too long": (_BEFORE_SSE + "data: xxxxxxxx\n" * 40 + "\n" + _AFTER_SSE, 260),
    "sse: last line too long, unended": (_BEFORE_SSE + "data: " + "x" * 400, 260),
    "sse: comment too long": (_BEFORE_SSE + ":" + "x" * 400 + "\n" + _AFTER_SSE, 260),
    "sse: event data too long, then a line": (  # the first in stream order is raised
        _BEFORE_SSE + "data: xxxxxxxx\n" * 40 + "\n:" + "x" * 400 + "\n" + _AFTER_SSE,
        260,
    ),
    "ndjson: object too deep": (_OLLAMA_BEFORE + f'{{"x": {_DEEP}}}\n' + _OLLAMA_AFTER, 10**6),
    "ndjson: object too long": (
        _OLLAMA_BEFORE + json.dumps({"pad": "x" * 400}) + "\n" + _OLLAMA_AFTER,
        260,
    ),
}


def _cuts(raw: bytes, points: list[int]) -> list[bytes]:
    bounds = [0, *sorted(points), len(raw)]
    return [raw[a:b] for a, b in zip(bounds, bounds[1:])]


def _decoded(chunks: list[bytes], limit: int) -> tuple[list[TransportMessage], str]:
    """The payloads a TransportDecoder hands out before its limit error, and the error."""
    decoder = TransportDecoder(max_event_chars=limit)
    out: list[TransportMessage] = []
    with pytest.raises(StreamLimitError) as info:
        for chunk in chunks:
            out.extend(decoder.feed(chunk))
        out.extend(decoder.close())
    return out, str(info.value)


def _collected(chunks: list[bytes], limit: int) -> tuple[str, Any]:
    with pytest.raises(StreamLimitError) as info:
        callstream.collect(chunks, max_event_chars=limit)
    return str(info.value), info.value.callstream_result  # type: ignore[attr-defined]


def _streamed(chunks: list[bytes], limit: int) -> tuple[str, Any, list[Any]]:
    updates: list[Any] = []
    with callstream.stream(chunks, max_event_chars=limit) as stream:
        with pytest.raises(StreamLimitError) as info:
            for update in stream:
                updates.append(update)
        return str(info.value), stream.result, updates


async def _acollected(chunks: list[bytes], limit: int) -> tuple[str, Any]:
    async def source() -> Any:
        for chunk in chunks:
            yield chunk

    with pytest.raises(StreamLimitError) as info:
        await callstream.acollect(source(), max_event_chars=limit)
    return str(info.value), info.value.callstream_result  # type: ignore[attr-defined]


async def _astreamed(chunks: list[bytes], limit: int) -> tuple[str, Any, list[Any]]:
    updates: list[Any] = []
    async with callstream.astream(chunks, max_event_chars=limit) as stream:
        with pytest.raises(StreamLimitError) as info:
            async for update in stream:
                updates.append(update)
        return str(info.value), stream.result, updates


def _outcomes(chunks: list[bytes], limit: int, backend: str = "asyncio") -> list[Any]:
    """What every path gives: the decoder, collect, stream, acollect, astream."""

    async def both() -> list[Any]:
        return [await _acollected(chunks, limit), await _astreamed(chunks, limit)]

    return [
        _decoded(chunks, limit),
        _collected(chunks, limit),
        _streamed(chunks, limit),
        *anyio.run(both, backend=backend),
    ]


@pytest.mark.parametrize("name", sorted(LIMIT_STREAMS))
def test_partial_result_after_a_limit_error_is_the_same_however_cut(name: str) -> None:
    text, limit = LIMIT_STREAMS[name]
    raw = text.encode()
    whole = _outcomes([raw], limit)
    payloads, _ = whole[0]
    error, result = whole[1]
    # nothing before the offending part is lost, nothing after it is read
    assert result.interrupted and not result.finished
    if name.startswith("sse"):
        assert result.text == "Looking it up"
        assert result.tool_calls == [
            {"name": "weather", "args": {"city": "Paris"}, "id": "call_0", "type": "tool_call"}
        ]
        [cut_off] = result.invalid_tool_calls
        assert cut_off["id"] == "call_1" and cut_off["args"] == '{"zone": "Eu'
        assert cut_off["error"].startswith(
            "the stream was interrupted before the call completed (StreamLimitError: "
        )
        assert len(payloads) == 4
        assert len(whole[2][2]) == 4  # one update per payload, the last one's too
    else:
        # too few to choose the format before the error: read at the interruption,
        # into the result (the drivers yield no update after the error)
        assert result.text == "Looking it up" and len(payloads) == 2
        assert result.provider == "ollama"
    if "then a line" in name:
        assert "an SSE event's data" in error
    assert whole[2][:2] == whole[3][:2] == whole[4][:2] == (error, result)
    assert [u.text for u in whole[2][2]] == [u.text for u in whole[4][2]]
    by_byte = _outcomes([raw[i : i + 1] for i in range(len(raw))], limit, "trio")
    assert by_byte == whole
    for point in (len(_BEFORE_SSE) - 1, len(_BEFORE_SSE), len(_BEFORE_SSE) + 1):
        assert _outcomes(_cuts(raw, [point]), limit) == whole


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(LIMIT_STREAMS)), st.data())
def test_partial_result_after_a_limit_error_is_the_same_in_random_splits(
    name: str, data: st.DataObject
) -> None:
    text, limit = LIMIT_STREAMS[name]
    raw = text.encode()
    points = data.draw(st.lists(st.integers(0, len(raw)), max_size=12))
    assert _outcomes(_cuts(raw, points), limit) == _outcomes([raw], limit)


def test_a_chunk_of_payloads_before_the_limit_returns_them_then_raises() -> None:
    decoder = TransportDecoder(max_event_chars=260)
    text, _ = LIMIT_STREAMS["sse: line too long"]
    messages = decoder.feed(text)
    assert len(messages) == 4 and isinstance(decoder.error, StreamLimitError)
    with pytest.raises(StreamLimitError, match="an SSE line exceeds max_event_chars=260"):
        decoder.feed("data: {}\n\n")
    assert decoder.error is None
    sse = SSEDecoder(max_event_chars=200)
    assert len(sse.feed('data: {"a": 1}\n\n' * 2 + "x" * 400)) == 2
    with pytest.raises(StreamLimitError, match="an SSE line"):
        sse.close()
    objects = JSONStreamDecoder(max_event_chars=200)
    assert len(objects.feed('{"a": 1}\n' * 2 + json.dumps({"a": "x" * 400}))) == 2
    with pytest.raises(StreamLimitError, match="a JSON object"):
        objects.feed("{}")


@pytest.mark.parametrize("blank", [" ", "\u3000"])
def test_leading_whitespace_bound_is_the_same_whole_and_cut(blank: str) -> None:
    raw = (blank * 150 + '{"a": 1}\n').encode()
    for chunks in ([raw], [raw[i : i + 1] for i in range(len(raw))], _cuts(raw, [100])):
        with pytest.raises(StreamLimitError, match="leading whitespace"):
            decode(chunks, max_event_chars=100)
        assert decode(chunks, max_event_chars=150) == [TransportMessage({"a": 1})]


@pytest.mark.parametrize(
    "cls",
    [SSEDecoder, JSONStreamDecoder, TransportDecoder, EventStreamDecoder],
    ids=lambda cls: cls.__name__,
)
def test_every_decoder_follows_the_one_feed_hold_flush_protocol(cls: Any) -> None:
    # The hold rule is written once (ChunkDecoder.feed / close): a decoder only says what
    # a chunk and the end complete. One that wrote its own feed or close would restate it.
    assert issubclass(cls, ChunkDecoder)
    for name in ("feed", "close", "error"):
        assert name not in vars(cls), f"{cls.__name__} restates {name}"
    assert "feed_into" in vars(cls) and "flush_into" in vars(cls)


@pytest.mark.parametrize(
    ("cls", "first", "over"),
    [
        (SSEDecoder, "data: 1\n\n", "data: " + "x" * 40 + "\n\n"),
        (JSONStreamDecoder, '{"a": 1}\n', '{"b": "' + "x" * 40 + '"}'),
    ],
    ids=["sse", "json"],
)
def test_each_decoder_returns_what_came_before_an_error_then_raises(
    cls: Any, first: str, over: str
) -> None:
    decoder = cls(max_event_chars=20)
    assert len(decoder.feed(first + over)) == 1
    assert isinstance(decoder.error, StreamLimitError)
    with pytest.raises(StreamLimitError):
        decoder.feed("")
    assert decoder.error is None
