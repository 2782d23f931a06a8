"""A LangChain chat model that streams scripted tool calls the way a provider's integration does.

``FakeToolCallingChatModel`` answers each call with the next scripted turn: the turn's
calls (and text) written by :func:`~callstream.testing.stream_of` in a provider's wire
format, cut by a split, bent by quirks, then turned into ``AIMessageChunk`` objects the
way that provider's LangChain integration turns its stream into chunks (``STYLES``).
LangChain's own ``GenericFakeChatModel`` streams no ``tool_call_chunks``; this one does,
so code that merges chunks, reads ``tool_call_chunks`` or runs an agent loop meets the
chunks it meets in production. ``stream_events(version="v3")`` works through
langchain-core's bridge from ``_stream`` chunks to protocol events.

Needs ``langchain-core`` (the ``langchain`` extra); this module
imports it and is imported only when asked for (``callstream.testing`` does not import it).

How each style places ``index``, ``id`` and ``name`` (read from langchain-openai 1.8 and
langchain-anthropic 1.7):

- ``openai-chat`` (``ChatOpenAI``, Chat Completions): one chunk per ``delta``; each
  ``tool_calls`` entry becomes a tool-call chunk with the entry's ``index``, ``id``,
  ``function.name`` and ``function.arguments`` as sent (the id and name on the first
  fragment only, unless the server resends them: the ``resent-ids`` quirk, whose names
  LangChain's chunk addition then concatenates). A delta with an entry lacking ``index``
  gives no tool-call chunks at all (``ChatOpenAI`` drops them: ``missing-index``). The
  finish chunk carries ``finish_reason`` and ``model_name`` in ``response_metadata``.
- ``openai-responses`` (``ChatOpenAI`` with ``use_responses_api=True``): ``index`` counts
  the output items (a text part, a call) as they change; ``output_item.added`` of a
  ``function_call`` gives a tool-call chunk with ``id`` (the ``call_id``), ``name`` and
  ``args=""`` beside a ``function_call`` block; each arguments delta a tool-call chunk
  with ``index`` and ``args``; ``response.completed`` / ``response.incomplete`` gives the
  ``status`` (and ``incomplete_details``) and ``chunk_position="last"``, no finish reason.
- ``anthropic`` (``ChatAnthropic``): ``index`` is the content block's index (a text block
  before the calls moves them to 1, 2, ...); ``content_block_start`` gives a chunk with
  the ``tool_use`` block in ``content`` and a tool-call chunk with ``id``, ``name`` and
  ``args=""``; each ``input_json_delta`` gives the delta block in ``content`` and a
  tool-call chunk with only ``index`` and ``args``; ``message_delta`` gives the
  ``stop_reason`` and ``chunk_position="last"``.
- ``langchain``: the format-neutral chunks of ``stream_of(format="langchain")``
  (``index`` the call's position, ``id`` and ``name`` on its first chunk).

A provider error quirk (``provider-error``) raises :class:`FakeProviderError` from the
stream, carrying the provider's error body as ``body`` (as the openai and anthropic SDKs
do, so callstream's LangChain reader recovers from it); ``dropped-connection`` raises
:class:`~callstream.testing.StreamDropped`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.language_models.chat_models import agenerate_from_stream, generate_from_stream
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import PrivateAttr, field_validator

from callstream._errors import OptionTypeError, OptionValueError, ScriptExhaustedError
from callstream._json.dump import dumps_bounded
from callstream.testing._stream import QUIRKS, SPLITS, WireStream, stream_of

__all__ = ("STYLES", "FakeProviderError", "FakeToolCallingChatModel")

STYLES: tuple[str, ...] = ("openai-chat", "openai-responses", "anthropic", "langchain")
"""The chunk styles :class:`FakeToolCallingChatModel` streams in: ``ChatOpenAI``'s (Chat
Completions, and the Responses API with ``use_responses_api=True``), ``ChatAnthropic``'s,
and callstream's format-neutral ``langchain`` chunks."""

#: quirks a style cannot carry into LangChain chunks, and why
_UNSUPPORTED = {
    "arguments-object": "its integration expects argument text, not an object",
}


class FakeProviderError(RuntimeError):
    """Raised from a fake stream written with the ``provider-error`` quirk, as the provider's
    SDK raises it mid-stream; ``body`` is the error payload the server sent."""

    def __init__(self, body: Mapping[str, Any]) -> None:
        text = dumps_bounded(body, max_depth=None, ensure_ascii=True)
        super().__init__(f"provider error in the stream: {text[:200]}")
        self.body: dict[str, Any] = dict(body)


