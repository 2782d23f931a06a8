"""Issue 10's LangChain items through LangChain's real chat models: ``ChatOpenAI`` and
``ChatAnthropic`` with ``bind_tools``, over the real openai / anthropic SDK clients and an
``httpx2.MockTransport`` whose handler, ``callstream.testing.MockProvider``, serves streams
of our own in the providers' wire shapes.

How the mock client reaches the model (langchain-openai 1.8, langchain-anthropic 1.7):
``ChatOpenAI`` takes ``http_client=`` / ``http_async_client=`` (``httpx2`` clients, handed
to ``openai.OpenAI`` / ``AsyncOpenAI`` unchanged). ``ChatAnthropic`` has no such field: it
builds its SDK clients in the cached properties ``_client`` / ``_async_client`` (over an
``lru_cache``-d default HTTP client), so the test stores real ``anthropic.Anthropic`` /
``AsyncAnthropic`` clients in the instance's ``__dict__``, which a ``cached_property``
reads first. Everything below that (the SDK's SSE decoding, LangChain's chunk building,
callbacks, aggregation for ``invoke``) is the real code.

Async runs on asyncio only: LangChain does not run under trio (``ChatOpenAI.astream``
calls ``asyncio.wait_for`` for its chunk timeout, and the async callback manager calls
``asyncio.create_task`` on errors: both raise ``RuntimeError: no running event loop``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import anthropic
import httpx2
import openai
import pytest

pytest.importorskip("langchain_openai")
pytest.importorskip("langchain_anthropic")

from langchain_anthropic import ChatAnthropic
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessageChunk
from langchain_openai import ChatOpenAI

import callstream
from callstream.parsers.langchain import ToolCallsOutputParser
from callstream.providers._provider_errors import provider_error_payload
from tests.real_clients.test_real_clients_sdk import (
    ANTHROPIC_API_ERROR_BODY,
    ANTHROPIC_CUT,
    ANTHROPIC_EVENTS,
    ANTHROPIC_OVERLOADED_BODY,
    CHAT_CHUNKS,
    CHAT_CUT,
    GROQ_BODY,
    GROQ_ERROR,
    check_interrupted,
    names_args,
)
from tests.support.real_clients import (
    FORMATS,
    Replay,
    anthropic_sse,
    byte_pieces,
    chat_chunk,
    chat_sse,
    dropped_connection_errors,
    from_dropped_connection,
)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # LangChain's async paths need asyncio (see the module docstring)


MSGS = "What is the weather in Paris and Edinburgh?"

# --- the tools bound on the model, as the providers take them -----------------------------


def get_weather(city: str, country: str = "") -> str:
    """Get the weather in a city.

    Args:
        city: the city.
        country: its country.
    """
    return "sunny"


MAKE_FILE = {
    "name": "make_file",
    "description": "Write a file.",
    "input_schema": {
        "type": "object",
        "properties": {"filename": {"type": "string"}, "lines": {"type": "array"}},
    },
}
WEB_SEARCH = {"type": "web_search_20250305", "name": "web_search", "max_uses": 1}
OPENAI_TOOLS: list[Any] = [get_weather]
ANTHROPIC_TOOLS: list[Any] = [get_weather, MAKE_FILE, WEB_SEARCH]

# --- our streams, in the wire shapes ---------------------------------------------------------


def _start() -> dict[str, Any]:
    return dict(ANTHROPIC_EVENTS[0])


def _block(index: int, block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_start", "index": index, "content_block": block}


def _json(index: int, text: str) -> dict[str, Any]:
    return {
        "type": "content_block_delta",
        "index": index,
        "delta": {"type": "input_json_delta", "partial_json": text},
    }


def _text(index: int, text: str) -> list[dict[str, Any]]:
    return [
        _block(index, {"type": "text", "text": ""}),
        {
            "type": "content_block_delta",
            "index": index,
            "delta": {"type": "text_delta", "text": text},
        },
        {"type": "content_block_stop", "index": index},
    ]


def _tool(index: int, id_: str, name: str, kind: str = "tool_use") -> dict[str, Any]:
    return _block(index, {"type": kind, "id": id_, "name": name, "input": {}})


def _stop(index: int) -> dict[str, Any]:
    return {"type": "content_block_stop", "index": index}


def _end(reason: str, **usage: Any) -> list[dict[str, Any]]:
    return [
        {
            "type": "message_delta",
            "delta": {"stop_reason": reason, "stop_sequence": None},
            "usage": {"output_tokens": 20, **usage},
        },
        {"type": "message_stop"},
    ]


CUT_ARGS = '{"filename": "taxes.txt", "lines": ["# Tax guide", "Fil'

# A complete call, then one cut by max_tokens mid-string (no content_block_stop: as sent).
MAX_TOKENS_EVENTS = [
    _start(),
    *_text(0, "Writing it."),
    _tool(1, "toolu_1", "get_weather"),
    _json(1, '{"city": "Paris"}'),
    _stop(1),
    _tool(2, "toolu_2", "make_file"),
    _json(2, ""),
    _json(2, '{"filename": "taxes.txt", "lines": ["# Tax'),
    _json(2, ' guide", "Fil'),
    *_end("max_tokens"),
]

SEARCH_RESULT = {
    "type": "web_search_tool_result",
    "tool_use_id": "srvtoolu_1",
    "content": [
        {
            "type": "web_search_result",
            "title": "Paris weather",
            "url": "https://example.com/paris",
            "encrypted_content": "EqgfCioIARgBIiQ3",
            "page_age": "1 day ago",
        }
    ],
}

# A web search the provider runs itself, its result, text, then a client tool_use.
SERVER_EVENTS = [
    _start(),
    _tool(0, "srvtoolu_1", "web_search", kind="server_tool_use"),
    _json(0, ""),
    _json(0, '{"query": "weat'),
    _json(0, 'her Paris"}'),
    _stop(0),
    _block(1, SEARCH_RESULT),
    _stop(1),
    *_text(2, "It is sunny; checking the forecast."),
    _tool(3, "toolu_1", "get_weather"),
    _json(3, '{"city": '),
    _json(3, '"Paris"}'),
    _stop(3),
    *_end("tool_use", server_tool_use={"web_search_requests": 1}),
]

SEARCH_CALL = {
    "type": "server_tool_call",
    "name": "web_search",
    "args": {"query": "weather Paris"},
    "id": "srvtoolu_1",
}

CASES: dict[str, tuple[str, bytes]] = {
    "openai-two-parallel": ("openai", chat_sse(CHAT_CHUNKS)),
    "anthropic-tool-use": ("anthropic", anthropic_sse(ANTHROPIC_EVENTS)),
    "anthropic-max-tokens": ("anthropic", anthropic_sse(MAX_TOKENS_EVENTS)),
    "anthropic-server-tool": ("anthropic", anthropic_sse(SERVER_EVENTS)),
}

# --- the real models over the replaying transport -------------------------------------------


def chat_openai(handler: Callable[[httpx2.Request], httpx2.Response], **options: Any) -> Any:
    """``ChatOpenAI(...).bind_tools(...)`` whose SDK clients talk to ``handler`` (a
    :class:`Replay`, or a function answering a plain request)."""
    model = ChatOpenAI(
        model="gpt-test",
        api_key="test",  # type: ignore[arg-type]
        base_url="http://test/v1",
        http_client=httpx2.Client(transport=httpx2.MockTransport(handler)),
        http_async_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)),
        max_retries=0,
        **options,
    )
    return model.bind_tools(OPENAI_TOOLS)


def chat_anthropic(replay: Replay, **options: Any) -> Any:
    """``ChatAnthropic(...).bind_tools(...)`` whose SDK clients talk to ``replay``."""
    model = ChatAnthropic(
        model_name="claude-test",
        api_key="test",  # type: ignore[arg-type]
        base_url="http://test",
        max_retries=0,
        **options,
    )
    common: dict[str, Any] = {"api_key": "test", "base_url": "http://test", "max_retries": 0}
    model.__dict__["_client"] = anthropic.Anthropic(http_client=replay.client(), **common)
    model.__dict__["_async_client"] = anthropic.AsyncAnthropic(
        http_client=replay.async_client(), **common
    )
    return model.bind_tools(ANTHROPIC_TOOLS)


def model_for(kind: str, data: bytes, *, times: int = 1, **options: Any) -> tuple[Any, Replay]:
    """The bound model of ``kind`` replaying ``data`` to ``times`` requests;
    ``streaming=True`` so that ``invoke`` reads the same stream (LangChain aggregates its
    chunks)."""
    replay = Replay(data, FORMATS[kind], times=times)
    build = chat_openai if kind == "openai" else chat_anthropic
    return build(replay, streaming=True, **options), replay


def raw(data: bytes) -> callstream.StreamResult:
    """What callstream makes of the raw SSE bytes (the reference)."""
    return callstream.collect(byte_pieces(data, 3))


def same_calls(result: callstream.StreamResult, reference: callstream.StreamResult) -> None:
    assert result.tool_calls == reference.tool_calls
    assert result.invalid_tool_calls == reference.invalid_tool_calls
    assert result.server_tool_calls == reference.server_tool_calls
    assert result.finish_reason == reference.finish_reason
    assert result.provider_finish_reason == reference.provider_finish_reason
    assert result.finished and not result.interrupted


def check_case(case: str, result: callstream.StreamResult) -> None:
    """What each case must give, stated outright (not only as parity)."""
    if case == "openai-two-parallel":
        assert names_args(result.tool_calls) == [
            ("get_weather", {"city": "Paris"}),
            ("get_weather", {"city": "Edinburgh", "country": "UK"}),
        ]
        assert [c["id"] for c in result.tool_calls] == ["call_1", "call_2"]
        assert result.invalid_tool_calls == [] and result.finish_reason == "tool_calls"
    elif case == "anthropic-tool-use":
        assert [c["id"] for c in result.tool_calls] == ["toolu_1", "toolu_2"]
        assert result.invalid_tool_calls == [] and result.finish_reason == "tool_use"
    elif case == "anthropic-max-tokens":
        assert names_args(result.tool_calls) == [("get_weather", {"city": "Paris"})]
        [bad] = result.invalid_tool_calls
        assert (bad["name"], bad["id"], bad["args"]) == ("make_file", "toolu_2", CUT_ARGS)
        assert "cut off by the token limit" in str(bad["error"])
        assert result.finish_reason == "length" and result.provider_finish_reason == "max_tokens"
    else:
        assert result.server_tool_calls == [SEARCH_CALL]
        assert names_args(result.tool_calls) == [("get_weather", {"city": "Paris"})]
        ids = [c["id"] for c in [*result.tool_calls, *result.invalid_tool_calls]]
        assert ids == ["toolu_1"]  # the server call is never a client call
    assert result.server_tool_calls == ([SEARCH_CALL] if case == "anthropic-server-tool" else [])


# --- 1. collect over LangChain's chunks == collect over the raw bytes -------------------------


@pytest.mark.parametrize("case", list(CASES))
def test_stream_gives_the_raw_bytes_result(case: str) -> None:
    kind, data = CASES[case]
    model, replay = model_for(kind, data)
    result = callstream.collect(model.stream(MSGS))
    same_calls(result, raw(data))
    check_case(case, result)
    assert result.provider == "langchain"
    # The tools were bound on the request that reached the transport, and it streamed.
    [request] = replay.requests
    assert request.body["stream"] is True and request.tools
    assert replay.closed == (True,)


@pytest.mark.anyio
@pytest.mark.parametrize("case", list(CASES))
async def test_astream_gives_the_raw_bytes_result(case: str) -> None:
    kind, data = CASES[case]
    model, replay = model_for(kind, data)
    result = await callstream.acollect(model.astream(MSGS))
    same_calls(result, raw(data))
    check_case(case, result)
    assert len(replay.requests) == 1 and replay.closed == (True,)


@pytest.mark.parametrize("case", list(CASES))
def test_stream_driver_updates_over_langchain_chunks(case: str) -> None:
    kind, data = CASES[case]
    model, _ = model_for(kind, data)
    with callstream.stream(model.stream(MSGS)) as updates:
        seen = [u.snapshot() for u in updates]
    assert all(isinstance(u.payload, AIMessageChunk) for u in seen[:-1])
    final = updates.result
    same_calls(final, raw(data))
    # A server call never shows up among the client calls, not even mid-stream.
    for update in seen:
        assert all(not str(c["id"]).startswith("srvtoolu_") for c in update.tool_calls)


@pytest.mark.parametrize("output_version", ["v0", "v1"])
def test_what_langchain_chunks_carry_for_a_server_tool(output_version: str) -> None:
    # The premise: LangChain keeps the server call out of tool_call_chunks; it is only in
    # the content blocks (Anthropic-native server_tool_use + input_json_delta in v0,
    # server_tool_call_chunk in v1), at the block's index. callstream reads it from there.
    data = CASES["anthropic-server-tool"][1]
    model, _ = model_for("anthropic", data, times=2, output_version=output_version)
    chunks = list(model.stream(MSGS))
    blocks = [b for c in chunks if isinstance(c.content, list) for b in c.content]
    server_kinds = {"server_tool_use", "server_tool_call_chunk"}
    assert any(b.get("type") in server_kinds and b.get("id") == "srvtoolu_1" for b in blocks)
    chunk_ids = [t["id"] for c in chunks for t in c.tool_call_chunks if t["id"]]
    assert chunk_ids == ["toolu_1"]
    result = callstream.collect(iter(chunks))
    same_calls(result, raw(data))
    # LangChain's own aggregated message lists only the client call.
    message = model.invoke(MSGS)
    assert [c["id"] for c in message.tool_calls] == ["toolu_1"]


# --- 2. (model | ToolCallsOutputParser()): invoke == the last streamed result ----------------

EXPECTED_PARSED: dict[str, list[tuple[str, str | None, str]]] = {
    # (kind of entry, id, name) in the model's order
    "openai-two-parallel": [
        ("tool_call", "call_1", "get_weather"),
        ("tool_call", "call_2", "get_weather"),
    ],
    "anthropic-tool-use": [
        ("tool_call", "toolu_1", "get_weather"),
        ("tool_call", "toolu_2", "get_weather"),
    ],
    "anthropic-max-tokens": [
        ("tool_call", "toolu_1", "get_weather"),
        ("invalid_tool_call", "toolu_2", "make_file"),
    ],
    "anthropic-server-tool": [
        ("server_tool_call", "srvtoolu_1", "web_search"),
        ("tool_call", "toolu_1", "get_weather"),
    ],
}


def shape(results: list[dict[str, Any]]) -> list[tuple[str, str | None, str]]:
    return [(r["type"], r["id"], r["name"]) for r in results]


#: The cut call's arguments as LangChain's v1 message keeps them: parsed leniently, with
#: no raw text left to read (the v1 ``tool_call`` block holds only the parsed object).
V1_CUT_ARGS = '{"filename": "taxes.txt", "lines": ["# Tax guide", "Fil"]}'


def check_parsed(
    case: str, results: list[dict[str, Any]], *, server_calls: bool, v1_invoke: bool = False
) -> None:
    expected = EXPECTED_PARSED[case]
    if not server_calls:
        expected = [e for e in expected if e[0] != "server_tool_call"]
    assert shape(results) == expected
    for entry in results:
        if entry["type"] == "invalid_tool_call":
            assert entry["args"] == (V1_CUT_ARGS if v1_invoke else CUT_ARGS)
            assert "cut off by the token limit" in entry["error"]
        if entry["type"] == "server_tool_call":
            assert entry == SEARCH_CALL


def parser_cases() -> list[Any]:
    return [
        pytest.param(case, version, server, id=f"{case}-{version}-server={server}")
        for case in CASES
        for version in (["v0", "v1"] if CASES[case][0] == "anthropic" else ["v0"])
        for server in (True, False)
    ]


@pytest.mark.parametrize(("case", "version", "server_calls"), parser_cases())
def test_parser_stream_results(case: str, version: str, server_calls: bool) -> None:
    kind, data = CASES[case]
    model, _ = model_for(kind, data, output_version=version)
    parser = ToolCallsOutputParser(server_calls=server_calls)
    streamed = list((model | parser).stream(MSGS))
    check_parsed(case, streamed[-1], server_calls=server_calls)
    # No intermediate result ever lists the server call as a client call.
    for results in streamed:
        assert all(
            r["type"] == "server_tool_call" for r in results if str(r["id"]).startswith("srvtoolu")
        )


@pytest.mark.parametrize(("case", "version", "server_calls"), parser_cases())
def test_parser_invoke_equals_the_last_streamed_result(
    case: str, version: str, server_calls: bool
) -> None:
    kind, data = CASES[case]
    model, _ = model_for(kind, data, times=2, output_version=version)
    chain = model | ToolCallsOutputParser(server_calls=server_calls)
    streamed = list(chain.stream(MSGS))[-1]
    invoked = chain.invoke(MSGS)
    check_invoked(case, version, invoked, streamed, server_calls=server_calls)


def check_invoked(
    case: str,
    version: str,
    invoked: list[dict[str, Any]],
    streamed: list[dict[str, Any]],
    *,
    server_calls: bool,
) -> None:
    """invoke gives the last streamed result: the same calls in the same order with the
    same verdicts; equal outright, except the v1 message's cut call, whose raw argument
    text LangChain no longer keeps (its args and error are then ours from the parsed
    object)."""
    v1_cut = (case, version) == ("anthropic-max-tokens", "v1")
    check_parsed(case, invoked, server_calls=server_calls, v1_invoke=v1_cut)
    assert shape(invoked) == shape(streamed)
    if v1_cut:
        assert invoked[:-1] == streamed[:-1]
    else:
        assert invoked == streamed


@pytest.mark.anyio
@pytest.mark.parametrize(("case", "version", "server_calls"), parser_cases())
async def test_parser_ainvoke_equals_the_last_astreamed_result(
    case: str, version: str, server_calls: bool
) -> None:
    kind, data = CASES[case]
    model, _ = model_for(kind, data, times=2, output_version=version)
    chain = model | ToolCallsOutputParser(server_calls=server_calls)
    streamed = [r async for r in chain.astream(MSGS)][-1]
    check_parsed(case, streamed, server_calls=server_calls)
    invoked = await chain.ainvoke(MSGS)
    check_invoked(case, version, invoked, streamed, server_calls=server_calls)


def test_langchain_alone_reports_the_cut_call_valid() -> None:
    # The premise of item 6: LangChain's own message has the max_tokens-cut call among its
    # valid tool_calls, with leniently parsed partial args.
    model, _ = model_for("anthropic", CASES["anthropic-max-tokens"][1])
    message = model.invoke(MSGS)
    assert message.response_metadata["stop_reason"] == "max_tokens"
    assert message.tool_calls[-1]["args"] == {
        "filename": "taxes.txt",
        "lines": ["# Tax guide", "Fil"],
    }
    assert message.invalid_tool_calls == []


# --- 3. provider errors the SDKs raise, through LangChain ------------------------------------

# Groq's tool_use_failed after a few text chunks: LangChain's chunks are recognized as the
# "langchain" format before the error arrives.
GROQ_AFTER_TEXT_BODY = chat_sse(
    [
        chat_chunk({"role": "assistant", "content": ""}),
        chat_chunk({"content": "Let"}),
        chat_chunk({"content": " me"}),
        chat_chunk({"content": " check."}),
    ],
    done=False,
    tail=f"event: error\ndata: {json.dumps(GROQ_ERROR)}\n\n",
)


def test_what_langchain_raises_for_provider_error_events() -> None:
    # ChatOpenAI re-raises the SDK's own openai.APIError unchanged (its handler only wraps
    # status/connection errors); ChatAnthropic does not catch at all. Both carry the body
    # our provider_error_payload reads.
    model, _ = model_for("openai", GROQ_BODY)
    with pytest.raises(openai.APIError) as info:
        list(model.stream(MSGS))
    assert type(info.value) is openai.APIError
    assert info.value.body == GROQ_ERROR["error"]
    assert info.value.__cause__ is None and info.value.__context__ is None
    assert provider_error_payload(info.value) == GROQ_ERROR
    model, _ = model_for("anthropic", ANTHROPIC_OVERLOADED_BODY)
    with pytest.raises(anthropic.APIStatusError) as ainfo:
        list(model.stream(MSGS))
    overloaded = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    assert ainfo.value.body == overloaded and provider_error_payload(ainfo.value) == overloaded


def check_groq(result: callstream.StreamResult, data: bytes) -> None:
    reference = raw(data)
    same_calls(result, reference)
    [bad] = result.invalid_tool_calls
    assert bad["name"] == "get_weather" and str(bad["error"]).startswith("Failed to call")
    assert bad["args"] == '{"city": "Paris", "units": celsius}'
    assert result.finish_reason == "error"


GROQ_CASES = [
    pytest.param(GROQ_BODY, id="error-first"),
    pytest.param(GROQ_AFTER_TEXT_BODY, id="error-after-text"),
]


@pytest.mark.parametrize("data", GROQ_CASES)
def test_groq_tool_use_failed_through_chat_openai(data: bytes) -> None:
    model, _ = model_for("openai", data)
    check_groq(callstream.collect(model.stream(MSGS)), data)


@pytest.mark.anyio
@pytest.mark.parametrize("data", GROQ_CASES)
async def test_async_groq_tool_use_failed_through_chat_openai(data: bytes) -> None:
    model, _ = model_for("openai", data)
    check_groq(await callstream.acollect(model.astream(MSGS)), data)


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(ANTHROPIC_OVERLOADED_BODY, id="overloaded"),
        pytest.param(ANTHROPIC_API_ERROR_BODY, id="api-error"),
    ],
)
def test_anthropic_error_event_through_chat_anthropic(data: bytes) -> None:
    model, _ = model_for("anthropic", data)
    result = callstream.collect(model.stream(MSGS))
    assert result.finish_reason == "error" and result.finished
    if data is ANTHROPIC_OVERLOADED_BODY:
        assert names_args(result.tool_calls) == [("get_weather", {"city": "Paris"})]
        [bad] = result.invalid_tool_calls
        assert bad["id"] == "toolu_2" and bad["args"] == '{"city": "Edinburgh", "country": "'


# --- 3b. the same provider errors through (model | ToolCallsOutputParser()) -------------------

PARSER_ERROR_CASES = [
    pytest.param("openai", GROQ_BODY, id="groq-error-first"),
    pytest.param("openai", GROQ_AFTER_TEXT_BODY, id="groq-error-after-text"),
    pytest.param("anthropic", ANTHROPIC_OVERLOADED_BODY, id="anthropic-overloaded"),
    pytest.param("anthropic", ANTHROPIC_API_ERROR_BODY, id="anthropic-api-error"),
]

#: A config with a callback handler: the parser then runs through LangChain's own
#: transform (which reports the run) instead of reading the messages straight through.
TRACED: dict[str, Any] = {"callbacks": [BaseCallbackHandler()]}


def collected_dicts(kind: str, data: bytes) -> list[dict[str, Any]]:
    """What collect(model.stream()) gives, as the parser's dicts: the calls in order."""
    model, _ = model_for(kind, data)
    result = callstream.collect(model.stream(MSGS))
    assert result.finish_reason == "error" and result.provider_error
    calls = [*result.tool_calls, *result.invalid_tool_calls]
    return [{**c, "type": "invalid_tool_call" if "error" in c else "tool_call"} for c in calls]


