"""``stream_of`` writing OpenAI Responses items other than function calls (custom tools,
shell, the client's built-in tools, hosted tools): reading them back gives what the
"OpenAI Responses items" table of the reading guide says each item becomes, for every
quirk of the format, every split and the bytes; the events are openai-python's types."""

from __future__ import annotations

import os
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import callstream
from callstream.testing import (
    ITEM_TYPES,
    QUIRKS,
    SPLITS,
    StreamDropped,
    WireCall,
    stream_of,
    write_calls,
)
from tests.support.strategies import json_text

EXAMPLES = int(os.environ.get("CALLSTREAM_TESTING_EXAMPLES", "8"))
SUPPRESSED = [HealthCheck.too_slow]

#: the items callstream lists in server_tool_calls (the provider runs them)
SERVER = {
    "mcp_call",
    "web_search_call",
    "file_search_call",
    "code_interpreter_call",
    "image_generation_call",
}
RESPONSES_QUIRKS = [q for q, info in QUIRKS.items() if "openai-responses" in info.formats]
CUTTING = ("token-limit", "provider-error", "dropped-connection")

# values without nulls in objects (a Responses item's null fields are left out when read)
_leaf = (
    st.booleans()
    | st.integers(-(10**9), 10**9)
    | st.floats(allow_nan=False, allow_infinity=False)
    | json_text
)
_plain = st.recursive(
    _leaf,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(json_text, inner, max_size=3),
    max_leaves=6,
)
_ints = st.integers(0, 10**6)


def _item(name: Any, args: Any) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({"name": name, "args": args})


_ITEMS: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    "function_call": _item(
        st.sampled_from(["get_weather", "search"]), st.dictionaries(json_text, _plain, max_size=3)
    ),
    "custom_tool_call": _item(
        st.sampled_from(["apply_patch", "run_sql"]), json_text.map(lambda t: {"__arg1": t})
    ),
    "shell_call": _item(
        st.just("shell"),
        st.fixed_dictionaries(
            {
                "action": st.fixed_dictionaries(
                    {"commands": st.lists(json_text, max_size=3)},
                    optional={"timeout_ms": _ints, "max_output_length": _ints},
                )
            }
        ),
    ),
    "local_shell_call": _item(
        st.just("local_shell"),
        st.fixed_dictionaries(
            {
                "action": st.fixed_dictionaries(
                    {
                        "type": st.just("exec"),
                        "command": st.lists(json_text, min_size=1, max_size=3),
                        "env": st.dictionaries(json_text, json_text, max_size=2),
                    }
                )
            }
        ),
    ),
    "apply_patch_call": _item(
        st.just("apply_patch"),
        st.fixed_dictionaries(
            {
                "operation": st.fixed_dictionaries(
                    {"type": st.just("update_file"), "path": json_text, "diff": json_text}
                )
            }
        ),
    ),
    "computer_call": _item(
        st.just("computer"),
        st.fixed_dictionaries(
            {
                "action": st.fixed_dictionaries(
                    {"type": st.just("click"), "button": st.just("left"), "x": _ints, "y": _ints}
                ),
                "pending_safety_checks": st.just([]),
            }
        ),
    ),
    "mcp_call": _item(
        st.sampled_from(["create_issue", "search_docs"]),
        st.dictionaries(json_text, _plain, max_size=3),
    ),
    "web_search_call": _item(
        st.just("web_search"),
        st.fixed_dictionaries(
            {"action": st.fixed_dictionaries({"type": st.just("search"), "query": json_text})}
        ),
    ),
    "file_search_call": _item(
        st.just("file_search"), st.fixed_dictionaries({"queries": st.lists(json_text, max_size=3)})
    ),
    "code_interpreter_call": _item(
        st.just("code_interpreter"),
        st.fixed_dictionaries({"container_id": st.just("cntr_1"), "code": json_text}),
    ),
    "image_generation_call": _item(
        st.just("image_generation"),
        st.fixed_dictionaries(
            {},
            optional={
                "size": st.sampled_from(["1024x1024", "auto"]),
                "quality": st.sampled_from(["low", "high"]),
                "revised_prompt": json_text,
            },
        ),
    ),
}
assert set(_ITEMS) == set(ITEM_TYPES)


