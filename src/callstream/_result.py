"""What a stream gives: one update per payload and the final result.

:class:`StreamUpdate` is what :meth:`~callstream._pipeline.Pipeline.feed` returns per
payload (defined in ``_update``, compiled in the compiled build), :class:`StreamResult` the outcome
of a whole stream, and :func:`attach_result` how an interrupted stream's result rides
on the source's exception. Pure data: no I/O, no translation, no assembly. The state
views the drivers' stream objects offer are :class:`callstream._sync.StreamState`.

Two modules for one concept because of the compiled build: ``StreamUpdate`` is built
per payload, so it is compiled; ``StreamResult`` is a public frozen dataclass
(``dataclasses.replace`` / ``fields`` / ``asdict``), which stays interpreted so it is
the same dataclass in both builds.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Any

from callstream._assembly.types import (
    InvalidToolCall,
    ServerToolCall,
    ToolCall,
)
from callstream._update import StreamUpdate

__all__ = ("StreamResult", "StreamUpdate", "attach_result")


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

