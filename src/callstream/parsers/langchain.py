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

``invoke`` (:meth:`ToolCallsOutputParser.parse_result`) goes through the same reader with
the whole message, so it returns what the last streamed result would be: the calls in
the model's order, read from the rawest form the message keeps (``tool_call_chunks``;
OpenAI-style ``additional_kwargs["tool_calls"]`` argument text; Anthropic-style content
blocks with their ``partial_json``; else LangChain's ``tool_calls`` and
``invalid_tool_calls``), and the finish reason from ``response_metadata`` (a call cut off
by ``max_tokens`` is invalid there too).

Server-side tools (run by the provider: Anthropic ``server_tool_use`` blocks and
``srvtoolu_`` ids, LangChain ``server_tool_call`` / ``server_tool_call_chunk`` blocks) are
never tool calls: they come as ``server_tool_call`` blocks (``{"type":
"server_tool_call", "name", "args", "id"}``; ``ParsedCall.server`` with ``output="calls"``)
in the model's order, never validated, left out with ``server_calls=False``, with
``first_tool_only`` or when ``key_name`` names another tool.

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

from collections import Counter
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

from callstream._assembly.assembler import TRUNCATION_REASONS
from callstream._assembly.types import (
    CallFailure,
    ServerToolUse,
    Signal,
    StreamEnd,
    ToolCallChunk,
)
from callstream._errors import IncompleteJSONError, PartialJSONError, UsageError
from callstream._json import PartialJSONParser
from callstream._json.dump import RECURSION_SAFE_DEPTH, nesting_depth
from callstream.parsers._base import ParseSession, ToolsParser
from callstream.parsers._results import ParsedCall, dumps_or_none
from callstream.parsers._state import is_server_id as _is_server_id
from callstream.parsers.json_tools import JsonToolsParser
from callstream.parsers.pydantic_tools import PydanticToolsParser

__all__ = ("ToolCallsOutputParser",)

_END_KEYS = ("finish_reason", "stop_reason", "done_reason")