@pytest.mark.parametrize("config", [None, TRACED], ids=["direct", "traced"])
@pytest.mark.parametrize(("kind", "data"), PARSER_ERROR_CASES)
def test_parser_chain_recovers_from_sdk_provider_errors(
    kind: str, data: bytes, config: Any
) -> None:
    model, _ = model_for(kind, data)
    chain = model | ToolCallsOutputParser()
    results = list(chain.stream(MSGS, config=config))
    assert results[-1] == collected_dicts(kind, data)
    if kind == "openai":
        [bad] = results[-1]
        assert bad["name"] == "get_weather" and str(bad["error"]).startswith("Failed to call")


@pytest.mark.anyio
@pytest.mark.parametrize("config", [None, TRACED], ids=["direct", "traced"])
@pytest.mark.parametrize(("kind", "data"), PARSER_ERROR_CASES)
async def test_parser_chain_recovers_from_sdk_provider_errors_async(
    kind: str, data: bytes, config: Any
) -> None:
    model, _ = model_for(kind, data)
    chain = model | ToolCallsOutputParser()
    results = [r async for r in chain.astream(MSGS, config=config)]
    assert results[-1] == collected_dicts(kind, data)


def test_parser_chain_gives_no_call_for_groqs_no_call_error() -> None:
    no_call = {
        "error": {
            "message": "Tool choice is required, but model did not call a tool",
            "type": "invalid_request_error",
            "code": "tool_use_failed",
            "failed_generation": "",
        }
    }
    data = chat_sse(
        [chat_chunk({"role": "assistant", "content": ""})],
        done=False,
        tail=f"event: error\ndata: {json.dumps(no_call)}\n\n",
    )
    model, _ = model_for("openai", data)
    assert list((model | ToolCallsOutputParser()).stream(MSGS)) == [[]]
    result = callstream.collect(model_for("openai", data)[0].stream(MSGS))
    assert result.invalid_tool_calls == [] and result.provider_error == no_call["error"]["message"]


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_parser_chain_lets_other_exceptions_through_unchanged(kind: str) -> None:
    model, _ = dropped_model(kind)
    with pytest.raises(DROPPED_ERRORS[kind]) as info:
        list((model | ToolCallsOutputParser()).stream(MSGS))
    assert from_dropped_connection(info.value)
    model, _ = dropped_model(kind)
    with pytest.raises(DROPPED_ERRORS[kind]) as direct:
        list(model.stream(MSGS))
    assert type(info.value) is type(direct.value)


