"""LangChain output parser: ``chat_model | ToolCallsOutputParser()``, streamed honestly.

Needs ``langchain-core`` (the ``callstream[langchain]`` extra); this module imports it
and is itself imported only when asked for (``callstream.parsers`` does not import it).

Theory of operation. LangChain's own tool parsers are cumulative: every chunk is added to
the message so far and all its tool calls are parsed again (quadratic), a truncated
``{"a": "b`` passes as valid, and a number still arriving is shown. This parser instead
reads each ``AIMessageChunk``'s ``tool_call_chunks`` once, feeds them to a callstream
session (assembler + JSON or pydantic tools parser), and yields a new result only when a
value closed or a call started or ended. The end of the stream is read from the chunk's
``response_metadata`` (``finish_reason`` / ``stop_reason`` / ``done_reason``, so
``"length"`` / ``"max_tokens"`` marks cut-off calls invalid) or ``chunk_position ==
"last"``; otherwise the input running out ends it.

Results are what LangChain messages accept: a list of ``ToolCall`` dicts (``name``,
``args``, ``id``, ``type="tool_call"``) and ``InvalidToolCall`` dicts (with ``error``), in
call order; or, with ``output="calls"``, callstream's :class:`~callstream.parsers.ParsedCall`
objects (whose ``value`` holds validated pydantic objects when ``tools`` are given).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from typing import Any, Literal

from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessageChunk, BaseMessage
from langchain_core.output_parsers.transform import BaseTransformOutputParser
from langchain_core.outputs import ChatGeneration, Generation
from pydantic import ConfigDict, PrivateAttr

from callstream._assembly.types import CallFailure, Signal, StreamEnd, ToolCallChunk
from callstream._errors import UsageError
from callstream.parsers._base import ParseSession, ToolsParser
from callstream.parsers._results import ParsedCall
from callstream.parsers.json_tools import JsonToolsParser
from callstream.parsers.pydantic_tools import PydanticToolsParser

__all__ = ("ToolCallsOutputParser",)

_END_KEYS = ("finish_reason", "stop_reason", "done_reason")


class ToolCallsOutputParser(BaseTransformOutputParser[Any]):
    """A LangChain output parser for a chat model's tool calls, streaming-aware.

    Use it after a tool-calling chat model: ``chain = model.bind_tools(tools) | parser``;
    ``chain.stream(...)`` / ``chain.astream(...)`` yield a result each time a value in a
    call closed or a call started or became final (the last result is final);
    ``chain.invoke(...)`` returns the final result.

    Attributes:
        tools: optional registry for validation (as in
            :class:`~callstream.parsers.PydanticToolsParser`): pydantic models,
            ``TypedDict`` s, dataclasses, functions, or a mapping from names. Calls that
            fail validation, or name an unknown tool, become ``InvalidToolCall`` s with
            the pydantic error text. Without ``tools`` the arguments are only checked to
            be a JSON object.
        first_tool_only: return only the first call (a dict, or None when there is
            none) instead of a list.
        key_name: return only calls of this tool name.
        partial: yield results while streaming (False: only the final one).
        output: ``"dicts"`` for LangChain ``ToolCall`` / ``InvalidToolCall`` dicts,
            ``"calls"`` for :class:`~callstream.parsers.ParsedCall` objects.
        min_preview_growth: see :class:`~callstream.parsers.PydanticToolsParser`.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    tools: Sequence[Any] | Mapping[str, Any] | None = None
    first_tool_only: bool = False
    key_name: str | None = None
    partial: bool = True
    output: Literal["dicts", "calls"] = "dicts"
    min_preview_growth: float = 0.05

    _core: ToolsParser[Any] | None = PrivateAttr(default=None)

    @property
    def _type(self) -> str:
        return "callstream_tool_calls"

    def core(self) -> ToolsParser[Any]:
        """The callstream parser doing the work (built once, on first use)."""
        if self._core is None:
            if self.tools is None:
                self._core = JsonToolsParser(
                    first_tool_only=self.first_tool_only, key_name=self.key_name
                )
            else:
                self._core = PydanticToolsParser(
                    self.tools,
                    first_tool_only=self.first_tool_only,
                    key_name=self.key_name,
                    min_preview_growth=self.min_preview_growth,
                )
        return self._core

    # --- LangChain's entry points ---------------------------------------------------------

    def parse(self, text: str) -> Any:
        """Not supported: tool calls come from chat messages, not text."""
        raise OutputParserException(
            "ToolCallsOutputParser reads a chat model's messages (tool calls), not text"
        )

    def parse_result(self, result: list[Generation], *, partial: bool = False) -> Any:
        """The final result for a complete message (``invoke``)."""
        if not result or not isinstance(result[0], ChatGeneration):
            raise OutputParserException("ToolCallsOutputParser needs a chat model's message")
        return self._convert(self.core().parse(result[0].message))

    def _transform(self, input: Iterator[str | BaseMessage]) -> Iterator[Any]:
        reader = _Reader(self)
        for message in input:
            result = reader.feed(message)
            if result is not _NOTHING:
                yield result
        final = reader.close()
        if final is not _NOTHING:
            yield final

    async def _atransform(
        self,
        input: AsyncIterator[str | BaseMessage],
    ) -> AsyncIterator[Any]:
        reader = _Reader(self)
        async for message in input:
            result = reader.feed(message)
            if result is not _NOTHING:
                yield result
        final = reader.close()
        if final is not _NOTHING:
            yield final

    def _convert(self, calls: list[ParsedCall[Any]]) -> Any:
        items: list[Any] = calls if self.output == "calls" else [c.to_dict() for c in calls]
        if self.first_tool_only:
            return items[0] if items else None
        return items


