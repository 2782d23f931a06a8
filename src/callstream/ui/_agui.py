"""AG-UI: a turn's updates and tool results as AG-UI events (camelCase dicts).

:class:`AGUIEncoder` is sans-I/O: :meth:`~AGUIEncoder.start`, then
:meth:`~AGUIEncoder.feed` for every item (a :class:`~callstream.StreamUpdate`, or a
tool event of :class:`~callstream.ToolRunner`), then :meth:`~AGUIEncoder.close` (or
:meth:`~AGUIEncoder.fail` when the source raised); each returns the events to send.
:func:`callstream.ui.agui_stream` frames them as server-sent events.

What is sent, per kind of input:

- start: ``RUN_STARTED`` (``threadId``, ``runId``).
- assistant text (``StreamUpdate.text``): ``TEXT_MESSAGE_START`` (``messageId``, role
  ``assistant``) before the first piece of a text block, ``TEXT_MESSAGE_CONTENT``
  (``messageId``, ``delta``) per non-empty piece, ``TEXT_MESSAGE_END`` when a tool call
  starts or the turn ends (text after a tool call is a new message, ``<messageId>-2`` ...).
  Reasoning text is not sent.
- :class:`~callstream.CallStarted`: ``TOOL_CALL_START`` (``toolCallId``,
  ``toolCallName``, ``parentMessageId`` = the turn's message id). The id is the
  provider's, or ``call_<n>`` for calls without one (Gemini, Ollama), unique in the run.
- :class:`~callstream.ArgumentsDelta`: ``TOOL_CALL_ARGS`` (``toolCallId``, ``delta`` = the
  raw argument text, exactly as streamed): the deltas of one call concatenate to its
  argument text, each byte once, in order; a call that arrived whole gets its JSON
  text in one delta.
- :class:`~callstream.CallDone`: ``TOOL_CALL_END``; a call that streamed no argument
  text at all (a tool without parameters) first gets its arguments (``{}``) as one
  ``TOOL_CALL_ARGS``, so a client always has JSON to parse; when the provider replaced the
  arguments at the end (a ``CallEnd`` with other text, rare), first a ``CUSTOM`` event
  ``callstream.tool_call_arguments`` with ``{"toolCallId", "arguments"}`` (AG-UI
  has no event that replaces streamed arguments).
- :class:`~callstream.CallInvalid`: ``TOOL_CALL_END`` (if started), then ``CUSTOM``
  ``callstream.tool_call_invalid`` with ``{"toolCallId", "toolCallName", "error",
  "arguments"}`` (the raw text): never silent.
- server-side tools (run by the provider: hosted web search, code interpreter, MCP
  calls ...): no tool-call events, which would tell a client to run the tool or wait for
  a result that never comes from us; at the call's end one ``CUSTOM`` event
  ``callstream.server_tool_call`` with ``{"toolCallId", "toolCallName", "arguments"}``
  (the final object, ``{}`` for an invalid one; plus ``error``, why, for an invalid
  one), so that a user sees what the provider ran (its status often changes after its
  arguments end: it is in the result's ``server_tool_calls`` extras, not here).
- tool results (``ToolFinished`` / ``ToolFailed`` / ``ToolCancelled`` of a started call):
  ``TOOL_CALL_RESULT`` (``messageId``, ``toolCallId``, ``content`` = the output as text
  or the error text, role ``tool``).
- close: ends what is open, then ``RUN_FINISHED`` (``threadId``, ``runId``); a turn whose
  stream ended with an error (finish reason ``"error"``) ends with ``RUN_ERROR``
  (``message`` = what the provider said, the result's ``provider_error``; ``code``
  ``"provider_error"``) instead.
- fail (the source raised): the calls still open end as ``collect()`` ends them
  (``TOOL_CALL_END``; one whose text is not a complete object also gets the
  ``callstream.tool_call_invalid`` event, "the stream was interrupted before the call
  completed (...)"), then ``RUN_ERROR`` (``message`` = the exception, ``code``
  ``"stream_failed"``); nothing may follow it.

Cost: O(size of the item) per item: text and argument deltas are passed on as they
came; a call's streamed text is joined and decoded once, at its end (to notice a
replacement). Nothing is sent after ``RUN_FINISHED`` / ``RUN_ERROR``.
"""

from __future__ import annotations

from typing import Any

from callstream._assembly.types import (
    ArgumentsDelta,
    CallDone,
    CallInvalid,
    CallStarted,
    StreamFinished,
)
from callstream._errors import UsageError
from callstream._json.dump import dumps_bounded
from callstream._json.pieces import Text
from callstream._result import StreamUpdate
from callstream.runner._results import ToolCancelled, ToolFailed, ToolFinished
from callstream.ui._turn_state import (
    TurnIds,
    check_item,
    interrupted_error,
    new_id,
    streamed_matches,
    verdict_at_failure,
)