@pytest.mark.anyio
@pytest.mark.parametrize("kind", ["openai", "anthropic"])
async def test_parser_chain_lets_other_exceptions_through_unchanged_async(kind: str) -> None:
    model, _ = dropped_model(kind)
    with pytest.raises(DROPPED_ERRORS[kind]):
        async for _ in (model | ToolCallsOutputParser()).astream(MSGS):
            pass


@pytest.mark.anyio
async def test_parser_chain_invoke_raises_in_the_model_step() -> None:
    # The limit of any output parser: chain.invoke runs the model step to its end before
    # the parser sees anything, so the SDK's exception leaves the model step; the parser
    # cannot receive it. chain.stream / astream recover (above); so does collect().
    model, _ = model_for("openai", GROQ_BODY)
    with pytest.raises(openai.APIError):
        (model | ToolCallsOutputParser()).invoke(MSGS)
    with pytest.raises(openai.APIError):
        await (model | ToolCallsOutputParser()).ainvoke(MSGS)


# --- 4. a dropped connection mid-stream --------------------------------------------------------

DROPPED = {
    "openai": chat_sse(CHAT_CHUNKS[:CHAT_CUT], done=False),
    "anthropic": anthropic_sse(ANTHROPIC_EVENTS[:ANTHROPIC_CUT]),
}

