"""What a stream gives: one update per payload, the final result, and the state views.

:class:`StreamUpdate` is what :meth:`~callstream._pipeline.Pipeline.feed` returns per
payload (built on the hot path by :data:`_new_update`), :class:`StreamResult` the outcome
of a whole stream, :class:`StreamState` the views the drivers' stream objects offer (read
from their pipeline), and :func:`attach_result` how an interrupted stream's result rides
on the source's exception. Pure data: no I/O, no translation, no assembly.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from callstream._assembly.types import (
    AssemblyEvent,
    InvalidToolCall,
    ServerToolCall,
    ToolCall,
)
from callstream._types import fast_constructor

if TYPE_CHECKING:
    from callstream._pipeline import Pipeline

__all__ = ("StreamResult", "StreamState", "StreamUpdate", "attach_result")


@dataclass(frozen=True, slots=True, kw_only=True)
class StreamUpdate:
    """What one payload changed, and the state of every call after it.

    Attributes:
        events: the assembly events this payload caused (often empty: text, usage...).
        tool_calls: the calls so far, best effort (final and valid once finished). The
            ``args`` of a call still streaming is a live view that keeps growing (it is
            the same object in every later update, so ``list(stream(...))`` shows the
            final args everywhere); :meth:`snapshot` keeps a copy of one update.
        invalid_tool_calls: the calls known to be invalid so far.
        finish_reason: the stream's finish reason once it finished, else None.
        payload: the decoded payload (None for the update that ends the stream).
        server_tool_calls: tools the provider runs itself (never in ``tool_calls``).
        text: the assistant text this payload carried (its pieces joined), ``""`` when
            none; text after the end of the stream is ignored.
        reasoning: the reasoning / thinking text this payload carried; always ``""``
            unless the stream was opened with ``reasoning=True``.
    """

    events: tuple[AssemblyEvent, ...]
    tool_calls: list[ToolCall]
    invalid_tool_calls: list[InvalidToolCall]
    finish_reason: str | None
    payload: Any = field(default=None, compare=False)
    server_tool_calls: list[ServerToolCall] = field(default_factory=list)
    text: str = ""
    reasoning: str = ""

    def snapshot(self) -> StreamUpdate:
        """This update with its calls frozen in time: the ``args`` are deep copies.

        The copy shares nothing mutable with the live views (``events`` and ``payload``
        are shared: events are immutable, the payload is the source's). Deeply nested
        arguments are copied without recursion.

        Cost: O(total size of the calls' arguments); the updates themselves cost O(1)
        because they share the live views, so copy only the ones you keep.
        """
        return StreamUpdate(
            events=self.events,
            tool_calls=[_copy_call(c) for c in self.tool_calls],
            invalid_tool_calls=[_copy_call(c) for c in self.invalid_tool_calls],
            finish_reason=self.finish_reason,
            payload=self.payload,
            server_tool_calls=[_copy_call(c) for c in self.server_tool_calls],
            text=self.text,
            reasoning=self.reasoning,
        )


def _copy_call(call: Any) -> Any:
    """A copy of one call dict whose ``args`` (and any other container) is deep-copied."""
    return {key: _copy_json(value) for key, value in call.items()}


def _copy_json(value: Any) -> Any:
    """Deep copy of dicts and lists (other values shared), iterative: O(size), no recursion."""
    if type(value) is not dict and type(value) is not list:
        return value
    root: Any = {} if type(value) is dict else []
    stack: list[tuple[Any, Any]] = [(value, root)]
    while stack:
        source, target = stack.pop()
        if type(source) is dict:
            for key, item in source.items():
                if type(item) is dict or type(item) is list:
                    copy: Any = {} if type(item) is dict else []
                    stack.append((item, copy))
                    target[key] = copy
                else:
                    target[key] = item
        else:
            for item in source:
                if type(item) is dict or type(item) is list:
                    copy = {} if type(item) is dict else []
                    stack.append((item, copy))
                    target.append(copy)
                else:
                    target.append(item)
    return root


@dataclass(frozen=True, slots=True, kw_only=True)
class StreamResult:
    """The outcome of a whole stream (or of the part read so far).

    Attributes:
        tool_calls: the valid tool calls (LangChain ``ToolCall`` dicts).
        invalid_tool_calls: the invalid ones, each with an ``error``.
        finish_reason: why the stream ended, in one vocabulary for every format:
            ``"length"`` when a token limit cut the output (OpenAI ``length``,
            Anthropic / Bedrock ``max_tokens``, Gemini / Cohere ``MAX_TOKENS``,
            Responses ``incomplete``), ``"error"`` when the provider reported an error
            mid-stream, ``"tool_calls"`` / ``"stop"`` for a completed Responses stream
            (it has no finish reason of its own), ``"stop"`` for servers' ``eos`` /
            ``eos_token``; any other reason is the provider's word unchanged
            (``tool_use``, ``end_turn``, ``STOP``, ``TOOL_CALL`` ...). None if the stream
            gave none (or was interrupted).
        provider: the format name the stream was read as, None if never recognized.
        finished: whether the stream was read to its end.
        server_tool_calls: tools the provider ran itself (server-side tools such as web
            search or code execution), as LangChain ``server_tool_call`` blocks.
        interrupted: the source raised before the end (a dropped connection, say): the
            calls that had not completed are in ``invalid_tool_calls``, ``finished`` is
            False and ``finish_reason`` None.
        provider_finish_reason: the word the provider sent for it (``"max_tokens"``,
            ``"MAX_TOKENS"``, ``"completed"`` for Responses, the ``incomplete_details``
            reason ...), None when it sent none (error events, interrupted streams).
        text: the whole assistant text so far, in stream order (every update's
            ``text`` joined).
        reasoning: the whole reasoning / thinking text so far; always ``""`` unless the
            stream was opened with ``reasoning=True``.
    """

    tool_calls: list[ToolCall]
    invalid_tool_calls: list[InvalidToolCall]
    finish_reason: str | None
    provider: str | None = None
    finished: bool = True
    server_tool_calls: list[ServerToolCall] = field(default_factory=list)
    interrupted: bool = False
    provider_finish_reason: str | None = None
    text: str = ""
    reasoning: str = ""


_new_update: Callable[
    [
        tuple[AssemblyEvent, ...],
        list[ToolCall],
        list[InvalidToolCall],
        str | None,
        Any,
        list[ServerToolCall],
        str,
        str,
    ],
    StreamUpdate,
] = fast_constructor(StreamUpdate)
"""``StreamUpdate(...)`` with positional fields, built through the slots (hot path: one per
payload; the frozen dataclass constructor costs about 2.5 times more)."""


def attach_result(exc: BaseException, result: StreamResult) -> None:
    """Make ``result`` reachable from ``exc``: ``exc.callstream_result`` and a note.

    Never raises: an exception that refuses attributes (or notes) just goes without.
    """
    try:
        exc.callstream_result = result  # type: ignore[attr-defined]
    except Exception:
        return
    add_note = getattr(exc, "add_note", None)  # Python 3.11+
    if callable(add_note):
        with contextlib.suppress(Exception):
            add_note(
                "callstream: the stream was interrupted; the partial result is on this "
                f"exception as .callstream_result ({len(result.tool_calls)} complete tool "
                f"call(s), {len(result.invalid_tool_calls)} invalid)"
            )


class StreamState:
    """The state views both drivers' stream objects offer, read from their pipeline.

    Readable at any time, also after the iteration was closed or cancelled.
    """

    __slots__ = ()  # the driver classes are slotted; keep their instances free of __dict__

    _pipeline: Pipeline

    @property
    def result(self) -> StreamResult:
        """The result so far (final once the iteration ended)."""
        return self._pipeline.result()

    @property
    def tool_calls(self) -> list[ToolCall]:
        """The tool calls so far (valid and final once the iteration ended)."""
        return self._pipeline.assembler.tool_calls

    @property
    def invalid_tool_calls(self) -> list[InvalidToolCall]:
        """The invalid tool calls so far."""
        return self._pipeline.assembler.invalid_tool_calls

    @property
    def server_tool_calls(self) -> list[ServerToolCall]:
        """The server-side tool calls so far (run by the provider, not by you)."""
        return self._pipeline.assembler.server_tool_calls

    @property
    def finish_reason(self) -> str | None:
        """The finish reason, once the stream finished (see :class:`StreamResult`)."""
        return self._pipeline.assembler.finish_reason

    @property
    def provider_finish_reason(self) -> str | None:
        """The provider's own word for the finish reason, once the stream finished."""
        return self._pipeline.assembler.provider_finish_reason
