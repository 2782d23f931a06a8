"""Hostile input for the Anthropic, Bedrock and LangChain translators: unusable indexes
never route text into another call, deep or cyclic argument objects never raise
``RecursionError`` (nor hang), and SDK-like objects that misbehave never make a
translator raise."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from callstream._assembly.types import CallFailure
from callstream._sync import collect
from callstream.providers._arguments import read_arguments
from callstream.providers._bad_index import BadIndex, BadIndexCalls, get_block_index, get_index
from callstream.providers.anthropic import AnthropicTranslator
from callstream.providers.bedrock import BedrockTranslator
from callstream.providers.langchain import LangChainTranslator
from tests.support.strategies import splits

BAD_INDEXES: list[Any] = [
    "a",
    "",
    " ",
    "1.0",
    1.5,
    float("nan"),
    True,
    False,
    -1,
    -(2**70),
    [0],
    {"i": 0},
    None,
]

# --- Anthropic ---------------------------------------------------------------------------


def a_start(
    index: Any, id_: str, name: str = "f", kind: str = "tool_use", input: Any = None
) -> dict[str, Any]:
    return {
        "type": "content_block_start",
        "index": index,
        "content_block": {
            "type": kind,
            "id": id_,
            "name": name,
            "input": {} if input is None else input,
        },
    }


def a_delta(index: Any, text: str) -> dict[str, Any]:
    return {
        "type": "content_block_delta",
        "index": index,
        "delta": {"type": "input_json_delta", "partial_json": text},
    }


def a_stop(index: Any) -> dict[str, Any]:
    return {"type": "content_block_stop", "index": index}


END = {"type": "message_delta", "delta": {"stop_reason": "tool_use"}}


@pytest.mark.parametrize("bad", BAD_INDEXES, ids=repr)
@pytest.mark.parametrize("kind", ["tool_use", "server_tool_use"])
def test_anthropic_bad_index_fails_its_own_call_only(bad: Any, kind: str) -> None:
    events = [
        a_start(0, "toolu_good"),
        a_delta(0, '{"a": '),
        a_start(bad, "toolu_bad", name="evil", kind=kind),
        a_delta(bad, '"EVIL", "b": 2}'),
        a_delta(0, "1}"),
        a_stop(bad),
        a_stop(0),
        END,
    ]
    result = collect(events)
    assert result.tool_calls == [
        {"name": "f", "args": {"a": 1}, "id": "toolu_good", "type": "tool_call"}
    ]
    if kind == "tool_use":
        (bad_call,) = result.invalid_tool_calls
        assert (bad_call["name"], bad_call["id"]) == ("evil", "toolu_bad")
        assert "unusable index" in (bad_call["error"] or "")
        assert result.server_tool_calls == []
    else:
        assert result.invalid_tool_calls == []
        assert result.server_tool_calls == [
            {"type": "server_tool_call", "name": "evil", "args": {}, "id": "toolu_bad"}
        ]


def test_anthropic_distinct_bad_values_get_distinct_keys() -> None:
    t = AnthropicTranslator()
    failures = [
        s
        for b in ["x", "y", "x", 1.5, True]
        for s in t.translate(a_start(b, f"t{b}"))
        if isinstance(s, CallFailure)
    ]
    keys = [f.index for f in failures]
    assert keys[0] == keys[2] and len({keys[0], keys[1], keys[3], keys[4]}) == 4


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from([0, 1, 2, "a", 1.5, True, -1, None]), st.text("ab", max_size=3)),
        max_size=12,
    ),
    st.data(),
)
def test_anthropic_interleaved_bad_and_good_blocks(
    plan: list[tuple[Any, str]], data: st.DataObject
) -> None:
    # Every valid call carries exactly its own text, whatever else the stream holds.
    events: list[Any] = []
    own: dict[str, str] = {}
    for n, (index, word) in enumerate(plan):
        call_id = f"toolu_{n}"
        args = json.dumps({"w": word, "n": n})
        events.append(a_start(index, call_id))
        events.extend(a_delta(index, piece) for piece in data.draw(splits(args, max_cuts=3)))
        events.append(a_stop(index))
        own[call_id] = args
    events.append(END)
    result = collect(events)
    for call in result.tool_calls:
        assert call["args"] == json.loads(own[call["id"] or ""])


# --- deep and cyclic argument objects ---------------------------------------------------------


def deep(depth: int) -> dict[str, Any]:
    value: Any = 1
    for _ in range(depth):
        value = {"a": value}
    return value


@pytest.mark.parametrize("depth", [50, 5_000, 150_000])
def test_anthropic_deep_start_input_never_raises(depth: int) -> None:
    events = [a_start(0, "toolu_deep", input=deep(depth)), a_stop(0), END]
    result = collect(events)
    if depth <= 50:
        assert result.tool_calls[0]["args"] == deep(depth)
    else:
        (call,) = result.invalid_tool_calls
        assert call["id"] == "toolu_deep"
        assert "deep" in (call["error"] or "") or "depth" in (call["error"] or "")


def test_cyclic_input_fails_with_a_reason_and_does_not_hang() -> None:
    cyclic: dict[str, Any] = {"a": 1}
    cyclic["self"] = cyclic
    events = [a_start(0, "toolu_cycle", input=cyclic), a_stop(0), END]
    (call,) = collect(events).invalid_tool_calls
    assert "cycle" in (call["error"] or "")
    text, error = read_arguments(cyclic, as_text=True)
    assert text is None and error is not None


@pytest.mark.parametrize("depth", [5_000, 150_000])
def test_bedrock_deep_decoded_input_never_raises(depth: int) -> None:
    events = [
        {
            "contentBlockStart": {
                "contentBlockIndex": 0,
                "start": {"toolUse": {"name": "f", "toolUseId": "t1"}},
            }
        },
        {
            "contentBlockDelta": {
                "contentBlockIndex": 0,
                "delta": {"toolUse": {"input": deep(depth)}},
            }
        },
        {"contentBlockStop": {"contentBlockIndex": 0}},
        {"messageStop": {"stopReason": "tool_use"}},
    ]
    result = collect(events)
    assert result.tool_calls == []
    (call,) = result.invalid_tool_calls
    assert call["id"] == "t1" and call["error"]


@pytest.mark.parametrize("depth", [5_000, 150_000])
def test_langchain_deep_args_never_raise(depth: int) -> None:
    server = [
        {
            "type": "server_tool_call",
            "name": "web_search",
            "args": deep(depth),
            "id": "ws_1",
            "index": 0,
        }
    ]
    result = collect(server, provider="langchain")
    assert result.tool_calls == [] and result.invalid_tool_calls == []
    assert result.server_tool_calls == [
        {"type": "server_tool_call", "name": "web_search", "args": {}, "id": "ws_1"}
    ]
    client = [{"type": "tool_call_chunk", "name": "f", "args": deep(depth), "id": "c1", "index": 0}]
    result = collect(client, provider="langchain")
    assert result.tool_calls == []
    (call,) = result.invalid_tool_calls
    assert call["id"] == "c1" and call["error"]


# --- Bedrock bad indexes ------------------------------------------------------------------------


@pytest.mark.parametrize("bad", BAD_INDEXES, ids=repr)
def test_bedrock_bad_index_fails_its_own_call_only(bad: Any) -> None:
    def start(index: Any, id_: str, kind: str) -> dict[str, Any]:
        return {
            "contentBlockStart": {
                "contentBlockIndex": index,
                "start": {"toolUse": {"name": id_, "toolUseId": id_, "type": kind}},
            }
        }

    def delta(index: Any, text: str) -> dict[str, Any]:
        return {
            "contentBlockDelta": {"contentBlockIndex": index, "delta": {"toolUse": {"input": text}}}
        }

    events = [
        start(0, "good", "tool_use"),
        delta(0, '{"a": '),
        start(bad, "bad", "server_tool_use"),
        delta(bad, '"EVIL"}'),
        delta(0, "1}"),
        {"contentBlockStop": {"contentBlockIndex": bad}},
        {"contentBlockStop": {"contentBlockIndex": 0}},
        {"messageStop": {"stopReason": "tool_use"}},
    ]
    result = collect(events)
    assert result.tool_calls == [
        {"name": "good", "args": {"a": 1}, "id": "good", "type": "tool_call"}
    ]
    assert result.server_tool_calls == [
        {"type": "server_tool_call", "name": "bad", "args": {}, "id": "bad"}
    ]
    assert result.invalid_tool_calls == []


# --- LangChain content blocks ----------------------------------------------------------------


@pytest.mark.parametrize("bad", [1.5, True, -1, [0], {"i": 0}], ids=repr)
def test_langchain_bad_block_index_fails_its_own_call(bad: Any) -> None:
    payloads = [
        {"type": "tool_call_chunk", "name": "f", "args": '{"a": ', "id": "c1", "index": 0},
        {
            "type": "server_tool_call_chunk",
            "name": "evil",
            "args": '"EVIL"}',
            "id": "s1",
            "index": bad,
        },
        {"type": "tool_call_chunk", "args": "1}", "index": 0},
    ]
    result = collect(payloads, provider="langchain")
    assert result.tool_calls == [{"name": "f", "args": {"a": 1}, "id": "c1", "type": "tool_call"}]
    assert [c["id"] for c in result.server_tool_calls] == ["s1"]
    assert result.server_tool_calls[0]["args"] == {}


def test_langchain_json_delta_for_a_client_index_is_not_read_twice() -> None:
    # old langchain-anthropic versions sent tool-call chunks for every block: the content
    # delta at the same index is the same text and must not be added again
    messages = pytest.importorskip("langchain_core.messages")
    chunks = [
        messages.AIMessageChunk(
            content=[
                {
                    "type": "server_tool_use",
                    "id": "srvtoolu_1",
                    "name": "web_search",
                    "input": {},
                    "index": 0,
                }
            ],
            tool_call_chunks=[
                {
                    "name": "web_search",
                    "id": "srvtoolu_1",
                    "args": "",
                    "index": 0,
                    "type": "tool_call_chunk",
                }
            ],
        ),
        messages.AIMessageChunk(
            content=[{"type": "input_json_delta", "partial_json": '{"query": "x"}', "index": 0}],
            tool_call_chunks=[
                {
                    "name": None,
                    "id": None,
                    "args": '{"query": "x"}',
                    "index": 0,
                    "type": "tool_call_chunk",
                }
            ],
        ),
    ]
    result = collect(chunks)
    assert result.tool_calls == []
    assert result.server_tool_calls == [
        {
            "type": "server_tool_call",
            "name": "web_search",
            "args": {"query": "x"},
            "id": "srvtoolu_1",
        }
    ]


# --- hostile SDK-like objects ------------------------------------------------------------------


class Exploding:
    """Every attribute read raises."""

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError(f"no {name}")


class Selfish:
    """Every attribute is the object itself (endless nesting)."""

    def __getattr__(self, name: str) -> Any:
        return self


class BadMapping(Mapping[str, Any]):
    """A mapping whose reads raise."""

    def __getitem__(self, key: str) -> Any:
        raise KeyError(key)

    def get(self, key: str, default: Any = None) -> Any:
        raise RuntimeError("get")

    def __iter__(self) -> Iterator[str]:
        raise RuntimeError("iter")

    def __len__(self) -> int:
        return 1


class NastyInt(int):
    def __hash__(self) -> int:
        raise RuntimeError("hash")

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("eq")

    def __lt__(self, other: object) -> bool:
        raise RuntimeError("lt")

    def __ge__(self, other: object) -> bool:
        raise RuntimeError("ge")


class RaisingProperty:
    type = "content_block_start"
    index = 0

    @property
    def content_block(self) -> Any:
        raise RuntimeError("content_block")


class HostileInput:
    type = "tool_use"
    id = "toolu_h"
    name = "f"

    @property
    def input(self) -> Any:
        return BadMapping()


class ModelDumpRaises:
    def model_dump(self) -> Any:
        raise RuntimeError("dump")


HOSTILE: list[Any] = [
    Exploding(),
    Selfish(),
    BadMapping(),
    RaisingProperty(),
    {"type": "content_block_start", "index": NastyInt(1), "content_block": HostileInput()},
    {
        "type": "content_block_start",
        "index": 2,
        "content_block": {"type": "tool_use", "id": "t", "name": "f", "input": ModelDumpRaises()},
    },
    {
        "type": "content_block_delta",
        "index": NastyInt(1),
        "delta": {"type": "input_json_delta", "partial_json": "{}"},
    },
    {"type": "content_block_stop", "index": NastyInt(1)},
    {"type": "content_block_stop", "index": 2},
    {"contentBlockStart": {"contentBlockIndex": NastyInt(0), "start": {"toolUse": Selfish()}}},
    {
        "contentBlockDelta": {
            "contentBlockIndex": NastyInt(0),
            "delta": {"toolUse": {"input": BadMapping()}},
        }
    },
    {"contentBlockStart": Exploding()},
    {"chunk": {"bytes": b"\xff"}},
    {"chunk": {"bytes": "not base64 !"}},
    {"chunk": Exploding()},
]


def test_hostile_objects_never_make_the_translators_raise() -> None:
    for translator in (AnthropicTranslator(), BedrockTranslator()):
        for payload in HOSTILE:
            assert isinstance(translator.translate(payload), list)
    lc = LangChainTranslator()
    for block in [
        *HOSTILE,
        {"type": "server_tool_call", "args": BadMapping(), "index": 0, "id": "s", "name": "n"},
    ]:
        assert isinstance(lc.translate({"tool_call_chunks": [], "content": [block]}), list)


def test_hostile_inputs_become_invalid_calls_with_reasons() -> None:
    events = [
        {"type": "content_block_start", "index": NastyInt(1), "content_block": HostileInput()},
        {"type": "content_block_stop", "index": 1},
        {
            "type": "content_block_start",
            "index": 2,
            "content_block": {
                "type": "tool_use",
                "id": "t2",
                "name": "g",
                "input": ModelDumpRaises(),
            },
        },
        {"type": "content_block_stop", "index": 2},
        END,
    ]
    result = collect(events)
    assert result.tool_calls == []
    assert [(c["id"], bool(c["error"])) for c in result.invalid_tool_calls] == [
        ("toolu_h", True),
        ("t2", True),
    ]


def bad(value: Any) -> BadIndex:
    found = get_block_index({"index": value}, "index")
    assert isinstance(found, BadIndex), value
    return found


def test_block_indexes_and_private_keys() -> None:
    good = [get_block_index({"index": v}, "index") for v in [0, 7, "3", " 4 ", NastyInt(5)]]
    assert good == [0, 7, 3, 4, 5]
    assert all(isinstance(bad(v), BadIndex) for v in BAD_INDEXES)
    assert get_index({"index": None}, "index") is None  # absent is not unusable here
    keys = BadIndexCalls()
    assert keys.key(bad("a")) == keys.key(bad("a")) != keys.fresh() != keys.fresh()
    assert len({keys.key(bad(True)), keys.key(bad(1.0)), keys.key(bad("1.0"))}) == 3
    assert keys.find(bad("a")) is not None and keys.find(bad([0])) is None
    assert all(k < -(2**63) for k in [keys.key(bad("z")), keys.key(bad([1]))])


def test_long_string_indexes_are_told_apart_by_every_character() -> None:
    # The description is cut to 60 characters; the key is not (LangChain's own indexes).
    keys = BadIndexCalls()
    one, two = bad("lc_" + "x" * 80 + "1"), bad("lc_" + "x" * 80 + "2")
    assert one.text == two.text and keys.key(one) != keys.key(two)


def test_bedrock_bad_block_index_fails_with_the_shared_reason() -> None:
    start = {
        "contentBlockStart": {
            "contentBlockIndex": "x",
            "start": {"toolUse": {"name": "f", "toolUseId": "t1"}},
        }
    }
    failures = [s for s in BedrockTranslator().translate(start) if isinstance(s, CallFailure)]
    assert [f.error for f in failures] == [
        'unusable contentBlockIndex "x": the provider\'s index is not a non-negative integer,'
        " so these pieces belong to no known call"
    ]