#: What reaches the caller: ChatOpenAI and ChatAnthropic wrap the SDK's error in their
#: own connection errors (subclasses; the SDK error is the __cause__); before anthropic's
#: 2.17 releases ChatAnthropic let the transport's own error through.
DROPPED_ERRORS: dict[str, tuple[type[BaseException], ...]] = {
    kind: dropped_connection_errors(kind) for kind in ("openai", "anthropic")
}


def dropped_model(kind: str) -> tuple[Any, Replay]:
    replay = Replay(DROPPED[kind], FORMATS[kind], dropped=True)
    build = chat_openai if kind == "openai" else chat_anthropic
    return build(replay), replay


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_dropped_connection_through_langchain(kind: str) -> None:
    model, replay = dropped_model(kind)
    with pytest.raises(DROPPED_ERRORS[kind]) as info:
        callstream.collect(model.stream(MSGS))
    if kind == "openai":
        assert type(info.value).__name__ == "OpenAIConnectionError"
        assert type(info.value.__cause__) is openai.APIConnectionError
    result = info.value.callstream_result  # type: ignore[attr-defined]
    check_interrupted(result)
    assert result.provider == "langchain"
    notes = getattr(info.value, "__notes__", [])
    assert any("callstream_result" in note for note in notes)
    assert replay.closed == (True,)
    updates = callstream.stream(dropped_model(kind)[0].stream(MSGS))
    with pytest.raises(DROPPED_ERRORS[kind]):
        for _ in updates:
            pass
    assert updates.result == result


