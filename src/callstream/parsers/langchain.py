"""LangChain output parser: ``chat_model | ToolCallsOutputParser()``, streamed honestly.

Needs ``langchain-core`` (the ``callstream[langchain]`` extra); this module imports it
and is itself imported only when asked for (``callstream.parsers`` does not import it).

Theory of operation. LangChain's own tool parsers are cumulative: every chunk is added to
the message so far and all its tool calls are parsed again (quadratic), a truncated
``{"a": "b`` passes as valid, and a number still arriving is shown. This parser instead
reads each ``AIMessageChunk`` once through callstream's LangChain translator
(:class:`~callstream.providers.langchain.LangChainTranslator`, the one reader of LangChain
messages: their ``tool_call_chunks``, server-side calls in their content, the end of the
stream), feeds its signals to a callstream session (assembler + JSON or pydantic tools
parser), and yields a new result only when a value closed or a call started or ended.
The end of the stream is what the translator reads from ``response_metadata``
(``finish_reason`` / ``stop_reason`` / ``done_reason``, so ``"length"`` / ``"max_tokens"``
marks cut-off calls invalid; verdicts name the word the provider sent) or
``chunk_position == "last"``; otherwise the input running out ends it. Messages after
the end are not read.

``invoke`` (:meth:`ToolCallsOutputParser.parse_result`) goes through the same reader with
the whole message, so it returns what the last streamed result would be: the calls in
the model's order, read from the rawest form the message keeps (``tool_call_chunks``;
OpenAI-style ``additional_kwargs["tool_calls"]`` argument text; Anthropic-style content
blocks with their ``partial_json``; else LangChain's ``tool_calls`` and
``invalid_tool_calls``: ``parsers._langchain_message``), and the finish reason read by the
translator's code (a call cut off by ``max_tokens`` is invalid there too).

Server-side tools (run by the provider: Anthropic ``server_tool_use`` / ``mcp_tool_use``
blocks and ``srvtoolu_`` ids, LangChain ``server_tool_call`` / ``server_tool_call_chunk``
blocks) are never tool calls and are left out of the results (a caller dispatching the
results by name meets only calls it can run). With ``server_calls=True`` they come as
``server_tool_call`` blocks (``{"type": "server_tool_call", "name", "args", "id"}``;
``ParsedCall.server`` with ``output="calls"``) in the model's order, never validated,
except with ``first_tool_only`` or when ``key_name`` names another tool.

A provider error the SDK raises inside the model (Groq's ``tool_use_failed`` raised as
``openai.APIError`` inside ``ChatOpenAI``, Anthropic's mid-stream ``overloaded_error``)
ends ``chain.stream`` / ``chain.astream`` as ``callstream.collect(model.stream())`` ends:
the failed call invalid with the provider's reason (:meth:`_Reader.recover`, over the
recognizer ``collect()`` uses); any other exception propagates unchanged. ``chain.invoke``
cannot recover: the model step raises before the parser receives anything.

Results are what LangChain messages accept: a list of ``ToolCall`` dicts (``name``,
``args``, ``id``, ``type="tool_call"``) and ``InvalidToolCall`` dicts (with ``error``), in
call order; or, with ``output="calls"``, callstream's :class:`~callstream.parsers.ParsedCall`
objects (whose ``value`` holds validated pydantic objects when ``tools`` are given).
Cost: per message, O(its chunks) plus the session's cost; a result costs O(calls
changed) plus one pointer copy per call (the fresh list, within the session's copy
budget: n calls cost O(n) in total); no result is compared deeply. ``transform`` /
``atransform`` without a callback handler read the messages straight through; with one
(tracing, ``astream_events``) LangChain's own run report adds up every message and every
result, which costs O(calls^2) in LangChain's code (``AIMessageChunk`` addition).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from typing import Any, Literal

from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessageChunk, BaseMessage
from langchain_core.output_parsers.transform import BaseTransformOutputParser
from langchain_core.outputs import ChatGeneration, Generation
from langchain_core.runnables.config import (
    RunnableConfig,
    ensure_config,
    get_async_callback_manager_for_config,
    get_callback_manager_for_config,
)
from pydantic import ConfigDict, PrivateAttr

from callstream._assembly.types import StreamEnd
from callstream._errors import UsageError
from callstream._json.dump import same_json
from callstream.parsers._langchain_message import message_signals
from callstream.parsers._parsed_call import ParsedCall
from callstream.parsers._tools_parser import ParseSession, ToolsParser
from callstream.parsers.json_tools import JsonToolsParser
from callstream.parsers.pydantic_tools import PydanticToolsParser
from callstream.providers._provider_errors import error_signals, provider_error_payload
from callstream.providers.langchain import EVENTS, LangChainTranslator, stream_end

__all__ = ("ToolCallsOutputParser",)


class ToolCallsOutputParser(BaseTransformOutputParser[Any]):
    """A LangChain output parser for a chat model's tool calls, streaming-aware.

    Use it after a tool-calling chat model: ``chain = model.bind_tools(tools) | parser``;
    ``chain.stream(...)`` / ``chain.astream(...)`` yield a result each time a value in a
    call closed or a call started or became final (the last result is final);
    ``chain.invoke(...)`` returns the same final result (same calls, same order, same
    verdicts: the finish reason is read from the message's ``response_metadata``). A
    provider error the SDK raises mid-stream is read as ``collect()`` reads it (see the
    module docstring); under ``invoke`` it leaves the model step before the parser runs.

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
        server_calls: also list server-side tools (run by the provider) among the
            results, as ``server_tool_call`` blocks (default False: left out, so every
            result is a call you run, dispatched by name). They are never tool calls
            and never validated.
        assembler_options: options for the assembler the chunks go through
            (:class:`~callstream.ToolCallAssembler`: ``max_calls``, ``max_chars``...),
            e.g. ``{"max_calls": 5000}`` to keep more than the default 1,000 calls.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    tools: Sequence[Any] | Mapping[str, Any] | None = None
    first_tool_only: bool = False
    key_name: str | None = None
    partial: bool = True
    output: Literal["dicts", "calls"] = "dicts"
    min_preview_growth: float = 0.05
    server_calls: bool = False
    assembler_options: Mapping[str, Any] | None = None

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
        """The final result for a complete message (``invoke``): the message goes through
        the same reader as a stream, so this equals the last result ``stream`` yields."""
        if not result or not isinstance(result[0], ChatGeneration):
            raise OutputParserException("ToolCallsOutputParser needs a chat model's message")
        reader = _Reader(self)
        reader.feed(result[0].message)
        reader.close()
        return reader.current()

    def transform(
        self,
        input: Iterator[str | BaseMessage],
        config: RunnableConfig | None = None,
        **kwargs: Any,
    ) -> Iterator[Any]:
        """Stream results for a stream of messages (what ``chain.stream`` calls).

        With callbacks (tracing, ``astream_events``...) this is LangChain's own transform,
        which reports the run; it adds up every input message and every result for the
        run's report (LangChain's cost: merging n calls' chunks takes O(n^2) there).
        Without any callback handler there is no run to report, so the messages go
        straight to the reader: O(messages + calls) in total.
        """
        if _has_handlers(get_callback_manager_for_config(ensure_config(config))):
            yield from super().transform(input, config, **kwargs)
        else:
            yield from self._transform(input)

    async def atransform(
        self,
        input: AsyncIterator[str | BaseMessage],
        config: RunnableConfig | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[Any]:
        """The async form of :meth:`transform` (same rule for callbacks)."""
        if _has_handlers(get_async_callback_manager_for_config(ensure_config(config))):
            async for result in super().atransform(input, config, **kwargs):
                yield result
        else:
            async for result in self._atransform(input):
                yield result

    def _transform(self, input: Iterator[str | BaseMessage]) -> Iterator[Any]:
        reader = _Reader(self)
        messages = iter(input)
        while True:
            try:
                message = next(messages)
            except StopIteration:
                break
            except Exception as exc:  # the model's stream raised: a provider error?
                if not reader.recover(exc):
                    raise
                break
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
        messages = aiter(input)
        while True:
            try:
                message = await anext(messages)
            except StopAsyncIteration:
                break
            except Exception as exc:  # the model's stream raised: a provider error?
                if not reader.recover(exc):
                    raise
                break
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


def _has_handlers(manager: Any) -> bool:
    """Whether a LangChain callback manager would report a run to anyone."""
    return bool(manager.handlers or manager.inheritable_handlers)


_NOTHING: Any = object()  # "nothing to yield" (None is a result: first_tool_only, no call)


class _Reader:
    """One stream through the parser: messages in, converted results out.

    The session keeps the converted form of each call up to date call by call (O(calls
    changed) per result) and says whether it changed, so results are never compared
    deeply: a partial call turning valid with the same arguments is not yielded twice as
    dicts (its arguments are compared once, without recursion on deep values).
    """

    __slots__ = ("emitted", "ended", "parser", "session", "translator")

    def __init__(self, parser: ToolCallsOutputParser) -> None:
        self.parser = parser
        options = parser.assembler_options or {}
        session: ParseSession[Any] = parser.core().session(**options)
        session._include_server = parser.server_calls
        session._server_ids = True  # older integrations list srvtoolu_ calls as tool calls
        if parser.output == "calls":
            session._convert = _identity
        else:
            session._convert = _to_dict
            session._same = _same_dict
        self.session = session
        self.ended = False
        self.emitted = False
        self.translator = LangChainTranslator()  # the one reader of message chunks

    def feed(self, message: Any) -> Any:
        """The converted result if this message changed it (and ``partial``), else _NOTHING.

        Only a message after which the session published a result can yield one (the
        session may hold a change back under its copy budget: ``RESULT_COPY_FACTOR``)."""
        published = self._signals(message)
        if not (self.parser.partial and published):
            return _NOTHING
        return self._new()

    def close(self) -> Any:
        """The final converted result, unless it was the last one returned."""
        self.session.close()
        return self._new(closing=True)

    def recover(self, exc: BaseException) -> bool:
        """The model's stream raised ``exc``: when it carries a provider error this
        library reads (:func:`provider_error_payload`, as ``collect()`` does: Groq's
        ``tool_use_failed`` raised by the openai SDK inside ``ChatOpenAI``, Anthropic's
        mid-stream ``overloaded_error`` / ``api_error``), end the stream from it as the
        raw stream would (:func:`error_signals`: the failed call invalid, finish reason
        ``"error"``) and return True; otherwise change nothing and return False (the
        caller re-raises ``exc`` unchanged). Cost: O(size of the error)."""
        payload = provider_error_payload(exc)
        if payload is None:
            return False
        if not self.ended:  # after the end of the stream, nothing more is read
            self.ended = True
            self.session._feed_signals(error_signals(payload))
        return True

    def current(self) -> Any:
        """The converted result now (a fresh list, or one item with ``first_tool_only``)."""
        items = list(self.session._conv)
        if self.parser.first_tool_only:
            return items[0] if items else None
        return items

    def _new(self, closing: bool = False) -> Any:
        if not self.session.conv_changed and (self.emitted or not closing):
            return _NOTHING
        self.session.conv_changed = False
        self.emitted = True
        return self.current()

    def _signals(self, message: Any) -> bool:
        """Feed the message's signals to the session; True if it published a result.

        A message chunk is read by the LangChain translator (its tool-call chunks,
        server-side calls in its content, the end of the stream); a whole message by
        :func:`~callstream.parsers._langchain_message.message_signals`, with its end read
        by the same translator code (or the message itself: it is complete)."""
        event = isinstance(message, Mapping) and message.get("event") in EVENTS
        if not event and not isinstance(message, BaseMessage):  # events: stream_events v3
            raise UsageError(
                "ToolCallsOutputParser reads chat model messages (AIMessageChunk); got "
                f"{type(message).__name__} — is the model a chat model?"
            )
        if self.ended:
            return False  # chunks after the end of the stream (usage...) carry no calls
        end: StreamEnd | None = None
        if event or isinstance(message, AIMessageChunk):
            signals = self.translator.translate(message)
            last = signals[-1] if signals else None
            if isinstance(last, StreamEnd):  # the translator puts the end last
                end = last
                signals.pop()
        else:  # a whole message (invoke, or a model that does not stream): complete
            end = stream_end(message) or StreamEnd(reason=None)
            reason: Any = _as_sent(end).reason  # a signal field: object to mypyc (_argtypes)
            signals = message_signals(message, reason)
        if end is not None:
            self.ended = True
            signals.append(_as_sent(end))
        return bool(signals) and self.session._feed_signals(signals) is not None


def _as_sent(end: StreamEnd) -> StreamEnd:
    """The end with the finish reason as the provider sent it (``"max_tokens"``, not the
    translator's normalized ``"length"``): verdicts name the word the user sees in the
    message's ``response_metadata``."""
    if end.provider_reason is None or end.provider_reason == end.reason:
        return end
    return StreamEnd(reason=end.provider_reason, provider_error=end.provider_error)


def _identity(call: ParsedCall[Any]) -> Any:
    return call


def _to_dict(call: ParsedCall[Any]) -> Any:
    return call.to_dict()


def _same_dict(old: ParsedCall[Any], new: ParsedCall[Any]) -> bool:
    """Whether ``new`` converts to the same dict as ``old``: only checked when a partial
    call turns valid (once per call); arguments compared without deep recursion."""
    if not (old.status == "partial" and new.status == "valid" and old.server == new.server):
        return False
    if old.name != new.name or old.id != new.id:
        return False
    return same_json(old.args, new.args)