class ToolCallsOutputParser(BaseTransformOutputParser[Any]):
    """A LangChain output parser for a chat model's tool calls, streaming-aware.

    Use it after a tool-calling chat model: ``chain = model.bind_tools(tools) | parser``;
    ``chain.stream(...)`` / ``chain.astream(...)`` yield a result each time a value in a
    call closed or a call started or became final (the last result is final);
    ``chain.invoke(...)`` returns the same final result (same calls, same order, same
    verdicts: the finish reason is read from the message's ``response_metadata``).

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
        server_calls: list server-side tools (run by the provider) as
            ``server_tool_call`` blocks among the results (False: leave them out). They
            are never tool calls and never validated.
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
    server_calls: bool = True
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


def _has_handlers(manager: Any) -> bool:
    """Whether a LangChain callback manager would report a run to anyone."""
    return bool(manager.handlers or manager.inheritable_handlers)


_NOTHING: Any = object()  # "nothing to yield" (None is a result: first_tool_only, no call)

_SERVER_BLOCKS = frozenset({"server_tool_use", "server_tool_call", "server_tool_call_chunk"})


class _Reader:
    """One stream through the parser: messages in, converted results out.

    The session keeps the converted form of each call up to date call by call (O(calls
    changed) per result) and says whether it changed, so results are never compared
    deeply: a partial call turning valid with the same arguments is not yielded twice as
    dicts (its arguments are compared once, without recursion on deep values).
    """

    __slots__ = ("emitted", "ended", "parser", "server_count", "server_keys", "session")

    def __init__(self, parser: ToolCallsOutputParser) -> None:
        self.parser = parser
        options = parser.assembler_options or {}
        session: ParseSession[Any] = parser.core().session(**options)
        session._include_server = parser.server_calls
        if parser.output == "calls":
            session._convert = _identity
        else:
            session._convert = _to_dict
            session._same = _same_dict
        self.session = session
        self.ended = False
        self.emitted = False
        self.server_keys: dict[Any, int] = {}  # server block index -> assembler key
        self.server_count = 0

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
        """Feed the message's signals to the session; True if it published a result."""
        if not isinstance(message, BaseMessage):
            raise UsageError(
                "ToolCallsOutputParser reads chat model messages (AIMessageChunk); got "
                f"{type(message).__name__} — is the model a chat model?"
            )
        if self.ended:
            return False  # chunks after the end of the stream (usage...) carry no calls
        if isinstance(message, AIMessageChunk):
            signals = self._chunk_signals(message)
        else:  # a whole message (invoke, or a model that does not stream): complete
            signals = _message_signals(message)
        end = _end_of(message)
        if end is None and not isinstance(message, AIMessageChunk):
            end = StreamEnd(reason=None)
        if end is not None:
            self.ended = True
            signals.append(end)
        return bool(signals) and self.session.feed(signals) is not None

    def _chunk_signals(self, message: AIMessageChunk) -> list[Signal]:
        signals: list[Signal] = []
        server_keys = self.server_keys
        for chunk in message.tool_call_chunks:
            index = _block_index(chunk.get("index"))
            if index is not None and index in server_keys:
                continue  # a server block's text, read from the content blocks
            signals.append(_chunk(chunk))
            if _is_server_id(chunk.get("id")):
                signals.append(ServerToolUse(index=_int_or_none(index), id=chunk.get("id")))
        content = message.content
        if isinstance(content, list):
            for block in content:
                if isinstance(block, Mapping):
                    signals.extend(self._server_block(block))
        return signals

    def _server_block(self, block: Mapping[str, Any]) -> list[Signal]:
        kind = block.get("type")
        index = _block_index(block.get("index"))
        if kind in _SERVER_BLOCKS:
            key = self.server_keys.get(index) if index is not None else None
            signals: list[Signal] = []
            new = key is None
            if key is None:
                self.server_count += 1
                key = -self.server_count  # negative: apart from the tool chunks' keys
                if index is not None:
                    self.server_keys[index] = key
            args = _block_args(block)
            signals.append(
                ToolCallChunk(
                    name=_str_or_none(block.get("name")) if new else None,
                    args=args,
                    id=_str_or_none(block.get("id")) if new else None,
                    index=key,
                )
            )
            if new:
                signals.append(ServerToolUse(index=key))
            return signals
        if kind == "input_json_delta" and index is not None and index in self.server_keys:
            text = block.get("partial_json")
            if isinstance(text, str) and text:
                return [ToolCallChunk(name=None, args=text, id=None, index=self.server_keys[index])]
        return []


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
    return _same_json(old.args, new.args)


def _same_json(a: Any, b: Any) -> bool:
    """``a == b`` for decoded JSON values, without recursion on deep values. O(size)."""
    if nesting_depth(a, RECURSION_SAFE_DEPTH) is not None:
        return bool(a == b)  # the C comparison recurses at most as deep as ``a``
    stack: list[tuple[Any, Any]] = [(a, b)]
    while stack:
        x, y = stack.pop()
        if isinstance(x, dict):
            if not isinstance(y, dict) or len(x) != len(y):
                return False
            for key, value in x.items():
                if key not in y:
                    return False
                stack.append((value, y[key]))
        elif isinstance(x, list):
            if not isinstance(y, list) or len(x) != len(y):
                return False
            stack.extend(zip(x, y, strict=True))
        elif isinstance(y, (dict, list)) or x != y:
            return False
    return True


def _block_index(value: Any) -> int | str | None:
    """A block's ``index`` when it is usable as a key (an int or a str), else None."""
    return value if type(value) is int or isinstance(value, str) else None


def _int_or_none(value: Any) -> int | None:
    return value if type(value) is int else None


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _block_args(block: Mapping[str, Any]) -> str | dict[str, Any] | None:
    """The argument text a server block carries (``partial_json`` / ``args`` text, or a
    non-empty ``input`` / ``args`` object)."""
    for key in ("partial_json", "args"):
        text = block.get(key)
        if isinstance(text, str) and text:
            return text
    for key in ("input", "args"):
        value = block.get(key)
        if isinstance(value, dict) and value:
            return value
    return None


