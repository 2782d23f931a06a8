"""LangChain integration: ``model | ToolCallsOutputParser()`` with stream / astream / invoke."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any, Literal

import pytest
from pydantic import BaseModel, Field

pytest.importorskip("langchain_core")

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.output_parsers.openai_tools import PydanticToolsParser as LCPydanticParser
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult

from callstream._errors import UsageError
from callstream.parsers import ParsedCall
from callstream.parsers.langchain import ToolCallsOutputParser


class Person(BaseModel):
    """A person."""

    name: str
    age: int = Field(ge=0)


class ToolStreamModel(BaseChatModel):
    """A chat model that streams prepared ``tool_call_chunks`` (one list per chunk)."""

    chunks: list[list[dict[str, Any]]]
    finish_reason: str | None = "tool_calls"
    invalid: list[dict[str, Any]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "tool-stream-fake"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        merged = AIMessageChunk(content="")
        for chunk in self._stream(messages):
            merged = merged + chunk.message  # type: ignore[assignment]
        message = AIMessage(
            content="",
            tool_calls=merged.tool_calls,
            invalid_tool_calls=[*merged.invalid_tool_calls, *self.invalid],
        )
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        for tool_call_chunks in self.chunks:
            yield ChatGenerationChunk(
                message=AIMessageChunk(content="", tool_call_chunks=tool_call_chunks)
            )
        metadata = {"finish_reason": self.finish_reason} if self.finish_reason else {}
        yield ChatGenerationChunk(message=AIMessageChunk(content="", response_metadata=metadata))


def tool_chunks(calls: list[tuple[str, str, str]], size: int) -> list[list[dict[str, Any]]]:
    out: list[list[dict[str, Any]]] = []
    for index, (name, id_, text) in enumerate(calls):
        out.append(
            [{"name": name, "args": "", "id": id_, "index": index, "type": "tool_call_chunk"}]
        )
        for i in range(0, len(text), size):
            piece = text[i : i + size]
            out.append(
                [
                    {
                        "name": None,
                        "args": piece,
                        "id": None,
                        "index": index,
                        "type": "tool_call_chunk",
                    }
                ]
            )
    return out


ADA = '{"name": "Ada", "age": 36}'


def test_stream_yields_langchain_dicts_as_values_close() -> None:
    model = ToolStreamModel(chunks=tool_chunks([("Person", "call_1", ADA)], 2))
    results = list((model | ToolCallsOutputParser()).stream("hi"))
    assert results == [
        [{"name": "Person", "args": {}, "id": "call_1", "type": "tool_call"}],
        [{"name": "Person", "args": {"name": "Ada"}, "id": "call_1", "type": "tool_call"}],
        [
            {
                "name": "Person",
                "args": {"name": "Ada", "age": 36},
                "id": "call_1",
                "type": "tool_call",
            }
        ],
    ]
    # no "age": 3 on the way (LangChain's own parsers show it)
    assert all(r[0]["args"].get("age") in (None, 36) for r in results)
    # the dicts drop into LangChain messages
    AIMessage(content="", tool_calls=results[-1])


def test_invalid_and_cut_off_calls_become_invalid_tool_calls() -> None:
    model = ToolStreamModel(
        chunks=tool_chunks([("Person", "a", ADA), ("Person", "b", '{"name": "Bo", "ag')], 5),
        finish_reason="length",
    )
    final = list((model | ToolCallsOutputParser()).stream("hi"))[-1]
    assert final[0]["type"] == "tool_call"
    assert final[1]["type"] == "invalid_tool_call"
    assert "cut off" in final[1]["error"]
    assert final[1]["args"] == '{"name": "Bo", "ag'
    message = AIMessage(content="", tool_calls=[final[0]], invalid_tool_calls=[final[1]])
    assert message.invalid_tool_calls[0]["id"] == "b"


def test_tools_validate_and_unknown_names_are_invalid() -> None:
    model = ToolStreamModel(
        chunks=tool_chunks(
            [
                ("Person", "a", ADA),
                ("Person", "b", '{"name": "Bo", "age": -1}'),
                ("Other", "c", "{}"),
            ],
            4,
        )
    )
    parser = ToolCallsOutputParser(tools=[Person])
    final = list((model | parser).stream("hi"))[-1]
    assert [c["type"] for c in final] == ["tool_call", "invalid_tool_call", "invalid_tool_call"]
    assert "greater than or equal to 0" in final[1]["error"]
    assert "unknown tool 'Other'" in final[2]["error"]
    calls = list((model | ToolCallsOutputParser(tools=[Person], output="calls")).stream("hi"))[-1]
    assert isinstance(calls[0], ParsedCall)
    assert calls[0].value == Person(name="Ada", age=36)


def test_invoke_first_tool_only_key_name_and_partial_false() -> None:
    model = ToolStreamModel(
        chunks=tool_chunks([("Search", "s", '{"q": "x"}'), ("Person", "p", ADA)], 3),
        invalid=[
            {"name": "Broken", "args": "{", "id": "z", "error": "bad", "type": "invalid_tool_call"}
        ],
    )
    assert (model | ToolCallsOutputParser(first_tool_only=True)).invoke("hi") == {
        "name": "Search",
        "args": {"q": "x"},
        "id": "s",
        "type": "tool_call",
    }
    invoked = (model | ToolCallsOutputParser()).invoke("hi")
    assert [c["name"] for c in invoked] == ["Search", "Person", "Broken"]
    assert invoked[2]["error"] == "bad"
    only_person = (model | ToolCallsOutputParser(key_name="Person", first_tool_only=True)).stream(
        "hi"
    )
    assert list(only_person)[-1]["args"] == {"name": "Ada", "age": 36}
    once = list((model | ToolCallsOutputParser(partial=False)).stream("hi"))
    assert len(once) == 1 and [c["name"] for c in once[0]] == ["Search", "Person"]
    assert (ToolStreamModel(chunks=[]) | ToolCallsOutputParser(first_tool_only=True)).invoke(
        "hi"
    ) is None


def test_astream_matches_stream() -> None:
    model = ToolStreamModel(chunks=tool_chunks([("Person", "a", ADA), ("Person", "b", ADA)], 3))
    chain = model | ToolCallsOutputParser(tools=[Person])

    async def collect() -> list[Any]:
        return [r async for r in chain.astream("hi")]

    assert asyncio.run(collect()) == list(chain.stream("hi"))


def test_whole_messages_and_text_input() -> None:
    parser = ToolCallsOutputParser()
    message = AIMessage(
        content="",
        tool_calls=[{"name": "Person", "args": {"name": "A", "age": 1}, "id": "1"}],
        invalid_tool_calls=[
            {"name": "X", "args": "{", "id": "2", "error": "bad", "type": "invalid_tool_call"}
        ],
    )
    final = list(parser.transform(iter([message])))[-1]
    assert [(c["name"], c["type"]) for c in final] == [
        ("Person", "tool_call"),
        ("X", "invalid_tool_call"),
    ]
    assert final[1]["error"] == "bad"
    with pytest.raises(UsageError, match="chat model messages"):
        list(parser.transform(iter(["text"])))
    from langchain_core.exceptions import OutputParserException

    with pytest.raises(OutputParserException):
        parser.parse("text")


def test_final_matches_langchain_pydantic_parser_on_valid_calls() -> None:
    model = ToolStreamModel(chunks=tool_chunks([("Person", "a", ADA)], 3))
    theirs = (model | LCPydanticParser(tools=[Person])).invoke("hi")
    ours = (model | ToolCallsOutputParser(tools=[Person], output="calls")).invoke("hi")
    assert [c.value for c in ours] == theirs
    assert json.loads(json.dumps(ours[0].args)) == {"name": "Ada", "age": 36}


# --- invoke == stream: the whole message read like the stream --------------------------------


class OpenAIStyleModel(BaseChatModel):
    """Streams like langchain-openai (``tool_call_chunks`` plus the raw
    ``additional_kwargs["tool_calls"]`` deltas, the finish reason last); ``invoke`` merges
    the chunks as LangChain does (``generate_from_stream``), so the message keeps the
    raw argument text but LangChain's ``tool_calls`` hold leniently parsed arguments."""

    calls: list[tuple[str, str, str]]
    size: int = 3
    finish_reason: str = "tool_calls"

    @property
    def _llm_type(self) -> str:
        return "openai-style-fake"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        from langchain_core.language_models.chat_models import generate_from_stream

        return generate_from_stream(self._stream(messages))

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        def piece(index: int, name: str | None, id_: str | None, text: str) -> AIMessageChunk:
            raw = {"index": index, "id": id_, "type": "function" if id_ else None}
            raw["function"] = {"name": name, "arguments": text}
            return AIMessageChunk(
                content="",
                tool_call_chunks=[{"name": name, "args": text, "id": id_, "index": index}],
                additional_kwargs={"tool_calls": [raw]},
            )

        for index, (name, id_, text) in enumerate(self.calls):
            yield ChatGenerationChunk(message=piece(index, name, id_, ""))
            for i in range(0, len(text), self.size):
                yield ChatGenerationChunk(message=piece(index, None, None, text[i : i + self.size]))
        yield ChatGenerationChunk(
            message=AIMessageChunk(
                content="", response_metadata={"finish_reason": self.finish_reason}
            )
        )


