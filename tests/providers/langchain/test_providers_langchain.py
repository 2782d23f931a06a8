"""LangChain translator: AIMessageChunk.tool_call_chunks, plain chunk dicts, the end of the
stream from response_metadata / chunk_position, and precise errors for bad user chunks."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from callstream._assembly.types import CallChunk, StreamEnd
from callstream._errors import ChunkValidationError
from callstream._sync import collect
from callstream.providers import detect_format
from callstream.providers.langchain import LangChainTranslator, detect, validate_chunk
from tests.support.strategies import json_objects, splits


def tcc(
    name: str | None = None, args: Any = None, id: str | None = None, index: Any = None
) -> dict[str, Any]:
    return {"name": name, "args": args, "id": id, "index": index, "type": "tool_call_chunk"}


def message(chunks: list[dict[str, Any]], **extra: Any) -> SimpleNamespace:
    """An object shaped like AIMessageChunk (attribute access, no LangChain needed)."""
    fields = {
        "content": "",
        "tool_call_chunks": chunks,
        "response_metadata": {},
        "chunk_position": None,
    }
    fields.update(extra)
    return SimpleNamespace(**fields)


def test_detect() -> None:
    assert detect(message([]))
    assert detect({"type": "AIMessageChunk", "tool_call_chunks": []})
    assert detect(tcc("f", "{}", "c", 0))
    assert detect({"name": "f", "args": "{}"})
    assert detect([tcc("f"), tcc(args="{}")])
    assert not detect([])
    assert not detect({})
    assert not detect({"type": "ping"})
    assert not detect({"name": "f", "other": 1})
    assert not detect({"choices": []})
    assert detect_format(message([])) == "langchain"
    assert detect_format(tcc("f")) == "langchain"


def test_signals_and_end_from_metadata_once() -> None:
    t = LangChainTranslator()
    assert t.translate(message([tcc("f", '{"a"', "c1", 0)])) == [
        CallChunk(name="f", args='{"a"', id="c1", index=0)
    ]
    last = message([], response_metadata={"finish_reason": "tool_calls"})
    assert t.translate(last) == [StreamEnd(reason="tool_calls", provider_reason="tool_calls")]
    # every end a message states is reported; the assembler keeps the first (issue 12)
    assert t.translate(message([], chunk_position="last")) == [StreamEnd(reason=None)]


def test_chunk_position_last_ends_without_reason() -> None:
    assert LangChainTranslator().translate(message([], chunk_position="last")) == [
        StreamEnd(reason=None)
    ]


def test_anthropic_stop_reason_max_tokens_cuts_off() -> None:
    payloads = [
        message([tcc("make_file", "", "toolu_1", 1)]),
        message([tcc(None, '{"filename": "taxes', None, 1)]),
        message([], response_metadata={"stop_reason": "max_tokens"}),
    ]
    result = collect(payloads)
    assert result.tool_calls == []
    [bad] = result.invalid_tool_calls
    assert bad["name"] == "make_file" and bad["error"] is not None and "cut off" in bad["error"]


def test_plain_chunk_dicts_and_lists() -> None:
    payloads = [
        tcc("f", "", "c1", 0),
        [tcc(None, '{"x":', None, 0), tcc("g", "{}", "c2", 1)],
        {"args": " 1}", "index": 0},
    ]
    result = collect(payloads)
    assert [(c["name"], c["id"], c["args"]) for c in result.tool_calls] == [
        ("f", "c1", {"x": 1}),
        ("g", "c2", {}),
    ]
    assert result.finish_reason is None


def test_index_as_digit_string_is_accepted() -> None:
    assert validate_chunk({"index": "0", "name": "f"})["index"] == 0


@pytest.mark.parametrize(
    ("chunk", "field"),
    [
        ({"index": "lc_0", "name": "f"}, "index"),
        ({"index": True}, "index"),
        ({"index": 1.5}, "index"),
        ({"args": 5}, "args"),
        ({"args": [1, 2]}, "args"),
        ({"name": 7}, "name"),
        ({"id": 3}, "id"),
    ],
)
def test_wrong_types_raise_precise_errors(chunk: dict[str, Any], field: str) -> None:
    with pytest.raises(ChunkValidationError) as info:
        LangChainTranslator().translate(
            chunk if field != "args" and field != "index" else dict(chunk, name="f")
        )
    text = str(info.value)
    assert field in text
    assert repr(chunk[field]) in text
    assert isinstance(info.value, TypeError)


def test_not_a_mapping_inside_a_message() -> None:
    with pytest.raises(ChunkValidationError, match="mapping"):
        LangChainTranslator().translate(message([5]))


def test_odd_payloads_are_ignored() -> None:
    t = LangChainTranslator()
    for payload in [None, 3, "x", {"foo": 1}, {"type": "other"}, SimpleNamespace(content="hi")]:
        assert t.translate(payload) == []


# --- real LangChain objects -----------------------------------------------------------------

names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=10)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(names, json_objects(max_leaves=6)), min_size=1, max_size=3), st.data())
def test_aimessagechunks_random_splits_match_langchain(
    items: list[tuple[str, dict[str, Any]]], data: st.DataObject
) -> None:
    messages = pytest.importorskip("langchain_core.messages")
    chunks = []
    for i, (name, args) in enumerate(items):
        chunks.append(
            messages.AIMessageChunk(content="", tool_call_chunks=[tcc(name, "", f"call_{i}", i)])
        )
        for frag in data.draw(splits(json.dumps(args), max_cuts=8)):
            chunks.append(
                messages.AIMessageChunk(content="", tool_call_chunks=[tcc(None, frag, None, i)])
            )
    chunks.append(
        messages.AIMessageChunk(
            content="", response_metadata={"finish_reason": "tool_calls"}, chunk_position="last"
        )
    )
    result = collect(chunks)
    expected = [
        {"name": n, "args": a, "id": f"call_{i}", "type": "tool_call"}
        for i, (n, a) in enumerate(items)
    ]
    assert result.tool_calls == expected
    assert result.finish_reason == "tool_calls"
    gathered = chunks[0]
    for c in chunks[1:]:
        gathered = gathered + c
    assert [(c["name"], c["args"], c["id"]) for c in gathered.tool_calls] == [
        (c["name"], c["args"], c["id"]) for c in expected
    ]
    # and their dict dumps read the same
    assert collect([c.model_dump() for c in chunks]).tool_calls == expected