def _chunk(chunk: Any) -> ToolCallChunk:
    return ToolCallChunk(
        name=chunk.get("name"),
        args=chunk.get("args"),
        id=chunk.get("id"),
        index=_chunk_index(chunk.get("index")),
    )


def _chunk_index(value: Any) -> int | None:
    """A tool call chunk's index: an int, a string of digits, else None (LangChain's own
    ``lc_`` string indexes name no position)."""
    if type(value) is int:
        return value
    if isinstance(value, str) and value.isascii() and value.isdecimal():
        return int(value)
    return None


# --- a whole message: its calls in the model's order, from the rawest form it keeps -----------


def _message_signals(message: BaseMessage) -> list[Signal]:
    """The signals of a complete message: every call, in order, then nothing else (the
    caller adds the end). Sources, first that fits: content blocks (Anthropic-style
    ``tool_use`` / ``server_tool_use`` with ``partial_json`` or ``input``; LangChain v1
    ``tool_call`` / ``invalid_tool_call`` / ``server_tool_call`` blocks), OpenAI-style
    ``additional_kwargs["tool_calls"]``, then ``tool_calls`` + ``invalid_tool_calls``.
    A source is used only if its client calls have the ids LangChain lists."""
    valid = list(getattr(message, "tool_calls", None) or [])
    invalid = list(getattr(message, "invalid_tool_calls", None) or [])
    expected = Counter(_id_of(c) for c in [*valid, *invalid])
    calls = _from_content(message.content)
    if calls is not None and Counter(c[2] for c in calls if not c[3]) == expected:
        calls = _distrust_cut(calls, message)
    else:
        raw = _from_openai(getattr(message, "additional_kwargs", None))
        servers = [c for c in calls or [] if c[3]]
        if raw is not None and Counter(c[2] for c in raw) == expected:
            calls = [*raw, *servers]
        else:
            calls = _from_lists(valid, invalid, message) + servers
    signals: list[Signal] = []
    for number, (name, args, id_, server, error) in enumerate(calls):
        if error is not None:
            raw_args = args if isinstance(args, str) else dumps_or_none(args)
            signals.append(CallFailure(error=error, index=number, id=id_, name=name, args=raw_args))
            continue
        signals.append(ToolCallChunk(name=name, args=args, id=id_, index=number))
        if server:
            signals.append(ServerToolUse(index=number))
    return signals


_Found = tuple[str | None, Any, str | None, bool, str | None]  # name, args, id, server, error


def _id_of(call: Any) -> str | None:
    id_ = call.get("id") if isinstance(call, Mapping) else None
    return id_ if isinstance(id_, str) and id_ else None


def _from_content(content: Any) -> list[_Found] | None:
    if not isinstance(content, list):
        return None
    found: list[_Found] = []
    for block in content:
        if not isinstance(block, Mapping):
            continue
        kind = block.get("type")
        name = _str_or_none(block.get("name"))
        id_ = _str_or_none(block.get("id")) or None
        if kind in ("tool_use", "server_tool_use"):
            text = block.get("partial_json")
            args: Any = text if isinstance(text, str) and text else block.get("input")
            server = kind == "server_tool_use" or _is_server_id(id_)
            found.append((name, args if args is not None else {}, id_, server, None))
        elif kind in ("tool_call", "server_tool_call", "server_tool_call_chunk"):
            args = block.get("args")
            server = kind != "tool_call" or _is_server_id(id_)
            found.append((name, args if args is not None else {}, id_, server, None))
        elif kind == "invalid_tool_call":
            error = block.get("error")
            found.append(
                (
                    name,
                    block.get("args"),
                    id_,
                    False,
                    error if isinstance(error, str) else "invalid",
                )
            )
    return found if found else None


