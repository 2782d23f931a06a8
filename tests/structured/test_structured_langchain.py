"""The LangChain output parser for structured output (issue 27 item 3):
``model | StructuredOutputParser(schema_type=Model)``, ``invoke`` ≡ ``stream``, through a
fake chat model and through the real ``ChatOpenAI`` / ``ChatAnthropic`` over mock
transports (streams of our own in the providers' wire shapes)."""

from __future__ import annotations

import copy
import json
from typing import Any

import anthropic
import openai
import pytest

pytest.importorskip("langchain_openai")
pytest.importorskip("langchain_anthropic")

from langchain_anthropic import ChatAnthropic
from langchain_core.exceptions import OutputParserException
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_openai import ChatOpenAI

from callstream import StructuredOutputError
from callstream.parsers.langchain_structured import StructuredOutputParser
from tests.structured.models import Doc, consistent
from tests.structured.test_structured_real_clients import (
    CHAT_FORMAT,
    CUT,
    EXPECTED,
    SCHEMA,
    TEXT,
    anthropic_wire,
    chat_wire,
)
from tests.support.real_clients import FORMATS, Replay


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # LangChain's async paths need asyncio


def fake(text: str) -> GenericFakeChatModel:
    """A chat model that streams ``text`` split at its spaces."""
    return GenericFakeChatModel(messages=iter([AIMessage(content=text)]))


def test_stream_yields_partial_objects_then_the_value_invoke_returns() -> None:
    parser = StructuredOutputParser(schema_type=Doc)
    seen = [copy.deepcopy(value) for value in (fake(TEXT) | parser).stream("go")]
    assert seen[-1] == EXPECTED and type(seen[-1]) is Doc
    assert len(seen) > 5
    for before in seen[:-1]:
        consistent(before, EXPECTED)
    assert (fake(TEXT) | parser).invoke("go") == EXPECTED
    assert parser.parse(TEXT) == EXPECTED
    final_only = StructuredOutputParser(schema_type=Doc, partial=False)
    assert list((fake(TEXT) | final_only).stream("go")) == [EXPECTED]


@pytest.mark.anyio
async def test_astream_and_ainvoke() -> None:
    parser = StructuredOutputParser(schema_type=Doc)
    seen = [value async for value in (fake(TEXT) | parser).astream("go")]
    assert seen[-1] == EXPECTED
    assert await (fake(TEXT) | parser).ainvoke("go") == EXPECTED


def test_an_invalid_output_is_langchain_s_exception_chained_from_ours() -> None:
    text = '{"title": 3, "items": []}'
    parser = StructuredOutputParser(schema_type=Doc)
    for run in ((fake(text) | parser).invoke, lambda x: list((fake(text) | parser).stream(x))):
        with pytest.raises(OutputParserException) as caught:
            run("go")
        assert caught.value.llm_output == text
        cause = caught.value.__cause__
        assert isinstance(cause, StructuredOutputError) and cause.reason == "validation"


def test_fences_and_plain_json() -> None:
    fenced = "```json\n" + TEXT + "\n```"
    parser = StructuredOutputParser(schema_type=Doc, extract="fenced")
    assert (fake(fenced) | parser).invoke("go") == EXPECTED
    assert StructuredOutputParser().parse(TEXT) == json.loads(TEXT)


# --- the real chat models over mock transports ------------------------------------------------


def chat_openai(replay: Replay, response_format: Any = CHAT_FORMAT) -> Any:
    model = ChatOpenAI(
        model="gpt-4o-2024-08-06",
        api_key="test",  # type: ignore[arg-type]
        base_url="http://test/v1",
        http_client=replay.client(),
        http_async_client=replay.async_client(),
        max_retries=0,
        streaming=True,  # invoke reads the stream too (the replay serves one)
    )
    if response_format is None:  # JSON asked for in the prompt: a plain text stream
        return model
    return model.bind(response_format=response_format)


def chat_anthropic(replay: Replay) -> Any:
    model = ChatAnthropic(  # type: ignore[call-arg]
        model="claude-sonnet-4-5",
        api_key="test",  # type: ignore[arg-type]
        max_tokens=1024,
        max_retries=0,
        streaming=True,  # invoke reads the stream too (the replay serves one)
    )
    common: dict[str, Any] = {"api_key": "test", "base_url": "http://test", "max_retries": 0}
    model.__dict__["_client"] = anthropic.Anthropic(http_client=replay.client(), **common)
    model.__dict__["_async_client"] = anthropic.AsyncAnthropic(
        http_client=replay.async_client(), **common
    )
    return model.bind(output_config={"format": {"type": "json_schema", "schema": SCHEMA}})


MODELS = {"openai": (chat_openai, chat_wire), "anthropic": (chat_anthropic, anthropic_wire)}


@pytest.mark.parametrize("kind", sorted(MODELS))
def test_real_chat_models_stream_and_invoke_alike(kind: str) -> None:
    make, wire = MODELS[kind]
    replay = Replay(wire(TEXT, "stop"), FORMATS[kind], size=13, times=2)
    chain = make(replay) | StructuredOutputParser(schema_type=Doc)
    streamed = list(chain.stream("Plan a trip"))
    assert streamed[-1] == EXPECTED
    assert chain.invoke("Plan a trip") == streamed[-1]  # the thinking is not read as JSON


@pytest.mark.parametrize("kind", ["anthropic", "openai"])
def test_real_chat_models_cut_by_the_token_limit(kind: str) -> None:
    make, wire = MODELS[kind]
    replay = Replay(wire(CUT, "length"), FORMATS[kind], size=13, times=3 if kind == "openai" else 2)
    if kind == "openai":
        # With a response_format, ChatOpenAI reads the stream with the SDK's parsing helper,
        # which raises its own LengthFinishReasonError before any parser runs; JSON asked
        # for in the prompt streams as plain text, and the cut reaches the parser.
        with pytest.raises(openai.LengthFinishReasonError):
            (make(replay) | StructuredOutputParser(schema_type=Doc)).invoke("Plan a trip")
        model = chat_openai(replay, response_format=None)
    else:
        model = make(replay)
    chain = model | StructuredOutputParser(schema_type=Doc)
    for run in (chain.invoke, lambda x: list(chain.stream(x))):
        with pytest.raises(OutputParserException) as caught:
            run("Plan a trip")
        cause = caught.value.__cause__
        assert isinstance(cause, StructuredOutputError) and cause.reason == "length"
        assert cause.value.items[1].name == "sto"


@pytest.mark.anyio
async def test_real_chat_model_astream() -> None:
    replay = Replay(chat_wire(TEXT, "stop"), "openai-chat", size=13, times=2)
    chain = chat_openai(replay) | StructuredOutputParser(schema_type=Doc)
    seen = [value async for value in chain.astream("Plan a trip")]
    assert seen[-1] == EXPECTED
    assert await chain.ainvoke("Plan a trip") == EXPECTED
