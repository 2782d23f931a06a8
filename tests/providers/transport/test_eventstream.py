"""Bedrock's binary AWS eventstream read from raw bytes (providers/_eventstream.py): every
cut, checked against botocore's own decoder, and broken framing as an error that keeps
what came before it."""

from __future__ import annotations

import json
import random
import struct
import zlib
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import callstream
from callstream import MalformedStreamError, StreamLimitError
from callstream.providers.transport import TransportDecoder
from callstream.testing import encode, eventstream_message, sse_event, stream_of

CALLS = [
    {"name": "get_weather", "args": {"city": "Zürich", "days": [1, 2]}, "id": "tooluse_1"},
    {"name": "search", "args": {"q": 'a "quoted" ✓'}, "id": "tooluse_2"},
]


def wire() -> bytes:
    return b"".join(stream_of(CALLS, format="bedrock", as_="bytes", split="token"))


def cuts(data: bytes, points: list[int]) -> list[bytes]:
    edges = [0, *sorted(set(points)), len(data)]
    return [data[a:b] for a, b in zip(edges, edges[1:], strict=False) if b > a]


def test_bedrock_bytes_give_back_the_calls_whatever_the_format_option() -> None:
    data = wire()
    for provider in ("bedrock", "auto"):
        result = callstream.collect([data], provider=provider)
        assert result.tool_calls == [{**c, "type": "tool_call"} for c in CALLS]
        assert result.invalid_tool_calls == [] and result.finished


@given(st.lists(st.integers(min_value=1, max_value=2000), max_size=40))
def test_any_cut_gives_the_same_payloads_as_botocore(points: list[int]) -> None:
    from botocore.eventstream import EventStreamBuffer

    data = wire()
    decoder = TransportDecoder()
    ours: list[Any] = []
    for piece in cuts(data, [p % len(data) for p in points]):
        ours += [m.payload for m in decoder.feed(piece)]
    ours += [m.payload for m in decoder.close()]
    theirs = EventStreamBuffer()
    theirs.add_data(data)
    expected = [{message.headers[":event-type"]: json.loads(message.payload)} for message in theirs]
    assert ours == expected and decoder.dropped == 0


def test_exception_and_error_messages_are_payloads_the_translator_reads() -> None:
    start = stream_of(CALLS[:1], format="bedrock", as_="payloads", finish=False)
    head = b"".join(
        eventstream_message(
            {
                ":event-type": next(iter(p)),
                ":content-type": "application/json",
                ":message-type": "event",
            },
            json.dumps(next(iter(p.values()))).encode(),
        )
        for p in list(start)[:3]
    )
    throttled = eventstream_message(
        {":exception-type": "throttlingException", ":message-type": "exception"},
        b'{"message": "Too many requests"}',
    )
    result = callstream.collect([head + throttled], provider="bedrock")
    assert result.provider_error is not None
    assert "Too many requests" in str(result.provider_error)
    decoder = TransportDecoder()
    error = eventstream_message(
        {":message-type": "error", ":error-code": "InternalFailure", ":error-message": "boom"},
        b"",
    )
    assert [m.payload for m in decoder.feed(error)] == [{"InternalFailure": {"message": "boom"}}]


def _corrupt(data: bytes, at: int) -> bytes:
    broken = bytearray(data)
    broken[at] ^= 0xFF
    return bytes(broken)


@pytest.mark.parametrize(
    ("where", "why"),
    [(9, "prelude checksum"), (20, "message checksum")],
)
def test_a_corrupt_message_is_an_error_after_the_messages_before_it(where: int, why: str) -> None:
    data = wire()
    first = struct.unpack(">I", data[:4])[0]
    broken = data[:first] + _corrupt(data[first:], where)
    with pytest.raises(MalformedStreamError, match=why) as caught:
        callstream.collect([broken], provider="bedrock")
    assert "message 2 is corrupt" in str(caught.value)
    partial = caught.value.callstream_result  # type: ignore[attr-defined]
    assert partial.interrupted and not partial.finished
    decoder = TransportDecoder()
    assert len(decoder.feed(broken)) == 1  # the first message, then the error is held
    assert isinstance(decoder.error, MalformedStreamError)
    with pytest.raises(MalformedStreamError):
        decoder.feed(b"")


