"""Raw transport under hostile input: cut-independent sniffing, deep payloads, size limits."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import callstream
from callstream import DataError, OptionTypeError, OptionValueError, StreamLimitError
from callstream.providers.transport import (
    DEFAULT_MAX_EVENT_CHARS,
    JSONStreamDecoder,
    SSEDecoder,
    TransportDecoder,
    TransportMessage,
    is_transport_chunk,
)

from .test_transport_lines import STREAMS, same


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