__all__ = ("AGUIEncoder",)

Event = dict[str, Any]


class AGUIEncoder:
    """Turns one turn's items into AG-UI events (see the module docstring).

    Args:
        thread_id: the AG-UI thread (default: a new random id).
        run_id: the run (default: a new random id).
        message_id: the assistant message the text and tool calls belong to (default:
            a new random id).
    """

    __slots__ = (
        "_calls",
        "_done",
        "_error",
        "_segments",
        "_started",
        "_text_id",
        "message_id",
        "run_id",
        "thread_id",
    )

    def __init__(
        self,
        *,
        thread_id: str | None = None,
        run_id: str | None = None,
        message_id: str | None = None,
    ) -> None:
        for name, value in (
            ("thread_id", thread_id),
            ("run_id", run_id),
            ("message_id", message_id),
        ):
            if value is not None and not isinstance(value, str):
                raise UsageError(f"{name} must be a str or None, got {value!r:.60}")
        self.thread_id = thread_id or new_id("thread")
        self.run_id = run_id or new_id("run")
        self.message_id = message_id or new_id("msg")
        self._calls = TurnIds()
        self._text_id: str | None = None  # the open text message, if any
        self._segments = 0  # text messages opened so far
        self._started = False
        self._done = False
        self._error: str | None = None  # the stream's own error (finish reason "error")

    def start(self) -> list[Event]:
        """``RUN_STARTED``. Raises :class:`UsageError` when called twice."""
        if self._started:
            raise UsageError("start() was already called")
        self._started = True
        return [{"type": "RUN_STARTED", "threadId": self.thread_id, "runId": self.run_id}]

    def feed(self, item: Any) -> list[Event]:
        """The events for one item (an update or a tool event of a ``ToolRunner``).

        Raises:
            UsageError: before :meth:`start`, after :meth:`close` / :meth:`fail`, or an
                item of another kind (raw chunks: pass them through ``stream()`` first).
        """
        self._check_open()
        out: list[Event] = []
        if isinstance(item, StreamUpdate):
            text = item.text
            if text:
                self._text(text, out)
            for event in item.events:
                self._event(event, out)
        elif isinstance(item, (ToolFinished, ToolFailed, ToolCancelled)):
            index = item.index
            if index in self._calls.started:
                out.append(
                    {
                        "type": "TOOL_CALL_RESULT",
                        "messageId": f"{self.message_id}-result-{index}",
                        "toolCallId": self._calls.call_id(index, None),
                        "content": item.result.content,
                        "role": "tool",
                    }
                )
        else:
            check_item(item)
        return out

    def close(self) -> list[Event]:
        """End what is open, then ``RUN_FINISHED`` (or ``RUN_ERROR`` for a stream that
        ended with a provider error)."""
        self._check_open()
        out: list[Event] = []
        self._end_all(out)
        self._done = True
        if self._error is not None:
            out.append({"type": "RUN_ERROR", "message": self._error, "code": "provider_error"})
        else:
            out.append({"type": "RUN_FINISHED", "threadId": self.thread_id, "runId": self.run_id})
        return out

    def fail(self, exc: BaseException | str) -> list[Event]:
        """The source or run failed: the calls still open end as the assembler ends them
        (``TOOL_CALL_END``, and for one whose text is not a complete object the
        ``callstream.tool_call_invalid`` event), then ``RUN_ERROR``; the encoder is done."""
        self._check_open()
        out: list[Event] = []
        self._end_text(out)
        calls = self._calls
        for index in calls.open_calls():
            text = calls.end(index) or ""
            call_id = calls.call_id(index, None)
            out.append({"type": "TOOL_CALL_END", "toolCallId": call_id})
            if verdict_at_failure(text) is None:
                value = {
                    "toolCallId": call_id,
                    "toolCallName": calls.names.get(index),
                    "error": interrupted_error(exc),
                    "arguments": text or None,
                }
                out.append(
                    {"type": "CUSTOM", "name": "callstream.tool_call_invalid", "value": value}
                )
        self._done = True
        message = exc if isinstance(exc, str) else f"{type(exc).__name__}: {exc}"
        out.append({"type": "RUN_ERROR", "message": message, "code": "stream_failed"})
        return out

    # --- internals ----------------------------------------------------------------------

    def _check_open(self) -> None:
        if not self._started:
            raise UsageError("call start() first")
        if self._done:
            raise UsageError("this run is over (close() or fail() was called)")

    def _text(self, text: str, out: list[Event]) -> None:
        if self._text_id is None:
            self._segments += 1
            n = self._segments
            self._text_id = self.message_id if n == 1 else f"{self.message_id}-{n}"
            out.append(
                {"type": "TEXT_MESSAGE_START", "messageId": self._text_id, "role": "assistant"}
            )
        out.append({"type": "TEXT_MESSAGE_CONTENT", "messageId": self._text_id, "delta": text})

    def _end_text(self, out: list[Event]) -> None:
        if self._text_id is not None:
            out.append({"type": "TEXT_MESSAGE_END", "messageId": self._text_id})
            self._text_id = None

    def _end_all(self, out: list[Event]) -> None:
        self._end_text(out)
        calls = self._calls
        for index in calls.open_calls():
            calls.ended.add(index)
            out.append({"type": "TOOL_CALL_END", "toolCallId": calls.call_id(index, None)})

    def _event(self, event: Any, out: list[Event]) -> None:
        calls = self._calls
        if isinstance(event, ArgumentsDelta):
            index = event.index
            if index in calls.started and index not in calls.ended and event.text:
                calls.add_text(index, event.text)
                call_id = calls.call_id(index, None)
                out.append({"type": "TOOL_CALL_ARGS", "toolCallId": call_id, "delta": event.text})
        elif isinstance(event, CallStarted):
            if event.server:
                return
            self._end_text(out)
            index = event.index
            calls.started.add(index)
            calls.args[index] = Text()
            calls.names[index] = event.name
            out.append(
                {
                    "type": "TOOL_CALL_START",
                    "toolCallId": calls.call_id(index, event.id),
                    "toolCallName": event.name,
                    "parentMessageId": self.message_id,
                }
            )
        elif isinstance(event, CallDone):
            self._done_call(event, out)
        elif isinstance(event, CallInvalid):
            self._invalid_call(event, out)
        elif isinstance(event, StreamFinished):
            if event.reason == "error":
                self._error = (
                    event.provider_error or "the provider reported an error and ended the stream"
                )
            self._end_all(out)

    def _server_call(self, index: int, call: Any, error: str | None, out: list[Event]) -> None:
        """The ``callstream.server_tool_call`` event of a server call's end."""
        args = call.get("args")
        value: dict[str, Any] = {
            "toolCallId": self._calls.call_id(index, call.get("id")),
            "toolCallName": call.get("name") or "",
            "arguments": args if isinstance(args, dict) else {},
        }
        if error is not None:
            value["error"] = error
        out.append({"type": "CUSTOM", "name": "callstream.server_tool_call", "value": value})

    def _done_call(self, event: CallDone, out: list[Event]) -> None:
        calls = self._calls
        index = event.index
        if event.server:
            self._server_call(index, event.tool_call, None, out)
            return
        if index not in calls.started or index in calls.ended:
            return
        call_id = calls.call_id(index, None)
        final = event.tool_call["args"]
        streamed = calls.args.pop(index, None)
        text = streamed.value() if streamed is not None else ""
        if not text:  # no text came (a tool without arguments): its arguments are {}
            delta = dumps_bounded(final, max_depth=None, strict=True, separators=(",", ":"))
            out.append({"type": "TOOL_CALL_ARGS", "toolCallId": call_id, "delta": delta})
        elif not streamed_matches(text, final):
            out.append(
                {
                    "type": "CUSTOM",
                    "name": "callstream.tool_call_arguments",
                    "value": {"toolCallId": call_id, "arguments": final},
                }
            )
        calls.ended.add(index)
        out.append({"type": "TOOL_CALL_END", "toolCallId": call_id})

    def _invalid_call(self, event: CallInvalid, out: list[Event]) -> None:
        if event.server:
            invalid = event.invalid_tool_call
            error = invalid.get("error") or "invalid tool call"
            self._server_call(event.index, invalid, error, out)
            return
        calls = self._calls
        index = event.index
        invalid = event.invalid_tool_call
        call_id = calls.call_id(index, invalid.get("id"))
        if index in calls.started and index not in calls.ended:
            calls.ended.add(index)
            calls.args.pop(index, None)
            out.append({"type": "TOOL_CALL_END", "toolCallId": call_id})
        out.append(
            {
                "type": "CUSTOM",
                "name": "callstream.tool_call_invalid",
                "value": {
                    "toolCallId": call_id,
                    "toolCallName": invalid.get("name"),
                    "error": invalid.get("error"),
                    "arguments": invalid.get("args"),
                },
            }
        )
