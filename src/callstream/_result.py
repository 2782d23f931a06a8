"""What a stream gives: one update per payload, the final result, and the state views.

:class:`StreamUpdate` is what :meth:`~callstream._pipeline.Pipeline.feed` returns per
payload (defined in ``_update``, compiled in the compiled build), :class:`StreamResult` the outcome
of a whole stream, :class:`StreamState` the views the drivers' stream objects offer (read
from their pipeline), and :func:`attach_result` how an interrupted stream's result rides
on the source's exception. Pure data: no I/O, no translation, no assembly.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from callstream._assembly.types import (
    InvalidToolCall,
    ServerToolCall,
    ToolCall,
)
from callstream._update import StreamUpdate

if TYPE_CHECKING:
    from callstream._pipeline import Pipeline

__all__ = ("StreamResult", "StreamState", "StreamUpdate", "attach_result")


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
        provider_error: what the provider said when it ended the stream with an error
            (``finish_reason`` ``"error"``): the message of its error event or error
            payload (Groq's "Tool choice is required, but model did not call a tool",
            Anthropic's "Overloaded", a Responses ``response.failed`` ...), also when an
            SDK raised it as an exception that callstream read (see
            :meth:`~callstream._pipeline.Pipeline.recover`). The one place for an error
            about the stream as a whole: a call the provider rejected is an invalid call
            with its own ``error``. None for any other end (an interrupted stream raises
            its exception instead).
        call_extras: facts about calls beyond LangChain's keys, by call id (OpenAI
            Responses items: their kind, ``namespace``, ``caller``, ``status``, a custom
            tool's ``input`` ...): see :attr:`ToolCallAssembler.call_extras`.
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
    provider_error: str | None = None
    call_extras: dict[str, dict[str, Any]] = field(default_factory=dict)


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
    def call_extras(self) -> dict[str, dict[str, Any]]:
        """Facts about calls beyond LangChain's keys, by call id (see
        :attr:`StreamResult.call_extras`)."""
        return self._pipeline.assembler.call_extras

    @property
    def finish_reason(self) -> str | None:
        """The finish reason, once the stream finished (see :class:`StreamResult`)."""
        return self._pipeline.assembler.finish_reason

    @property
    def provider_finish_reason(self) -> str | None:
        """The provider's own word for the finish reason, once the stream finished."""
        return self._pipeline.assembler.provider_finish_reason

    @property
    def provider_error(self) -> str | None:
        """The provider's message when it ended the stream with an error (see
        :class:`StreamResult`)."""
        return self._pipeline.assembler.provider_error
