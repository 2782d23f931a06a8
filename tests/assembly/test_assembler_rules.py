"""Merge rules of ToolCallAssembler, one test per rule, on small real-world-shaped streams.

Every stream in ``STREAMS`` is written by us in the shape a real server sends (noted per
stream). Each is checked fed as given, one argument character per chunk, as one list of
chunks, and in random splits (hypothesis); all must give the expected calls and the same
split-independent outcome.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from callstream._assembly import (
    ArgumentsDelta,
    CallDone,
    CallEnd,
    CallStarted,
    StreamEnd,
    StreamFinished,
    ToolCallAssembler,
)
from tests.support.strategies import splits
from tests.support.strategies_assembly import (
    calls,
    check_event_order,
    chunk,
    invalid,
    outcome,
    resplit,
    run,
    tool_call_streams,
    ways,
)

W = '{"city": "Paris"}'
WEATHER = {"city": "Paris"}

# name -> (signals, expected valid calls (name, id, args), expected invalid (name, id))
STREAMS: dict[str, tuple[list[Any], list[tuple[str, str | None, dict[str, Any]]], list[Any]]] = {
    # TGI: id "0" and type on every chunk, name only on the first.
    "tgi id resent on every chunk": (
        [
            chunk(index=0, id="0", name="get_weather", args="{"),
            chunk(index=0, id="0", args=' "city"'),
            chunk(index=0, id="0", args=': "Paris"'),
            chunk(index=0, id="0", args="}"),
        ],
        [("get_weather", "0", WEATHER)],
        [],
    ),
    # llama.cpp / litellm style: the name resent on every chunk.
    "name resent on every chunk": (
        [
            chunk(index=0, id="call_1", name="get_weather", args=""),
            chunk(index=0, name="get_weather", args='{"city": '),
            chunk(index=0, name="get_weather", args='"Paris"}'),
            chunk(index=0, name="get_weather", args=""),
        ],
        [("get_weather", "call_1", WEATHER)],
        [],
    ),
    # Alibaba / GLM: continuations with id "" and name "", a trailing empty chunk.
    "empty id and name continuations": (
        [
            chunk(index=0, id="call_eee", name="weather", args=""),
            chunk(index=0, id="", name="", args='{"city": "Pa'),
            chunk(index=0, id="", args='ris"}'),
            chunk(index=0, id="", name="", args=""),
        ],
        [("weather", "call_eee", WEATHER)],
        [],
    ),
    # A server that reuses index 0: two calls one after the other, own ids and names;
    # id-less continuations belong to the call being streamed (the second).
    "two calls on one index": (
        [
            chunk(index=0, id="call_a", name="get_weather", args='{"city": '),
            chunk(index=0, args='"Paris"}'),
            chunk(index=0, id="call_b", name="get_time", args='{"tz": '),
            chunk(index=0, args='"CET"}'),
        ],
        [("get_weather", "call_a", WEATHER), ("get_time", "call_b", {"tz": "CET"})],
        [],
    ),
    # Same, but the second call repeats the first one's name.
    "two calls on one index, same name": (
        [
            chunk(index=0, id="call_a", name="get_weather", args=W),
            chunk(index=0, id="call_b", name="get_weather", args='{"city": "Oslo"}'),
        ],
        [("get_weather", "call_a", WEATHER), ("get_weather", "call_b", {"city": "Oslo"})],
        [],
    ),
    # Ollama: whole calls as objects, no index, no id, the same tool twice.
    "two whole-object calls without index or id": (
        [
            chunk(name="run_command", args={"command": "ls"}),
            chunk(name="run_command", args={"command": "ls -l"}),
        ],
        [("run_command", None, {"command": "ls"}), ("run_command", None, {"command": "ls -l"})],
        [],
    ),
    # Whole calls as text, no index, no id.
    "two whole-text calls without index or id": (
        [
            chunk(name="run_command", args='{"command": "ls"}'),
            chunk(name="run_command", args='{"command": "ls -l"}'),
        ],
        [("run_command", None, {"command": "ls"}), ("run_command", None, {"command": "ls -l"})],
        [],
    ),
    # Mistral / Gemini-compatible: no index, keyed by id; continuations without id.
    "no index but ids": (
        [
            chunk(id="gSIMJiOkT", name="weather", args='{"city": '),
            chunk(args='"Paris"}'),
            chunk(id="k2", name="time", args="{}"),
            chunk(id="gSIMJiOkT", args=""),
        ],
        [("weather", "gSIMJiOkT", WEATHER), ("time", "k2", {})],
        [],
    ),
    # No index and no id: continuation of the call being streamed until a chunk names
    # another tool.
    "no index, no id": (
        [
            chunk(name="get_weather", args='{"city"'),
            chunk(args=': "Paris"}'),
            chunk(name="get_time", args="{}"),
        ],
        [("get_weather", None, WEATHER), ("get_time", None, {})],
        [],
    ),
    # Id and name streamed in pieces before the arguments.
    "id and name in pieces": (
        [
            chunk(index=0, id="call_"),
            chunk(index=0, id="x9"),
            chunk(index=0, name="get_"),
            chunk(index=0, name="weather"),
            chunk(index=0, args=W),
        ],
        [("get_weather", "call_x9", WEATHER)],
        [],
    ),
    # Cumulative snapshots of id and name.
    "id and name as cumulative snapshots": (
        [
            chunk(index=0, id="call", name="get"),
            chunk(index=0, id="call_x9", name="get_weather"),
            chunk(index=0, id="call_x9", name="get_weather", args=W),
        ],
        [("get_weather", "call_x9", WEATHER)],
        [],
    ),
    # Arguments as an object on an indexed chunk (some llama.cpp builds).
    "arguments as an object": (
        [chunk(index=0, id="c1", name="get_weather", args=WEATHER)],
        [("get_weather", "c1", WEATHER)],
        [],
    ),
    # Argument text before the name.
    "arguments before the name": (
        [
            chunk(index=0, args='{"city": '),
            chunk(index=0, args='"Paris"}'),
            chunk(index=0, id="c1", name="get_weather"),
        ],
        [("get_weather", "c1", WEATHER)],
        [],
    ),
    # An index given as a string of digits.
    "index as a digit string": (
        [
            chunk(index="0", id="c1", name="get_weather", args='{"city": '),
            chunk(index=0, args='"Paris"}'),
            chunk(index="1", id="c2", name="get_time", args="{}"),
        ],
        [("get_weather", "c1", WEATHER), ("get_time", "c2", {})],
        [],
    ),
    # OpenAI: parallel calls, interleaved here; the first chunk has arguments "".
    "parallel calls interleaved": (
        [
            chunk(index=0, id="call_a", name="get_weather", args=""),
            chunk(index=1, id="call_b", name="get_time", args=""),
            chunk(index=1, args='{"tz"'),
            chunk(index=0, args='{"city"'),
            chunk(index=0, args=': "Paris"}'),
            chunk(index=1, args=': "CET"}'),
        ],
        [("get_weather", "call_a", WEATHER), ("get_time", "call_b", {"tz": "CET"})],
        [],
    ),
    # Vertex partialArgs shape after translation: anonymous calls closed by end markers.
    "anonymous calls with end markers": (
        [
            chunk(name="getWeather"),
            chunk(args='{"location": "Bos'),
            chunk(args='ton"}'),
            CallEnd(),
            chunk(name="getWeather"),
            chunk(args='{"location": "SF"}'),
            CallEnd(),
            StreamEnd(reason="stop"),
        ],
        [
            ("getWeather", None, {"location": "Boston"}),
            ("getWeather", None, {"location": "SF"}),
        ],
        [],
    ),
    # A no-argument call (name only) followed by a streamed one, keyed by index.
    "no-argument call then streamed call": (
        [
            chunk(index=0, id="c0", name="read_theme"),
            chunk(index=1, id="c1", name="read_screen", args='{"id": "A"}'),
        ],
        [("read_theme", "c0", {}), ("read_screen", "c1", {"id": "A"})],
        [],
    ),
}


@pytest.mark.parametrize("name", list(STREAMS))
def test_stream_every_way(name: str) -> None:
    stream, expected, expected_invalid = STREAMS[name]
    results = {}
    for way, (signals, as_list) in ways(stream).items():
        asm, events = run(signals, as_list=as_list)
        assert calls(asm) == expected, way
        assert invalid(asm) == expected_invalid, way
        check_event_order(events)
        results[way] = outcome(asm, events)
    first = next(iter(results.values()))
    for way, result in results.items():
        assert result == first, way


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_stream_random_splits(data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(list(STREAMS)))
    stream, expected, expected_invalid = STREAMS[name]
    reference = outcome(*run(stream))
    signals = resplit(stream, lambda text: data.draw(splits(text, max_cuts=6)))
    asm, events = run(signals)
    assert calls(asm) == expected
    assert invalid(asm) == expected_invalid
    check_event_order(events)
    assert outcome(asm, events) == reference


# --- rule by rule, with the detail the catalog does not show ------------------------------


def test_rule_1a_index_continues_latest_call_on_that_index() -> None:
    asm, _ = run(STREAMS["two calls on one index"][0])
    # LangChain attaches the id-less continuation to the first call of index 0; ours
    # goes to the call being streamed.
    assert [c["args"] for c in asm.tool_calls] == [WEATHER, {"tz": "CET"}]


def test_rule_1a_index_string_and_int_are_the_same_key() -> None:
    asm, events = run(STREAMS["index as a digit string"][0])
    started = [e for e in events if isinstance(e, CallStarted)]
    assert [(e.index, e.key) for e in started] == [(0, 0), (1, 1)]


def test_rule_1b_unknown_index_adopts_call_known_by_id() -> None:
    asm = ToolCallAssembler()
    asm.feed(chunk(id="a", name="f", args='{"x"'))
    asm.feed(chunk(index=0, id="a", args=": 1}"))
    events = asm.feed(chunk(index=0, args=" "))
    assert events == [ArgumentsDelta(index=0, text=" ", changes=())]
    asm.finish()
    assert calls(asm) == [("f", "a", {"x": 1})]


def test_rule_1c_no_index_uses_id() -> None:
    asm = ToolCallAssembler()
    asm.feed([chunk(id="a", name="f", args='{"x": '), chunk(id="b", name="g", args='{"y": ')])
    asm.feed([chunk(id="a", args="1}"), chunk(id="b", args="2}")])
    asm.finish()
    assert calls(asm) == [("f", "a", {"x": 1}), ("g", "b", {"y": 2})]


def test_rule_1d_late_id_is_adopted_by_anonymous_current_call() -> None:
    asm = ToolCallAssembler()
    asm.feed([chunk(name="f", args='{"x"'), chunk(id="late", args=": 1}")])
    asm.finish()
    assert calls(asm) == [("f", "late", {"x": 1})]


def test_rule_1e_neither_continues_current_call_even_across_an_index() -> None:
    asm = ToolCallAssembler()
    asm.feed(chunk(index=3, id="a", name="f", args='{"x"'))
    asm.feed(chunk(args=": 1}"))
    asm.finish()
    assert calls(asm) == [("f", "a", {"x": 1})]


def test_rule_2_empty_fields_never_reset() -> None:
    asm = ToolCallAssembler()
    asm.feed(chunk(index=0, id="c1", name="f", args='{"a": 1'))
    for blank in ("", None):
        assert asm.feed(chunk(index=0, id=blank, name=blank, args=blank)) == []
    asm.feed(chunk(index=0, args="}"))
    asm.finish()
    assert calls(asm) == [("f", "c1", {"a": 1})]


def test_rule_2_chunk_with_nothing_never_starts_a_call() -> None:
    asm = ToolCallAssembler()
    assert asm.feed([chunk(index=0), chunk(), chunk(id="", name="", args="")]) == []
    assert asm.tool_call_chunks == []
    assert asm.finish() == [StreamFinished(reason=None)]
    assert asm.invalid_tool_calls == []


def test_rule_3_exact_repeat_ignored() -> None:
    stream = [chunk(index=0, id="0", name="f", args="{")]
    stream += [chunk(index=0, id="0", name="f", args=c) for c in '"a": 1}']
    asm, _ = run(stream)
    assert calls(asm) == [("f", "0", {"a": 1})]


def test_rule_3_extension_replaces() -> None:
    asm = ToolCallAssembler()
    asm.feed(chunk(index=0, id="call", name="get"))
    asm.feed(chunk(index=0, id="call_1", name="get_weather"))
    assert asm.tool_call_chunks[0]["id"] == "call_1"
    assert asm.tool_call_chunks[0]["name"] == "get_weather"


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_rule_2_3_resent_fields_and_empty_continuations_change_nothing(
    data: st.DataObject,
) -> None:
    """Rules 2 and 3 over random calls: resent ids and names, and empty continuation
    chunks (``tool_call_streams(noise=True)``), never change the result."""
    mode = data.draw(st.sampled_from(["index", "same-index", "id"]))
    specs, noisy = data.draw(tool_call_streams(mode=mode, noise=True))
    asm, events = run(noisy)
    assert calls(asm) == [(s.name, s.id, s.args) for s in specs]
    assert asm.invalid_tool_calls == []
    check_event_order(events)


def test_rule_4_pieces_before_arguments_are_joined() -> None:
    asm, events = run(STREAMS["id and name in pieces"][0])
    assert calls(asm) == [("get_weather", "call_x9", WEATHER)]
    # announced once the arguments begin, with the complete name and id
    assert events[0] == CallStarted(index=0, key=0, id="call_x9", name="get_weather")


def test_rule_5a_new_call_different_id_after_arguments() -> None:
    asm = ToolCallAssembler()
    asm.feed(chunk(index=0, id="call_1", name="f", args="{}"))
    # a new call without a name yet: nothing announced, but it is there
    assert asm.feed(chunk(index=0, id="call_10", args="{}")) == []
    assert [(c["index"], c["id"]) for c in asm.tool_call_chunks] == [(0, "call_1"), (1, "call_10")]
    asm.finish()
    # "call_10" extends "call_1", but arguments had begun: a new call (without a name)
    assert calls(asm) == [("f", "call_1", {})]
    assert invalid(asm) == [(None, "call_10")]
    assert asm.invalid_tool_calls[0]["error"] == "tool call has no name"


def test_rule_5a_new_call_different_name_after_arguments_without_ids() -> None:
    stream = [
        chunk(index=0, name="f", args='{"a": 1}'),
        chunk(index=0, name="g", args='{"b": 2}'),
    ]
    asm, _ = run(stream)
    assert calls(asm) == [("f", None, {"a": 1}), ("g", None, {"b": 2})]


def test_rule_5b_new_call_id_and_name_both_differ_before_arguments() -> None:
    stream = [
        chunk(index=0, id="call_a", name="list_files"),
        chunk(index=0, id="call_b", name="get_time"),
    ]
    asm, _ = run(stream)
    assert calls(asm) == [("list_files", "call_a", {}), ("get_time", "call_b", {})]


def test_rule_5c_new_call_after_complete_arguments_same_name() -> None:
    asm, _ = run(STREAMS["two calls on one index, same name"][0])
    assert len(asm.tool_calls) == 2
    # but a resent name with only whitespace after complete arguments stays one call
    stream = [chunk(index=0, name="f", args="{}"), chunk(index=0, name="f", args="\n")]
    asm, _ = run(stream)
    assert calls(asm) == [("f", None, {})]


def test_rule_5d_new_call_anonymous_chunk_naming_other_tool() -> None:
    asm, _ = run(STREAMS["no index, no id"][0])
    assert [c["name"] for c in asm.tool_calls] == ["get_weather", "get_time"]


def test_rule_5d_anonymous_name_pieces_are_separate_tools() -> None:
    # Without index or id a second name cannot be told from a piece: a new call.
    stream = [chunk(name="get_"), chunk(name="weather", args="{}")]
    asm, _ = run(stream)
    assert calls(asm) == [("get_", None, {}), ("weather", None, {})]


def test_rule_5e_new_call_after_end_marker() -> None:
    asm = ToolCallAssembler()
    asm.feed(chunk(index=0, id="a", name="f", args="{}"))
    done = asm.end_call(index=0)
    assert [type(e) for e in done] == [CallDone]
    # blank continuations and a repeat of an ended call's id are ignored
    assert asm.feed(chunk(index=0, id="a", args=" ")) == []
    assert asm.feed(chunk(index=0, id="", args="")) == []
    # anything new starts a new call
    events = asm.feed(chunk(index=0, id="b", name="g", args="{}"))
    assert events[0] == CallStarted(index=1, key=0, id="b", name="g")
    asm.finish()
    assert calls(asm) == [("f", "a", {}), ("g", "b", {})]


def test_rule_6_args_object_is_complete_arguments_and_replaces_text() -> None:
    asm = ToolCallAssembler()
    asm.feed(chunk(index=0, id="a", name="f", args='{"x": '))
    asm.feed(chunk(index=0, args={"x": 2}))
    asm.finish()
    assert calls(asm) == [("f", "a", {"x": 2})]
    assert asm.tool_call_chunks[0]["args"] == '{"x": 2}'


def test_rule_6_args_object_unicode_kept_readable() -> None:
    asm, events = run([chunk(index=0, name="f", args={"q": "é😀"})])
    assert asm.tool_call_chunks[0]["args"] == '{"q": "é😀"}'
    assert calls(asm) == [("f", None, {"q": "é😀"})]


def test_rule_6_several_fragments_in_one_feed_applied_in_order() -> None:
    asm = ToolCallAssembler()
    events = asm.feed(
        [
            chunk(index=0, id="a", name="f", args='{"x"'),
            chunk(index=1, id="b", name="g", args="{"),
            chunk(index=0, args=": 1}"),
            chunk(index=1, args="}"),
        ]
    )
    assert [(type(e).__name__, e.index) for e in events] == [
        ("CallStarted", 0),
        ("ArgumentsDelta", 0),
        ("CallStarted", 1),
        ("ArgumentsDelta", 1),
        ("ArgumentsDelta", 0),
        ("ArgumentsDelta", 1),
    ]
    asm.finish()
    assert calls(asm) == [("f", "a", {"x": 1}), ("g", "b", {})]


def test_rule_7_name_first_text_buffered_until_name() -> None:
    asm = ToolCallAssembler()
    assert asm.feed(chunk(index=0, args='{"city": ')) == []
    assert asm.feed(chunk(index=0, args='"Paris"}')) == []
    assert asm.tool_calls == []  # no name: nothing to show as a tool call yet
    events = asm.feed(chunk(index=0, id="c1", name="get_weather"))
    assert events[0] == CallStarted(index=0, key=0, id="c1", name="get_weather")
    assert isinstance(events[1], ArgumentsDelta)
    assert events[1].text == '{"city": "Paris"}'
    assert len(events) == 2
    assert asm.tool_calls == [
        {"name": "get_weather", "args": WEATHER, "id": "c1", "type": "tool_call"}
    ]


def test_rule_7_name_first_call_started_waits_for_arguments() -> None:
    asm = ToolCallAssembler()
    assert asm.feed(chunk(index=0, id="c1", name="get_weather", args="")) == []
    # the preview already shows the call
    assert asm.tool_calls == [{"name": "get_weather", "args": {}, "id": "c1", "type": "tool_call"}]
    events = asm.feed(chunk(index=0, args="{"))
    assert events[0] == CallStarted(index=0, key=0, id="c1", name="get_weather")


def test_event_index_is_call_number_and_key_is_provider_index() -> None:
    stream = [
        chunk(index=5, id="a", name="f", args="{}"),
        chunk(index=2, id="b", name="g", args="{}"),
    ]
    _, events = run(stream)
    started = [e for e in events if isinstance(e, CallStarted)]
    assert [(e.index, e.key) for e in started] == [(0, 5), (1, 2)]
    assert [c["index"] for c in run(stream)[0].tool_call_chunks] == [0, 1]