def _typed(kinds: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    return st.sampled_from(kinds).flatmap(lambda k: _ITEMS[k].map(lambda c: {**c, "item_type": k}))


def _numbered(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**call, "id": f"id_{n}"} for n, call in enumerate(calls)]


_calls = st.lists(_typed(list(ITEM_TYPES)), min_size=1, max_size=4).map(_numbered)
# a cut needs a last call whose text streams: a function or a custom tool call
_cut_calls = st.tuples(
    st.lists(_typed(list(ITEM_TYPES)), max_size=3), _typed(["function_call", "custom_tool_call"])
).map(lambda pair: _numbered([*pair[0], pair[1]]))


def _triples(calls: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [(c["name"], c["id"], c["args"]) for c in calls]


def check_items(stream: Any, calls: list[dict[str, Any]], quirk: str | None) -> None:
    """What the reading guide's Responses items table says each call becomes."""
    if quirk == "dropped-connection":
        with pytest.raises(StreamDropped) as caught:
            callstream.collect(stream)
        result = caught.value.callstream_result  # type: ignore[attr-defined]
        assert result.interrupted
    else:
        result = callstream.collect(stream)
    whole = calls[:-1] if quirk in CUTTING else calls
    client = [c for c in whole if c["item_type"] not in SERVER]
    server = [c for c in whole if c["item_type"] in SERVER]
    assert _triples(result.tool_calls) == _triples(client)
    assert _triples(result.server_tool_calls) == _triples(server)
    for call in whole:
        extras = result.call_extras.get(call["id"], {})
        if call["item_type"] != "function_call":
            assert extras["item_type"] == call["item_type"]
        if call["item_type"] in SERVER:
            assert extras["status"] == "completed"
        if call["item_type"] == "custom_tool_call":
            assert extras["input"] == call["args"]["__arg1"]
    if quirk in CUTTING:
        assert [(c["name"], c["id"]) for c in result.invalid_tool_calls] == [
            (calls[-1]["name"], calls[-1]["id"])
        ]
    else:
        assert result.invalid_tool_calls == []
    if quirk == "token-limit":
        assert result.finish_reason == "length"
    elif quirk == "provider-error":
        assert result.finish_reason == "error" and result.provider_error
    elif quirk != "dropped-connection":
        assert result.finish_reason == ("tool_calls" if client else "stop")


#: every quirk of the format alone, and the parallel calls interleaved with each cut
QUIRK_SETS = [
    (),
    *((q,) for q in RESPONSES_QUIRKS),
    *(("interleaved", q) for q in CUTTING),
]


def _cases() -> list[Any]:
    return [
        pytest.param(quirks, split, id=f"{'+'.join(quirks) or 'plain'}-{split}")
        for quirks in QUIRK_SETS
        for split in SPLITS
    ]


@pytest.mark.parametrize(("quirks", "split"), _cases())
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=SUPPRESSED)
@given(data=st.data(), seed=st.integers(0, 2**32))
def test_items_read_back_as_the_guide_says(
    quirks: tuple[Any, ...], split: Any, data: st.DataObject, seed: int
) -> None:
    outcome = next((q for q in quirks if q in CUTTING), None)
    calls = data.draw(_cut_calls if outcome else _calls)
    stream = stream_of(calls, format="openai-responses", split=split, quirks=quirks, seed=seed)
    check_items(stream, calls, outcome)


