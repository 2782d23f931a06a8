"""Misuse of the transport decoders and the tool helpers raises callstream's own errors.

``except CallstreamError`` must catch every error callstream raises on purpose, and a
misuse must never pass silently as data: ``bytes(5)`` is five NUL bytes, so an int fed to
a decoder used to become text; ``describe_tool(..., description=5)`` used to put an int
in the tool. Both are :class:`~callstream.OptionTypeError` now (a ``UsageError`` and a
``TypeError``).
"""

from __future__ import annotations

from typing import Any

import pytest

from callstream import CallstreamError, OptionTypeError, UsageError
from callstream.providers.transport import JSONStreamDecoder, SSEDecoder, TransportDecoder
from callstream.tools import describe_tool, to_anthropic_tool, to_openai_tool, tool_adapter

DECODERS = [SSEDecoder, JSONStreamDecoder, TransportDecoder]
NOT_CHUNKS = [5, 0, True, None, [1, 2], {"data": "{}"}, 1.5, object()]


def check(error: BaseException) -> None:
    assert isinstance(error, CallstreamError)
    assert isinstance(error, UsageError)
    assert isinstance(error, TypeError)


@pytest.mark.parametrize("decoder_class", DECODERS)
@pytest.mark.parametrize("item", NOT_CHUNKS, ids=repr)
def test_a_decoder_refuses_what_is_not_a_chunk(decoder_class: Any, item: Any) -> None:
    decoder = decoder_class()
    with pytest.raises(OptionTypeError, match="transport chunk must be str, bytes") as caught:
        decoder.feed(item)
    check(caught.value)


@pytest.mark.parametrize("decoder_class", DECODERS)
def test_a_refused_item_leaves_the_decoder_usable(decoder_class: Any) -> None:
    chunks = ['data: {"a": 1}\n\n', b'data: {"b": 2}\n\n']
    if decoder_class is JSONStreamDecoder:
        chunks = ['{"a": 1}\n', b'{"b": 2}\n']
    decoder = decoder_class()
    out = list(decoder.feed(chunks[0]))
    with pytest.raises(OptionTypeError):
        decoder.feed(7)
    out += decoder.feed(chunks[1])
    out += decoder.close()
    assert len(out) == 2


def test_transport_decoder_refuses_a_bad_item_while_sniffing_and_forgets_it() -> None:
    decoder = TransportDecoder()
    assert decoder.feed("  \n") == []  # still deciding between SSE and JSON
    with pytest.raises(OptionTypeError):
        decoder.feed(3)
    messages = decoder.feed('{"a": 1}\n') + decoder.close()
    assert [message.payload for message in messages] == [{"a": 1}]


@pytest.mark.parametrize("decoder_class", DECODERS)
def test_every_chunk_type_still_decodes(decoder_class: Any) -> None:
    text = (
        '{"a": "\u00e9"}\n' if decoder_class is JSONStreamDecoder else 'data: {"a": "\u00e9"}\n\n'
    )
    raw = text.encode()
    for chunk in (text, raw, bytearray(raw), memoryview(raw)):
        decoder = decoder_class()
        assert len(decoder.feed(chunk) + decoder.close()) == 1


def weather(city: str) -> str:
    """Get the weather."""
    return city


TOOLS: list[Any] = [
    weather,
    {"name": "weather", "parameters": {"type": "object", "properties": {}}},
    {"type": "function", "function": {"name": "weather"}},
    {"name": "weather", "input_schema": {"type": "object"}},
    {"title": "weather", "type": "object", "properties": {}},
]


@pytest.mark.parametrize("tool", TOOLS, ids=lambda tool: type(tool).__name__)
@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("name", 5),
        ("name", b"weather"),
        ("description", 5),
        ("description", ["a"]),
        ("strict", "yes"),
        ("strict", 1),
    ],
)
def test_tool_options_of_the_wrong_type_are_option_type_errors(
    tool: Any, option: str, value: Any
) -> None:
    for helper in (describe_tool, to_openai_tool, to_anthropic_tool):
        with pytest.raises(OptionTypeError, match=f"{option} must be a") as caught:
            helper(tool, **{option: value})
        check(caught.value)


def test_tool_adapter_strict_of_the_wrong_type_is_an_option_type_error() -> None:
    with pytest.raises(OptionTypeError, match="strict must be a bool"):
        tool_adapter(weather, strict="yes")  # type: ignore[arg-type]


def test_tool_options_of_the_right_type_still_work() -> None:
    tool = describe_tool(weather, name="forecast", description="The forecast.", strict=True)
    assert (tool.name, tool.description, tool.strict) == ("forecast", "The forecast.", True)
    tool = describe_tool(TOOLS[1], name=None, description=None, strict=None)
    assert (tool.name, tool.description, tool.strict) == ("weather", None, False)
