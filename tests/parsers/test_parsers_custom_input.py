"""The output parsers over every kind of OpenAI Responses call (issue 23, item 2).

A custom tool call validates into a tool with one ``str`` parameter exactly as the tool
runner runs it (one rule, ``callstream.providers._custom_input``: the same verdicts and
the same reasons, tool by tool); hosted calls stay out of the results; and
``model | ToolCallsOutputParser()`` over ``ChatOpenAI(use_responses_api=True)`` on a mock
transport gives under ``invoke`` what ``stream`` ends with, and what LangChain's own
message says where it reads a call (a ``custom_tool_call`` as ``{"__arg1": input}``).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

import callstream
from callstream.parsers import JsonToolsParser, PydanticToolsParser
from tests.runner.test_runner_responses_kinds import (
    _any,
    _extra,
    _none,
    _number,
    _optional,
    _two,
)
from tests.support.responses_streams import (
    CLIENT_BUILTINS,
    CUSTOM,
    FUNCTION_CALLS,
    HOSTED,
    HOSTED_SHELL,
    PATCH,
    STREAMS,
    XAI_SEARCH,
    Stream,
    sse,
)
from tests.support.strategies import splits


class Patch(BaseModel):
    diff: str


def apply_patch(patch: str) -> str:
    return patch


def last(parser: Any, source: list[Any]) -> list[Any]:
    return list(parser.stream(callstream.stream(source)))[-1]


@pytest.mark.parametrize("feed", ["dicts", "sse"])
def test_a_custom_call_validates_into_a_model_with_one_str_field(feed: str) -> None:
    source = CUSTOM.events if feed == "dicts" else [sse(CUSTOM.events)]
    parser = PydanticToolsParser({"apply_patch": Patch})
    [call] = last(parser, source)
    assert call.status == "valid" and call.value == Patch(diff=PATCH)
    assert call.args == {"__arg1": PATCH}  # the call's own arguments
    assert call.to_dict() == {
        "name": "apply_patch",
        "args": {"__arg1": PATCH},
        "id": "call_patch",
        "type": "tool_call",
    }


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_custom_call_cut_anywhere_validates_the_same(data: st.DataObject) -> None:
    pieces = data.draw(splits(sse(CUSTOM.events), max_cuts=40))
    results = list(PydanticToolsParser([apply_patch]).stream(callstream.stream(pieces)))
    final = results[-1]
    assert [(c.status, c.value.patch) for c in final] == [("valid", PATCH)]
    for calls in results[:-1]:  # previews: never a wrong value, never invalid early
        for call in calls:  # __arg1 is no field: the text is the parameter's at the end
            assert call.status == "partial"
            assert call.value is None or call.value.model_fields_set == set()


def test_the_json_parser_shows_the_text_under_langchain_s_key() -> None:
    [call] = last(JsonToolsParser(), CUSTOM.events)
    assert call.status == "valid" and call.value == {"__arg1": PATCH}


@pytest.mark.parametrize("tool", [_extra, _optional, _any, _two, _number, _none])
def test_the_parser_and_the_runner_give_one_verdict_per_signature(tool: Any) -> None:
    named = callstream.Tool(tool, name="apply_patch")
    [result] = callstream.ToolRunner([named]).run(CUSTOM.events).results
    [call] = last(PydanticToolsParser({"apply_patch": tool}), CUSTOM.events)
    if result.status == "done":
        assert call.status == "valid"
        assert call.value is not None and tool(**call.value.model_dump()) == result.output
    else:
        assert call.status == "invalid" and call.value is None
        assert result.error == f"Error: {call.error}"  # the one rule's words


@pytest.mark.parametrize("stream", [HOSTED, HOSTED_SHELL, XAI_SEARCH], ids=lambda s: s.name[:30])
def test_hosted_calls_stay_out_of_the_results(stream: Stream) -> None:
    names = [c["name"] for c in callstream.collect(stream.events).server_tool_calls]
    registry = dict.fromkeys(names, apply_patch)
    for parser in (JsonToolsParser(), PydanticToolsParser(registry)):
        session = parser.session()
        for update in callstream.stream(stream.events):
            shown = session.feed(update)
            assert shown is None or shown == []
        assert session.close() in (None, [])
        assert [c.name for c in session.server_calls] == names
        assert all(c.server and c.value is None for c in session.server_calls)


def test_a_finished_result_parses_as_it_streamed() -> None:
    for stream in STREAMS:
        result = callstream.collect(stream.events)
        parser = PydanticToolsParser([apply_patch, Patch])
        streamed = last(parser, stream.events)
        assert [(c.name, c.id, c.status) for c in parser.parse(result)] == [
            (c.name, c.id, c.status) for c in streamed
        ], stream.name


# --- LangChain: ChatOpenAI(use_responses_api=True) over the mock transport -----------------

langchain_openai = pytest.importorskip("langchain_openai")

from callstream.parsers.langchain import ToolCallsOutputParser  # noqa: E402
from tests.support.real_clients import Replay  # noqa: E402

VERSIONS = ["responses/v1", "v1"]
LC_STREAMS = [FUNCTION_CALLS, CUSTOM, XAI_SEARCH, CLIENT_BUILTINS, HOSTED]


def responses_model(stream: Stream, version: str, *, times: int = 1) -> Any:
    replay = Replay(sse(stream.events).encode(), "openai-responses", times=times)
    return langchain_openai.ChatOpenAI(
        model="gpt-test",
        api_key="test",
        base_url="http://test/v1",
        http_client=replay.client(),
        http_async_client=replay.async_client(),
        max_retries=0,
        use_responses_api=True,
        streaming=True,
        output_version=version,
    )


def _cases() -> list[Any]:
    return [
        pytest.param(s, v, server, tools, id=f"{s.name[:24]}-{v}-server={server}-tools={tools}")
        for s in LC_STREAMS
        for v in VERSIONS
        for server in (False, True)
        for tools in (False, True)
    ]


def _parser(server: bool, tools: bool) -> ToolCallsOutputParser:
    registry = {"apply_patch": Patch} if tools else None
    return ToolCallsOutputParser(server_calls=server, tools=registry)


@pytest.mark.parametrize(("stream", "version", "server", "tools"), _cases())
def test_invoke_equals_the_last_streamed_result(
    stream: Stream, version: str, server: bool, tools: bool
) -> None:
    model = responses_model(stream, version, times=3)
    chain = model | _parser(server, tools)
    streamed = list(chain.stream("go"))
    invoked = chain.invoke("go")
    assert invoked == (streamed[-1] if streamed else [])
    message = model.invoke("go")  # LangChain's own reading of the same response
    client = [c for c in invoked if c["type"] != "server_tool_call"]
    if tools:  # validated: apply_patch against the model, any other name is unknown
        ids = [c["id"] for c in [*message.tool_calls, *message.invalid_tool_calls]]
        assert sorted(c["id"] for c in client) == sorted(ids)
        for call in client:
            valid = call["name"] == "apply_patch" and call["id"] == "call_patch"
            assert call["type"] == ("tool_call" if valid else "invalid_tool_call"), call
    else:  # the same calls as LangChain's, valid and invalid alike
        own = [(c["name"], c["id"], c["args"]) for c in message.tool_calls]
        ours = [(c["name"], c["id"], c["args"]) for c in client if c["type"] == "tool_call"]
        assert ours == own
        assert [c["id"] for c in client if c["type"] == "invalid_tool_call"] == [
            c["id"] for c in message.invalid_tool_calls
        ]
    if not server:
        assert all(c["type"] != "server_tool_call" for c in invoked)


def test_the_model_s_order_survives_invoke() -> None:
    # The late delta makes LangChain's first call invalid; invoke keeps it first.
    for version in VERSIONS:
        chain = responses_model(FUNCTION_CALLS, version) | ToolCallsOutputParser()
        invoked = chain.invoke("go")
        assert [(c["type"], c["id"]) for c in invoked] == [
            ("invalid_tool_call", "call_ns"),
            ("tool_call", "call_prog"),
            ("tool_call", "call_direct"),
        ], version


def test_a_custom_call_validates_through_chat_openai_as_the_runner_runs_it() -> None:
    for version in VERSIONS:
        chain = responses_model(CUSTOM, version) | ToolCallsOutputParser(
            tools={"apply_patch": Patch}, output="calls"
        )
        [call] = chain.invoke("go")
        assert call.status == "valid" and call.value == Patch(diff=PATCH)
        chain = responses_model(CUSTOM, version) | ToolCallsOutputParser(
            tools={"apply_patch": _two}
        )
        [bad] = list(chain.stream("go"))[-1]
        assert bad["type"] == "invalid_tool_call"
        assert "apply_patch cannot take the text input of a custom tool call" in bad["error"]


@pytest.mark.anyio
@pytest.mark.parametrize("version", VERSIONS)
async def test_ainvoke_equals_the_last_astreamed_result(version: str) -> None:
    for stream in (FUNCTION_CALLS, CUSTOM):
        chain = responses_model(stream, version, times=2) | ToolCallsOutputParser(
            tools={"apply_patch": Patch}
        )
        streamed = [r async for r in chain.astream("go")]
        assert await chain.ainvoke("go") == streamed[-1]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # LangChain's async paths need asyncio