@dataclass(frozen=True)
class _Turn:
    """One scripted answer: the tool calls, the text before them, the turn's own quirks."""

    calls: tuple[Mapping[str, Any], ...] = ()
    text: str | None = None
    quirks: tuple[str, ...] | None = None


def _turn(value: Any, n: int) -> _Turn:
    if isinstance(value, str):
        return _Turn(text=value)
    if isinstance(value, Mapping) and "name" not in value:
        unknown = set(value) - {"calls", "text", "quirks"}
        if unknown:
            raise OptionValueError(
                f"turns[{n}] has unknown keys {sorted(unknown)}: calls, text, quirks"
            )
        quirks = value.get("quirks")
        return _Turn(
            tuple(value.get("calls", ())),
            value.get("text"),
            None if quirks is None else tuple(quirks),
        )
    if isinstance(value, Sequence) and all(isinstance(call, Mapping) for call in value):
        return _Turn(calls=tuple(value))
    raise OptionTypeError(
        f"turns[{n}] must be a list of tool calls, a text, or a mapping with calls / text / "
        f"quirks, not {value!r:.80}"
    )


# --- the chunk styles --------------------------------------------------------------------


def _openai_chat_chunk(payload: Mapping[str, Any]) -> AIMessageChunk:
    if "error" in payload:
        raise FakeProviderError(payload)
    choice = payload["choices"][0]
    delta = choice.get("delta") or {}
    chunks: list[Any] = []
    entries = delta.get("tool_calls") or []
    if all("index" in entry for entry in entries):  # ChatOpenAI drops the lot otherwise
        chunks = [
            tool_call_chunk(
                name=entry.get("function", {}).get("name"),
                args=entry.get("function", {}).get("arguments"),
                id=entry.get("id"),
                index=entry["index"],
            )
            for entry in entries
        ]
    metadata: dict[str, Any] = {"model_provider": "openai"}
    if choice.get("finish_reason"):
        metadata.update(finish_reason=choice["finish_reason"], model_name=payload.get("model"))
    return AIMessageChunk(
        content=delta.get("content") or "",
        tool_call_chunks=chunks,
        response_metadata=metadata,
    )


def _anthropic_chunk(payload: Mapping[str, Any], opened: dict[int, str]) -> AIMessageChunk | None:
    """The chunk ``ChatAnthropic`` makes of one event (``None`` for the events it skips:
    an empty text or thinking start, ``content_block_stop``, ``message_stop``)."""
    kind = payload.get("type")
    index = payload.get("index")
    metadata: dict[str, Any] = {"model_provider": "anthropic"}
    content: list[Any] = []
    pieces: list[Any] = []
    last = False
    if kind == "error":
        raise FakeProviderError(payload)
    if kind == "message_start":
        metadata["model_name"] = payload["message"].get("model")
    elif kind == "content_block_start" and isinstance(index, int):
        block = dict(payload["content_block"], index=index)
        opened[index] = block["type"]
        if block["type"] != "tool_use":
            return None
        content = [block]
        pieces = [tool_call_chunk(index=index, id=block["id"], name=block["name"], args="")]
    elif kind == "content_block_delta" and isinstance(index, int):
        delta = dict(payload["delta"], index=index)
        if delta["type"] == "input_json_delta":
            if opened.get(index) == "tool_use":
                args = delta["partial_json"]
                pieces = [tool_call_chunk(index=index, id=None, name=None, args=args)]
        else:
            delta["type"] = "thinking" if delta["type"] == "thinking_delta" else "text"
        content = [delta]
    elif kind == "message_delta":
        reason = payload["delta"].get("stop_reason")
        metadata.update(stop_reason=reason, stop_sequence=None)
        last = bool(reason)
    else:
        return None
    chunk = AIMessageChunk(content=content, tool_call_chunks=pieces, response_metadata=metadata)
    if last:
        chunk.chunk_position = "last"
    return chunk


