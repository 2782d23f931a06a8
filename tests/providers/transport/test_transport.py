"""Incremental SSE and JSON-stream decoding: any chunking gives the same payloads."""

from __future__ import annotations

import itertools
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from callstream.providers.transport import (
    JSONStreamDecoder,
    ServerSentEvent,
    SSEDecoder,
    TransportDecoder,
    TransportMessage,
    is_transport_chunk,
)
from tests.support.strategies import json_objects


def sse_all(chunks: list[Any]) -> list[ServerSentEvent]:
    decoder = SSEDecoder()
    out: list[ServerSentEvent] = []
    for chunk in chunks:
        out.extend(decoder.feed(chunk))
    out.extend(decoder.close())
    return out


def json_all(chunks: list[Any]) -> list[str]:
    decoder = JSONStreamDecoder()
    out: list[str] = []
    for chunk in chunks:
        out.extend(decoder.feed(chunk))
    out.extend(decoder.close())
    return out


def transport_all(chunks: list[Any]) -> list[TransportMessage]:
    decoder = TransportDecoder()
    out: list[TransportMessage] = []
    for chunk in chunks:
        out.extend(decoder.feed(chunk))
    out.extend(decoder.close())
    return out


def every_two_way_split(data: Any) -> list[list[Any]]:
    return [[data[:i], data[i:]] for i in range(len(data) + 1)]


SSE_TEXT = (
    ": a comment line\n"
    "event: content_block_delta\n"
    'data: {"type": "content_block_delta", "text": "caf\u00e9 \U0001f600"}\n'
    "\n"
    "id: 7\n"
    "retry: 3000\n"
    'data: {"a":\n'
    "data: 1}\n"
    "\n"
    "event: ping\n"
    "\n"
    "data:no-space\n"
    "\n"
    "data: [DONE]\n"
    "\n"
)

SSE_EXPECTED = [
    ServerSentEvent(
        data='{"type": "content_block_delta", "text": "caf\u00e9 \U0001f600"}',
        event="content_block_delta",
    ),
    ServerSentEvent(data='{"a":\n1}', id="7", retry=3000),
    ServerSentEvent(data="no-space", id="7", retry=3000),
    ServerSentEvent(data="[DONE]", id="7", retry=3000),
]


def test_sse_fields_comments_and_multiline_data() -> None:
    assert sse_all([SSE_TEXT]) == SSE_EXPECTED


def test_sse_event_without_data_is_not_dispatched() -> None:
    assert sse_all(["event: ping\n\n"]) == []


def test_sse_line_endings_crlf_and_cr() -> None:
    for ending in ("\r\n", "\r", "\n"):
        assert sse_all([SSE_TEXT.replace("\n", ending)]) == SSE_EXPECTED


def test_sse_every_text_split_and_every_byte_split() -> None:
    for ending in ("\n", "\r\n"):
        text = SSE_TEXT.replace("\n", ending)
        for chunks in every_two_way_split(text):
            assert sse_all(chunks) == SSE_EXPECTED
        data = text.encode()
        for chunks in every_two_way_split(data):
            assert sse_all(chunks) == SSE_EXPECTED


def test_sse_one_byte_at_a_time() -> None:
    data = SSE_TEXT.replace("\n", "\r\n").encode()
    assert sse_all([data[i : i + 1] for i in range(len(data))]) == SSE_EXPECTED


def test_sse_cr_at_chunk_end_then_lf() -> None:
    assert sse_all(["data: 1\r", "\ndata: 2\r", "\n\r", "\n"]) == [ServerSentEvent(data="1\n2")]


def test_sse_byte_order_mark_is_dropped() -> None:
    assert sse_all(["\ufeffdata: 1\n\n"]) == [ServerSentEvent(data="1")]
    assert sse_all([b"\xef\xbb", b"\xbfdata: 1\n\n"]) == [ServerSentEvent(data="1")]


def test_sse_final_event_without_blank_line_is_kept_at_close() -> None:
    decoder = SSEDecoder()
    assert decoder.feed('data: {"x": 1}') == []
    assert decoder.close() == [ServerSentEvent(data='{"x": 1}')]