@pytest.mark.anyio
@pytest.mark.parametrize("kind", ["openai", "anthropic"])
async def test_async_dropped_connection_through_langchain(kind: str) -> None:
    model, replay = dropped_model(kind)
    with pytest.raises(DROPPED_ERRORS[kind]) as info:
        await callstream.acollect(model.astream(MSGS))
    check_interrupted(info.value.callstream_result)  # type: ignore[attr-defined]
    assert replay.closed == (True,)


# --- 2b. invoke on a model that does not stream (a whole chat.completion response) ----------


def completion(calls: list[tuple[str, str]], finish: str) -> bytes:
    """A non-streamed Chat Completions response with ``calls`` (id, arguments text)."""
    message = {
        "role": "assistant",
        "content": None,
        "refusal": None,
        "tool_calls": [
            {"id": id_, "type": "function", "function": {"name": "get_weather", "arguments": a}}
            for id_, a in calls
        ],
    }
    return json.dumps(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 1_700_000_000,
            "model": "gpt-test",
            "choices": [
                {"index": 0, "message": message, "logprobs": None, "finish_reason": finish}
            ],
            "usage": {"prompt_tokens": 5, "completion_tokens": 9, "total_tokens": 14},
        }
    ).encode()


def invoke_whole(calls: list[tuple[str, str]], finish: str) -> tuple[Any, list[Any]]:
    """LangChain's message and the parser's invoke result for a non-streamed response."""
    sent: list[Any] = []

    def answer(request: httpx2.Request) -> httpx2.Response:
        # a whole JSON response: MockProvider serves streams only
        sent.append(json.loads(request.content))
        return httpx2.Response(
            200, headers={"content-type": "application/json"}, content=completion(calls, finish)
        )

    model = chat_openai(answer)  # streaming=False: invoke sends a plain request
    message = model.invoke(MSGS)
    results = (model | ToolCallsOutputParser()).invoke(MSGS)
    assert [bool(r.get("stream")) for r in sent] == [False, False]
    return message, results