class AnthropicStyleModel(BaseChatModel):
    """Streams like langchain-anthropic: ``tool_use`` / ``server_tool_use`` content blocks
    and ``input_json_delta`` blocks by block index (``tool_call_chunks`` for client tools
    only), ``stop_reason`` last; ``invoke`` merges the chunks (content keeps
    ``partial_json``)."""

    blocks: list[tuple[str, str, str, str]]  # (block type, name, id, argument text)
    size: int = 4
    stop_reason: str = "tool_use"

    @property
    def _llm_type(self) -> str:
        return "anthropic-style-fake"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        from langchain_core.language_models.chat_models import generate_from_stream

        return generate_from_stream(self._stream(messages))

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        for index, (kind, name, id_, text) in enumerate(self.blocks):
            start = {"type": kind, "id": id_, "name": name, "input": {}, "index": index}
            chunks = (
                [{"name": name, "args": "", "id": id_, "index": index}]
                if kind == "tool_use"
                else []
            )
            yield ChatGenerationChunk(
                message=AIMessageChunk(content=[start], tool_call_chunks=chunks)
            )
            for i in range(0, len(text), self.size):
                part = text[i : i + self.size]
                delta = {"type": "input_json_delta", "partial_json": part, "index": index}
                chunks = (
                    [{"name": None, "args": part, "id": None, "index": index}]
                    if kind == "tool_use"
                    else []
                )
                yield ChatGenerationChunk(
                    message=AIMessageChunk(content=[delta], tool_call_chunks=chunks)
                )
        yield ChatGenerationChunk(
            message=AIMessageChunk(content=[], response_metadata={"stop_reason": self.stop_reason})
        )