class _Responses:
    """``ChatOpenAI``'s reading of a Responses stream (``use_responses_api=True``): the
    ``index`` of a block counts output items (and text parts) as they change."""

    def __init__(self) -> None:
        self.index = -1
        self.output: Any = None
        self.sub: Any = None

    def _advance(self, output: Any, sub: Any = None) -> int:
        if output != self.output or (sub is not None and sub != self.sub):
            self.index += 1
        if sub is not None:
            self.sub = sub
        self.output = output
        return self.index

    def chunk(self, payload: Mapping[str, Any]) -> AIMessageChunk | None:
        kind = payload.get("type")
        metadata: dict[str, Any] = {"model_provider": "openai"}
        content: list[Any] = []
        pieces: list[Any] = []
        item = payload.get("item") or {}
        extra: dict[str, Any] = {}
        if kind == "error":
            raise FakeProviderError(payload)
        if kind == "response.created":
            extra["id"] = metadata["id"] = payload["response"]["id"]
        elif kind in ("response.completed", "response.incomplete"):
            response = payload["response"]
            keep = ("created_at", "incomplete_details", "object", "status", "model")
            metadata.update({k: response[k] for k in keep if response.get(k) is not None})
            metadata["model_name"] = response.get("model")
            extra["chunk_position"] = "last"
        elif kind == "response.output_text.delta":
            index = self._advance(payload["output_index"], payload["content_index"])
            content = [{"type": "text", "text": payload["delta"], "index": index}]
        elif kind == "response.output_item.added" and item.get("type") == "function_call":
            index = self._advance(payload["output_index"])
            head = {"name": item["name"], "args": item["arguments"], "id": item["call_id"]}
            pieces = [{"type": "tool_call_chunk", **head, "index": index}]
            block = {"type": "function_call", "name": item["name"], "id": item["id"]}
            block.update(arguments=item["arguments"], call_id=item["call_id"], index=index)
            content = [block]
        elif kind == "response.function_call_arguments.delta":
            index = self._advance(payload["output_index"])
            pieces = [{"type": "tool_call_chunk", "args": payload["delta"], "index": index}]
            content = [{"type": "function_call", "arguments": payload["delta"], "index": index}]
        elif kind == "response.output_item.added" and item.get("type") == "reasoning":
            index = self._advance(payload["output_index"])
            self.sub = 0
            content = [dict(item, index=index)]
        elif kind == "response.reasoning_summary_text.delta":
            index = self._advance(payload["output_index"])
            summary = {"index": payload["summary_index"], "type": "summary_text"}
            summary["text"] = payload["delta"]
            content = [{"summary": [summary], "index": index, "type": "reasoning"}]
        elif not (kind == "response.output_item.added" and item.get("type") == "message"):
            return None  # the events ChatOpenAI skips (output_item.done, ...)
        return AIMessageChunk(
            content=content, tool_call_chunks=pieces, response_metadata=metadata, **extra
        )


def _langchain_chunk(payload: Mapping[str, Any]) -> AIMessageChunk:
    return AIMessageChunk(**{k: v for k, v in payload.items() if k != "type"})


def _chunks(payloads: Iterator[Any], style: str) -> Iterator[AIMessageChunk]:
    opened: dict[int, str] = {}
    responses = _Responses()
    for payload in payloads:
        chunk: AIMessageChunk | None
        if style == "openai-chat":
            chunk = _openai_chat_chunk(payload)
        elif style == "openai-responses":
            chunk = responses.chunk(payload)
        elif style == "anthropic":
            chunk = _anthropic_chunk(payload, opened)
        else:
            chunk = _langchain_chunk(payload)
        if chunk is not None:
            yield chunk


# --- the model ---------------------------------------------------------------------------