@pytest.mark.parametrize("quirk", [None, *RESPONSES_QUIRKS])
@settings(max_examples=max(2, EXAMPLES // 2), deadline=None, suppress_health_check=SUPPRESSED)
@given(data=st.data(), seed=st.integers(0, 2**32))
def test_items_as_bytes_read_the_same(quirk: str | None, data: st.DataObject, seed: int) -> None:
    calls = data.draw(_cut_calls if quirk in CUTTING else _calls)
    quirks: Any = () if quirk is None else (quirk,)
    stream = stream_of(
        calls, format="openai-responses", split="random", quirks=quirks, seed=seed, as_="bytes"
    )
    check_items(stream, calls, quirk)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=SUPPRESSED)
@given(calls=_calls, seed=st.integers(0, 2**32), split=st.sampled_from(SPLITS))
def test_the_events_are_openai_python_types(
    calls: list[dict[str, Any]], seed: int, split: Any
) -> None:
    pydantic = pytest.importorskip("pydantic")
    responses = pytest.importorskip("openai.types.responses")
    adapter = pydantic.TypeAdapter(responses.ResponseStreamEvent)
    stream = stream_of(calls, format="openai-responses", split=split, seed=seed)
    objects = [adapter.validate_python(event) for event in stream]
    assert type(objects[0]).__name__ == "ResponseCreatedEvent"
    check_items(objects, calls, None)


@pytest.mark.parametrize("quirks", [(), ("token-limit",), ("provider-error",)])
def test_text_and_reasoning_stream_every_event_and_the_final_output(quirks: Any) -> None:
    pydantic = pytest.importorskip("pydantic")
    responses = pytest.importorskip("openai.types.responses")
    adapter = pydantic.TypeAdapter(responses.ResponseStreamEvent)
    calls = [
        {"name": "f", "args": {"a": [1]}, "id": "call_1", "item_type": "function_call"},
        {**CUSTOM, "id": "call_2"},
        {"name": "g", "args": {"b": "x"}, "id": "call_3", "item_type": "function_call"},
    ]
    stream = stream_of(
        calls, format="openai-responses", text="Sure.", reasoning="Hmm.", quirks=quirks
    )
    objects = [adapter.validate_python(event) for event in stream]
    kinds = [o.type for o in objects]
    message = kinds[kinds.index("response.content_part.added") - 1 :][:6]
    assert message == [
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
    ]
    assert kinds[1:7] == [
        "response.output_item.added",
        "response.reasoning_summary_part.added",
        "response.reasoning_summary_text.delta",
        "response.reasoning_summary_text.done",
        "response.reasoning_summary_part.done",
        "response.output_item.done",
    ]
    done = [o.item for o in objects if o.type == "response.output_item.done"]
    assert done[1].content[0].text == "Sure." and done[0].summary[0].text == "Hmm."
    end = objects[-1]
    if quirks:  # the cut call never finishes: no completed response
        assert end.type != "response.completed" and len(done) == 4
    else:  # every finished item, in output order, as the server repeats them
        assert end.type == "response.completed"
        assert [i.id for i in end.response.output] == [i.id for i in done]
        assert [getattr(i, "call_id", None) for i in end.response.output[2:]] == [
            "call_1",
            "call_2",
            "call_3",
        ]
    result = callstream.collect(stream, reasoning=True)
    assert (result.text, result.reasoning) == ("Sure.", "Hmm.")
    check_items(objects, calls, quirks[0] if quirks else None)


def test_each_item_streams_its_real_events() -> None:
    calls = [
        {"name": "apply_patch", "args": {"__arg1": "*** Begin"}, "item_type": "custom_tool_call"},
        {"name": "shell", "args": {"action": {"commands": ["ls -la"]}}, "item_type": "shell_call"},
        {
            "name": "code_interpreter",
            "args": {"container_id": "cntr_1", "code": "print(1)"},
            "item_type": "code_interpreter_call",
        },
        {
            "name": "web_search",
            "args": {"action": {"type": "search", "query": "q"}},
            "item_type": "web_search_call",
            "id": "ws_1",
        },
    ]
    kinds = [event["type"] for event in stream_of(calls, format="openai-responses", split="whole")]
    assert kinds == [
        "response.created",
        "response.output_item.added",
        "response.custom_tool_call_input.delta",
        "response.custom_tool_call_input.done",
        "response.output_item.done",
        "response.output_item.added",
        "response.shell_call_command.added",
        "response.shell_call_command.delta",
        "response.shell_call_command.done",
        "response.output_item.done",
        "response.output_item.added",
        "response.code_interpreter_call.in_progress",
        "response.code_interpreter_call_code.delta",
        "response.code_interpreter_call_code.done",
        "response.code_interpreter_call.interpreting",
        "response.code_interpreter_call.completed",
        "response.output_item.done",
        "response.output_item.added",
        "response.web_search_call.in_progress",
        "response.web_search_call.searching",
        "response.web_search_call.completed",
        "response.output_item.done",
        "response.completed",
    ]
    result = callstream.collect(stream_of(calls, format="openai-responses"))
    assert [c["name"] for c in result.tool_calls] == ["apply_patch", "shell"]
    assert [c["id"] for c in result.server_tool_calls] == ["call_2", "ws_1"]


CUSTOM = {"name": "apply_patch", "args": {"__arg1": "x"}, "item_type": "custom_tool_call"}
WEB = {"name": "web_search", "args": {"action": {"type": "search"}}, "item_type": "web_search_call"}


@pytest.mark.parametrize(
    ("call", "kwargs", "match"),
    [
        (
            CUSTOM,
            {"format": "anthropic"},
            r"a custom_tool_call item is written in openai-responses",
        ),
        ({**CUSTOM, "item_type": "tool_call"}, {}, r"\['item_type'\] 'tool_call': one of"),
        ({**WEB, "name": "search"}, {}, "read back named 'web_search', not 'search'"),
        ({**CUSTOM, "args": {"text": "x"}}, {}, r"args are \{'__arg1': input text\}"),
        ({**CUSTOM, "args": {"__arg1": 1}}, {}, r"args are \{'__arg1': input text\}"),
        ({**WEB, "args": {"action": {}, "q": 1}}, {}, "its fields action; not 'q'"),
        ({**WEB, "args": {}}, {}, "needs args 'action'"),
        (
            {**WEB, "args": {"action": {"query": None}}},
            {},
            r"null member args\['action'\]\['query'\]",
        ),
        (
            {"name": "shell", "args": {"action": {"commands": "ls"}}, "item_type": "shell_call"},
            {},
            "'commands', a list of str",
        ),
        (
            {
                "name": "code_interpreter",
                "args": {"container_id": 1, "code": ""},
                "item_type": "code_interpreter_call",
            },
            {},
            "container_id and code are str",
        ),
        (WEB, {"quirks": ["token-limit"]}, "cuts the last call, whose text must stream"),
    ],
)
def test_item_misuse_raises_a_precise_error(
    call: dict[str, Any], kwargs: dict[str, Any], match: str
) -> None:
    with pytest.raises(ValueError, match=match):
        stream_of([call], **{"format": "openai-responses", **kwargs})


def test_write_calls_takes_items_in_responses_only() -> None:
    call = WireCall("c", "apply_patch", ("x",), "custom_tool_call")
    assert write_calls([call], format="openai-responses")[1]["item"]["type"] == "custom_tool_call"
    with pytest.raises(ValueError, match="written in openai-responses only"):
        write_calls([call], format="openai-chat")
    with pytest.raises(ValueError, match="unknown item 'nope'"):
        write_calls([WireCall("c", "f", ("{}",), "nope")], format="openai-responses")


def test_a_failed_response_reads_the_same_as_sdk_objects() -> None:
    pydantic = pytest.importorskip("pydantic")
    responses = pytest.importorskip("openai.types.responses")
    adapter = pydantic.TypeAdapter(responses.ResponseStreamEvent)
    function = {"name": "f", "args": {"a": [1]}, "id": "call_2", "item_type": "function_call"}
    calls = [{**CUSTOM, "id": "call_1"}, function]
    stream = stream_of(calls, format="openai-responses", quirks=["provider-error"])
    objects = [adapter.validate_python(event) for event in stream]
    assert type(objects[-1]).__name__ == "ResponseFailedEvent"
    check_items(objects, calls, "provider-error")
