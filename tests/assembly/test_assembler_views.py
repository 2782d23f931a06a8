"""ToolCallAssembler views (tool_calls, invalid_tool_calls, tool_call_chunks) and events."""

from __future__ import annotations

import copy

import pytest

from callstream._assembly import ArgumentsDelta, CallDone, ToolCallAssembler
from tests.assembly.test_assembler_rules import STREAMS
from tests.support.strategies_assembly import (
    apply_changes,
    calls,
    chunk,
    deltas_by_call,
    run,
)


def test_args_empty_object_before_any_text_and_while_not_an_object() -> None:
    asm = ToolCallAssembler()
    asm.feed(chunk(index=0, id="a", name="f"))
    assert asm.tool_calls == [{"name": "f", "args": {}, "id": "a", "type": "tool_call"}]
    asm.feed(chunk(index=0, args="  "))
    assert asm.tool_calls[0]["args"] == {}
    asm.feed(chunk(index=1, id="b", name="g", args='"a string'))
    assert asm.tool_calls[1]["args"] == {}
    asm.finish()
    assert calls(asm) == [("f", "a", {})]


def test_preview_grows_and_is_monotone() -> None:
    asm = ToolCallAssembler()
    asm.feed(chunk(index=0, id="a", name="f", args=""))
    snapshots = []
    for piece in ['{"ci', 'ty": "Pa', "r", 'is", "n": 1', "2", "}"]:
        asm.feed(chunk(index=0, args=piece))
        snapshots.append(copy.deepcopy(asm.tool_calls[0]["args"]))
    assert snapshots == [
        {},
        {"city": "Pa"},
        {"city": "Par"},
        {"city": "Paris"},  # the number 1 is not shown until complete (no 1 then 12)
        {"city": "Paris"},
        {"city": "Paris", "n": 12},
    ]


def test_tool_calls_list_cached_and_never_modified_after_return() -> None:
    asm = ToolCallAssembler()
    asm.feed(chunk(index=0, id="a", name="f", args='{"x": "a'))
    first = asm.tool_calls
    assert asm.tool_calls is first  # nothing changed: the same list
    asm.feed(chunk(index=0, args="bc"))
    second = asm.tool_calls
    assert second is first  # text only grew the live args object
    assert second[0]["args"] == {"x": "abc"}
    asm.feed(chunk(index=1, id="b", name="g", args="{"))
    third = asm.tool_calls
    assert third is not first
    assert len(first) == 1  # the list handed out earlier is untouched
    assert [c["name"] for c in third] == ["f", "g"]
    asm.feed(chunk(index=1, name="h"))  # another name after argument text: a new call
    assert asm.tool_calls is not third
    held = asm.tool_calls
    asm.feed(chunk(index=0, args='" x'))  # call 0 turns malformed: it leaves the view
    assert [c["name"] for c in held] == ["f", "g", "h"]  # the held list is untouched
    assert [c["name"] for c in asm.tool_calls] == ["g", "h"]


def test_entries_are_updated_in_place_until_final() -> None:
    asm = ToolCallAssembler()
    asm.feed(chunk(index=0, id="a", name="get_"))
    [entry] = asm.tool_calls
    asm.feed(chunk(index=0, name="weather"))  # a name piece before argument text
    asm.feed(chunk(index=0, args='{"city": "Oslo"}'))
    [done] = asm.end_call(index=0)
    assert isinstance(done, CallDone)
    assert asm.tool_calls == [entry]
    assert entry is done.tool_call
    assert entry == {
        "name": "get_weather",
        "args": {"city": "Oslo"},
        "id": "a",
        "type": "tool_call",
    }


def test_invalid_and_chunks_lists_cached() -> None:
    asm = ToolCallAssembler()
    asm.feed(chunk(index=0, id="a", name="f", args="{x"))
    inv = asm.invalid_tool_calls
    chunks = asm.tool_call_chunks
    assert asm.invalid_tool_calls is inv
    assert asm.tool_call_chunks is chunks
    asm.feed(chunk(index=0, args="yz"))
    assert asm.invalid_tool_calls is inv  # no call came or went: entries change in place
    assert asm.invalid_tool_calls[0]["args"] == "{xyz"
    assert asm.tool_call_chunks[0]["args"] == "{xyz"
    assert chunks[0]["args"] == "{xyz"