def _distrust_cut(calls: list[_Found], message: BaseMessage) -> list[_Found]:
    """When a token limit cut the message, its last client call is invalid if its
    arguments came already parsed (a v1 ``tool_call`` block: LangChain parsed them
    leniently, so a cut ``{"a": "b`` reads as valid); text arguments (``partial_json``)
    are judged by the assembler itself."""
    end = _end_of(message)
    reason = end.reason if end is not None else None
    if reason is None or reason.lower() not in TRUNCATION_REASONS:
        return calls
    for number in range(len(calls) - 1, -1, -1):
        name, args, id_, server, error = calls[number]
        if server:
            continue
        if error is None and not isinstance(args, str):
            calls = list(calls)
            calls[number] = (
                name,
                args,
                id_,
                False,
                f"the message was cut off by the token limit (finish reason {reason!r}) "
                "while this call was the last one: its arguments may be incomplete",
            )
        break
    return calls


def _from_openai(kwargs: Any) -> list[_Found] | None:
    raw = kwargs.get("tool_calls") if isinstance(kwargs, Mapping) else None
    if not isinstance(raw, list) or not raw:
        return None
    found: list[_Found] = []
    for entry in raw:
        function = entry.get("function") if isinstance(entry, Mapping) else None
        if not isinstance(function, Mapping):
            return None
        arguments = function.get("arguments")
        found.append(
            (
                _str_or_none(function.get("name")),
                arguments if isinstance(arguments, str) else "",
                _str_or_none(entry.get("id")) or None,
                False,
                None,
            )
        )
    return found


def _from_lists(valid: list[Any], invalid: list[Any], message: BaseMessage) -> list[_Found]:
    """LangChain's lists (valid then invalid, or by ``index`` when every call has one).

    Their arguments may have been parsed leniently (a cut-off ``{"a": "b`` reads as
    valid), so when the message was cut off by a token limit, the last valid call is
    reported as possibly cut off (invalid) rather than trusted, unless an invalid call's
    argument text is itself cut off (a prefix of JSON): that one is the call the limit
    cut (a non-streamed message, parsed strictly), and the valid calls are complete."""
    calls: list[tuple[Any, bool]] = [(c, False) for c in valid] + [(c, True) for c in invalid]
    if calls and all(type(c.get("index")) is int for c, _ in calls):
        calls.sort(key=lambda pair: pair[0]["index"])
    found: list[_Found] = []
    for call, bad in calls:
        name = _str_or_none(call.get("name"))
        id_ = _str_or_none(call.get("id")) or None
        if bad:
            error = call.get("error")
            found.append((name, call.get("args"), id_, False, error or "invalid tool call"))
        else:
            args = call.get("args")
            found.append((name, args if args is not None else {}, id_, _is_server_id(id_), None))
    end = _end_of(message)
    reason = end.reason if end is not None else None
    cut_found = any(error is not None and _is_cut_text(args) for _, args, _, _, error in found)
    if reason is not None and reason.lower() in TRUNCATION_REASONS and not cut_found:
        for number in range(len(found) - 1, -1, -1):
            name, args, id_, server, error = found[number]
            if error is None and not server:
                found[number] = (
                    name,
                    args,
                    id_,
                    False,
                    f"the message was cut off by the token limit (finish reason {reason!r}) "
                    "while this call was the last one: its arguments may be incomplete",
                )
                break
    return found


def _is_cut_text(args: Any) -> bool:
    """Whether ``args`` is JSON text that ended before its value did (a prefix of valid
    JSON, as a token limit leaves it): then that invalid call is the one the limit cut,
    and the valid calls are complete. Malformed text is not a cut. Cost: O(len(args))."""
    if not isinstance(args, str) or not args.strip():
        return False
    parser = PartialJSONParser()
    try:
        parser.feed(args)
        parser.close()
    except IncompleteJSONError:
        return True
    except PartialJSONError:
        return False
    return False


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
