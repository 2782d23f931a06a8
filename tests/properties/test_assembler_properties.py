"""Hypothesis properties of ToolCallAssembler over random calls, fragments and interleavings.

- any split and interleaving assembles to the original calls (three keying modes);
- every intermediate ``.tool_calls`` is consistent with the final one;
- corrupting one call's text makes exactly that call invalid, reported at the fragment;
- the events alone let a UI rebuild every call;
- arbitrary junk chunks only ever raise our errors or give invalid calls.

The merge rules' own property (resent ids and names, empty continuations: rules 2 and 3)
is with the rules, in ``tests/assembly/test_assembler_rules.py``.
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from callstream._assembly import CallInvalid, ToolCallAssembler
from callstream._errors import CallstreamError
from tests.support.strategies_assembly import (
    CallSpec,
    apply_changes,
    calls,
    check_event_order,
    chunk,
    consistent,
    deltas_by_call,
    outcome,
    run,
    tool_call_streams,
)

MODES = st.sampled_from(["index", "same-index", "id"])
FAST = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def expected(specs: list[CallSpec]) -> list[tuple[str, str | None, dict[str, Any]]]:
    return [(s.name, s.id, s.args) for s in specs]


@FAST
@given(st.data())
def test_any_split_and_interleaving_gives_the_original_calls(data: st.DataObject) -> None:
    mode = data.draw(MODES)
    specs, stream = data.draw(tool_call_streams(mode=mode))
    asm, events = run(stream)
    assert calls(asm) == expected(specs)
    assert asm.invalid_tool_calls == []
    check_event_order(events)
    # the whole stream in one feed() call gives the same outcome
    assert outcome(*run(stream, as_list=True)) == outcome(asm, events)


@FAST
@given(st.data())
def test_every_intermediate_view_is_consistent_with_the_final(data: st.DataObject) -> None:
    specs, stream = data.draw(tool_call_streams(mode=data.draw(MODES)))
    asm = ToolCallAssembler()
    snapshots = []
    for signal in stream:
        asm.feed(signal)
        snapshots.append(copy.deepcopy(asm.tool_calls))
    asm.finish()
    final = asm.tool_calls
    previous: list[dict[str, Any]] = []
    for snapshot in snapshots:
        assert len(snapshot) <= len(final)
        assert len(snapshot) >= len(previous)  # calls never disappear while streaming
        for seen, last in zip(snapshot, final):
            assert seen["name"] == last["name"]
            assert seen["id"] == last["id"]
            assert consistent(seen["args"], last["args"]), (seen, last)
        for earlier, later in zip(previous, snapshot):
            assert consistent(earlier["args"], later["args"])  # monotone step to step
        previous = snapshot


@FAST
@given(st.data())
def test_corrupting_one_call_invalidates_exactly_that_call(data: st.DataObject) -> None:
    mode = data.draw(MODES)
    specs, stream = data.draw(tool_call_streams(mode=mode))
    # the pieces of the victim call: every chunk whose text belongs to it
    owner = []
    current = -1
    seen_ids: dict[Any, int] = {}
    for c in stream:
        key = c["index"] if mode == "index" else None
        if mode == "index":
            if key not in seen_ids:
                seen_ids[key] = len(seen_ids)
            owner.append(seen_ids[key])
        else:
            if c["id"] is not None and c["id"] not in seen_ids:
                seen_ids[c["id"]] = len(seen_ids)
                current = seen_ids[c["id"]]
            owner.append(current)
    victim = data.draw(st.integers(0, len(specs) - 1))
    positions = [p for p, o in enumerate(owner) if o == victim]
    where = data.draw(st.sampled_from(positions))
    text = stream[where]["args"]
    cut = data.draw(st.integers(0, len(text)))
    # a NUL is impossible anywhere in strict JSON: inside a string, between tokens, after
    stream[where] = {**stream[where], "args": text[:cut] + "\x00" + text[cut:]}

    asm = ToolCallAssembler()
    for pos, signal in enumerate(stream):
        events = asm.feed(signal)
        invalid_now = [e.index for e in events if isinstance(e, CallInvalid)]
        assert invalid_now == ([victim] if pos == where else [])
    asm.finish()
    good = [s for k, s in enumerate(specs) if k != victim]
    assert calls(asm) == expected(good)
    [bad] = asm.invalid_tool_calls
    assert (bad["name"], bad["id"]) == (specs[victim].name, specs[victim].id)
    assert str(bad["error"]).startswith("malformed arguments: ")
    raw = specs[victim].text
    assert bad["args"] is not None
    assert bad["args"].replace("\x00", "", 1) == raw


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_events_alone_rebuild_every_call(data: st.DataObject) -> None:
    specs, stream = data.draw(tool_call_streams(mode=data.draw(MODES), noise=True))
    _, events = run(stream)
    rebuilt = deltas_by_call(events)
    assert sorted(rebuilt) == list(range(len(specs)))
    for number, spec in enumerate(specs):
        text, changes = rebuilt[number]
        assert text == spec.text
        assert apply_changes(changes) == spec.args


junk_values = st.one_of(
    st.none(),
    st.sampled_from(["", "0", "1", "a", "{", "}", '"', "[", "{}", " ", "\x00", '{"a": 1}']),
    st.integers(-2, 3),
    st.text(max_size=5),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.booleans(),
    st.floats(allow_nan=True),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.fixed_dictionaries(
            {},
            optional={
                "index": junk_values,
                "id": junk_values,
                "name": junk_values,
                "args": junk_values,
            },
        ),
        max_size=12,
    ),
    st.sampled_from([None, "stop", "length"]),
)
def test_junk_chunks_raise_only_our_errors(
    chunks: list[dict[str, Any]], reason: str | None
) -> None:
    # limits as a setting for junk (the limits themselves: tests/assembly/test_options.py)
    asm = ToolCallAssembler(max_calls=5, max_argument_chars=50)
    events = []
    for c in chunks:
        try:
            events.extend(asm.feed(c))
        except CallstreamError:
            pass
    events.extend(asm.finish(reason))
    check_event_order(events)
    for view in asm.tool_calls:
        assert isinstance(view["args"], dict)
        assert isinstance(view["name"], str) and view["name"]
    for bad in asm.invalid_tool_calls:
        assert bad["error"]
    assert len(asm.tool_calls) + len(asm.invalid_tool_calls) == len(asm.tool_call_chunks)


def test_chunk_helper_shape() -> None:
    assert chunk(index=0) == {
        "name": None,
        "args": None,
        "id": None,
        "index": 0,
        "type": "tool_call_chunk",
    }