def test_invalid_known_before_finish_and_every_failure_after() -> None:
    asm = ToolCallAssembler()
    asm.feed(
        [
            chunk(index=0, id="a", name="f", args="[1]"),  # not an object: known only at the end
            chunk(index=1, id="b", name="g", args="{,"),  # malformed: known now
            chunk(index=2, id="c", name="h", args="{}"),
        ]
    )
    assert [c["id"] for c in asm.invalid_tool_calls] == ["b"]
    assert [c["id"] for c in asm.tool_calls] == ["a", "c"]
    asm.finish()
    assert [c["id"] for c in asm.invalid_tool_calls] == ["a", "b"]
    assert calls(asm) == [("h", "c", {})]


def test_after_finish_strict_values_only() -> None:
    asm = ToolCallAssembler()
    asm.feed(chunk(index=0, id="a", name="f", args='{"n": 1.50, "s": "\\u00e9"}'))
    asm.finish()
    assert asm.tool_calls == [
        {"name": "f", "args": {"n": 1.5, "s": "é"}, "id": "a", "type": "tool_call"}
    ]


def test_ended_call_shows_final_value_before_finish() -> None:
    asm = ToolCallAssembler()
    asm.feed(chunk(index=0, id="a", name="f", args='{"n": 1}'))
    [done] = asm.end_call(index=0)
    assert isinstance(done, CallDone)
    assert asm.tool_calls == [done.tool_call]


def test_order_is_order_of_start_not_of_index() -> None:
    asm = ToolCallAssembler()
    asm.feed(chunk(index=3, id="x", name="late_index", args="{}"))
    asm.feed(chunk(index=1, id="y", name="early_index", args="{}"))
    asm.feed(chunk(index=0, args='{"z": 0}'))  # nameless: not a tool call yet
    assert [c["name"] for c in asm.tool_calls] == ["late_index", "early_index"]
    asm.feed(chunk(index=0, name="named_last"))
    assert [c["name"] for c in asm.tool_calls] == ["late_index", "early_index", "named_last"]
    assert [(c["index"], c["name"]) for c in asm.tool_call_chunks] == [
        (0, "late_index"),
        (1, "early_index"),
        (2, "named_last"),
    ]


def test_tool_call_chunks_merge_raw_chunks() -> None:
    asm, _ = run(STREAMS["tgi id resent on every chunk"][0])
    assert asm.tool_call_chunks == [
        {
            "name": "get_weather",
            "args": '{ "city": "Paris"}',
            "id": "0",
            "index": 0,
            "type": "tool_call_chunk",
        }
    ]


@pytest.mark.parametrize("name", list(STREAMS))
def test_deltas_rebuild_arguments_like_a_ui(name: str) -> None:
    asm, events = run(STREAMS[name][0])
    rebuilt = deltas_by_call(events)
    done = {e.index: e.tool_call for e in events if isinstance(e, CallDone)}
    raw = {c["index"]: c["args"] for c in asm.tool_call_chunks}
    for index, tool_call in done.items():
        text, changes = rebuilt.get(index, ("", []))
        assert text == (raw[index] or "")
        assert (apply_changes(changes) if text.strip() else {}) == tool_call["args"]


def test_delta_carries_fragment_and_changes() -> None:
    asm = ToolCallAssembler()
    asm.feed(chunk(index=0, id="a", name="f", args='{"q": "ab'))
    [delta] = asm.feed(chunk(index=0, args='c"'))
    assert isinstance(delta, ArgumentsDelta)
    assert delta.index == 0
    assert delta.text == 'c"'
    assert apply_changes([]) is None
    kinds = [type(c).__name__ for c in delta.changes]
    assert kinds == ["StringExtended", "ValueClosed"]


def test_done_event_tool_call_is_the_view_entry() -> None:
    asm, events = run([chunk(index=0, id="a", name="f", args='{"x": [1]}')])
    [done] = [e for e in events if isinstance(e, CallDone)]
    assert asm.tool_calls[0] is done.tool_call


def test_arguments_delta_by_position_equals_by_keyword() -> None:
    from callstream._json.changes import ValueClosed

    assert ArgumentsDelta.__match_args__ == ("index", "text", "changes")
    changes = (ValueClosed(path=()),)
    fast = ArgumentsDelta(3, "}", changes)
    slow = ArgumentsDelta(index=3, text="}", changes=changes)
    assert fast == slow
    assert hash(fast) == hash(slow)
    assert repr(fast) == repr(slow)