class FakeToolCallingChatModel(BaseChatModel):
    """A chat model that streams scripted tool calls in a provider's chunk style.

    Each call of the model (``invoke``, ``stream``, ``astream``, ``stream_events``, an
    agent's step) answers with the next of ``turns`` and records the messages it was sent
    (:attr:`received`), so a test can assert the tool results an agent sent back. Build
    it with keyword arguments, the fields below.

    Attributes:
        turns: the answers, in order: a list of ``ToolCall``-shaped dicts (``{"name",
            "args", "id"}``), a text, or a mapping with ``calls``, ``text`` (streamed
            before the calls) and ``quirks`` (this turn's, instead of the model's).
        format: the chunk style, one of :data:`STYLES`.
        split: how argument text is cut (:data:`~callstream.testing.Split`).
        quirks: quirk names of :data:`~callstream.testing.QUIRKS` that apply to
            ``format`` (``arguments-object`` excepted), for every turn without its own.
        seed: the seed of the ``random`` split (as :func:`~callstream.testing.stream_of`:
            0 by default, the same places in every run).

    Raises:
        ValueError: an unknown style, split or quirk, a quirk that does not apply to the
            style, quirks that cannot be combined or calls ``stream_of`` refuses (the
            message names the turn); a call after the last turn (the message says how
            many turns there were).
        TypeError: a turn of another type, a call that is not ``ToolCall``-shaped.

    Cost: each turn is written once when the model is built (to refuse bad turns then)
    and again when it is answered: what ``stream_of`` costs for its calls, plus one chunk
    object per payload; ``invoke`` adds LangChain's chunk addition (O(chunks x calls)).
    """

    turns: list[Any]
    format: str = "openai-chat"
    split: str = "token"
    quirks: tuple[str, ...] = ()
    seed: int = 0

    _turns: list[_Turn] = PrivateAttr(default_factory=list)
    _next: int = PrivateAttr(default=0)
    _received: list[list[BaseMessage]] = PrivateAttr(default_factory=list)
    _bound: list[dict[str, Any]] = PrivateAttr(default_factory=list)

    @field_validator("format")
    @classmethod
    def _known_style(cls, value: str) -> str:
        if value not in STYLES:
            raise OptionValueError(f"unknown chunk style {value!r}: one of {', '.join(STYLES)}")
        return value

    @field_validator("split")
    @classmethod
    def _known_split(cls, value: str) -> str:
        if value not in SPLITS:
            raise OptionValueError(f"unknown split {value!r}: one of {', '.join(SPLITS)}")
        return value

    def model_post_init(self, context: Any, /) -> None:
        """Reads the turns and checks every quirk named against the style."""
        super().model_post_init(context)
        self._turns = [_turn(value, n) for n, value in enumerate(self.turns)]
        for turn in (None, *self._turns):
            for quirk in self.quirks if turn is None else turn.quirks or ():
                self._check_quirk(quirk)
        for n, turn in enumerate(self._turns):
            try:
                self._write(turn)  # what stream_of refuses, refused now
            except (TypeError, ValueError) as exc:
                raise type(exc)(f"turns[{n}]: {exc}") from exc

    def _check_quirk(self, quirk: str) -> None:
        if quirk not in QUIRKS:
            raise OptionValueError(f"unknown quirk {quirk!r}: one of {', '.join(QUIRKS)}")
        if quirk in _UNSUPPORTED:
            raise OptionValueError(
                f"quirk {quirk!r} is not streamed as LangChain chunks: {_UNSUPPORTED[quirk]}"
            )
        if self.format not in QUIRKS[quirk].formats:
            raise OptionValueError(
                f"quirk {quirk!r} does not apply to the {self.format} style: it applies to "
                f"{', '.join(QUIRKS[quirk].formats)}"
            )

    @property
    def _llm_type(self) -> str:
        return "callstream-fake-tool-calling"

    @property
    def received(self) -> list[list[BaseMessage]]:
        """The messages of every call so far, one list per call, in order."""
        return self._received

    @property
    def bound_tools(self) -> list[dict[str, Any]]:
        """The tools of the last :meth:`bind_tools`, as OpenAI tool schemas."""
        return self._bound

    @property
    def calls_made(self) -> int:
        """How many turns have been answered."""
        return self._next

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | Any],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Records ``tools`` (as OpenAI tool schemas: :attr:`bound_tools`) and returns this
        model bound to them; the scripted turns do not depend on them. Cost: one schema
        conversion per tool."""
        self._bound = [convert_to_openai_tool(tool) for tool in tools]
        if tool_choice is not None:
            kwargs["tool_choice"] = tool_choice
        return self.bind(tools=self._bound, **kwargs)

    def _take(self, messages: list[BaseMessage]) -> Iterator[AIMessageChunk]:
        if self._next >= len(self._turns):
            raise ScriptExhaustedError(
                f"FakeToolCallingChatModel was called {self._next + 1} times but has "
                f"{len(self._turns)} turns"
            )
        turn = self._turns[self._next]
        self._next += 1
        self._received.append(list(messages))
        return _chunks(iter(self._write(turn)), self.format)

    def _write(self, turn: _Turn) -> WireStream:
        quirks: Any = self.quirks if turn.quirks is None else turn.quirks
        split: Any = self.split
        return stream_of(
            turn.calls,
            format=self.format,
            text=turn.text,
            split=split,
            quirks=quirks,
            seed=self.seed,
        )

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        for chunk in self._take(messages):
            yield ChatGenerationChunk(message=chunk)

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        for chunk in self._take(messages):
            yield ChatGenerationChunk(message=chunk)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return generate_from_stream(self._stream(messages, stop, run_manager, **kwargs))

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return await agenerate_from_stream(self._astream(messages, stop, run_manager, **kwargs))
