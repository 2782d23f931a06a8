"""``--split`` at the payload level (``cli._split.resplit``): every format it re-cuts, misuse.

``tests/cli/test_cli.py`` covers OpenAI Chat, Anthropic and OpenAI Responses through the
bundled examples; the formats without a bundled example (Bedrock Converse, Cohere v2) are
checked here on hand-written payloads in their wire shapes and on the recorded streams
(skipped without the corpus). The size check raises callstream's own errors, so
``except CallstreamError`` catches it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import callstream
from callstream import CallstreamError, OptionTypeError, OptionValueError, UsageError
from callstream.cli._split import SPLIT_FORMATS, resplit
from tests.support.corpus import RECORDED_STREAMS

TEXT = '{"city": "Paris", "days": [1, 2, 3]}'


def bedrock(text: str) -> dict[str, Any]:
    return {"contentBlockDelta": {"contentBlockIndex": 1, "delta": {"toolUse": {"input": text}}}}


def bedrock_flat(text: str) -> dict[str, Any]:
    return {"contentBlockIndex": 1, "delta": {"toolUse": {"input": text}}}


def cohere(text: str) -> dict[str, Any]:
    return {
        "type": "tool-call-delta",
        "index": 0,
        "delta": {"message": {"tool_calls": {"function": {"arguments": text}}}},
    }


def cohere_list(text: str) -> dict[str, Any]:
    return {
        "type": "tool-call-delta",
        "index": 0,
        "delta": {"message": {"tool_calls": [{"function": {"arguments": text}}]}},
    }


def text_of(payload: dict[str, Any]) -> str:
    if "contentBlockDelta" in payload:
        payload = payload["contentBlockDelta"]
    if "delta" in payload and "toolUse" in payload["delta"]:
        return str(payload["delta"]["toolUse"]["input"])
    calls = payload["delta"]["message"]["tool_calls"]
    return str((calls[0] if isinstance(calls, list) else calls)["function"]["arguments"])


@pytest.mark.parametrize(
    ("shape", "wire_format"),
    [(bedrock, "bedrock"), (bedrock_flat, "bedrock"), (cohere, "cohere"), (cohere_list, "cohere")],
)
@pytest.mark.parametrize("size", [1, 3, 7])
def test_one_fragment_formats_are_re_cut(shape: Any, wire_format: str, size: int) -> None:
    whole = shape(TEXT)
    cut = list(resplit([whole], wire_format, size))
    assert len(cut) == -(-len(TEXT) // size)
    assert "".join(text_of(payload) for payload in cut) == TEXT
    assert all(len(text_of(payload)) <= size for payload in cut)
    assert all(payload == shape(text_of(payload)) for payload in cut), "nothing else changes"
    assert whole == shape(TEXT), "the payload given is left as it was"


def test_payloads_without_argument_text_pass_unchanged() -> None:
    others = [
        {"type": "tool-call-delta", "delta": {"message": {"tool_calls": [1, 2]}}},
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "hello there"}}},
        {"type": "content_block_delta", "delta": {"type": "text_delta", "text": "hello"}},
        "not a dict",
    ]
    for wire_format in SPLIT_FORMATS:
        assert list(resplit(others, wire_format, 1)) == others


RECORDED = (
    sorted(
        path.name
        for prefix in ("bedrock_", "cohere_")
        for path in RECORDED_STREAMS.glob(f"{prefix}*.jsonl")
    )
    if RECORDED_STREAMS.is_dir()
    else []
)


@pytest.mark.skipif(not RECORDED, reason="the recorded-streams corpus is not there")
@pytest.mark.parametrize("name", RECORDED or ["(none)"])
@pytest.mark.parametrize("size", [1, 5])
def test_recorded_streams_re_cut_give_the_same_calls(name: str, size: int) -> None:
    lines = (RECORDED_STREAMS / name).read_text(encoding="utf-8").splitlines()
    payloads = [json.loads(line) for line in lines if line.strip()]
    wire_format = "bedrock" if name.startswith("bedrock") else "cohere"
    whole = callstream.collect(payloads, provider=wire_format)
    cut = callstream.collect(resplit(payloads, wire_format, size), provider=wire_format)
    assert cut.tool_calls == whole.tool_calls
    assert cut.invalid_tool_calls == whole.invalid_tool_calls


@pytest.mark.parametrize("size", [0, -3])
def test_a_size_below_one_is_an_option_value_error(size: int) -> None:
    with pytest.raises(OptionValueError, match="at least 1") as caught:
        resplit([bedrock(TEXT)], "bedrock", size)
    assert isinstance(caught.value, CallstreamError) and isinstance(caught.value, UsageError)
    assert isinstance(caught.value, ValueError), "still a ValueError, as before"


@pytest.mark.parametrize("size", ["3", 2.0, True, None])
def test_a_size_that_is_no_int_is_an_option_type_error(size: Any) -> None:
    with pytest.raises(OptionTypeError, match="must be an int"):
        resplit([bedrock(TEXT)], "bedrock", size)
