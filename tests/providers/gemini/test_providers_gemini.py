"""Gemini / Vertex translator: whole calls, finish reasons, streamed ``partialArgs`` leaves
turned into JSON text (nested paths, separators, missing terminals, string continuations),
random re-splits and re-orderings, odd payloads, and the recorded streams."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from callstream._assembly.types import (
    CallChunk,
    CallEnd,
    CallFailure,
    Signal,
    StreamEnd,
    TextDelta,
)
from callstream.providers.gemini import GeminiTranslator, detect
from tests.support.gemini_leaves import (
    objects_without_empties,
    path_text,
    scalars_in_order,
    string_pieces,
)
from tests.support.provider_helpers import (
    RECORDED,
    assemble,
    check_never_raises,
    chunk,
    load,
    odd_payloads,
    recorded,
    texts,
    translate_all,
)
from tests.support.strategies import json_scalars, splits

# --- chunk builders (the wire shapes) ---------------------------------------------------


def response(
    *parts: dict[str, Any], finish: str | None = None, message: str | None = None
) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": list(parts)}, "index": 0}
    if finish is not None:
        candidate["finishReason"] = finish
    if message is not None:
        candidate["finishMessage"] = message
    return {"candidates": [candidate], "modelVersion": "gemini-test", "responseId": "r1"}


def call_part(name: str | None = None, **fields: Any) -> dict[str, Any]:
    function_call = dict(fields)
    if name is not None:
        function_call["name"] = name
    return {"functionCall": function_call}


def opener(name: str, signature: bool = False) -> dict[str, Any]:
    part = call_part(name, willContinue=True)
    if signature:
        part["thoughtSignature"] = "CiMBjz1rX25K"
    return part


def leaves(*entries: dict[str, Any], more: bool = True) -> dict[str, Any]:
    function_call: dict[str, Any] = {"partialArgs": list(entries)}
    if more:
        function_call["willContinue"] = True
    return {"functionCall": function_call}


def s(path: str, value: str, more: bool = False) -> dict[str, Any]:
    leaf: dict[str, Any] = {"jsonPath": path, "stringValue": value}
    if more:
        leaf["willContinue"] = True
    return leaf


def n(path: str, value: float) -> dict[str, Any]:
    return {"jsonPath": path, "numberValue": value}


SEPARATOR = {"functionCall": {"willContinue": True}}
TERMINATOR = {"functionCall": {}}


def run(payloads: list[Any], translator: GeminiTranslator | None = None) -> list[Signal]:
    return translate_all(translator or GeminiTranslator(), payloads)


def final_args(signals: list[Signal]) -> dict[int, Any]:
    """The arguments of each call after assembly (all calls must be valid)."""
    assembler = assemble(signals)
    assert assembler.invalid_tool_calls == []
    return dict(enumerate(call["args"] for call in assembler.tool_calls))


# --- whole calls ------------------------------------------------------------------------


def test_whole_call_is_a_chunk_then_call_end() -> None:
    payload = response(call_part("get_capital", args={"country": "France"}), finish="STOP")
    assert run([payload]) == [
        chunk(0, name="get_capital", args={"country": "France"}),
        CallEnd(index=0),
        StreamEnd(reason="STOP", provider_reason="STOP"),
    ]


def test_each_part_is_a_new_call_numbered_in_order() -> None:
    payloads = [
        response({"text": "Let me check both."}),
        response(
            call_part("get_weather", args={"city": "Lisboa"}, id="fc_1"),
            call_part("convert", args={"amount": 120.5}),
        ),
        response(call_part("get_weather", args={"city": "Porto"}), finish="STOP"),
    ]
    assert run(payloads) == [
        TextDelta(text="Let me check both."),  # text is reported (issue 15)
        chunk(0, name="get_weather", id="fc_1", args={"city": "Lisboa"}),
        CallEnd(index=0),
        chunk(1, name="convert", args={"amount": 120.5}),
        CallEnd(index=1),
        chunk(2, name="get_weather", args={"city": "Porto"}),
        CallEnd(index=2),
        StreamEnd(reason="STOP", provider_reason="STOP"),
    ]


def test_thought_signature_sibling_and_trailing_empty_text_are_harmless() -> None:
    first = response(
        {"functionCall": {"name": "get_country", "args": {}}, "thoughtSignature": "Epw=="}
    )
    last = response({"text": ""}, finish="STOP")
    assert run([first, last]) == [
        chunk(0, name="get_country", args={}),
        CallEnd(index=0),
        StreamEnd(reason="STOP", provider_reason="STOP"),
    ]


def test_name_only_part_is_a_complete_call_without_arguments() -> None:
    assert run([response(call_part("read_theme"))]) == [
        chunk(0, name="read_theme"),
        CallEnd(index=0),
    ]


def test_thought_parts_are_reasoning() -> None:
    assert run([response({"text": "**Planning**", "thought": True})]) == [
        TextDelta(text="**Planning**", reasoning=True)
    ]


def test_arguments_that_are_not_an_object_are_passed_on_as_text() -> None:
    signals = run([response(call_part("f", args=[1, 2]))])
    assert signals[0] == chunk(0, name="f", args="[1, 2]")


# --- finish reasons ---------------------------------------------------------------------


def test_malformed_function_call_without_parts_is_a_new_invalid_call() -> None:
    message = "Malformed function call: print(default_api.get_weather(city=))"
    payload = {
        "candidates": [
            {"finishReason": "MALFORMED_FUNCTION_CALL", "finishMessage": message, "index": 0}
        ]
    }
    assert run([payload]) == [
        CallFailure(error=f"MALFORMED_FUNCTION_CALL: {message}"),
        StreamEnd(reason="MALFORMED_FUNCTION_CALL", provider_reason="MALFORMED_FUNCTION_CALL"),
    ]


def test_failure_reason_fails_the_calls_of_its_chunk_not_earlier_ones() -> None:
    payloads = [
        response(call_part("ok", args={"a": 1})),
        response(call_part("surprise", args={"b": 2}), finish="UNEXPECTED_TOOL_CALL"),
    ]
    assert run(payloads) == [
        chunk(0, name="ok", args={"a": 1}),
        CallEnd(index=0),
        chunk(1, name="surprise", args={"b": 2}),
        CallFailure(error="UNEXPECTED_TOOL_CALL", index=1),
        StreamEnd(reason="UNEXPECTED_TOOL_CALL", provider_reason="UNEXPECTED_TOOL_CALL"),
    ]


def test_failure_reason_fails_an_open_streamed_call() -> None:
    payloads = [
        response(opener("f")),
        response(leaves(s("$.a", "x", more=True))),
        response(finish="MALFORMED_FUNCTION_CALL", message="bad call"),
    ]
    signals = run(payloads)
    assert signals[-2:] == [
        CallFailure(error="MALFORMED_FUNCTION_CALL: bad call", index=0),
        StreamEnd(reason="MALFORMED_FUNCTION_CALL", provider_reason="MALFORMED_FUNCTION_CALL"),
    ]
    assert not any(isinstance(sig, CallEnd) for sig in signals)


def test_max_tokens_is_length_and_leaves_the_open_call_open() -> None:
    payloads = [
        response(opener("write")),
        response(leaves(s("$.text", "Once upon", more=True))),
        response(finish="MAX_TOKENS"),
    ]
    signals = run(payloads)
    assert texts(signals) == {0: '{"text": "Once upon'}
    assert signals[-1] == StreamEnd(reason="length", provider_reason="MAX_TOKENS")
    assert not any(isinstance(sig, (CallEnd, CallFailure)) for sig in signals)


def test_stop_ends_an_open_streamed_call_normally() -> None:
    payloads = [response(opener("f")), response(leaves(n("$.x", 1)), finish="STOP")]
    signals = run(payloads)
    assert texts(signals) == {0: '{"x": 1}'}
    assert signals[-2:] == [CallEnd(index=0), StreamEnd(reason="STOP", provider_reason="STOP")]


def test_other_stop_reasons_fail_an_open_streamed_call() -> None:
    payloads = [response(opener("f")), response(leaves(n("$.x", 1)), finish="SAFETY")]
    assert run(payloads)[-2:] == [
        CallFailure(error="generation stopped (SAFETY) before the call was complete", index=0),
        StreamEnd(reason="SAFETY", provider_reason="SAFETY"),
    ]


def test_every_finish_is_reported_and_the_assembler_keeps_the_first() -> None:
    signals = run([response(finish="STOP"), response(finish="MAX_TOKENS")])
    # every end marker is reported (issue 12: the assembler owns "one end of stream")
    assert signals == [
        StreamEnd(reason="STOP", provider_reason="STOP"),
        StreamEnd(reason="length", provider_reason="MAX_TOKENS"),
    ]
    assert assemble(signals).finish_reason == "STOP"


def test_blocked_prompt_and_error_payloads_end_the_stream() -> None:
    assert run([{"promptFeedback": {"blockReason": "SAFETY"}}]) == [
        StreamEnd(reason="SAFETY", provider_reason="SAFETY")
    ]
    error = {"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}}
    signals = run([response(opener("f")), error])
    assert signals[-2:] == [
        CallFailure(error="Gemini stream error (UNAVAILABLE): The model is overloaded.", index=0),
        StreamEnd(
            reason="error", provider_error="Gemini stream error (UNAVAILABLE): The model is overloaded."
        ),
    ]


# --- Vertex streamed arguments (partialArgs) --------------------------------------------


def test_two_streamed_calls_with_string_continuations_and_empty_terminators() -> None:
    payloads = [
        response(opener("getWeather", signature=True)),
        response(leaves(s("$.location", "Bos", more=True))),
        response(leaves(s("$.location", "ton", more=True))),
        response(leaves(s("$.location", ""))),
        response(TERMINATOR),
        response(opener("getWeather")),
        response(leaves(s("$.location", "San Francisco", more=True))),
        response(leaves(s("$.location", ""))),
        response(TERMINATOR, finish="STOP"),
    ]
    signals = run(payloads)
    assert signals[:5] == [
        chunk(0, name="getWeather"),
        chunk(0, args='{"location": "Bos'),
        chunk(0, args="ton"),
        chunk(0, args='"'),
        chunk(0, args="}"),
    ]
    assert texts(signals) == {0: '{"location": "Boston"}', 1: '{"location": "San Francisco"}'}
    assert [sig for sig in signals if not isinstance(sig, CallChunk)] == [
        CallEnd(index=0),
        CallEnd(index=1),
        StreamEnd(reason="STOP", provider_reason="STOP"),
    ]


def test_nested_arrays_of_objects_with_separator_parts() -> None:
    payloads = [
        response(opener("cookRecipe")),
        response(leaves(s("$.recipe.ingredients[0].amount", "16 oz"))),
        response(leaves(s("$.recipe.ingredients[0].name", "Noodles", more=True))),
        response(leaves(s("$.recipe.ingredients[0].name", ""))),
        response(SEPARATOR),
        response(leaves(s("$.recipe.ingredients[1].amount", "1 lb"))),
        response(leaves(s("$.recipe.ingredients[1].name", "Beef"))),
        response(SEPARATOR),
        response(leaves(s("$.recipe.name", "Lasagna"))),
        response(leaves(s("$.recipe.steps[0]", "Preheat to 375\u00b0F."))),
        response(leaves(s("$.recipe.steps[1]", "Cook noodles", more=True))),
        response(leaves(s("$.recipe.steps[1]", ".", more=True))),
        response(leaves(s("$.recipe.steps[1]", ""))),
        response(TERMINATOR, finish="STOP"),
    ]
    value = {
        "recipe": {
            "ingredients": [
                {"amount": "16 oz", "name": "Noodles"},
                {"amount": "1 lb", "name": "Beef"},
            ],
            "name": "Lasagna",
            "steps": ["Preheat to 375\u00b0F.", "Cook noodles."],
        }
    }
    signals = run(payloads)
    assert texts(signals) == {0: json.dumps(value)}
    assert final_args(signals) == {0: value}


def test_missing_terminal_last_leaves_part_without_will_continue_ends_the_call() -> None:
    payloads = [
        response(opener("writeItems")),
        response(leaves(s("$.operations[0].action", "add", more=True))),
        response(leaves(s("$.operations[0].action", ""))),
        response(leaves(n("$.operations[0].price", 0.5))),
        response(leaves(s("$.operations[1].action", "add"))),
        response(leaves(n("$.operations[1].price", 0.3), more=False)),
        response({"text": ""}, finish="STOP"),
    ]
    signals = run(payloads)
    value = {"operations": [{"action": "add", "price": 0.5}, {"action": "add", "price": 0.3}]}
    assert texts(signals) == {0: json.dumps(value)}
    assert [sig for sig in signals if not isinstance(sig, CallChunk)] == [
        CallEnd(index=0),
        StreamEnd(reason="STOP", provider_reason="STOP"),
    ]


def test_no_args_call_then_streamed_calls() -> None:
    payloads = [response({"functionCall": {"name": "read_theme"}, "thoughtSignature": "AY89"})]
    for screen in "AB":
        payloads += [
            response(opener("read_screen")),
            response(leaves(s("$.id", screen, more=True))),
            response(leaves(s("$.id", ""))),
            response(TERMINATOR),
        ]
    signals = run([*payloads, response({"text": ""}, finish="STOP")])
    assert final_args(signals) == {0: {}, 1: {"id": "A"}, 2: {"id": "B"}}
    assert [sig.name for sig in signals if isinstance(sig, CallChunk) and sig.name] == [
        "read_theme",
        "read_screen",
        "read_screen",
    ]


def test_all_scalar_kinds_several_leaves_per_part_and_quoted_keys() -> None:
    payloads = [
        response(opener("f")),
        response(
            leaves(
                n("$.int", 3),
                n("$.float", -0.25),
                {"jsonPath": "$.yes", "boolValue": True},
                {"jsonPath": "$.no", "boolValue": False},
                {"jsonPath": "$.none", "nullValue": "NULL_VALUE"},
                {"jsonPath": "$.none2", "nullValue": None},
                s("$['odd.key'][0]", 'quote " backslash \\ newline \n emoji \U0001f600'),
                s("$['it\\'s']", "ok"),
                more=False,
            )
        ),
    ]
    value = {
        "int": 3,
        "float": -0.25,
        "yes": True,
        "no": False,
        "none": None,
        "none2": None,
        "odd.key": ['quote " backslash \\ newline \n emoji \U0001f600'],
        "it's": "ok",
    }
    signals = run(payloads)
    assert texts(signals) == {0: json.dumps(value)}
    assert signals[-1] == CallEnd(index=0)


def test_leaf_without_value_continues_an_open_string_or_is_null() -> None:
    payloads = [
        response(opener("f")),
        response(leaves(s("$.a", "x", more=True))),
        response(leaves({"jsonPath": "$.a", "willContinue": True})),
        response(leaves({"jsonPath": "$.a"})),
        response(leaves({"jsonPath": "$.b"}, more=False)),
    ]
    assert final_args(run(payloads)) == {0: {"a": "x", "b": None}}


def test_a_new_name_ends_an_open_call_without_terminator() -> None:
    payloads = [
        response(opener("first")),
        response(leaves(s("$.q", "partial", more=True))),
        response(opener("second")),
        response(leaves(n("$.n", 1), more=False)),
    ]
    signals = run(payloads)
    assert texts(signals) == {0: '{"q": "partial"}', 1: '{"n": 1}'}
    assert [sig for sig in signals if isinstance(sig, CallEnd)] == [
        CallEnd(index=0),
        CallEnd(index=1),
    ]


def test_opener_with_whole_args_and_no_leaves_keeps_those_args() -> None:
    payloads = [response(call_part("f", args={"k": "v"}, willContinue=True)), response(TERMINATOR)]
    assert run(payloads) == [chunk(0, name="f"), CallEnd(index=0, args={"k": "v"})]


def test_leaves_without_an_opener_start_a_nameless_call() -> None:
    signals = run([response(leaves(n("$.x", 1), more=False))])
    assert signals == [chunk(0), chunk(0, args='{"x": 1'), chunk(0, args="}"), CallEnd(index=0)]


def test_stray_terminators_and_separators_are_ignored() -> None:
    assert run([response(TERMINATOR), response(SEPARATOR)]) == []


def test_out_of_order_leaves_are_rebuilt_and_handed_over_whole() -> None:
    payloads = [
        response(opener("f")),
        response(leaves(s("$.a.x", "1"))),
        response(leaves(s("$.b", "2"))),
        response(leaves(s("$.a.y", "3"))),  # re-enters the closed object "a"
        response(leaves(n("$.list[1]", 5))),  # position 1 before 0
        response(leaves(n("$.list[0]", 4))),
        response(leaves(s("$.b", "two"))),  # a later write wins
        response(TERMINATOR),
    ]
    signals = run(payloads)
    assert signals[-1] == CallEnd(
        index=0, args={"a": {"x": "1", "y": "3"}, "b": "two", "list": [4, 5]}
    )
    # What was streamed before the leaves went out of order is a consistent prefix.
    assert texts(signals)[0] == '{"a": {"x": "1"}, "b": "2"'


def test_an_array_position_never_filled_makes_the_call_invalid() -> None:
    payloads = [response(opener("f")), response(leaves(n("$.list[2]", 5), more=False))]
    signals = run(payloads)
    assert signals[-1] == CallFailure(
        error="streamed arguments: array position 0 has no value", index=0
    )


def test_unreadable_json_path_fails_the_call_and_ignores_its_rest() -> None:
    payloads = [
        response(opener("f")),
        response(leaves(s("$.ok", "1"))),
        response(leaves(s("items[0]", "x"))),
        response(leaves(s("$.more", "2"))),
        response(TERMINATOR),
        response(opener("g")),
        response(leaves(n("$.fine", 1), more=False)),
    ]
    signals = run(payloads)
    assert (
        CallFailure(error="streamed arguments: unreadable jsonPath 'items[0]'", index=0) in signals
    )
    assert CallEnd(index=0) not in signals
    assert texts(signals) == {0: '{"ok": "1"', 1: '{"fine": 1}'}
    assert signals[-1] == CallEnd(index=1)


# --- random re-splits and re-orderings --------------------------------------------------


@st.composite
def leaf_groups(draw: st.DrawFn, value: Any) -> list[list[dict[str, Any]]]:
    """The leaves of ``value``, one group per scalar; strings cut into continued pieces."""
    groups = []
    for path, scalar in scalars_in_order(value):
        jp = path_text(path)
        if isinstance(scalar, str):
            pieces = string_pieces(draw, scalar)
            group = [s(jp, piece, more=True) for piece in pieces]
            group[-1] = s(jp, pieces[-1])
        elif isinstance(scalar, bool):
            group = [{"jsonPath": jp, "boolValue": scalar}]
        elif scalar is None:
            group = [{"jsonPath": jp, "nullValue": "NULL_VALUE"}]
        else:
            group = [n(jp, scalar)]
        groups.append(group)
    return groups


@st.composite
def partial_args_stream(
    draw: st.DrawFn, groups: list[list[dict[str, Any]]]
) -> list[dict[str, Any]]:
    """Chunks for one streamed call: the leaves spread over parts, with separators and a
    random ending (empty terminator, or a last leaves part without willContinue)."""
    flat = [leaf for group in groups for leaf in group]
    payloads = [response(opener("tool", signature=draw(st.booleans())))]
    i = 0
    while i < len(flat):
        size = draw(st.integers(1, 3))
        payloads.append(response(leaves(*flat[i : i + size])))
        i += size
        if draw(st.integers(0, 4)) == 0:
            payloads.append(response(SEPARATOR))
    if (
        len(payloads) > 1
        and draw(st.booleans())
        and "partialArgs" in payloads[-1]["candidates"][0]["content"]["parts"][0]["functionCall"]
    ):
        del payloads[-1]["candidates"][0]["content"]["parts"][0]["functionCall"]["willContinue"]
    else:
        payloads.append(response(TERMINATOR))
    payloads.append(response({"text": ""}, finish="STOP"))
    return payloads


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), value=objects_without_empties)
def test_streamed_leaves_in_document_order_give_the_json_text_of_the_value(
    data: st.DataObject, value: dict[str, Any]
) -> None:
    payloads = data.draw(partial_args_stream(data.draw(leaf_groups(value))))
    signals = run(payloads)
    expected_text = json.dumps(value) if value else ""
    assert texts(signals).get(0, "") == expected_text
    assert final_args(signals) == {0: value}
    assert signals[-2:] == [CallEnd(index=0), StreamEnd(reason="STOP", provider_reason="STOP")]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), value=objects_without_empties)
def test_streamed_leaves_in_any_order_give_the_value(
    data: st.DataObject, value: dict[str, Any]
) -> None:
    groups = data.draw(st.permutations(data.draw(leaf_groups(value))))
    signals = run(data.draw(partial_args_stream(groups)))
    assert final_args(signals) == {0: value}
    assert not any(isinstance(sig, CallFailure) for sig in signals)


def root_leaf(value: Any) -> dict[str, Any]:
    if isinstance(value, str):
        return s("$", value)
    if isinstance(value, bool):
        return {"jsonPath": "$", "boolValue": value}
    if value is None:
        return {"jsonPath": "$", "nullValue": "NULL_VALUE"}
    return n("$", value)


@settings(max_examples=50, deadline=None)
@given(value=json_scalars)
def test_a_root_scalar_is_passed_on_as_is(value: Any) -> None:
    signals = run([response(opener("f")), response(leaves(root_leaf(value), more=False))])
    # Not an object: the assembler will say so; the translator passes the value on as is.
    assert json.loads(texts(signals)[0]) == value
    assert signals[-1] == CallEnd(index=0)


# --- odd payloads -----------------------------------------------------------------------

_KEYS = [
    "candidates",
    "content",
    "parts",
    "functionCall",
    "name",
    "args",
    "id",
    "willContinue",
    "partialArgs",
    "jsonPath",
    "stringValue",
    "numberValue",
    "boolValue",
    "nullValue",
    "finishReason",
    "finishMessage",
    "index",
    "error",
    "promptFeedback",
    "blockReason",
    "thoughtSignature",
    "text",
]
_VALUES = [
    "STOP",
    "MAX_TOKENS",
    "MALFORMED_FUNCTION_CALL",
    "SAFETY",
    "$",
    "$.a",
    "$.a[0]",
    "$.a[1].b",
    "$['x']",
    "$[",
    "f",
]
_ODD_PAYLOADS = odd_payloads(_KEYS, _VALUES, lowest=-2, text_size=4, max_leaves=25)


@settings(max_examples=300, deadline=None)
@given(st.lists(_ODD_PAYLOADS, max_size=8))
def test_odd_payloads_never_raise(payloads: list[Any]) -> None:
    check_never_raises(GeminiTranslator(), payloads)


def test_huge_or_deep_paths_fail_cleanly() -> None:
    deep = "$" + ".a" * 600
    signals = run([response(opener("f")), response(leaves(s(deep, "x"), more=False))])
    assert signals[-1] == CallFailure(
        error="streamed arguments: jsonPath deeper than 512 levels", index=0
    )
    far = [
        response(opener("f")),
        response(leaves(n("$.a[0]", 1), n("$.b", 1), n("$.a[99999999]", 2), more=False)),
    ]
    assert run(far)[-1] == CallFailure(
        error="streamed arguments: array position 99999999 is far past the end", index=0
    )
    nan = [
        response(opener("f")),
        response(leaves({"jsonPath": "$.x", "numberValue": float("nan")})),
    ]
    assert run(nan)[-1] == CallFailure(
        error="streamed arguments: non-finite numberValue at $.x", index=0
    )


def test_list_payloads_and_several_candidates() -> None:
    batch = [response(call_part("a")), response(call_part("b"), finish="STOP")]
    assert [sig.name for sig in run([batch]) if isinstance(sig, CallChunk)] == ["a", "b"]
    two = {
        "candidates": [
            {"index": 1, "content": {"parts": [call_part("second_candidate")]}},
            {"index": 0, "content": {"parts": [call_part("first_candidate")]}},
        ]
    }
    assert run([two])[0] == chunk(0, name="first_candidate")


def test_detect() -> None:
    assert detect(response(call_part("f")))
    assert detect({"candidates": []})
    assert detect([response()])
    assert detect(SimpleNamespace(candidates=[]))
    for other in ({"choices": []}, {"type": "message_start"}, {"candidates": None}, [], None, "x"):
        assert not detect(other)


# --- SDK-shaped objects -----------------------------------------------------------------


def test_snake_case_objects_and_enums_work_like_the_wire() -> None:
    import enum

    class FinishReason(str, enum.Enum):
        STOP = "STOP"
        MAX_TOKENS = "MAX_TOKENS"

    ns = SimpleNamespace

    def sdk_response(*parts: Any, finish: Any = None) -> Any:
        return ns(candidates=[ns(content=ns(parts=list(parts)), finish_reason=finish, index=None)])

    payloads = [
        sdk_response(
            ns(
                function_call=ns(name="get", args=None, will_continue=True, partial_args=None),
                thought_signature=b"\x00",
            )
        ),
        sdk_response(
            ns(
                function_call=ns(
                    name=None,
                    will_continue=True,
                    partial_args=[
                        ns(json_path="$.q", string_value="he", will_continue=True),
                        ns(json_path="$.q", string_value="llo", will_continue=None),
                        ns(
                            json_path="$.n",
                            string_value=None,
                            number_value=2.0,
                            bool_value=None,
                            null_value=None,
                        ),
                    ],
                )
            )
        ),
        sdk_response(ns(function_call=ns(name=None, will_continue=None, partial_args=None))),
        sdk_response(
            ns(function_call=ns(name="whole", args={"x": [1]}, id="c1")),
            finish=FinishReason.MAX_TOKENS,
        ),
    ]
    signals = run(payloads)
    assert texts(signals) == {0: '{"q": "hello", "n": 2.0}'}
    assert chunk(1, name="whole", id="c1", args={"x": [1]}) in signals
    assert signals[-1] == StreamEnd(reason="length", provider_reason="MAX_TOKENS")


def test_real_sdk_types() -> None:
    types = pytest.importorskip("google.genai.types")
    payload = types.GenerateContentResponse(
        candidates=[
            types.Candidate(
                content=types.Content(
                    role="model",
                    parts=[types.Part(function_call=types.FunctionCall(name="f", args={"a": 1}))],
                ),
                finish_reason=types.FinishReason.STOP,
            )
        ]
    )
    assert run([payload]) == [
        chunk(0, name="f", args={"a": 1}),
        CallEnd(index=0),
        StreamEnd(reason="STOP", provider_reason="STOP"),
    ]


# --- through the assembler -------------------------------------------------------------


def test_assembled_failures_and_cut_off_calls() -> None:
    malformed = [
        response(call_part("fine", args={"a": 1})),
        {"candidates": [{"finishReason": "MALFORMED_FUNCTION_CALL", "finishMessage": "bad"}]},
    ]
    assembler = assemble(run(malformed))
    assert [c["name"] for c in assembler.tool_calls] == ["fine"]
    assert [(c["name"], c["error"]) for c in assembler.invalid_tool_calls] == [
        (None, "MALFORMED_FUNCTION_CALL: bad")
    ]
    cut = [
        response(opener("write")),
        response(leaves(s("$.text", "Once", more=True)), finish="MAX_TOKENS"),
    ]
    assembler = assemble(run(cut))
    (invalid,) = assembler.invalid_tool_calls
    assert (invalid["name"], invalid["args"]) == ("write", '{"text": "Once')
    assert invalid["error"] is not None and "cut off" in invalid["error"]
    assert assembler.finish_reason == "length"


def test_assembled_root_scalar_is_invalid() -> None:
    signals = run([response(opener("f")), response(leaves(n("$", 3), more=False))])
    (invalid,) = assemble(signals).invalid_tool_calls
    assert invalid["args"] == "3"


# --- recorded streams -------------------------------------------------------------------


@pytest.mark.skipif(not RECORDED.is_dir(), reason="recorded streams not available")
@pytest.mark.parametrize("name", recorded("gemini"))
def test_recorded_streams_assemble_to_the_expected_calls(name: str) -> None:
    payloads, calls = load(name)
    assert detect(payloads[0])
    signals = run(payloads)
    assert sum(isinstance(sig, StreamEnd) for sig in signals) == 1
    assembler = assemble(signals)
    assert [(c["name"], c["id"], c["args"]) for c in assembler.tool_calls] == [
        (c["name"], c["id"], c["args"]) for c in calls if c["valid"]
    ]
    assert assembler.invalid_tool_calls == []
    streamed = texts(signals)
    for i, call in enumerate(calls):
        if i in streamed:  # streamed arguments are re-serialized exactly as json.dumps does
            assert streamed[i] == call["raw"]


def resplit(payloads: list[Any], draw: Any) -> list[Any]:
    """The same stream with every continued string re-cut into new pieces: the pieces of
    one string are joined and cut at random points, each piece in a part of its own."""
    out: list[Any] = []
    pending: list[str] = []  # pieces of the string being continued
    for payload in payloads:
        parts = payload["candidates"][0].get("content", {}).get("parts", [])
        entries = parts[0].get("functionCall", {}).get("partialArgs") if len(parts) == 1 else None
        if not entries or len(entries) != 1 or "stringValue" not in entries[0]:
            out.append(payload)
            continue
        (entry,) = entries
        pending.append(entry["stringValue"])
        if entry.get("willContinue"):
            continue
        pieces = draw(splits("".join(pending)))
        pending.clear()
        part_continues = parts[0]["functionCall"].get("willContinue") is True
        for i, piece in enumerate(pieces):
            leaf = dict(entry, stringValue=piece, willContinue=True)
            last = i == len(pieces) - 1
            if last:
                del leaf["willContinue"]
            out.append(response(leaves(leaf, more=part_continues or not last)))
    return out


@pytest.mark.skipif(not RECORDED.is_dir(), reason="recorded streams not available")
@pytest.mark.parametrize("name", recorded("gemini"))
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_recorded_streams_resplit_give_the_same_calls(name: str, data: st.DataObject) -> None:
    payloads, calls = load(name)
    assembler = assemble(run(resplit(payloads, data.draw)))
    assert [(c["name"], c["args"]) for c in assembler.tool_calls] == [
        (c["name"], c["args"]) for c in calls
    ]