def test_sse_invalid_utf8_becomes_replacement_character() -> None:
    assert sse_all([b"data: a\xffb\n\n"]) == [ServerSentEvent(data="a\ufffdb")]


def test_sse_event_name_resets_between_events() -> None:
    events = sse_all(["event: error\ndata: 1\n\ndata: 2\n\n"])
    assert [e.event for e in events] == ["error", None]


NDJSON_OBJECTS = [
    {"a": "x{y}z", "b": [1, {"c": '"}'}]},
    {"message": {"content": "line\nbreak \\ \u00e9 \U0001f600"}, "done": False},
    {"done": True},
]


def test_json_stream_ndjson_pretty_and_array_forms() -> None:
    texts = [
        "\n".join(json.dumps(o) for o in NDJSON_OBJECTS) + "\n",
        "".join(json.dumps(o) for o in NDJSON_OBJECTS),
        "\n".join(json.dumps(o, indent=2) for o in NDJSON_OBJECTS),
        "[" + ",\r\n".join(json.dumps(o, indent=2) for o in NDJSON_OBJECTS) + "]",
    ]
    for text in texts:
        assert [json.loads(t) for t in json_all([text])] == NDJSON_OBJECTS


def test_json_stream_every_split_text_and_bytes() -> None:
    text = "[" + ",\n".join(json.dumps(o, indent=1, ensure_ascii=False) for o in NDJSON_OBJECTS)
    text += "]"
    for chunks in every_two_way_split(text):
        assert [json.loads(t) for t in json_all(chunks)] == NDJSON_OBJECTS
    for chunks in every_two_way_split(text.encode()):
        assert [json.loads(t) for t in json_all(chunks)] == NDJSON_OBJECTS


def test_json_stream_unclosed_object_is_dropped_at_close() -> None:
    assert json_all(['{"a": 1}\n{"b": ']) == ['{"a": 1}']


def test_transport_sniffs_sse_and_passes_event_names() -> None:
    messages = transport_all(
        ["\n\n", "event: error\n", 'data: {"error": {"code": "x"}}\n\n', "data: [DONE]\n\n"]
    )
    assert messages == [TransportMessage({"error": {"code": "x"}}, "error")]


def test_transport_sniffs_ndjson_after_blank_chunks() -> None:
    messages = transport_all([b"", b"  \n", b'{"done"', b": true}\n"])
    assert messages == [TransportMessage({"done": True}, None)]


def test_transport_drops_non_json_data() -> None:
    messages = transport_all(['data: hello\n\ndata: {"a": 1}\n\ndata:\n\n'])
    assert messages == [TransportMessage({"a": 1}, None)]


def test_transport_empty_stream() -> None:
    assert transport_all([]) == []
    assert transport_all(["", b"  "]) == []


def test_is_transport_chunk() -> None:
    assert is_transport_chunk("x") and is_transport_chunk(b"x")
    assert is_transport_chunk(bytearray(b"x")) and is_transport_chunk(memoryview(b"x"))
    assert not is_transport_chunk({"a": 1})
    assert not is_transport_chunk(None)


@st.composite
def cut(draw: st.DrawFn, data: bytes) -> list[bytes]:
    points = sorted(draw(st.lists(st.integers(0, len(data)), max_size=20)))
    bounds = [0, *points, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(bounds)]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(json_objects(max_leaves=6), min_size=1, max_size=4),
    st.sampled_from(["\n", "\r\n", "\r"]),
    st.data(),
)
def test_random_sse_and_ndjson_streams_survive_random_byte_cuts(
    objects: list[dict[str, Any]], ending: str, data: st.DataObject
) -> None:
    sse = "".join(
        f"event: e{i}{ending}data: {json.dumps(o, ensure_ascii=False)}{ending}{ending}"
        for i, o in enumerate(objects)
    ).encode()
    expected = [TransportMessage(o, f"e{i}") for i, o in enumerate(objects)]
    assert transport_all(data.draw(cut(sse))) == expected
    ndjson = "".join(json.dumps(o, ensure_ascii=False) + ending for o in objects).encode()
    expected = [TransportMessage(o, None) for o in objects]
    assert transport_all(data.draw(cut(ndjson))) == expected
