"""``callstream.testing.langchain.FakeToolCallingChatModel``: scripted tool calls streamed as
``tool_call_chunks`` in a provider integration's chunk style, merged and read back."""

from __future__ import annotations

import asyncio
import functools
import operator
import warnings
from typing import Any

import pytest

pytest.importorskip("langchain_core", reason="the LangChain fake needs langchain-core")

from langchain_core.messages import AIMessageChunk, HumanMessage, ToolMessage
from pydantic import BaseModel, Field

import callstream
from callstream.testing import QUIRKS, StreamDropped
from callstream.testing.langchain import (
    STYLES,
    FakeProviderError,
    FakeToolCallingChatModel,
)

CALLS = [
    {"name": "get_weather", "args": {"city": "São Paulo", "days": [1, 2]}, "id": "call_a"},
    {"name": "search", "args": {"q": 'say "hi"\n', "n": 1e-7}, "id": "call_b"},
]


def _triples(calls: Any) -> list[tuple[Any, ...]]:
    return [(c["name"], c["args"], c["id"]) for c in calls]


def _merged(chunks: list[AIMessageChunk]) -> AIMessageChunk:
    return functools.reduce(operator.add, chunks)


# quirks after which LangChain's own chunk addition still gives the calls
_MERGEABLE = ("empty-first-fragment", "interleaved", "whole-calls", "stop-after-calls")


def _cases() -> list[Any]:
    out = []
    for style in STYLES:
        quirks = [None, *(q for q in _MERGEABLE if style in QUIRKS[q].formats)]
        if style == "openai-responses":
            quirks.remove("interleaved")  # ChatOpenAI's index mixes them: a test below
        for quirk in quirks:
            for split in ("token", "char", "random"):
                out.append(
                    pytest.param(style, quirk, split, id=f"{style}-{quirk or 'plain'}-{split}")
                )
    return out


@pytest.mark.parametrize(("style", "quirk", "split"), _cases())
def test_merged_chunks_and_collect_give_the_calls(
    style: str, quirk: str | None, split: str
) -> None:
    model = FakeToolCallingChatModel(
        turns=[{"calls": CALLS, "text": "Let me look."}],
        format=style,
        split=split,
        quirks=() if quirk is None else (quirk,),
        seed=4,
    )
    chunks = list(model.stream("weather?"))
    assert all(isinstance(c, AIMessageChunk) for c in chunks)
    assert any(c.tool_call_chunks for c in chunks)
    merged = _merged(chunks)
    assert _triples(merged.tool_calls) == _triples(CALLS)
    assert merged.text == "Let me look."
    result = callstream.collect(chunks, provider="langchain")
    assert _triples(result.tool_calls) == _triples(CALLS)
    assert result.text == "Let me look."
    finish = {"anthropic": "tool_use", "openai-responses": None}.get(style, "tool_calls")
    # ChatOpenAI's Responses chunks carry a status, not a finish reason
    assert result.finish_reason == ("stop" if quirk == "stop-after-calls" else finish)


def _first_chunks(chunks: list[AIMessageChunk]) -> list[dict[str, Any]]:
    return [tc for c in chunks for tc in c.tool_call_chunks]


def test_openai_style_places_index_id_and_name_as_chat_openai() -> None:
    model = FakeToolCallingChatModel(turns=[{"calls": CALLS, "text": "Hi"}], format="openai-chat")
    pieces = _first_chunks(list(model.stream("x")))
    heads = [(p["index"], p["id"], p["name"], p["args"]) for p in pieces if p["id"]]
    # calls counted from 0 whatever came before; the head carries the first fragment
    assert heads == [(0, "call_a", "get_weather", '{"'), (1, "call_b", "search", '{"')]
    rest = [p for p in pieces if not p["id"]]
    assert rest and all(p["name"] is None and p["index"] in (0, 1) for p in rest)


