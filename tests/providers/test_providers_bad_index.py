"""A provider index that is present but unusable (``true``, ``1.5``, ``"abc"``, ``[0]``, a
negative number) never routes text into another call (OpenAI Chat, Responses, Cohere).

The pieces that carry it form a call of their own, which ends invalid with the reason and
its raw text; the call being streamed, which may be missing that fragment, is not trusted
either (Chat, Cohere); every other call is exactly as it would have been.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import callstream
from callstream.providers.cohere import CohereTranslator
from callstream.providers.openai_chat import OpenAIChatTranslator
from callstream.providers.openai_responses import OpenAIResponsesTranslator
from tests.support.provider_helpers import assemble, translate_all
from tests.support.strategies import json_objects, splits

BAD_INDEXES: list[Any] = [True, False, 1.5, "abc", "", [0], {"i": 0}, -1, "-2", "1e3"]


def call_views(signals: list[Any]) -> tuple[list[Any], list[Any]]:
    assembler = assemble(signals)
    valid = [(c["name"], c["id"], c["args"]) for c in assembler.tool_calls]
    invalid = [(c["name"], c["id"], c["args"], c["error"]) for c in assembler.invalid_tool_calls]
    return valid, invalid


# --- OpenAI Chat --------------------------------------------------------------------------


def chat(index: Any, id_: str | None = None, name: str | None = None, args: Any = None) -> Any:
    entry: dict[str, Any] = {"index": index, "function": {"arguments": args}}
    if id_ is not None:
        entry["id"] = id_
        entry["type"] = "function"
    if name is not None:
        entry["function"]["name"] = name
    return {
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": {"tool_calls": [entry]}}],
    }


CHAT_FINISH = {
    "object": "chat.completion.chunk",
    "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}],
}


def test_chat_bad_index_continuation_joins_no_call_and_fails_the_streamed_one() -> None:
    # Before the fix: index true read as absent, '"Rome"' joined call 0, which stayed
    # valid as {"city": "Rome"} although it was streaming '"Paris"'.
    payloads = [
        chat(0, "call_a", "weather", '{"city": '),
        chat(True, args='"Rome"'),
        chat(0, args='"Paris"}'),
        chat(1, "call_b", "time", "{}"),
        CHAT_FINISH,
    ]
    valid, invalid = call_views(translate_all(OpenAIChatTranslator(), payloads))
    assert valid == [("time", "call_b", {})]
    assert ("weather", "call_a", '{"city": ') == invalid[0][:3]
    assert "unusable index true" in invalid[0][3]
    assert invalid[1][:3] == (None, None, '"Rome"')
    assert invalid[1][3].startswith("unusable index true:")
    assert all("Rome" not in json.dumps(args) for _, _, args in valid)


def test_chat_pieces_with_the_same_bad_index_stay_together_and_end_invalid() -> None:
    payloads = [
        chat(0, "call_a", "f", '{"x": 1}'),
        chat("abc", "call_b", "g", '{"y"'),
        chat("abc", args=": 2}"),
        chat(2, "call_c", "h", "{}"),
    ]
    for finish in ([CHAT_FINISH], []):  # failed with the reason, or rejected for no name
        valid, invalid = call_views(translate_all(OpenAIChatTranslator(), payloads + finish))
        assert valid == [("f", "call_a", {"x": 1}), ("h", "call_c", {})]
        assert len(invalid) == 1
        assert invalid[0][1:3] == ("call_b", '{"y": 2}')
    valid, invalid = call_views(translate_all(OpenAIChatTranslator(), [*payloads, CHAT_FINISH]))
    assert invalid[0][0] == "g"
    assert invalid[0][3].startswith('unusable index "abc": ')


def test_chat_every_kind_of_bad_index_is_refused() -> None:
    for bad in BAD_INDEXES:
        payloads = [chat(0, "a", "f", '{"x": 1}'), chat(bad, "b", "g", '{"y": 2}'), CHAT_FINISH]
        valid, invalid = call_views(translate_all(OpenAIChatTranslator(), payloads))
        assert valid == [("f", "a", {"x": 1})], bad
        assert [c[:3] for c in invalid] == [("g", "b", '{"y": 2}')], bad


def test_chat_bad_choice_index_routes_nothing_into_choice_0() -> None:
    bad_choice = {
        "choices": [
            {"index": "x", "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "1"}}]}}
        ]
    }
    payloads = [chat(0, "a", "f", '{"x": '), bad_choice, chat(0, args="2}"), CHAT_FINISH]
    valid, invalid = call_views(translate_all(OpenAIChatTranslator(), payloads))
    # Before the fix: choice "x" read as choice 0, and call 0 was valid as {"x": 12}.
    assert valid == []  # call 0 may have lost a fragment: not trusted
    assert invalid[1][:3] == (None, None, "1")
    assert invalid[1][3].startswith('unusable choice index "x": ')


def sse(payloads: list[Any]) -> str:
    return "".join(f"data: {json.dumps(p)}\n\n" for p in payloads) + "data: [DONE]\n\n"


def test_chat_bad_index_through_collect_whole_and_one_character_at_a_time() -> None:
    payloads = [
        chat(0, "call_a", "weather", '{"city": '),
        chat(1.5, args='"Rome"'),
        chat(0, args='"Paris"}'),
        chat(1, "call_b", "time", "{}"),
        CHAT_FINISH,
    ]
    text = sse(payloads)
    whole = callstream.collect([text], provider="openai-chat")
    chars = callstream.collect(list(text), provider="openai-chat")
    objects = callstream.collect(payloads, provider="openai-chat")
    for result in (whole, chars, objects):
        assert [(c["name"], c["args"]) for c in result.tool_calls] == [("time", {})]
        assert [c["args"] for c in result.invalid_tool_calls] == ['{"city": ', '"Rome"', '"Paris"}']
    assert whole == chars == objects


@st.composite
def chat_streams(draw: st.DrawFn) -> tuple[list[Any], list[Any], list[tuple[str, str, Any]], int]:
    """A valid sequential Chat stream (each call: id+name+first piece, then pieces), the
    same stream with one chunk's index corrupted, the expected calls, and the id of the
    call whose chunk was corrupted."""
    count = draw(st.integers(1, 4))
    payloads: list[Any] = []
    owners: list[int] = []
    calls = []
    for number in range(count):
        args = draw(json_objects(max_leaves=6))
        text = json.dumps(args)
        pieces = draw(splits(text))
        calls.append((f"f{number}", f"call_{number}", args))
        payloads.append(chat(number, f"call_{number}", f"f{number}", pieces[0]))
        owners.append(number)
        for piece in pieces[1:]:
            payloads.append(chat(number, args=piece))
            owners.append(number)
    position = draw(st.integers(0, len(payloads) - 1))
    corrupted = json.loads(json.dumps(payloads))
    corrupted[position]["choices"][0]["delta"]["tool_calls"][0]["index"] = draw(
        st.sampled_from(BAD_INDEXES)
    )
    finish = [CHAT_FINISH] if draw(st.booleans()) else []
    entry = payloads[position]["choices"][0]["delta"]["tool_calls"][0]
    victim = owners[position] if entry.get("id") or entry["function"]["arguments"] else -1
    return payloads + finish, corrupted + finish, calls, victim


@settings(max_examples=300, deadline=None)
@given(chat_streams())
def test_chat_one_corrupted_index_fails_its_call_and_leaves_the_others(case: Any) -> None:
    payloads, corrupted, calls, victim = case
    valid, invalid = call_views(translate_all(OpenAIChatTranslator(), payloads))
    assert valid == calls and invalid == []
    valid, invalid = call_views(translate_all(OpenAIChatTranslator(), corrupted))
    if victim < 0:  # the corrupted chunk carried nothing: nothing changes
        assert valid == calls and invalid == []
        return
    assert valid == [c for n, c in enumerate(calls) if n != victim]
    assert invalid  # the corrupted call's pieces are kept, as invalid calls
    assert {c[1] for c in invalid} <= {f"call_{victim}", None}


# --- OpenAI Responses ---------------------------------------------------------------------


def responses_call(index: int, name: str, text: str, pieces: list[str]) -> list[Any]:
    item = {"type": "function_call", "id": f"fc_{index}", "call_id": f"call_{index}", "name": name}
    events: list[Any] = [
        {
            "type": "response.output_item.added",
            "output_index": index,
            "item": {**item, "arguments": ""},
        }
    ]
    events += [
        {
            "type": "response.function_call_arguments.delta",
            "output_index": index,
            "item_id": f"fc_{index}",
            "delta": p,
        }
        for p in pieces
    ]
    events.append(
        {
            "type": "response.function_call_arguments.done",
            "output_index": index,
            "item_id": f"fc_{index}",
            "arguments": text,
        }
    )
    events.append(
        {
            "type": "response.output_item.done",
            "output_index": index,
            "item": {**item, "arguments": text},
        }
    )
    return events


RESPONSES_END = {"type": "response.completed", "response": {}}


def test_responses_bad_output_index_is_not_replaced_by_a_guess() -> None:
    # Before the fix: output_index "x" fell back to the last call, so '"Rome"' was
    # streamed into call 1's arguments.
    events = [
        *responses_call(1, "weather", '{"city": "Paris"}', []),
        {
            "type": "response.output_item.added",
            "output_index": 2,
            "item": {"type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "other"},
        },
        {"type": "response.function_call_arguments.delta", "output_index": 2, "delta": '{"city": '},
        {"type": "response.function_call_arguments.delta", "output_index": "x", "delta": '"Rome"'},
        {"type": "response.function_call_arguments.delta", "output_index": 2, "delta": '"Oslo"}'},
        RESPONSES_END,
    ]
    valid, invalid = call_views(translate_all(OpenAIResponsesTranslator(), events))
    assert ("weather", "call_1", {"city": "Paris"}) in valid
    assert all("Rome" not in json.dumps(v) for v in valid)
    assert [(c[2], c[3].split(":")[0]) for c in invalid if c[2] == '"Rome"'] == [
        ('"Rome"', 'unusable output_index "x"')
    ]


# --- Cohere -------------------------------------------------------------------------------


def cohere_call(index: int, name: str, pieces: list[str]) -> list[Any]:
    start = {
        "type": "tool-call-start",
        "index": index,
        "delta": {
            "message": {
                "tool_calls": {
                    "id": f"call_{index}",
                    "type": "function",
                    "function": {"name": name, "arguments": ""},
                }
            }
        },
    }
    deltas = [
        {
            "type": "tool-call-delta",
            "index": index,
            "delta": {"message": {"tool_calls": {"function": {"arguments": p}}}},
        }
        for p in pieces
    ]
    return [start, *deltas, {"type": "tool-call-end", "index": index}]


COHERE_END = {"type": "message-end", "delta": {"finish_reason": "TOOL_CALL"}}


def test_cohere_bad_index_delta_joins_no_call() -> None:
    events = [
        *cohere_call(0, "weather", ['{"city": ', '"Paris"}']),
        cohere_call(1, "time", ["{}"])[0],
        {
            "type": "tool-call-delta",
            "index": [1],
            "delta": {"message": {"tool_calls": {"function": {"arguments": '{"tz": "CET"}'}}}},
        },
        {"type": "tool-call-end", "index": 1},
        COHERE_END,
    ]
    valid, invalid = call_views(translate_all(CohereTranslator(), events))
    assert valid == [("weather", "call_0", {"city": "Paris"})]
    assert [c[2] for c in invalid] == [None, '{"tz": "CET"}']
    assert invalid[0][:2] == ("time", "call_1")
    assert invalid[1][3].startswith("unusable index [1]: ")


# --- Responses and Cohere: one corrupted index --------------------------------------------


#: Builds one call's events: ``(draw, number, name, args text) -> events``.
CallEvents = Callable[[st.DrawFn, int, str, str], list[Any]]


@st.composite
def corrupted_streams(
    draw: st.DrawFn, call_events: CallEvents, key: str, end: Any
) -> tuple[list[Any], list[Any], list[Any], int]:
    """A valid stream of 1-3 calls (``call_events(draw, number, name, args text)``), the same
    stream with field ``key`` of one event corrupted, the expected calls, and the number of
    the call whose event was corrupted."""
    count = draw(st.integers(1, 3))
    events: list[Any] = []
    owners: list[int] = []
    calls = []
    for number in range(count):
        args = draw(json_objects(max_leaves=6))
        events_of_call = call_events(draw, number, f"f{number}", json.dumps(args))
        events += events_of_call
        owners += [number] * len(events_of_call)
        calls.append((f"f{number}", f"call_{number}", args))
    position = draw(st.integers(0, len(events) - 1))
    corrupted = json.loads(json.dumps(events))
    corrupted[position][key] = draw(st.sampled_from(BAD_INDEXES))
    ending = [end] if draw(st.booleans()) else []
    return events + ending, corrupted + ending, calls, owners[position]


FORMATS: dict[str, tuple[Callable[[], Any], str, Any, CallEvents]] = {
    "responses": (
        OpenAIResponsesTranslator,
        "output_index",
        RESPONSES_END,
        lambda draw, n, name, text: responses_call(n, name, text, draw(splits(text))),
    ),
    "cohere": (
        CohereTranslator,
        "index",
        COHERE_END,
        lambda draw, n, name, text: cohere_call(n, name, draw(splits(text))),
    ),
}


@pytest.mark.parametrize("fmt", FORMATS)
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_one_corrupted_index_changes_no_other_call(fmt: str, data: st.DataObject) -> None:
    translator, key, end, call_events = FORMATS[fmt]
    case = data.draw(corrupted_streams(call_events, key, end))
    events, corrupted, calls, victim = case
    valid, invalid = call_views(translate_all(translator(), events))
    assert valid == calls and invalid == []
    valid, invalid = call_views(translate_all(translator(), corrupted))
    others = [c for n, c in enumerate(calls) if n != victim]
    assert [c for c in valid if c in others] == others
    # the corrupted call may survive only with its own, authoritative arguments
    assert all(c in calls for c in valid)
