"""Issue 23's LangChain content-block streaming through the real code: ``ChatOpenAI`` and
``ChatAnthropic`` (over the real SDK clients and ``callstream.testing.MockProvider`` serving our
streams, see tests/real_clients/test_real_clients_langchain.py) streamed with
``stream_events(version="v3")`` (a ``ChatModelStream`` of protocol events, built by
langchain-core's bridge from the model's chunks), and a real LangGraph graph around the
model streamed every way LangGraph streams messages: ``stream_mode="messages"`` tuples,
``stream(version="v2")`` ``StreamPart`` s, several modes, subgraphs, and
``stream_events(version="v3")`` (protocol events, and ``run.messages``' per-message
streams). Each gives what callstream makes of the raw SSE bytes. Sync and asyncio
(LangChain does not run under trio: see that module).
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest

pytest.importorskip("langchain_openai")
pytest.importorskip("langchain_anthropic")
pytest.importorskip("langgraph")

from langgraph.graph import START, MessagesState, StateGraph

import callstream
from callstream import ArgumentsDelta
from callstream.parsers.langchain import ToolCallsOutputParser
from tests.real_clients.test_real_clients_langchain import (
    CASES,
    MSGS,
    check_case,
    model_for,
    raw,
    same_calls,
)

pytestmark = pytest.mark.filterwarnings(
    "ignore::langchain_core._api.beta_decorator.LangChainBetaWarning"
)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def check(case: str, result: callstream.StreamResult) -> None:
    data = CASES[case][1]
    reference = raw(data)
    same_calls(result, reference)
    check_case(case, result)
    assert result.provider == "langchain" and result.text == reference.text


# --- 1. stream_events(version="v3") / ChatModelStream ---------------------------------------


@pytest.mark.parametrize("case", list(CASES))
def test_stream_events_v3(case: str) -> None:
    model, replay = model_for(*CASES[case])
    check(case, callstream.collect(model.stream_events(MSGS, version="v3")))
    [request] = replay.requests
    assert request.body["stream"] is True and request.tools


@pytest.mark.parametrize("case", list(CASES))
def test_stream_driver_over_a_chat_model_stream(case: str) -> None:
    model, _ = model_for(*CASES[case])
    with callstream.stream(model.stream_events(MSGS, version="v3")) as updates:
        seen = [u.snapshot() for u in updates]
    assert all(isinstance(u.payload, dict) and "event" in u.payload for u in seen[:-1])
    check(case, updates.result)
    for update in seen:  # a server call never shows among the client calls
        assert all(not str(c["id"]).startswith("srvtoolu_") for c in update.tool_calls)


def test_previews_after_every_delta_over_the_real_stream() -> None:
    # LangChain's own ChatModelStream parses the arguments at message-finish only.
    model, _ = model_for(*CASES["openai-two-parallel"])
    stream = model.stream_events(MSGS, version="v3")
    deltas = 0
    with callstream.stream(stream) as updates:
        for update in updates:
            payload = update.payload
            if payload is not None and payload.get("delta", {}).get("type") == "tool-call-delta":
                deltas += 1
                assert any(isinstance(e, ArgumentsDelta) for e in update.events)
                assert update.tool_calls  # a preview after each piece
            last = update
    assert deltas >= 4
    # LangChain's own final parse of the same stream agrees with the previews' end.
    message = stream.output
    assert [(c["id"], c["args"]) for c in last.tool_calls] == [
        (c["id"], c["args"]) for c in message.tool_calls
    ]
    assert (
        last.tool_calls
        == callstream.collect(
            model_for(*CASES["openai-two-parallel"])[0].stream_events(MSGS, version="v3")
        ).tool_calls
    )


@pytest.mark.anyio
@pytest.mark.parametrize("case", list(CASES))
async def test_astream_events_v3(case: str) -> None:
    model, replay = model_for(*CASES[case])
    check(case, await callstream.acollect(await model.astream_events(MSGS, version="v3")))
    assert len(replay.requests) == 1 and replay.closed == (True,)
    model, _ = model_for(*CASES[case])
    async with callstream.astream(await model.astream_events(MSGS, version="v3")) as updates:
        async for _ in updates:
            pass
    check(case, updates.result)


# --- 2. LangGraph ------------------------------------------------------------------------------


def graph_for(case: str) -> tuple[Any, dict[str, Any]]:
    """A one-node graph whose node calls the bound model, and its input."""
    model, _ = model_for(*CASES[case])

    def call_model(state: MessagesState) -> dict[str, Any]:
        return {"messages": [model.invoke(state["messages"])]}

    async def acall_model(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await model.ainvoke(state["messages"])]}

    builder = StateGraph(MessagesState)
    builder.add_node("model", call_model)
    builder.add_edge(START, "model")
    abuilder = StateGraph(MessagesState)
    abuilder.add_node("model", acall_model)
    abuilder.add_edge(START, "model")
    graphs = {"sync": builder.compile(), "async": abuilder.compile()}
    return graphs, {"messages": [("user", MSGS)]}


SYNC_WAYS = {
    "messages-tuples": lambda g, i: g.stream(i, stream_mode="messages"),
    "stream-parts": lambda g, i: g.stream(i, stream_mode="messages", version="v2"),
    "stream-parts-all-modes": lambda g, i: g.stream(
        i, stream_mode=["values", "updates", "messages"], version="v2"
    ),
    "mode-tuples": lambda g, i: g.stream(i, stream_mode=["updates", "messages"]),
    "subgraph-tuples": lambda g, i: g.stream(i, stream_mode="messages", subgraphs=True),
    "stream-events-v3": lambda g, i: g.stream_events(i, version="v3"),
}


@pytest.mark.parametrize("way", list(SYNC_WAYS))
@pytest.mark.parametrize("case", list(CASES))
def test_langgraph_streams(case: str, way: str) -> None:
    graphs, inputs = graph_for(case)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        source = SYNC_WAYS[way](graphs["sync"], inputs)
    check(case, callstream.collect(source))


@pytest.mark.parametrize("case", list(CASES))
def test_langgraph_v3_per_message_streams(case: str) -> None:
    graphs, inputs = graph_for(case)
    run = graphs["sync"].stream_events(inputs, version="v3")
    [result] = [callstream.collect(message) for message in run.messages]
    check(case, result)


ASYNC_WAYS = ["messages-tuples", "stream-parts", "stream-events-v3"]


@pytest.mark.anyio
@pytest.mark.parametrize("way", ASYNC_WAYS)
@pytest.mark.parametrize("case", list(CASES))
async def test_langgraph_async_streams(case: str, way: str) -> None:
    graphs, inputs = graph_for(case)
    graph = graphs["async"]
    if way == "messages-tuples":
        source: Any = graph.astream(inputs, stream_mode="messages")
    elif way == "stream-parts":
        source = graph.astream(inputs, stream_mode="messages", version="v2")
    else:
        source = await graph.astream_events(inputs, version="v3")
    check(case, await callstream.acollect(source))


# --- 3. the output parser: the events, and the message LangChain assembles from them ----------


@pytest.mark.parametrize("case", list(CASES))
def test_parser_over_events_equals_invoke_on_their_message(case: str) -> None:
    # A chain cannot hand the parser these events (RunnableSequence has no
    # stream_events v3), but the parser reads them when given: its last result equals
    # its streamed result over the model's chunks, and its invoke on the message
    # LangChain assembles from the same events (what a LangGraph v3 node's
    # ``(model | parser).invoke`` receives) gives the same calls and verdicts.
    parser = ToolCallsOutputParser()
    model, _ = model_for(*CASES[case])
    stream = model.stream_events(MSGS, version="v3")
    over_events = list(parser.transform(iter(stream)))[-1]
    model, _ = model_for(*CASES[case])
    over_chunks = list((model | parser).stream(MSGS))[-1]
    assert over_events == over_chunks
    # equal outright: the cut call's LangChain block (invalid_tool_call, "Failed to parse
    # tool call arguments as JSON") is judged from its text, as the stream judged it
    assert parser.invoke(stream.output) == over_events


@pytest.mark.anyio
@pytest.mark.parametrize("case", list(CASES))
async def test_parser_over_async_events(case: str) -> None:
    parser = ToolCallsOutputParser()
    model, _ = model_for(*CASES[case])
    stream = await model.astream_events(MSGS, version="v3")
    results = [r async for r in parser.atransform(stream.__aiter__())]
    model, _ = model_for(*CASES[case])
    assert results[-1] == [r async for r in (model | parser).astream(MSGS)][-1]
    assert await parser.ainvoke(await stream.output) == results[-1]