def test_anthropic_style_uses_the_content_block_index_and_an_empty_head() -> None:
    model = FakeToolCallingChatModel(turns=[{"calls": CALLS, "text": "Hi"}], format="anthropic")
    chunks = list(model.stream("x"))
    pieces = _first_chunks(chunks)
    heads = [p for p in pieces if p["id"]]
    # the text block is block 0: the calls are blocks 1 and 2, each opened with args ""
    assert [(p["index"], p["name"], p["args"]) for p in heads] == [
        (1, "get_weather", ""),
        (2, "search", ""),
    ]
    assert {p["index"] for p in pieces} == {1, 2}
    blocks = [b for c in chunks if isinstance(c.content, list) for b in c.content]
    assert {b["type"] for b in blocks} == {"text", "tool_use", "input_json_delta"}
    assert chunks[-1].chunk_position == "last"
    assert chunks[-1].response_metadata["stop_reason"] == "tool_use"


def test_responses_style_counts_output_items_into_the_index() -> None:
    model = FakeToolCallingChatModel(
        turns=[{"calls": CALLS, "text": "Hi"}], format="openai-responses"
    )
    chunks = list(model.stream("x"))
    pieces = _first_chunks(chunks)
    heads = [(p["index"], p["id"], p["name"], p["args"]) for p in pieces if p["id"]]
    assert heads == [(1, "call_a", "get_weather", ""), (2, "call_b", "search", "")]
    assert chunks[-1].chunk_position == "last"
    assert chunks[-1].response_metadata["status"] == "completed"


def test_interleaved_responses_calls_lose_their_index_in_chat_openai() -> None:
    model = FakeToolCallingChatModel(
        turns=[CALLS], format="openai-responses", quirks=["interleaved"], split="char"
    )
    indexes = [p["index"] for p in _first_chunks(list(model.stream("x")))]
    # every switch of output item starts a new index: the calls' pieces scatter
    assert len(set(indexes)) > len(CALLS) and indexes == sorted(indexes)


def test_resent_ids_break_langchains_merge_but_not_collect() -> None:
    model = FakeToolCallingChatModel(turns=[CALLS], format="openai-chat", quirks=["resent-ids"])
    chunks = list(model.stream("x"))
    names = [c["name"] for c in _merged(chunks).tool_calls]
    assert names[0].startswith("get_weatherget_weather")  # LangChain adds the names up
    assert _triples(callstream.collect(chunks, provider="langchain").tool_calls) == _triples(CALLS)


def test_shared_index_mixes_langchains_merge_but_not_collect() -> None:
    model = FakeToolCallingChatModel(turns=[CALLS], format="openai-chat", quirks=["shared-index"])
    chunks = list(model.stream("x"))
    assert _triples(_merged(chunks).tool_calls) != _triples(CALLS)  # both calls on index 0
    assert _triples(callstream.collect(chunks, provider="langchain").tool_calls) == _triples(CALLS)


def test_missing_index_gives_no_tool_call_chunks_as_chat_openai_drops_them() -> None:
    model = FakeToolCallingChatModel(turns=[CALLS], format="openai-chat", quirks=["missing-index"])
    chunks = list(model.stream("x"))
    assert not _first_chunks(chunks)
    assert _merged(chunks).tool_calls == []


@pytest.mark.parametrize("style", STYLES)
def test_token_limit_leaves_the_last_call_invalid_in_collect(style: str) -> None:
    model = FakeToolCallingChatModel(turns=[CALLS], format=style, quirks=["token-limit"])
    result = callstream.collect(model.stream("x"), provider="langchain")
    assert _triples(result.tool_calls) == _triples(CALLS[:1])
    assert [c["name"] for c in result.invalid_tool_calls] == ["search"]
    # Responses chunks say status "incomplete", which callstream's LangChain reader does
    # not read as a finish reason
    assert result.finish_reason == (None if style == "openai-responses" else "length")


