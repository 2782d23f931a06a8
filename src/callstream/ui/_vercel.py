"""The Vercel AI SDK UI message stream (v1): a turn as the chunks ``useChat`` reads.

:class:`VercelEncoder` is sans-I/O like :class:`~callstream.ui.AGUIEncoder`: ``start``,
``feed`` per item, then ``close`` (or ``fail``); each returns chunk dicts.
:func:`callstream.ui.vercel_stream` frames them as server-sent events and ends with
``data: [DONE]``; send them with :data:`VERCEL_HEADERS` (``content-type:
text/event-stream`` and ``x-vercel-ai-ui-message-stream: v1``).

What is sent, per kind of input:

- start: ``start`` (``messageId``).
- assistant text: ``text-start`` (``id``) before the first piece of a text block,
  ``text-delta`` (``id``, ``delta``) per non-empty piece, ``text-end`` when a tool call
  starts or the turn ends. Reasoning text (``StreamUpdate.reasoning``, only present when
  the stream was read with ``reasoning=True``): ``reasoning-start`` / ``-delta`` /
  ``-end`` likewise, when the encoder was made with ``reasoning=True``.
- :class:`~callstream.CallStarted`: ``tool-input-start`` (``toolCallId``, ``toolName``);
  ids as in AG-UI (the provider's, else ``call_<n>``).
- :class:`~callstream.ArgumentsDelta`: ``tool-input-delta`` (``toolCallId``,
  ``inputTextDelta`` = the raw argument text as streamed).
- :class:`~callstream.CallDone`: ``tool-input-available`` (``toolCallId``, ``toolName``,
  ``input`` = the final arguments object, the strict parse).
- :class:`~callstream.CallInvalid`: ``tool-input-error`` (``toolCallId``, ``toolName``,
  ``input`` = the raw argument text or null, ``errorText`` = why it is invalid).
- server-side tools: ``tool-input-start`` / ``-delta`` / ``-available`` (or
  ``-error``) with ``providerExecuted: true`` (the provider runs them; no output
  follows from us).
- tool results of :class:`~callstream.ToolRunner`: ``tool-output-available``
  (``toolCallId``, ``output`` = the output as JSON data,
  :attr:`~callstream.runner.ToolResult.output_json`) for a tool that returned;
  ``tool-output-error`` (``toolCallId``, ``errorText``) for one that failed or was
  cancelled (not for a call that already got ``tool-input-error``).
- close: ends open text, then ``finish`` (``finishReason``: ``tool-calls``, ``stop``,
  ``length``, ``content-filter``, ``error`` or ``other``, from the stream's finish reason;
  ``tool-calls`` for a turn that made tool calls and ended with a plain stop, as Gemini
  and Ollama end every turn); a stream the provider ended with an error gets an
  ``error`` chunk (``errorText`` = what the provider said, the result's
  ``provider_error``) before that ``finish``.
- fail (the source raised): the calls still open end as ``collect()`` ends them
  (``tool-input-available`` when their text is a complete object, else
  ``tool-input-error``: "the stream was interrupted before the call completed (...)"),
  then ``error`` (``errorText``) and ``finish`` with ``finishReason`` ``error``.

Cost: O(size of the item) per item; the final ``input`` is the call's final arguments
(serialized once by the framing, never copied per chunk).
"""

from __future__ import annotations

from typing import Any, Final

from callstream._assembly.types import (
    ArgumentsDelta,
    CallDone,
    CallInvalid,
    CallStarted,
    StreamFinished,
)
from callstream._errors import UsageError
from callstream._result import StreamUpdate
from callstream.runner._results import ToolCancelled, ToolFailed, ToolFinished
from callstream.ui._turn_state import (
    TurnIds,
    check_item,
    interrupted_error,
    new_id,
    verdict_at_failure,
)

__all__ = ("VERCEL_HEADERS", "VercelEncoder", "finish_reason")

Chunk = dict[str, Any]

VERCEL_HEADERS: Final = {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    "connection": "keep-alive",
    "x-vercel-ai-ui-message-stream": "v1",
    "x-accel-buffering": "no",
}
"""The response headers of a UI message stream (what the AI SDK's own server sends)."""