def _message(total: int, headers_length: int, rest: bytes = b"") -> bytes:
    prelude = struct.pack(">II", total, headers_length)
    return prelude + struct.pack(">I", zlib.crc32(prelude)) + rest


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (_message(10, 0), "claims 10 bytes"),
        (_message(40, 30), "claims 40 bytes with 30 bytes of headers"),
    ],
)
def test_impossible_lengths_are_errors(data: bytes, why: str) -> None:
    with pytest.raises(MalformedStreamError, match=why):
        TransportDecoder().feed(data)


def test_an_unknown_header_type_is_an_error() -> None:
    head = b"\x04name\x0b"  # value type 11 does not exist
    body = _message(12 + len(head) + 4, len(head), head)
    data = body + struct.pack(">I", zlib.crc32(body))
    with pytest.raises(MalformedStreamError, match="unknown value type 11"):
        TransportDecoder().feed(data)


def test_text_inside_a_binary_stream_is_an_error() -> None:
    decoder = TransportDecoder()
    decoder.feed(wire()[:5])
    with pytest.raises(MalformedStreamError, match="text chunk inside an AWS eventstream"):
        decoder.feed("data: {}\n\n")


def test_a_message_over_the_limit_is_a_limit_error() -> None:
    with pytest.raises(StreamLimitError, match="an AWS eventstream message"):
        TransportDecoder(max_event_chars=50).feed(wire())


def test_a_payload_that_is_not_json_is_dropped_and_counted() -> None:
    bad = eventstream_message({":event-type": "messageStart", ":message-type": "event"}, b"{")
    decoder = TransportDecoder()
    assert decoder.feed(bad) == [] and decoder.dropped == 1
    with pytest.raises(callstream.UnknownFormatError):
        callstream.collect([bad])


def test_a_stream_cut_inside_a_message_truncates_the_open_call() -> None:
    data = wire()
    result = callstream.collect([data[: len(data) // 2]], provider="bedrock")
    assert result.tool_calls == []
    [cut] = result.invalid_tool_calls
    assert cut["name"] == "get_weather" and "the stream ended" in str(cut["error"])
    decoder = TransportDecoder()
    decoder.feed(data[: len(data) // 2])
    decoder.close()
    assert decoder.dropped == 1  # the message left cut short


# --- a payload nested too deep: the same limit error as over SSE ---------------------------

_DEEP_BODY = '{"delta": ' + "[" * 30_000 + "]" * 30_000 + "}"  # past json.loads' recursion


def _deep_streams() -> tuple[bytes, bytes]:
    """Bedrock's events with a ``contentBlockDelta`` nested too deep halfway into the
    first call: as AWS eventstream messages, and as SSE (its ``data`` the same events)."""
    payloads = list(stream_of(CALLS, format="bedrock", split="token"))
    head, tail = payloads[:4], payloads[4:]
    deep = eventstream_message(
        {":event-type": "contentBlockDelta", ":message-type": "event"}, _DEEP_BODY.encode()
    )
    events = b"".join(encode(head, "bedrock")) + deep + b"".join(encode(tail, "bedrock"))
    sse = "".join(
        [*map(sse_event, head), f'data: {{"contentBlockDelta": {_DEEP_BODY}}}\n\n']
        + [sse_event(p) for p in tail]
    )
    return events, sse.encode()


def _limit_outcome(chunks: list[bytes]) -> tuple[str, Any]:
    with pytest.raises(StreamLimitError) as info:
        callstream.collect(chunks, provider="bedrock")
    return str(info.value), info.value.callstream_result  # type: ignore[attr-defined]


def test_a_payload_too_deep_is_a_limit_error_as_over_sse_however_cut() -> None:
    events, sse = _deep_streams()
    error, partial = _limit_outcome([sse])
    assert "nested too deep" in error
    assert partial.interrupted and not partial.finished and partial.tool_calls == []
    [cut] = partial.invalid_tool_calls  # the call the deep payload was part of
    assert cut["name"] == "get_weather" and "StreamLimitError" in str(cut["error"])
    # over eventstream: the same error and the same partial result, whole, one byte at
    # a time, and in seeded random splits (the decoder drops nothing silently)
    assert _limit_outcome([events]) == (error, partial)
    assert _limit_outcome([events[i : i + 1] for i in range(len(events))]) == (error, partial)
    rng = random.Random(20260)
    for _ in range(5):
        points = [rng.randrange(len(events)) for _ in range(rng.randrange(1, 30))]
        assert _limit_outcome(cuts(events, points)) == (error, partial)
    decoder = TransportDecoder()
    decoder.feed(events)
    assert isinstance(decoder.error, StreamLimitError) and decoder.dropped == 0