@pytest.mark.parametrize("style", ["openai-chat", "anthropic"])
def test_a_provider_error_is_raised_with_its_body_and_collect_recovers(style: str) -> None:
    model = FakeToolCallingChatModel(turns=[CALLS] * 2, format=style, quirks=["provider-error"])
    with pytest.raises(FakeProviderError) as caught:
        list(model.stream("x"))
    assert "error" in caught.value.body
    result = callstream.collect(model.stream("x"), provider="langchain")
    assert result.finish_reason == "error" and result.provider_error
    assert [c["name"] for c in result.invalid_tool_calls] == ["search"]


@pytest.mark.parametrize("style", STYLES)
def test_a_dropped_connection_raises_stream_dropped(style: str) -> None:
    model = FakeToolCallingChatModel(turns=[CALLS], format=style, quirks=["dropped-connection"])
    chunks: list[Any] = []
    with pytest.raises(StreamDropped):
        chunks.extend(model.stream("x"))
    assert chunks  # some chunks came before the drop


def test_invoke_returns_the_merged_message_and_records_what_it_was_sent() -> None:
    model = FakeToolCallingChatModel(turns=[CALLS, "done"], format="anthropic")
    message = model.invoke([HumanMessage("weather?")])
    assert _triples(message.tool_calls) == _triples(CALLS)
    assert model.invoke("thanks").text == "done"
    assert [m.text for m in model.received[0]] == ["weather?"]
    assert model.calls_made == 2


@pytest.mark.parametrize("style", STYLES)
def test_stream_events_v3_gives_protocol_events_and_the_calls(style: str) -> None:
    model = FakeToolCallingChatModel(turns=[CALLS, CALLS], format=style, split="char")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # v3 is a beta of langchain-core
        events = list(model.stream_events("x", version="v3"))
        stream = model.stream_events("x", version="v3")
        output = stream.output
    assert events[0]["event"] == "message-start" and events[-1]["event"] == "message-finish"
    assert _triples(callstream.collect(events, provider="langchain").tool_calls) == _triples(CALLS)
    assert _triples(output.tool_calls) == _triples(CALLS)


def test_astream_and_astream_events_v3() -> None:
    async def main() -> tuple[Any, Any]:
        model = FakeToolCallingChatModel(turns=[CALLS, CALLS], format="langchain")
        chunks = [chunk async for chunk in model.astream("x")]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            stream = await model.astream_events("x", version="v3")
            output = await stream
        return chunks, output

    chunks, output = asyncio.run(main())
    assert _triples(_merged(chunks).tool_calls) == _triples(CALLS)
    assert _triples(output.tool_calls) == _triples(CALLS)


class GetWeather(BaseModel):
    """The weather in a city."""

    city: str = Field(description="the city")
    days: list[int]


def test_bind_tools_records_a_pydantic_tool_and_returns_a_bound_runnable() -> None:
    model = FakeToolCallingChatModel(
        turns=[[{"name": "GetWeather", "args": {"city": "Oslo", "days": [1]}, "id": "c1"}]]
    )
    bound = model.bind_tools([GetWeather], tool_choice="any")
    message = bound.invoke("weather in Oslo?")
    assert [t["function"]["name"] for t in model.bound_tools] == ["GetWeather"]
    assert model.bound_tools[0]["function"]["parameters"]["required"] == ["city", "days"]
    assert GetWeather(**message.tool_calls[0]["args"]) == GetWeather(city="Oslo", days=[1])


def get_weather(city: str, days: list[int]) -> str:
    """The weather in a city, for some days."""
    return f"{city}: sunny for {len(days)} days"


def search(q: str, n: float) -> str:
    """Search for q."""
    return f"found {q.strip()}"