_REASONS: Final = {
    "tool_calls": "tool-calls",
    "tool_use": "tool-calls",
    "tool_call": "tool-calls",
    "function_call": "tool-calls",
    "stop": "stop",
    "end_turn": "stop",
    "stop_sequence": "stop",
    "completed": "stop",
    "complete": "stop",
    "length": "length",
    "max_tokens": "length",
    "content_filter": "content-filter",
    "content_filtered": "content-filter",
    "safety": "content-filter",
    "guardrail_intervened": "content-filter",
    "refusal": "content-filter",
    "error": "error",
}


def finish_reason(reason: str | None) -> str:
    """The AI SDK's finish reason for a stream's finish reason (``"other"`` when unknown)."""
    if reason is None:
        return "other"
    return _REASONS.get(reason.lower(), "other")


class VercelEncoder:
    """Turns one turn's items into UI message stream chunks (see the module docstring).

    Args:
        message_id: the assistant message's id (default: a new random id).
        reasoning: also send reasoning text (``reasoning-*`` chunks).
    """

    __slots__ = (
        "_called",
        "_calls",
        "_done",
        "_input_failed",
        "_provider_error",
        "_reason",
        "_reasoning_id",
        "_segments",
        "_server",
        "_started",
        "_text_id",
        "message_id",
        "reasoning",
    )

    def __init__(self, *, message_id: str | None = None, reasoning: bool = False) -> None:
        if message_id is not None and not isinstance(message_id, str):
            raise UsageError(f"message_id must be a str or None, got {message_id!r:.60}")
        if not isinstance(reasoning, bool):
            raise UsageError(f"reasoning must be a bool, got {reasoning!r:.60}")
        self.message_id = message_id or new_id("msg")
        self.reasoning = reasoning
        self._calls = TurnIds()
        self._server: set[int] = set()
        self._input_failed: set[int] = set()
        self._text_id: str | None = None
        self._reasoning_id: str | None = None
        self._segments = 0
        self._reason: str | None = None
        self._provider_error: str | None = None  # the stream's own error (reason "error")
        self._called = False  # a call the client runs (not server-side) was made
        self._started = False
        self._done = False

    def start(self) -> list[Chunk]:
        """``start``. Raises :class:`UsageError` when called twice."""
        if self._started:
            raise UsageError("start() was already called")
        self._started = True
        return [{"type": "start", "messageId": self.message_id}]

    def feed(self, item: Any) -> list[Chunk]:
        """The chunks for one item (an update or a tool event of a ``ToolRunner``).

        Raises:
            UsageError: before :meth:`start`, after :meth:`close` / :meth:`fail`, or an
                item of another kind (raw chunks: pass them through ``stream()`` first).
        """
        self._check_open()
        out: list[Chunk] = []
        if isinstance(item, StreamUpdate):
            if self.reasoning and item.reasoning:
                self._delta("reasoning", item.reasoning, out)
            if item.text:
                self._delta("text", item.text, out)
            for event in item.events:
                self._event(event, out)
        elif isinstance(item, (ToolFinished, ToolFailed, ToolCancelled)):
            index = item.index
            calls = self._calls
            if index not in calls.started or index in self._input_failed:
                return out
            call_id = calls.call_id(index, None)
            if isinstance(item, ToolFinished):
                out.append(
                    {
                        "type": "tool-output-available",
                        "toolCallId": call_id,
                        "output": item.result.output_json,
                    }
                )
            else:
                out.append(
                    {
                        "type": "tool-output-error",
                        "toolCallId": call_id,
                        "errorText": item.result.content,
                    }
                )
        else:
            check_item(item)
        return out

    def close(self) -> list[Chunk]:
        """End open text, then ``finish`` with the stream's finish reason (after an
        ``error`` chunk with the provider's message when it ended the stream with one)."""
        self._check_open()
        out: list[Chunk] = []
        self._end_blocks(out)
        self._done = True
        reason = finish_reason(self._reason)
        if reason == "error":
            message = self._provider_error or "the provider reported an error and ended the stream"
            out.append({"type": "error", "errorText": message})
        if reason == "stop" and self._called:  # Gemini, Ollama: "stop" after tool calls
            reason = "tool-calls"
        out.append({"type": "finish", "finishReason": reason})
        return out

    def fail(self, exc: BaseException | str) -> list[Chunk]:
        """``error`` for a source or run that failed, then ``finish`` (reason ``error``)."""
        self._check_open()
        out: list[Chunk] = []
        self._end_blocks(out)
        calls = self._calls
        for index in calls.open_calls():  # ended as collect() ends them
            text = calls.end(index) or ""
            call_id = calls.call_id(index, None)
            name = calls.names.get(index, "")
            value = verdict_at_failure(text)
            if value is not None:
                chunk: Chunk = {"type": "tool-input-available", "toolCallId": call_id}
                chunk.update(toolName=name, input=value)
            else:
                chunk = {"type": "tool-input-error", "toolCallId": call_id, "toolName": name}
                chunk.update(input=text or None, errorText=interrupted_error(exc))
            if index in self._server:
                chunk["providerExecuted"] = True
            out.append(chunk)
        self._done = True
        message = exc if isinstance(exc, str) else f"{type(exc).__name__}: {exc}"
        out.append({"type": "error", "errorText": message})
        out.append({"type": "finish", "finishReason": "error"})
        return out

    # --- internals ----------------------------------------------------------------------

    def _check_open(self) -> None:
        if not self._started:
            raise UsageError("call start() first")
        if self._done:
            raise UsageError("this message is over (close() or fail() was called)")

    def _delta(self, kind: str, text: str, out: list[Chunk]) -> None:
        attribute = "_text_id" if kind == "text" else "_reasoning_id"
        block: str | None = getattr(self, attribute)
        if block is None:
            self._segments += 1
            block = f"{kind}-{self._segments}"
            setattr(self, attribute, block)
            out.append({"type": f"{kind}-start", "id": block})
        out.append({"type": f"{kind}-delta", "id": block, "delta": text})

    def _end_blocks(self, out: list[Chunk]) -> None:
        if self._reasoning_id is not None:
            out.append({"type": "reasoning-end", "id": self._reasoning_id})
            self._reasoning_id = None
        if self._text_id is not None:
            out.append({"type": "text-end", "id": self._text_id})
            self._text_id = None

    def _event(self, event: Any, out: list[Chunk]) -> None:
        calls = self._calls
        if isinstance(event, ArgumentsDelta):
            index = event.index
            if index in calls.started and index not in calls.ended and event.text:
                call_id = calls.call_id(index, None)
                calls.add_text(index, event.text)
                out.append(
                    {
                        "type": "tool-input-delta",
                        "toolCallId": call_id,
                        "inputTextDelta": event.text,
                    }
                )
        elif isinstance(event, CallStarted):
            self._end_blocks(out)
            index = event.index
            calls.started.add(index)
            calls.names[index] = event.name
            chunk: Chunk = {
                "type": "tool-input-start",
                "toolCallId": calls.call_id(index, event.id),
                "toolName": event.name,
            }
            if event.server:
                self._server.add(index)
                chunk["providerExecuted"] = True
            out.append(chunk)
        elif isinstance(event, CallDone):
            index = event.index
            if calls.end(index) is None:
                return
            call = event.tool_call
            chunk = {
                "type": "tool-input-available",
                "toolCallId": calls.call_id(index, call["id"]),
                "toolName": call["name"],
                "input": call["args"],
            }
            if event.server or index in self._server:
                chunk["providerExecuted"] = True
            else:
                self._called = True
            out.append(chunk)
        elif isinstance(event, CallInvalid):
            index = event.index
            if calls.end(index) is None:
                return
            self._input_failed.add(index)
            invalid = event.invalid_tool_call
            chunk = {
                "type": "tool-input-error",
                "toolCallId": calls.call_id(index, invalid.get("id")),
                "toolName": invalid.get("name") or "",
                "input": invalid.get("args"),
                "errorText": invalid.get("error") or "invalid tool call",
            }
            if event.server or index in self._server:
                chunk["providerExecuted"] = True
            out.append(chunk)
        elif isinstance(event, StreamFinished):
            self._reason = event.reason
            self._provider_error = event.provider_error
            self._end_blocks(out)