_NOTHING: Any = object()  # "nothing to yield" (None is a result: first_tool_only, no call)


class _Reader:
    """One stream through the parser: messages in, converted results out (deduplicated:
    a partial call turning valid with the same arguments is not yielded twice as dicts)."""

    __slots__ = ("ended", "last", "parser", "session")

    def __init__(self, parser: ToolCallsOutputParser) -> None:
        self.parser = parser
        self.session: ParseSession[Any] = parser.core().session()
        self.ended = False
        self.last: Any = _NOTHING

    def feed(self, message: Any) -> Any:
        """The converted result if this message changed it (and ``partial``), else _NOTHING."""
        result = self._signals(message)
        if result is None or not self.parser.partial:
            return _NOTHING
        return self._new(result)

    def close(self) -> Any:
        """The final converted result, unless it was the last one returned."""
        self.session.close()
        return self._new(self.session.result)

    def _new(self, result: list[ParsedCall[Any]]) -> Any:
        converted = self.parser._convert(result)
        if self.last is not _NOTHING and converted == self.last:
            return _NOTHING
        self.last = converted
        return converted

    def _signals(self, message: Any) -> list[ParsedCall[Any]] | None:
        if not isinstance(message, BaseMessage):
            raise UsageError(
                "ToolCallsOutputParser reads chat model messages (AIMessageChunk); got "
                f"{type(message).__name__} — is the model a chat model?"
            )
        if self.ended:
            return None  # chunks after the end of the stream (usage...) carry no calls
        signals: list[Signal] = []
        if isinstance(message, AIMessageChunk):
            signals.extend(_chunk(c) for c in message.tool_call_chunks)
        else:  # a whole message (a model that does not stream): its calls, complete
            calls = getattr(message, "tool_calls", None) or []
            invalid = getattr(message, "invalid_tool_calls", None) or []
            signals.extend(
                ToolCallChunk(name=c["name"], args=c["args"], id=c.get("id"), index=i)
                for i, c in enumerate(calls)
            )
            signals.extend(
                CallFailure(
                    error=c.get("error") or "invalid tool call",
                    index=len(calls) + i,
                    id=c.get("id"),
                    name=c.get("name"),
                    args=c.get("args"),
                )
                for i, c in enumerate(invalid)
            )
        end = _end_of(message)
        if end is not None:
            self.ended = True
            signals.append(end)
        return self.session.feed(signals) if signals else None


def _chunk(chunk: Any) -> ToolCallChunk:
    return ToolCallChunk(
        name=chunk.get("name"), args=chunk.get("args"), id=chunk.get("id"), index=chunk.get("index")
    )


def _end_of(message: BaseMessage) -> StreamEnd | None:
    metadata = message.response_metadata
    if isinstance(metadata, Mapping):
        for key in _END_KEYS:
            reason = metadata.get(key)
            if isinstance(reason, str) and reason:
                return StreamEnd(reason=reason)
    if getattr(message, "chunk_position", None) == "last":
        return StreamEnd(reason=None)
    return None