def test_a_plain_agent_loop_sends_the_tool_results_back() -> None:
    from langchain_core.tools import tool

    tools = {t.name: t for t in (tool(get_weather), tool(search))}
    model = FakeToolCallingChatModel(
        turns=[{"calls": CALLS, "text": "Checking."}, "Sunny."], format="anthropic", split="char"
    )
    bound = model.bind_tools(list(tools.values()))
    messages: list[Any] = [HumanMessage("weather?")]
    while True:
        reply = bound.invoke(messages)
        messages.append(reply)
        if not reply.tool_calls:
            break
        messages += [tools[call["name"]].invoke(call) for call in reply.tool_calls]
    assert messages[-1].text == "Sunny."
    sent = [m for m in model.received[1] if isinstance(m, ToolMessage)]
    assert [(m.tool_call_id, m.text) for m in sent] == [
        ("call_a", "São Paulo: sunny for 2 days"),
        ("call_b", 'found say "hi"'),
    ]


def test_a_langgraph_react_agent_runs_two_turns() -> None:
    prebuilt = pytest.importorskip("langgraph.prebuilt", reason="needs langgraph")
    from langchain_core.tools import tool

    model = FakeToolCallingChatModel(turns=[CALLS, "It is sunny."], format="openai-chat")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # create_react_agent is deprecated for langchain's
        agent = prebuilt.create_react_agent(model, [tool(get_weather), tool(search)])
        state = agent.invoke({"messages": [("user", "weather?")]})
    assert state["messages"][-1].text == "It is sunny."
    results = [m for m in model.received[1] if isinstance(m, ToolMessage)]
    assert [m.tool_call_id for m in results] == ["call_a", "call_b"]
    assert [t["function"]["name"] for t in model.bound_tools] == ["get_weather", "search"]


def test_turns_come_in_every_shape() -> None:
    model = FakeToolCallingChatModel(
        turns=[{"calls": CALLS[:1], "text": "a"}, {"text": "b"}, "c", CALLS[1:]],
        format="langchain",
    )
    got = [model.invoke("x") for _ in range(4)]
    assert [m.text for m in got] == ["a", "b", "c", ""]
    assert [len(m.tool_calls) for m in got] == [1, 0, 0, 1]


def test_a_turns_own_quirks_replace_the_models() -> None:
    model = FakeToolCallingChatModel(
        turns=[{"calls": CALLS, "quirks": ["token-limit"]}, CALLS],
        format="langchain",
        quirks=["interleaved"],
    )
    first = callstream.collect(model.stream("x"), provider="langchain")
    second = callstream.collect(model.stream("x"), provider="langchain")
    assert first.finish_reason == "length" and len(second.tool_calls) == 2


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"format": "gemini"}, ValueError, "unknown chunk style 'gemini'"),
        ({"split": "word"}, ValueError, "unknown split 'word'"),
        ({"quirks": ["odd"]}, ValueError, "unknown quirk 'odd'"),
        (
            {"format": "anthropic", "quirks": ["missing-index"]},
            ValueError,
            "does not apply to the anthropic style",
        ),
        ({"quirks": ["arguments-object"]}, ValueError, "is not streamed as LangChain chunks"),
        ({"turns": [{"calls": [], "quirk": []}]}, ValueError, "unknown keys"),
        ({"turns": [3]}, TypeError, r"turns\[0\] must be a list of tool calls"),
        (
            {"quirks": ["token-limit", "dropped-connection"]},
            ValueError,
            r"turns\[0\]: quirks 'dropped-connection' and 'token-limit' both end the stream",
        ),
        (
            {"turns": [[{"name": "f", "args": "{}"}]]},
            TypeError,
            r"turns\[0\]: calls\[0\]\['args'\]",
        ),
    ],
)
def test_misuse_raises_a_precise_error(kwargs: Any, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        FakeToolCallingChatModel(**{"turns": [CALLS], **kwargs})


def test_a_call_after_the_last_turn_raises() -> None:
    model = FakeToolCallingChatModel(turns=[CALLS])
    model.invoke("x")
    with pytest.raises(ValueError, match="called 2 times but has 1 turns"):
        model.invoke("x")