def verdicts(results: list[dict[str, Any]]) -> dict[str, str]:
    return {r["id"]: r["type"] for r in results}


def test_invoke_whole_response_malformed_call_keeps_both_verdicts() -> None:
    # LangChain 1.x keeps a non-streamed OpenAI message's calls only as tool_calls and
    # invalid_tool_calls (no raw additional_kwargs["tool_calls"], no invalid block in
    # v1 content): their relative order is gone, so invoke lists the valid call first.
    message, results = invoke_whole(
        [("call_1", '{"city": Paris}'), ("call_2", '{"city": "Edinburgh"}')], "tool_calls"
    )
    assert "tool_calls" not in message.additional_kwargs
    assert verdicts(results) == {"call_1": "invalid_tool_call", "call_2": "tool_call"}
    assert [r["id"] for r in results] == ["call_2", "call_1"]  # LangChain dropped the order


def test_invoke_whole_response_cut_by_length_keeps_the_complete_call() -> None:
    cut = '{"city": "Edinburgh", "country": "'
    message, results = invoke_whole([("call_1", '{"city": "Paris"}'), ("call_2", cut)], "length")
    assert [c["id"] for c in message.invalid_tool_calls] == ["call_2"]
    assert verdicts(results) == {"call_1": "tool_call", "call_2": "invalid_tool_call"}
    assert results[0]["args"] == {"city": "Paris"} and results[1]["args"] == cut


def test_invoke_whole_response_at_length_distrusts_the_last_call() -> None:
    # By design (conservative): at a token limit with every call valid, the parser cannot
    # tell LangChain's strict parse (non-streamed) from its lenient one (a streamed message
    # aggregated), so the last call is reported as possibly cut off.
    _, results = invoke_whole(
        [("call_1", '{"city": "Paris"}'), ("call_2", '{"city": "Edinburgh"}')], "length"
    )
    assert verdicts(results) == {"call_1": "tool_call", "call_2": "invalid_tool_call"}
    assert "cut off by the token limit" in str(results[1]["error"])
