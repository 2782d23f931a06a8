"""The assembler's options and limits (``callstream._assembly.options``), in one place.

``max_calls`` (calls stored, the rest counted), ``max_argument_chars`` (per call),
``max_chars`` (the whole stream), the cap on names and ids (``MAX_NAME_CHARS``), the
defaults, the parser options passed through, and bad options. Tests elsewhere that pass
a limit test another layer (the drivers and parsers passing it on, junk input under a
limit) and say so where they do.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from callstream import collect
from callstream._assembly import (
    CallFailure,
    CallInvalid,
    CallStarted,
    ServerToolUse,
    ToolCallAssembler,
)
from callstream._assembly.assembler import (
    DEFAULT_MAX_ARGUMENT_CHARS,
    DEFAULT_MAX_CALLS,
    DEFAULT_MAX_CHARS,
    MAX_NAME_CHARS,
)
from callstream._errors import OptionTypeError, OptionValueError, UsageError
from tests.support.strategies import splits
from tests.support.strategies_assembly import (
    calls,
    check_event_order,
    chunk,
    error_of,
    invalid,
    one_call,
    run,
)


def feed_split(asm: ToolCallAssembler, index: int, text: str, parts: list[str]) -> list[Any]:
    events: list[Any] = []
    for part in parts:
        events += asm.feed(chunk(index=index, args=part))
    return events


# --- max_calls ----------------------------------------------------------------------------


def test_max_calls_extra_calls_invalid_at_once() -> None:
    asm = ToolCallAssembler(max_calls=1)
    asm.feed(chunk(index=0, id="a", name="f", args="{}"))
    events = asm.feed(chunk(index=1, id="b", name="g", args='{"x": 1}'))
    assert [type(e) for e in events] == [CallStarted, CallInvalid]
    assert asm.feed(chunk(index=1, args="more")) == []
    asm.finish()
    assert calls(asm) == [("f", "a", {})]
    [bad] = asm.invalid_tool_calls
    assert bad["name"] == "g"
    assert bad["args"] is None
    assert "max_calls=1" in str(bad["error"])


def test_max_calls_zero() -> None:
    asm, _ = run([chunk(index=0, id="a", name="f", args="{}")], max_calls=0)
    assert calls(asm) == []
    assert invalid(asm) == [("f", "a")]


def test_calls_past_max_calls_are_counted_not_stored() -> None:
    asm = ToolCallAssembler(max_calls=3)
    events: list[Any] = []
    for i in range(50):
        events += asm.feed(chunk(index=i, id=f"c{i}", name="f", args="{"))
        events += asm.feed(chunk(index=i, args=f'"i": {i}}}'))
    events += asm.finish()
    check_event_order(events)
    assert [c["id"] for c in asm.tool_calls] == ["c0", "c1", "c2"]
    [over] = asm.invalid_tool_calls
    assert over["id"] == "c3"
    assert over["args"] is None
    assert "max_calls=3" in str(over["error"])
    assert "and 46 later call(s)" in str(over["error"])
    assert len(asm.tool_call_chunks) == 4  # 3 calls and the overflow entry, nothing more
    assert len([e for e in events if isinstance(e, CallInvalid)]) == 1


def test_refused_call_on_a_reused_index_never_reaches_the_older_call() -> None:
    asm = ToolCallAssembler(max_calls=1)
    asm.feed(chunk(index=0, id="a", name="f", args='{"x": 1'))
    asm.feed(chunk(index=0, id="b", name="g", args="{"))  # new call on index 0: refused
    asm.feed(chunk(index=0, args='"y": 2}'))  # its continuation: dropped
    asm.end_call(id="a")
    asm.finish()
    assert [c["id"] for c in asm.invalid_tool_calls] == ["a", "b"]
    # call a never received the refused call's text: it was cut off (still '{"x": 1')
    assert asm.invalid_tool_calls[0]["args"] == '{"x": 1'
    assert "cut off" in str(asm.invalid_tool_calls[0]["error"])


def test_keyless_calls_past_the_limit_are_counted() -> None:
    asm = ToolCallAssembler(max_calls=2)
    for _ in range(10):
        asm.feed({"name": "f", "args": {"x": 1}})
    asm.finish()
    assert len(asm.tool_calls) == 2
    [over] = asm.invalid_tool_calls
    assert "and 7 later call(s)" in str(over["error"])


def test_refused_server_marker_and_failure_are_harmless() -> None:
    asm = ToolCallAssembler(max_calls=1)
    asm.feed(chunk(index=0, id="a", name="f", args="{}"))
    asm.feed(chunk(index=1, id="b", name="web_search"))
    assert asm.apply(ServerToolUse(index=1)) == []
    asm.apply(CallFailure(error="x", id="q"))
    asm.finish()
    assert asm.server_tool_calls == []
    assert "and 1 later call(s)" in str(asm.invalid_tool_calls[0]["error"])


# --- max_argument_chars, max_chars, defaults -------------------------------------------


def test_defaults_are_bounded() -> None:
    asm = ToolCallAssembler()
    assert asm._state.call_cap == DEFAULT_MAX_CALLS == 1_000
    assert asm._state.budget.per_call == DEFAULT_MAX_ARGUMENT_CHARS == 8 << 20
    assert asm._state.budget.total == DEFAULT_MAX_CHARS == 32 << 20


@given(st.data())
def test_max_chars_bounds_the_whole_stream(data: st.DataObject) -> None:
    first = '{"a": "' + "x" * 20 + '"}'  # 29 characters
    asm = ToolCallAssembler(max_chars=40)
    asm.feed(chunk(index=0, id="a", name="f"))
    feed_split(asm, 0, first, data.draw(splits(first)))
    asm.end_call(index=0)
    asm.feed(chunk(index=1, id="b", name="g"))
    second = '{"b": "' + "y" * 20 + '"}'
    events = feed_split(asm, 1, second, data.draw(splits(second)))
    assert [type(e) for e in events if not isinstance(e, (CallStarted,))][-1:] == [CallInvalid]
    asm.feed(chunk(index=2, id="c", name="h", args="{}"))
    asm.finish()
    assert [c["id"] for c in asm.tool_calls] == ["a"]
    bad_b, bad_c = asm.invalid_tool_calls
    assert "max_chars=40" in str(bad_b["error"])
    assert bad_b["args"] == second[:11]  # kept up to the limit
    assert "max_chars=40" in str(bad_c["error"])


def test_max_chars_through_collect() -> None:
    payloads = [
        {
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": "call_1",
                                "type": "function",
                                "function": {"name": "f", "arguments": '{"a": "long text"}'},
                            }
                        ]
                    },
                }
            ]
        },
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    ]
    assert collect(payloads, provider="openai-chat").tool_calls[0]["args"] == {"a": "long text"}
    result = collect(payloads, provider="openai-chat", max_chars=5)
    assert result.tool_calls == []
    assert "max_chars=5" in str(result.invalid_tool_calls[0]["error"])


def test_max_argument_chars() -> None:
    asm = ToolCallAssembler(max_argument_chars=10)
    asm.feed(
        [
            chunk(index=0, id="a", name="f", args='{"x": '),
            chunk(index=1, id="b", name="g", args="{"),
        ]
    )
    events = asm.feed(chunk(index=0, args='"hello"}'))
    assert [type(e) for e in events] == [CallInvalid]
    assert "max_argument_chars=10" in str(asm.invalid_tool_calls[0]["error"])
    assert asm.invalid_tool_calls[0]["args"] == '{"x": "hel'
    assert asm.feed(chunk(index=0, args="zzz")) == []
    assert asm.invalid_tool_calls[0]["args"] == '{"x": "hel'
    asm.feed(chunk(index=1, args='"y": 12}'))
    asm.finish()
    assert calls(asm) == [("g", "b", {"y": 12})]


def test_max_argument_chars_exact_limit_is_fine() -> None:
    asm, _ = run([chunk(index=0, name="f", args='{"x": 1}')], max_argument_chars=8)
    assert calls(asm) == [("f", None, {"x": 1})]


# --- names and ids: bounded, so a flood of pieces costs O(1) each ---------------------------


@pytest.mark.parametrize("field", ["name", "id"])
@pytest.mark.parametrize("piece", [1, 7, 4096, 5000])
def test_name_or_id_past_the_cap_invalidates_only_that_call(field: str, piece: int) -> None:
    asm = ToolCallAssembler()
    asm.feed({"index": 1, "id": "other", "name": "g", "args": '{"ok": true}'})
    asm.feed({"index": 0, "id": "c0", "name": "f"} | {field: "x"})
    events: list[Any] = []
    for _ in range(MAX_NAME_CHARS // piece + 2):
        events += asm.feed({"index": 0, field: "y" * piece})
    events += asm.feed({"index": 0, "args": "{}"})
    asm.finish()
    [bad] = asm.invalid_tool_calls
    label = "tool name" if field == "name" else "call id"
    assert bad["error"] == f"{label} longer than {MAX_NAME_CHARS} characters"
    assert len(bad[field] or "") <= MAX_NAME_CHARS
    assert [c["args"] for c in asm.tool_calls] == [{"ok": True}]
    assert sum(isinstance(e, CallInvalid) for e in events) == 1


def test_names_up_to_the_cap_are_kept_whole() -> None:
    name = ("get_weather_" * MAX_NAME_CHARS)[:MAX_NAME_CHARS]  # no piece resends a prefix
    asm = ToolCallAssembler()
    for i in range(0, MAX_NAME_CHARS, 64):
        asm.feed({"index": 0, "name": name[i : i + 64]})
    asm.feed({"index": 0, "args": "{}"})
    asm.finish()
    assert [c["name"] for c in asm.tool_calls] == [name]


# --- parser options, no limits, bad options -------------------------------------------


def test_parser_options_pass_through() -> None:
    asm = one_call('{"x": NaN}', allow_nan=True)
    assert len(asm.tool_calls) == 1
    assert one_call('{"x": NaN}').tool_calls == []
    assert calls(one_call('{"x": "a\tb"}', strict=False)) == [("f", "c", {"x": "a\tb"})]
    assert one_call('{"x": "a\tb"}').tool_calls == []
    deep = one_call('{"a": [[1]]}', max_depth=2)
    assert error_of(deep).startswith("arguments exceed a limit: ")


@pytest.mark.parametrize(
    "options",
    [
        {"max_calls": -1},
        {"max_calls": True},
        {"max_argument_chars": 1.5},
        {"empty_args": "null"},
        {"max_depth": 0},
    ],
)
def test_bad_options(options: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        ToolCallAssembler(**options)


def test_bad_allow_option() -> None:
    with pytest.raises(TypeError):
        ToolCallAssembler(allow="STR")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("options", "kind"),
    [
        ({"max_calls": -1}, OptionValueError),
        ({"max_calls": True}, OptionValueError),
        ({"max_chars": 2.5}, OptionValueError),
        ({"max_chars": "10"}, OptionTypeError),
        ({"max_argument_chars": [1]}, OptionTypeError),
        ({"empty_args": "null"}, OptionValueError),
        ({"max_depth": 0}, OptionValueError),
        ({"allow": "STR"}, OptionTypeError),
    ],
)
def test_bad_options_are_usage_errors(options: dict[str, Any], kind: type[Exception]) -> None:
    with pytest.raises(kind) as info:
        ToolCallAssembler(**options)
    assert isinstance(info.value, UsageError)
    assert isinstance(info.value, ValueError if kind is OptionValueError else TypeError)


def test_no_limit_options() -> None:
    asm = ToolCallAssembler(max_calls=None, max_argument_chars=None, max_chars=None)
    asm.feed(chunk(index=0, id="a", name="f", args="{}"))
    asm.finish()
    assert len(asm.tool_calls) == 1