MIXED = [
    ("Person", "a", ADA),
    ("Person", "b", '{"name": }'),  # malformed: invalid, between two valid calls
    ("Person", "c", '{"name": "Cy", "age": 7}'),
    ("Person", "d", '{"name": "Bo", "ag'),  # cut off by max_tokens
]


@pytest.mark.parametrize("output", ["dicts", "calls"])
@pytest.mark.parametrize("tools", [None, [Person]])
@pytest.mark.parametrize("size", [1, 3, 50])
def test_invoke_equals_the_last_streamed_result(
    output: Literal["dicts", "calls"], tools: list[Any] | None, size: int
) -> None:
    model = OpenAIStyleModel(calls=MIXED, size=size, finish_reason="length")
    parser = ToolCallsOutputParser(tools=tools, output=output)
    streamed = list((model | parser).stream("hi"))[-1]
    invoked = (model | parser).invoke("hi")
    assert invoked == streamed
    as_dicts = [c if isinstance(c, dict) else c.to_dict() for c in invoked]
    assert [c["id"] for c in as_dicts] == ["a", "b", "c", "d"]  # the model's order
    assert [c["type"] for c in as_dicts] == [
        "tool_call",
        "invalid_tool_call",
        "tool_call",
        "invalid_tool_call",
    ]
    assert "token limit" in str(as_dicts[3]["error"])  # cut off: not a valid {"name": "Bo"}
    assert as_dicts[3]["args"] == '{"name": "Bo", "ag'


def test_invoke_equals_stream_for_anthropic_style_messages_cut_off() -> None:
    model = AnthropicStyleModel(
        blocks=[
            ("tool_use", "Person", "toolu_1", ADA),
            ("tool_use", "Person", "toolu_2", '{"name": "Bo", "ag'),
        ],
        stop_reason="max_tokens",
    )
    parser = ToolCallsOutputParser(tools=[Person])
    streamed = list((model | parser).stream("hi"))[-1]
    invoked = (model | parser).invoke("hi")
    assert invoked == streamed
    assert [c["type"] for c in invoked] == ["tool_call", "invalid_tool_call"]
    assert "max_tokens" in invoked[1]["error"]


def test_invoke_without_raw_text_distrusts_the_last_call_of_a_cut_off_message() -> None:
    """Only LangChain's lists (leniently parsed): the call cut off by the token limit is
    reported invalid, and calls keep their ``index`` order when they carry one."""
    message = AIMessage(
        content="",
        tool_calls=[
            {"name": "Person", "args": {"name": "A", "age": 1}, "id": "1"},
            {"name": "Person", "args": {"name": "Bo"}, "id": "3"},
        ],
        invalid_tool_calls=[
            {"name": "X", "args": "{]", "id": "2", "error": "bad", "type": "invalid_tool_call"}
        ],
        response_metadata={"finish_reason": "length"},
    )
    invoked = ToolCallsOutputParser().invoke(message)
    assert [(c["id"], c["type"]) for c in invoked] == [
        ("1", "tool_call"),
        ("3", "invalid_tool_call"),
        ("2", "invalid_tool_call"),
    ]
    assert "token limit" in invoked[1]["error"]
    assert list(ToolCallsOutputParser().transform(iter([message])))[-1] == invoked
